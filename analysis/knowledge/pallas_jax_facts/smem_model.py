"""How Mosaic GPU's lowering adds up a kernel's shared memory
("mosaicGpuSmemModel"), read from JAX's parsed source by both extractors.

mosaic_resources.py reads the numbers (alignment, barrier bytes, defaults);
this module reads the arithmetic the numbers are used in, each as a fact with
the line it is read from, so that the budget pallas-lsp computes (analysis/
passes/SmemBudget.h) is the one the installed JAX computes, and a JAX that
changes it is noticed (the fact is then missing or different, and the
analysis reports the budget as not known instead of a wrong number):

* ``allocationAligned``: ``Resources.__post_init__`` rounds every
  ``smem_scratch_bytes`` up to ``SMEM_ALIGNMENT``, so each allocation is
  rounded on its own (a 512-byte vector takes 1 KiB);
* ``siblingsCombine``: what ``Resources.or_`` does with two sizes ("max"),
  which ``_estimate_resources`` applies to the equations of one jaxpr:
  sibling ``run_scoped`` scopes, branches and loop bodies reuse memory;
* ``scopeAddsBody``: the ``run_scoped`` estimator returns its allocations
  ``+`` its body's estimate: nested scopes add;
* ``branchPrimitives``: the estimators that combine sub-jaxprs with ``or_``
  (cond's branches, while's cond and body);
* ``reductionPrimitives``: the primitives whose estimator requests
  ``ctx.reduction_scratch_bytes`` (every reduction reserves it);
* ``barriersAfterScratch``: ``lower_jaxpr_to_module`` passes Mosaic GPU the
  aligned scratch bytes first and the barriers after them, unrounded;
* ``refUnionMemberAlignment`` / ``refUnionCombine``: a ``plgpu.RefUnion``
  starts each member of a group at ``SMEM_ALIGNMENT`` and costs its largest
  group;
* ``pipelineSlots``: ``emit_pipeline`` stages each SMEM block as
  ``(max_concurrent_steps, *block)`` (``pipelineStepsClamped``: after
  clamping max_concurrent_steps to the grid's steps), and a
  ``pl.pallas_call`` pipelines over its ``sequential`` grid axes;
* ``limitCheck``: the comparison of ``_launch`` (``>``: a kernel at exactly
  the limit fits) and ``defaultLimitCapabilities``: the compute capabilities
  the comment above its default limit names (227 KiB "in compute
  capabilities 9.0 and 10.x").

Every fact is ``{"value": ..., "module": ..., "line": ...}``, or absent when
its pattern is not found.
"""

from __future__ import annotations

import ast
import re

LOWERING = "jax._src.pallas.mosaic_gpu.lowering"
PL_CORE = "jax._src.pallas.mosaic_gpu.core"
PIPELINE = "jax._src.pallas.mosaic_gpu.pipeline"
MGPU_CORE = "jax.experimental.mosaic.gpu.core"
MODULES = (LOWERING, PL_CORE, PIPELINE, MGPU_CORE)


def _find(tree, qualname):
  body, node = tree.body, None
  for part in qualname.split("."):
    node = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name == part), None)
    if node is None:
      return None
    body = node.body
  return node


def _leaf(node):
  return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _fact(value, module, node):
  return {"value": value, "module": module, "line": getattr(node, "lineno", 0)}


def _allocation_aligned(tree):
  post = _find(tree, "Resources.__post_init__")
  for node in ast.walk(post) if post else ():
    if (isinstance(node, ast.Call) and _leaf(node.func) == "align_to" and len(node.args) == 2
        and _leaf(node.args[0]) == "smem_scratch_bytes" and _leaf(node.args[1]) == "SMEM_ALIGNMENT"):
      return _fact(True, LOWERING, node)
  return None


def _siblings_combine(tree):
  or_ = _find(tree, "Resources.or_")
  for node in ast.walk(or_) if or_ else ():
    if isinstance(node, ast.keyword) and node.arg == "smem_scratch_bytes" and isinstance(node.value, ast.Call):
      return _fact(_leaf(node.value.func), LOWERING, node.value)
  return None


def _estimator_functions(tree):
  """{function name: (def node, [primitive names it is registered for])}."""
  out = {}
  for node in tree.body:
    if not isinstance(node, ast.FunctionDef):
      continue
    prims = []
    for deco in node.decorator_list:
      if isinstance(deco, ast.Call) and _leaf(deco.func) == "_register_resource_estimator" and deco.args:
        leaf = _leaf(deco.args[0])
        if leaf:
          prims.append(leaf[:-2] if leaf.endswith("_p") else leaf)
    if prims:
      out[node.name] = (node, prims)
  return out


def _scope_adds_body(estimators):
  for node, prims in estimators.values():
    if "run_scoped" not in prims:
      continue
    for ret in ast.walk(node):
      if (isinstance(ret, ast.Return) and isinstance(ret.value, ast.BinOp) and isinstance(ret.value.op, ast.Add)
          and isinstance(ret.value.right, ast.Call) and _leaf(ret.value.right.func) == "_estimate_resources"):
        return _fact(True, LOWERING, ret)
  return None


def _branch_primitives(estimators):
  names, line = [], 0
  for node, prims in estimators.values():
    uses_or = any(isinstance(n, (ast.Attribute, ast.Name)) and _leaf(n) == "or_" for n in ast.walk(node))
    recurses = sum(1 for n in ast.walk(node) if isinstance(n, ast.Call) and _leaf(n.func) == "_estimate_resources")
    if uses_or and recurses:
      names += prims
      line = line or node.lineno
  return {"value": sorted(names), "module": LOWERING, "line": line} if names else None


def _reduction_primitives(estimators):
  for node, prims in estimators.values():
    for ret in ast.walk(node):
      if (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call) and _leaf(ret.value.func) == "Resources"
          and any(k.arg == "smem_scratch_bytes" and _leaf(k.value) == "reduction_scratch_bytes"
                  for k in ret.value.keywords)):
        return {"value": sorted(prims), "module": LOWERING, "line": node.lineno}
  return None


def _barriers_after_scratch(tree):
  func = _find(tree, "lower_jaxpr_to_module")
  for node in ast.walk(func) if func else ():
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
      target = node.targets[0] if isinstance(node, ast.Assign) else node.target
      if _leaf(target) == "scratch_buffers" and isinstance(node.value, ast.List) and len(node.value.elts) >= 2:
        first, second = node.value.elts[0], node.value.elts[1]
        scratch_first = any(_leaf(n) == "smem_scratch_bytes" for n in ast.walk(first))
        barriers_second = _leaf(second) == "barriers"
        return _fact(scratch_first and barriers_second, LOWERING, node)
  return None


def _ref_union(tree):
  out = {}
  group = _find(tree, "_ref_group_size")
  for node in ast.walk(group) if group else ():
    if isinstance(node, ast.Call) and _leaf(node.func) == "align_to" and len(node.args) == 2 \
        and _leaf(node.args[1]) == "SMEM_ALIGNMENT":
      out["refUnionMemberAlignment"] = _fact("SMEM_ALIGNMENT", PL_CORE, node)
      break
  init = _find(tree, "RefUnion.__init__")
  for node in ast.walk(init) if init else ():
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
        and isinstance(node.args[0], ast.Call) and _leaf(node.args[0].func) == "map"
        and any(_leaf(a) == "_ref_group_size" for a in node.args[0].args)):
      out["refUnionCombine"] = _fact(node.func.id, PL_CORE, node)
      break
  return out


def _pipeline(tree):
  out = {}
  func = _find(tree, "emit_pipeline")
  for node in ast.walk(func) if func else ():
    if (isinstance(node, ast.Call) and _leaf(node.func) == "SMEM" and node.args
        and isinstance(node.args[0], ast.Tuple) and node.args[0].elts
        and isinstance(node.args[0].elts[0], ast.Name) and "pipelineSlots" not in out):
      out["pipelineSlots"] = _fact(node.args[0].elts[0].id, PIPELINE, node)
    if (isinstance(node, ast.If) and isinstance(node.test, ast.BoolOp)
        and any(isinstance(v, ast.Compare) and _leaf(v.left) == "max_concurrent_steps"
                and any(_leaf(c) == "num_steps" for c in v.comparators) for v in node.test.values)
        and any(isinstance(s, ast.Assign) and _leaf(s.targets[0]) == "max_concurrent_steps" for s in node.body)):
      out["pipelineStepsClamped"] = _fact(True, PIPELINE, node)
  return out


def _pallas_call_pipeline_grid(tree):
  func = _find(tree, "lower_pipelined_jaxpr_to_module")
  for node in ast.walk(func) if func else ():
    if isinstance(node, ast.Call) and _leaf(node.func) == "emit_pipeline":
      for kw in node.keywords:
        if kw.arg == "grid" and isinstance(kw.value, ast.Name):
          value = kw.value.id.replace("_grid", "")
          return _fact(value, LOWERING, node)
  return None


_CAPABILITIES = re.compile(r"compute\s+capabilit(?:y|ies)\s+([0-9][0-9.x]*(?:\s*(?:,|and|or)\s*[0-9][0-9.x]*)*)",
                           re.I)


def _limit(tree, source):
  out = {}
  launch = _find(tree, "_launch")
  for node in ast.walk(launch) if launch else ():
    if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and _leaf(node.test.left) == "smem_bytes"
        and len(node.test.ops) == 1 and any(_leaf(c) == "max_smem_bytes" for c in node.test.comparators)):
      op = {ast.Gt: ">", ast.GtE: ">="}.get(type(node.test.ops[0]))
      if op:
        out["limitCheck"] = _fact(op, MGPU_CORE, node)
    if (source and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "shared_memory_per_block_optin"):
      # The comment block just above the statement.
      lines = source.split("\n")
      comment, k = [], node.lineno - 2
      while 0 <= k < len(lines) and lines[k].strip().startswith("#"):
        comment.insert(0, lines[k].strip().lstrip("#").strip())
        k -= 1
      match = _CAPABILITIES.search(" ".join(comment))
      if match:
        caps = [c for c in re.split(r"\s*(?:,|and|or)\s*", match.group(1).strip()) if c]
        out["defaultLimitCapabilities"] = _fact(caps, MGPU_CORE, node)
  return out


def smem_model(tree_of, source_of):
  """The facts above; `tree_of(module)` -> ast.Module or None,
  `source_of(module)` -> its text or None (for the comment)."""
  out = {}
  lowering, core, pipeline, mgpu = (tree_of(m) for m in MODULES)
  if lowering is not None:
    estimators = _estimator_functions(lowering)
    for key, fact in (("allocationAligned", _allocation_aligned(lowering)),
                      ("siblingsCombine", _siblings_combine(lowering)),
                      ("scopeAddsBody", _scope_adds_body(estimators)),
                      ("branchPrimitives", _branch_primitives(estimators)),
                      ("reductionPrimitives", _reduction_primitives(estimators)),
                      ("barriersAfterScratch", _barriers_after_scratch(lowering)),
                      ("pallasCallPipelineGrid", _pallas_call_pipeline_grid(lowering))):
      if fact is not None:
        out[key] = fact
  if core is not None:
    out.update(_ref_union(core))
  if pipeline is not None:
    out.update(_pipeline(pipeline))
  if mgpu is not None:
    out.update(_limit(mgpu, source_of(MGPU_CORE)))
  return out
