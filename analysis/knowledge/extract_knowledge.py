#!/usr/bin/env python3
"""Extract pallas-lsp's JAX knowledge table from an installed JAX.

Run it with the interpreter whose JAX you want described:

    python extract_knowledge.py [-o OUT.json]

It writes one JSON object (schema below) with keys sorted, so two runs against
the same JAX produce byte-identical output and a bundled table diffs cleanly.

Nothing here is hand-copied from JAX: every fact is read from the live objects
and registries of the imported JAX (or, for error texts, from the AST of the
JAX module that raises them). Every lookup is guarded, because modules and
attributes move between JAX versions (0.10 .. 0.12+); a fact that cannot be
found is recorded as missing (null / "found": false) instead of failing.

How each fact is obtained (also written into the table under "methods"):

* API -> primitives: the bytecode of each public function of
  ``jax.experimental.pallas`` (pl) and ``jax.experimental.pallas.mosaic_gpu``
  (plgpu), including its nested functions (closures, decorators' wrappers), is
  scanned for global-and-attribute chains (``LOAD_GLOBAL x; LOAD_ATTR y``)
  that resolve, in the function's own globals, to ``jax.core.Primitive``
  objects. Functions of JAX's Pallas/state modules reached the same way are
  followed up to ``TRANSITIVE_DEPTH`` calls deep ("bindsTransitive").
  Bytecode scanning was chosen over tracing because most APIs need a real
  kernel context (refs of the right memory space, barriers, layouts) to trace;
  the tests trace the key ones (inline_mgpu) to confirm the scan.
* Discharge: membership in ``jax._src.state.discharge._discharge_rules`` /
  ``_partial_discharge_rules``. A rule "raises" when, after its docstring and
  ``del`` statements, its first statement is a ``raise``; the raised message
  is taken from the rule's AST. The primitives a rule binds itself
  (``wgmma_p.bind`` in wgmma_ref's rule) are its "binds": the functional
  form the discharged equation becomes, lowered like any value primitive. For
  a full (not partial) rule, "writesOperands" are the positions of the
  non-None entries of the new-operand tuple its ``return`` statements build
  (null when not a literal): a full rule cannot tell which operands are
  being discharged, and one that writes an operand that is not fails.
* Ref indexing: for allocations whose Ref type overrides indexing (a
  ``plgpu.ACC`` makes a ``WGMMAAbstractAccumulatorRef``), the primitives its
  ``_getitem`` / ``_setitem`` bind, following the functions they import
  inside their bodies ("refIndexing"; null for an operation that is not
  overridden, i.e. plain ``get`` / ``swap``).
* Conditional binds: an API whose own code has a ``return`` before its first
  ``.bind(...)`` call ("returnsBeforeBind", e.g. ``pl.broadcast_to`` returns
  its input unchanged when the shape already matches) may bind nothing;
  when that return's condition compares an operand's shape with a shape
  parameter, "returnsBeforeBindIf" names the two parameters.
* GPU interpret mode: the ``match eqn.primitive`` statement of
  ``JaxprInterpreter.interpret`` is parsed; each ``case module.prim_p:`` is
  resolved to its Primitive. Arms whose body starts with ``raise`` are
  "arm-raises", arms that only assign ``out = []`` are "arm-noop"; the
  wildcard arm is the generic re-binding fallback.
* CPU lowering: ``mlir._lowerings`` (all platforms) and
  ``mlir._platform_specific_lowerings['cpu']``.
* Mosaic GPU lowering: the keys of
  ``jax._src.pallas.mosaic_gpu.lowering.mosaic_lowering_rules``
  ((LoweringSemantics, PrimitiveSemantics) -> {primitive: rule}).
* Effects: global names referenced by the primitive's abstract-eval rule
  that name an effect (``ReadEffect``, ``WriteEffect``, ``*_effect``).
* Hardware: capability checks parsed from ``jax._src.test_util``'s
  ``skip_unless_*`` gates, attached to primitives by name (wgmma -> sm90a
  gate, tcgen05/tmem -> tcgen05 gate); stated as such in "source".
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import dis
import enum
import functools
import importlib
import inspect
import json
import os
import platform
import re
import sys
import textwrap
import types

SCHEMA_VERSION = 1
TRANSITIVE_DEPTH = 3
# Only code in these packages is followed when computing transitive binds: a
# call into lax/numpy would pull in every arithmetic primitive.
FOLLOW_PREFIXES = ("jax._src.pallas", "jax._src.state")
PUBLIC_MODULES = {
    "pl": "jax.experimental.pallas",
    "plgpu": "jax.experimental.pallas.mosaic_gpu",
}
# Modules whose module-level Primitive objects are always described, whether
# or not a public API binds them (kernels reach them through ref indexing,
# accumulators, run_scoped, ...).
PRIMITIVE_MODULES = (
    "jax._src.pallas.primitives",
    "jax._src.pallas.core",
    "jax._src.pallas.pallas_call",
    "jax._src.pallas.mpmd",
    "jax._src.pallas.mosaic_gpu.primitives",
    "jax._src.pallas.mosaic_gpu.core",
    "jax._src.state.primitives",
    "jax._src.state.discharge",
)
# Higher-order primitives kernels commonly contain; described because their
# discharge rules decide which refs of their bodies get discharged.
EXTRA_PRIMITIVES = (
    ("jax._src.lax.control_flow.conditionals", "cond_p"),
    ("jax._src.lax.control_flow.loops", "scan_p"),
    ("jax._src.lax.control_flow.loops", "while_p"),
    ("jax._src.pjit", "jit_p"),
    ("jax._src.pjit", "pjit_p"),
    ("jax._src.ad_checkpoint", "remat_p"),
    ("jax._src.custom_derivatives", "custom_vjp_call_p"),
    ("jax._src.custom_batching", "custom_vmap_p"),
    ("jax._src.lax.parallel", "axis_index_p"),
    ("jax._src.lax.lax", "iota_p"),
)
INTERPRET_MODULES = (
    "jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret",
)
INTERPRET_PARAMS_PATHS = (
    ("jax.experimental.pallas.mosaic_gpu", "InterpretGPUParams"),
    ("jax.experimental.pallas", "InterpretGPUParams"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "InterpretGPUParams"),
)
GPU_MODE_CONTEXTS = (
    ("jax.experimental.pallas.mosaic_gpu", "force_gpu_interpret_mode"),
    ("jax.experimental.pallas.mosaic_gpu", "set_gpu_interpret_mode"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "force_gpu_interpret_mode"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "set_gpu_interpret_mode"),
)
# Error texts the analysis repeats to the user, located by a distinctive
# substring inside the module that raises them. The template is read from
# that module's AST (f-string placeholders become {source expression}).
ERROR_ANCHORS = {
    "noDischargeRule": ("jax._src.state.discharge", "No state discharge rule implemented"),
    "dischargedUnflaggedInput": ("jax._src.state.discharge", "Did not ask for inval to be discharged"),
    "missingLowering": ("jax._src.interpreters.mlir", "MLIR translation rule for primitive"),
    "cpuRequiresInterpret": ("jax._src.pallas.pallas_call", "Only interpret mode is supported on CPU"),
    "runScopedCollectiveAxes": ("jax._src.pallas.hlo_interpreter", "run_scoped interpret rule does not support collective axes"),
    "inlineMgpuDischarge": ("jax._src.pallas.mosaic_gpu.primitives", "does not support discharge"),
    "getGlobalDischarge": ("jax._src.pallas.primitives", "get_global discharge is not supported"),
    "mosaicGpuUnimplemented": ("jax._src.pallas.mosaic_gpu.lowering", "Unimplemented primitive in Pallas Mosaic GPU lowering"),
    "runStateNoAccumulator": ("jax._src.pallas.mosaic_gpu.lowering", "Expected at least one accumulator"),
    "gpuInterpretHigherOrder": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "Higher-order primitive"),
    "gpuInterpretNotSupported": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "is not supported on GPU yet"),
    "gpuInterpretCollectiveAxes": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "collective"),
    "mpmdMultiPlatform": ("jax._src.pallas.mpmd", "multi-platform lowering"),
    "coreMapNotDischarged": ("jax._src.pallas.core", "without discharging"),
    "evaluationRuleMissing": ("jax._src.core", "Evaluation rule for"),
    "inlineMgpuReturnTypes": ("jax._src.pallas.mosaic_gpu.primitives", "only supports plgpu.ShapeDtypeStruct"),
    "inlineMgpuArgTypes": ("jax._src.pallas.mosaic_gpu.primitives", "only supports only SomeLayout and RefType"),
    "inlineMgpuTypeMismatch": ("jax._src.pallas.mosaic_gpu.primitives", "Mismatched type"),
}
# Allocations (as the analysis names them) whose Ref type may override
# indexing, and where to find them.
REF_INDEXING = {
    "plgpu.ACC": ("jax.experimental.pallas.mosaic_gpu", "ACC"),
}
EFFECT_NAME = re.compile(r"(^|_)(Read|Write|Accum)Effect$|_effect$|Effect$")


# ----------------------------------------------------------------- helpers


def _try_import(name):
  try:
    return importlib.import_module(name)
  except Exception:  # noqa: BLE001 -- any import failure means "not here"
    return None


def _primitive_class():
  core = _try_import("jax._src.core") or _try_import("jax.core")
  return getattr(core, "Primitive", None)


def _unwrap(fn):
  """Peel functools.partial and decorators' __wrapped__ chains."""
  seen = set()
  while id(fn) not in seen:
    seen.add(id(fn))
    if isinstance(fn, functools.partial):
      fn = fn.func
    elif hasattr(fn, "__wrapped__"):
      fn = fn.__wrapped__
    else:
      break
  return fn


def _code_objects(code):
  """A code object and every code object nested in it (lambdas, defs)."""
  yield code
  for const in code.co_consts:
    if isinstance(const, types.CodeType):
      yield from _code_objects(const)


def _source_of(obj):
  try:
    return textwrap.dedent(inspect.getsource(obj))
  except (OSError, TypeError):
    return None


def _module_path(module_name):
  """A JAX-relative path such as jax/_src/state/discharge.py."""
  return module_name.replace(".", "/") + ".py"


def _string_template(node):
  """Renders a str/f-string AST node as a template with {expr} holes."""
  if isinstance(node, ast.Constant) and isinstance(node.value, str):
    return node.value
  if isinstance(node, ast.JoinedStr):
    parts = []
    for value in node.values:
      if isinstance(value, ast.Constant):
        parts.append(str(value.value))
      elif isinstance(value, ast.FormattedValue):
        parts.append("{" + ast.unparse(value.value) + "}")
    return "".join(parts)
  if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
      and node.func.attr == "format"):
    # "text {}".format(x): keep the {} holes, like an f-string's.
    return _string_template(node.func.value)
  if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
    left, right = _string_template(node.left), _string_template(node.right)
    if left is not None and right is not None:
      return left + right
  return None


def _template_regex(template):
  """A regex matching any rendering of a template (holes match lazily)."""
  pieces = re.split(r"\{[^{}]*\}", template)
  return "(?:.+?)".join(re.escape(p) for p in pieces)


def _exception_name(raise_node):
  exc = raise_node.exc
  if isinstance(exc, ast.Call):
    exc = exc.func
  if isinstance(exc, (ast.Name, ast.Attribute)):
    return ast.unparse(exc).split(".")[-1]
  return None


def _raise_message(raise_node):
  exc = raise_node.exc
  if isinstance(exc, ast.Call) and exc.args:
    return _string_template(exc.args[0])
  return None


def _qualname(obj):
  obj = _unwrap(obj)
  module = getattr(obj, "__module__", None) or "?"
  return f"{module}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def _function_ast(fn, lambdas=False):
  """The ast of fn's own def (its source parsed, the first def in it, or the
  first lambda too when `lambdas`); None when unavailable."""
  source = _source_of(_unwrap(fn))
  if source is None:
    return None
  try:
    tree = ast.parse(source)
  except SyntaxError:
    return None
  kinds = (ast.FunctionDef, ast.AsyncFunctionDef) + ((ast.Lambda,) if lambdas else ())
  return next((n for n in ast.walk(tree) if isinstance(n, kinds)), None)


def _first_statement_raise(fn):
  """If fn's first real statement is `raise`, return (exc type, message)."""
  func = _function_ast(fn, lambdas=True)
  if func is None or isinstance(func, ast.Lambda):
    return None
  for stmt in func.body:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
      continue  # docstring
    if isinstance(stmt, (ast.Delete, ast.Pass)):
      continue
    if isinstance(stmt, ast.Raise):
      return _exception_name(stmt), _raise_message(stmt)
    return None
  return None


# -------------------------------------------------------------- primitives


class PrimitiveIndex:
  """Every Primitive object we describe, keyed by a stable name."""

  def __init__(self, primitive_cls):
    self.cls = primitive_cls
    self.by_id = {}  # id(prim) -> (prim, module name, variable name)

  def add(self, prim, module_name, var_name):
    if self.cls is None or not isinstance(prim, self.cls):
      return
    if id(prim) not in self.by_id:
      self.by_id[id(prim)] = (prim, module_name, var_name)

  def add_module(self, module_name):
    module = _try_import(module_name)
    if module is None:
      return
    for var, value in sorted(vars(module).items()):
      self.add(value, module_name, var)

  def keys(self):
    """Primitive name, qualified by its defining module when two objects
    share a name (pl and plgpu each have a `semaphore_signal`)."""
    by_name = {}
    for prim, module, var in self.by_id.values():
      by_name.setdefault(prim.name, []).append((module, var, prim))
    result = {}
    for name, entries in by_name.items():
      entries.sort(key=lambda e: (e[0], e[1]))
      for i, (module, var, prim) in enumerate(entries):
        key = name if i == 0 else f"{name}@{module.rsplit('.', 2)[-2]}.{module.rsplit('.', 1)[-1]}"
        result[id(prim)] = key
    return result


def _resolve_chain(value, attrs):
  for attr in attrs:
    if not isinstance(value, (types.ModuleType, type)):
      return None
    value = getattr(value, attr, None)
    if value is None:
      return None
  return value


_GLOBAL_OPS = {"LOAD_GLOBAL", "LOAD_NAME"}
_ATTR_OPS = {"LOAD_ATTR", "LOAD_METHOD"}


def _referenced_objects(fn):
  """Objects a function reaches through global[.attr]* chains or closures,
  with whether the chain continues with `.bind` (a direct bind call)."""
  fn = _unwrap(fn)
  code = getattr(fn, "__code__", None)
  if code is None:
    return []
  fn_globals = getattr(fn, "__globals__", {})
  found = []
  for cell in getattr(fn, "__closure__", None) or ():
    try:
      found.append((cell.cell_contents, False))
    except ValueError:
      pass
  for sub in _code_objects(code):
    instrs = list(dis.get_instructions(sub))
    i = 0
    while i < len(instrs):
      ins = instrs[i]
      if ins.opname in _GLOBAL_OPS:
        name = ins.argval
        value = fn_globals.get(name, getattr(__builtins__, name, None)
                               if not isinstance(__builtins__, dict) else __builtins__.get(name))
        attrs = []
        j = i + 1
        while j < len(instrs) and instrs[j].opname in _ATTR_OPS:
          attrs.append(instrs[j].argval)
          j += 1
        # Longest resolvable prefix of the chain; remember if `.bind` follows.
        obj = value
        used = 0
        for attr in attrs:
          nxt = _resolve_chain(obj, [attr])
          if nxt is None:
            break
          obj, used = nxt, used + 1
        binds = used < len(attrs) and attrs[used] in ("bind", "bind_with_trace")
        if obj is not None:
          found.append((obj, binds))
        i = j
      else:
        i += 1
  return found


def returns_before_bind(fn):
  """True when fn's own body has a `return` before its first `.bind(...)`."""
  func = _function_ast(fn)
  if func is None:
    return False
  binds = [n.lineno for n in ast.walk(func) if isinstance(n, ast.Call)
           and isinstance(n.func, ast.Attribute) and n.func.attr in ("bind", "bind_with_trace")]
  if not binds:
    return False
  return any(r.lineno < min(binds) for r in _own_returns(func))


def returns_before_bind_guard(fn):
  """The condition of an early return, when it compares an operand's shape
  with a shape parameter (`if a.shape == shape: return a`, pl.broadcast_to):
  {"shapeOf": i, "equals": j} with i, j the positional parameter indices;
  None otherwise. Then the API binds for certain where parameter i's shape
  is known to differ from parameter j (a Python number, shape (), against a
  non-empty literal shape)."""
  func = _function_ast(fn)
  return None if func is None else returns_before_bind_guard_of(func)


def returns_before_bind_guard_of(func):
  """returns_before_bind_guard on a parsed def (the static extractor's too)."""
  if isinstance(func, ast.Lambda):
    return None
  params = [a.arg for a in func.args.posonlyargs + func.args.args]
  for node in ast.walk(func):
    if not (isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Return)):
      continue
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
      continue
    left, right = test.left, test.comparators[0]
    if (isinstance(left, ast.Attribute) and left.attr == "shape" and isinstance(left.value, ast.Name)
        and isinstance(right, ast.Name)):
      # `a` may be rebound first (a = jnp.asarray(a)): still the parameter's value.
      if left.value.id in params and right.id in params:
        return {"shapeOf": params.index(left.value.id), "equals": params.index(right.id)}
  return None


def _imported_objects(fn):
  """Objects a function imports inside its body (`from m import f`)."""
  code = getattr(_unwrap(fn), "__code__", None)
  out = []
  if code is None:
    return out
  for sub in _code_objects(code):
    module = None
    for ins in dis.get_instructions(sub):
      if ins.opname == "IMPORT_NAME":
        module = ins.argval
      elif ins.opname == "IMPORT_FROM" and module:
        imported = _try_import(module)
        obj = getattr(imported, ins.argval, None) if imported else None
        if obj is not None:
          out.append(obj)
  return out


def ref_indexing(index):
  """{allocation: {"refType", "getitem", "setitem"}} with primitive ids."""
  import jax.numpy as jnp  # noqa: PLC0415
  state_types = _try_import("jax._src.state.types")
  base = getattr(state_types, "AbstractRef", None)
  out = {}
  for name, (module_name, attr) in sorted(REF_INDEXING.items()):
    module = _try_import(module_name)
    alloc = getattr(module, attr, None) if module else None
    try:
      aval = alloc((8, 8), jnp.float32).get_ref_aval()
    except Exception:  # noqa: BLE001 -- moved or changed: not described
      continue
    cls = type(aval)
    entry = {"refType": _qualname(cls)}
    for op, method in (("getitem", "_getitem"), ("setitem", "_setitem")):
      fn = getattr(cls, method, None)
      if fn is None or fn is getattr(base, method, None):
        entry[op] = None
        continue
      ids = set()
      for f in [fn] + [o for o in _imported_objects(fn) if isinstance(o, types.FunctionType)]:
        direct, transitive = api_binds(f, index)
        ids |= direct | transitive
      entry[op] = ids
    out[name] = entry
  return out


def _follows(obj):
  module = getattr(_unwrap(obj), "__module__", "") or ""
  return isinstance(_unwrap(obj), types.FunctionType) and module.startswith(FOLLOW_PREFIXES)


def _follows_class(obj):
  return (isinstance(obj, type) and not issubclass(obj, BaseException)
          and (getattr(obj, "__module__", "") or "").startswith(FOLLOW_PREFIXES))


def api_binds(fn, index):
  """(direct primitive ids, transitive primitive ids) for an API function."""
  direct, transitive = set(), set()
  seen = {id(_unwrap(fn))}
  frontier = [fn]
  for depth in range(TRANSITIVE_DEPTH + 1):
    next_frontier = []
    for f in frontier:
      for obj, _binds in _referenced_objects(f):
        if index.cls is not None and isinstance(obj, index.cls):
          module = getattr(_unwrap(f), "__module__", "?")
          index.add(obj, module, getattr(obj, "name", "?"))
          (direct if depth == 0 else transitive).add(id(obj))
        elif _follows(obj) and id(_unwrap(obj)) not in seen:
          seen.add(id(_unwrap(obj)))
          next_frontier.append(obj)
        elif _follows_class(obj) and id(obj) not in seen:
          # Helper classes (emit_pipeline's buffered refs) bind in methods.
          seen.add(id(obj))
          next_frontier.extend(m for m in vars(obj).values() if isinstance(m, types.FunctionType))
    frontier = next_frontier
  return direct, transitive - direct


# --------------------------------------------------------------- registries


def discharge_facts():
  discharge = _try_import("jax._src.state.discharge")
  full = dict(getattr(discharge, "_discharge_rules", {}) or {})
  partial = dict(getattr(discharge, "_partial_discharge_rules", {}) or {})
  return full, partial


def discharge_rule(prim, full, partial):
  if prim in partial:
    return partial[prim], "partial"
  if prim in full:
    return full[prim], "full"
  return None, None


def rule_binds(rule, index):
  """Ids of the primitives a discharge rule binds itself (`prim.bind(...)`
  in its own code): the functional form the discharged equation becomes,
  which is then lowered like any value primitive. Primitives found here that
  the index does not know yet are added (e.g. wgmma_ref's wgmma_p)."""
  ids = set()
  module = getattr(_unwrap(rule), "__module__", "?") or "?"
  for obj, binds in _referenced_objects(rule):
    if binds and index.cls is not None and isinstance(obj, index.cls):
      index.add(obj, module, getattr(obj, "name", "?"))
      ids.add(id(obj))
  return ids


def _returned_entries(node):
  """The entries of a returned tuple expression: "none", "value", or
  "rest-none" (a starred or repeated run of Nones of unknown length); None
  when the expression is not a literal we can read."""
  if isinstance(node, (ast.Tuple, ast.List)):
    out = []
    for elt in node.elts:
      if isinstance(elt, ast.Constant) and elt.value is None:
        out.append("none")
      elif isinstance(elt, ast.Starred):
        sub = _returned_entries(elt.value)
        if sub is None or any(e == "value" for e in sub):
          return None
        out.append("rest-none")
      else:
        out.append("value")
    return out
  if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
    for side in (node.left, node.right):
      sub = _returned_entries(side)
      if sub is not None and all(e == "none" for e in sub):
        return ["rest-none"]
    return None
  if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
    left, right = _returned_entries(node.left), _returned_entries(node.right)
    return None if left is None or right is None else left + right
  return None


def _own_returns(func):
  """`return` statements of a function, not of the functions nested in it."""
  stack = list(func.body)
  while stack:
    node = stack.pop()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
      continue
    if isinstance(node, ast.Return):
      yield node
    stack.extend(ast.iter_child_nodes(node))


def written_operands(rule):
  """Which operands a full discharge rule returns a new value for: the
  positions of the non-None entries of the first element of every `return`
  ((new_invals, outs)). None when a return is not such a literal."""
  func = _function_ast(rule)
  return None if func is None else written_operands_of(func)


def written_operands_of(func):
  """written_operands for a rule's def (ast); shared with the static reader."""
  written, returns = set(), 0
  for ret in _own_returns(func):
    returns += 1
    if not isinstance(ret.value, ast.Tuple) or len(ret.value.elts) != 2:
      return None
    entries = _returned_entries(ret.value.elts[0])
    if entries is None:
      return None
    for i, e in enumerate(entries):
      if e == "rest-none":
        if any(x == "value" for x in entries[i:]):
          return None  # a value after a run of unknown length: position unknown
        break
      if e == "value":
        written.add(i)
  return sorted(written) if returns else None


def discharge_entry(prim, full, partial, keys=None, binds=None):
  rule, kind = discharge_rule(prim, full, partial)
  if rule is None:
    return {"status": "none"}
  entry = {"status": "exists", "kind": kind, "rule": _qualname(rule)}
  raised = _first_statement_raise(rule)
  if raised is not None:
    exc, message = raised
    entry.update(status="raises", exception=exc, message=message)
  else:
    entry["binds"] = sorted(keys[i] for i in (binds or ())) if keys is not None else []
    # A full rule cannot see which operands are being discharged: one that
    # returns a new value for an operand that is not fails (state discharge's
    # "Did not ask for inval to be discharged"). Partial rules are told.
    entry["writesOperands"] = written_operands(rule) if kind == "full" else None
  return entry


def _case_primitive(pattern, module):
  """Resolves `case a.b_p:` (MatchValue of a dotted name) to an object."""
  if isinstance(pattern, ast.MatchValue):
    dotted = ast.unparse(pattern.value).split(".")
    return _resolve_chain(module, dotted) if len(dotted) > 1 else vars(module).get(dotted[0])
  return None


def gpu_interpret_arms():
  """{id(prim): (handling, message)} plus whether a fallback arm exists."""
  arms, has_fallback, found_module = {}, False, None
  for module_name in INTERPRET_MODULES:
    module = _try_import(module_name)
    interpreter = getattr(module, "JaxprInterpreter", None) if module else None
    source = _source_of(getattr(interpreter, "interpret", None)) if interpreter else None
    if source is None:
      continue
    found_module = module_name
    for pattern, handling, message in interpreter_arms(ast.parse(source)):
      if pattern is None:
        has_fallback = True
        continue
      prim = _case_primitive(pattern, module)
      if prim is not None:
        arms[id(prim)] = (handling, message)
  return arms, has_fallback, found_module


def interpreter_arms(tree):
  """(pattern, handling, message) for each primitive pattern of the GPU
  interpreter's `match ...primitive:` arms in `tree`; pattern None for the
  fallback arm (`case _:`). Shared with the static reader."""
  for node in ast.walk(tree):
    if not isinstance(node, ast.Match) or "primitive" not in ast.unparse(node.subject):
      continue
    for case in node.cases:
      patterns = case.pattern.patterns if isinstance(case.pattern, ast.MatchOr) else [case.pattern]
      first = case.body[0] if case.body else None
      if isinstance(first, ast.Raise):
        handling, message = "arm-raises", _raise_message(first)
      elif (len(case.body) == 1 and isinstance(first, ast.Assign)
            and isinstance(first.value, ast.List) and not first.value.elts):
        handling, message = "arm-noop", None
      else:
        handling, message = "arm", None
      for pattern in patterns:
        fallback = isinstance(pattern, ast.MatchAs) and pattern.pattern is None
        yield (None if fallback else pattern), handling, message


def cpu_lowering_sets():
  mlir = _try_import("jax._src.interpreters.mlir")
  generic = set(map(id, getattr(mlir, "_lowerings", {}) or {}))
  specific = getattr(mlir, "_platform_specific_lowerings", {}) or {}
  cpu = set(map(id, specific.get("cpu", {}) or {}))
  return generic, cpu


def _enum_name(value):
  return value.name if isinstance(value, enum.Enum) else str(value)


def mosaic_gpu_semantics():
  """{id(prim): sorted ["Lane×Warpgroup", ...]} from the rules registry."""
  lowering = _try_import("jax._src.pallas.mosaic_gpu.lowering")
  registry = getattr(lowering, "mosaic_lowering_rules", None) if lowering else None
  result = {}
  if not isinstance(registry, dict):
    return result, False
  for key, rules in registry.items():
    if isinstance(key, tuple) and len(key) == 2:
      label = f"{_enum_name(key[0])}x{_enum_name(key[1])}"
    else:
      label = f"{_enum_name(key)}xWarpgroup"
    for prim in rules:
      result.setdefault(id(prim), set()).add(label)
  return {k: sorted(v) for k, v in result.items()}, True


def effect_names(prim):
  rule = _unwrap(getattr(prim, "abstract_eval", None))
  # _effect_free_abstract_eval wraps the user's rule in a closure.
  closure = getattr(rule, "__closure__", None) or ()
  candidates = [rule] + [c.cell_contents for c in closure
                         if isinstance(getattr(c, "cell_contents", None), types.FunctionType)]
  names = set()
  for candidate in candidates:
    code = getattr(_unwrap(candidate), "__code__", None)
    if code is None:
      continue
    for sub in _code_objects(code):
      names.update(n for n in sub.co_names if EFFECT_NAME.search(n))
  return sorted(names)


def hardware_gates():
  """Capability gates of jax._src.test_util's skip_unless_* helpers."""
  test_util = _try_import("jax._src.test_util")
  gates = {}
  if test_util is None:
    return gates
  for owner in [test_util] + [v for v in vars(test_util).values() if isinstance(v, type)]:
    for name, fn in sorted(vars(owner).items()):
      if not name.startswith("skip_unless_") or not callable(fn):
        continue
      gate = capability_gate(_source_of(fn) or "")
      if gate:
        gates[name] = gate
  return gates


def capability_gate(source):
  """The capability checks in one skip_unless_* helper's source, or None.
  Shared with the static reader."""
  equal = re.findall(r'capability_equal\("([\d.]+)"\)', source)
  at_least = re.findall(r'capability_at_least\("([\d.]+)"\)', source)
  majors = re.findall(r"target_major not in \(([\d, ]+)\)", source)
  if not (equal or at_least or majors):
    return None
  return {
      "capabilityEquals": sorted(set(equal)),
      "capabilityAtLeast": sorted(set(at_least)),
      "majorIn": sorted({int(m) for group in majors for m in group.split(",") if m.strip()}),
      "source": "jax/_src/test_util.py",
  }


# Which gate applies to a primitive is not stated by JAX in code; this rule
# (by primitive name) mirrors how JAX's own tests gate those primitives.
_GATE_BY_NAME = (
    (re.compile(r"tcgen05|tmem"), "skip_unless_tcgen05", "Blackwell (tcgen05 / TMEM)"),
    (re.compile(r"wgmma"), "skip_unless_sm90a", "Hopper sm_90a (wgmma)"),
)


def hardware_entry(prim_name, gates):
  for pattern, gate, what in _GATE_BY_NAME:
    if pattern.search(prim_name) and gate in gates:
      return {"requires": what, "gate": gate, **{k: v for k, v in gates[gate].items() if k != "source"},
              "source": f"name rule + test gating ({gates[gate]['source']}:{gate})"}
  return None


# ------------------------------------------------------------------ errors


def error_templates():
  out = {}
  for key, (module_name, anchor) in sorted(ERROR_ANCHORS.items()):
    entry = {"module": module_name, "file": _module_path(module_name), "anchor": anchor, "found": False}
    module = _try_import(module_name)
    source = _source_of(module) if module else None
    if source is not None:
      for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Raise):
          continue
        message = _raise_message(node)
        if message and anchor in message:
          entry.update(found=True, template=message, regex=_template_regex(message),
                       exception=_exception_name(node), line=node.lineno)
          break
    out[key] = entry
  return out


# --------------------------------------------------------- interpret params


def _default_repr(field):
  if field.default is not dataclasses.MISSING:
    value = field.default
  elif field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
    return "<factory>"
  else:
    return None
  if isinstance(value, enum.Enum):
    return f"{type(value).__name__}.{value.name}"
  if isinstance(value, (bool, int, float, str)) or value is None:
    return value
  return repr(value)


def interpret_gpu_params():
  info = {"available": False, "importPaths": [], "fields": [], "contextManagers": []}
  cls = None
  for module_name, attr in INTERPRET_PARAMS_PATHS:
    module = _try_import(module_name)
    value = getattr(module, attr, None) if module else None
    if value is not None:
      info["importPaths"].append(f"{module_name}.{attr}")
      cls = cls or value
  if cls is not None and dataclasses.is_dataclass(cls):
    info["available"] = True
    info["class"] = _qualname(cls)
    info["fields"] = [
        {"name": f.name, "default": _default_repr(f), "type": str(f.type)}
        for f in dataclasses.fields(cls)
    ]
    info["hasInlineMgpuOption"] = any(f.name == "inline_mgpu" for f in dataclasses.fields(cls))
  for module_name, attr in GPU_MODE_CONTEXTS:
    module = _try_import(module_name)
    if module is not None and getattr(module, attr, None) is not None:
      info["contextManagers"].append(f"{module_name}.{attr}")
  return info


def _parsed_module(module_name):
  module = _try_import(module_name)
  source = _source_of(module) if module else None
  try:
    return ast.parse(source) if source else None
  except SyntaxError:
    return None


def mosaic_gpu_rules():
  """Issue 17's shape, layout and copy rules (extract_mosaic_rules.py)."""
  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
  import extract_mosaic_rules  # noqa: PLC0415 -- next to this file

  return extract_mosaic_rules.mosaic_gpu_rules(_parsed_module, _string_template, _exception_name)


def mosaic_gpu_defaults():
  """The lowering semantics a kernel gets when its CompilerParams do not say
  (Lane in 0.10, Warpgroup from 0.11): the analysis follows it."""
  out = {"loweringSemantics": None}
  core = _try_import("jax._src.pallas.mosaic_gpu.core")
  cls = getattr(core, "CompilerParams", None) if core else None
  if cls is not None and dataclasses.is_dataclass(cls):
    for f in dataclasses.fields(cls):
      if f.name == "lowering_semantics" and isinstance(f.default, enum.Enum):
        out["loweringSemantics"] = f.default.name
  return out


def const_int(node):
  """An int literal expression (`227 * 1024`, `2048 // 128`), else None."""
  if isinstance(node, ast.Constant) and type(node.value) is int:
    return node.value
  if isinstance(node, ast.BinOp):
    a, b = const_int(node.left), const_int(node.right)
    if a is None or b is None:
      return None
    ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
           ast.FloorDiv: lambda: a // b if b else None, ast.Pow: lambda: a ** b if 0 <= b < 64 else None}
    fn = ops.get(type(node.op))
    return fn() if fn else None
  return None


def default_smem_limit_of(func):
  """The default of `getattr(device, "shared_memory_per_block_optin", X)`
  in Mosaic GPU's `_launch` (the limit without a GPU)."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "shared_memory_per_block_optin"):
      return const_int(node.args[2])
  return None


def max_mosaic_threads_of(func):
  """`max_mosaic_threads = 2048 // 128` in plgpu.Mesh.__post_init__."""
  for node in ast.walk(func):
    if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == "max_mosaic_threads"):
      return const_int(node.value)
  return None


def compiler_params_int_defaults(class_node):
  """{field: int default} of the CompilerParams dataclass body."""
  out = {}
  for stmt in class_node.body:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
      v = const_int(stmt.value)
      if v is not None:
        out[stmt.target.id] = v
  return out


def _function_in(tree, qualname):
  """The def `name` or `Class.name` at module level of an ast tree."""
  parts = qualname.split(".")
  body = tree.body
  node = None
  for part in parts:
    node = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name == part), None)
    if node is None:
      return None
    body = node.body
  return node


def mosaic_gpu_resources_from(trees):
  """The numbers Mosaic GPU's lowering sizes shared memory and threads with
  (PLS005/PLS009), read from the parsed modules `trees` = {module: ast}:
  the SMEM alignment of every allocation, the bytes of one mbarrier, the
  shared-memory limit without a GPU, the CompilerParams defaults, and the
  most warpgroups a kernel may ask for."""
  out = {"smemAlignment": None, "mbarrierBytes": None, "defaultSmemLimit": None,
         "maxConcurrentStepsDefault": None, "reductionScratchBytesDefault": None, "maxMosaicThreads": None}

  def module_const(module, name):
    tree = trees.get(module)
    for stmt in tree.body if tree else ():
      if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
          and stmt.targets[0].id == name):
        return const_int(stmt.value)
    return None

  out["smemAlignment"] = module_const("jax._src.pallas.mosaic_gpu.core", "SMEM_ALIGNMENT")
  out["mbarrierBytes"] = module_const("jax.experimental.mosaic.gpu.utils", "MBARRIER_BYTES")
  core = trees.get("jax._src.pallas.mosaic_gpu.core")
  params = _function_in(core, "CompilerParams") if core else None
  if params is not None:
    defaults = compiler_params_int_defaults(params)
    out["maxConcurrentStepsDefault"] = defaults.get("max_concurrent_steps")
    out["reductionScratchBytesDefault"] = defaults.get("reduction_scratch_bytes")
  mesh_init = _function_in(core, "Mesh.__post_init__") if core else None
  if mesh_init is not None:
    out["maxMosaicThreads"] = max_mosaic_threads_of(mesh_init)
  mcore = trees.get("jax.experimental.mosaic.gpu.core")
  launch = _function_in(mcore, "_launch") if mcore else None
  if launch is not None:
    out["defaultSmemLimit"] = default_smem_limit_of(launch)
  return out


RESOURCE_MODULES = ("jax._src.pallas.mosaic_gpu.core", "jax.experimental.mosaic.gpu.utils",
                    "jax.experimental.mosaic.gpu.core")


def mosaic_gpu_resources():
  """mosaic_gpu_resources_from the installed modules' source; the values that
  exist at import time are checked against the parsed ones."""
  trees = {}
  for name in RESOURCE_MODULES:
    module = _try_import(name)
    try:
      trees[name] = ast.parse(inspect.getsource(module)) if module else None
    except (OSError, TypeError, SyntaxError):
      trees[name] = None
  out = mosaic_gpu_resources_from({k: v for k, v in trees.items() if v is not None})
  core = _try_import("jax._src.pallas.mosaic_gpu.core")
  utils = _try_import("jax.experimental.mosaic.gpu.utils")
  for key, module, attr in (("smemAlignment", core, "SMEM_ALIGNMENT"), ("mbarrierBytes", utils, "MBARRIER_BYTES")):
    live = getattr(module, attr, None) if module else None
    if live is not None and out[key] != live:
      out[key] = live  # computed at import in some version: the live value wins
  return out


# --------------------------------------------------------------------- main


def _public_names(module):
  names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
  return sorted(n for n in names if not n.startswith("_"))


def _api_kind(value):
  if isinstance(value, types.ModuleType):
    return "module"
  if isinstance(value, type):
    return "type"
  if isinstance(value, enum.Enum):
    return "constant"
  if callable(value):
    return "function"
  return "constant"


def _api_doc_hardware(value):
  doc = inspect.getdoc(value) or ""
  hits = sorted(set(re.findall(r"\b(Hopper|Blackwell|Ampere|sm_?\d+a?|SM\d+A?\+?)\b", doc)))
  return hits


def extract():
  import jax  # noqa: PLC0415 -- imported here so --help works without JAX

  jaxlib = _try_import("jaxlib")
  primitive_cls = _primitive_class()
  index = PrimitiveIndex(primitive_cls)
  for module_name in PRIMITIVE_MODULES:
    index.add_module(module_name)
  for module_name, var in EXTRA_PRIMITIVES:
    module = _try_import(module_name)
    if module is not None and hasattr(module, var):
      index.add(getattr(module, var), module_name, var)

  apis, modules = {}, {}
  for alias, module_name in sorted(PUBLIC_MODULES.items()):
    module = _try_import(module_name)
    modules[alias] = {"module": module_name, "imported": module is not None}
    if module is None:
      continue
    for name in _public_names(module):
      value = getattr(module, name, None)
      if value is None or isinstance(value, types.ModuleType):
        continue
      kind = _api_kind(value)
      entry = {"kind": kind, "definedIn": getattr(_unwrap(value), "__module__", None)
               if kind in ("function", "type") else None}
      if primitive_cls is not None and isinstance(value, primitive_cls):
        index.add(value, module_name, name)
        entry.update(kind="primitive", binds=[id(value)], bindsTransitive=[])
      elif kind == "function":
        direct, transitive = api_binds(value, index)
        entry.update(binds=sorted(direct), bindsTransitive=sorted(transitive))
        if direct:
          entry["returnsBeforeBind"] = returns_before_bind(value)
          guard = returns_before_bind_guard(value) if entry["returnsBeforeBind"] else None
          if guard:
            entry["returnsBeforeBindIf"] = guard
        hw = _api_doc_hardware(value)
        if hw:
          entry["docHardwareMentions"] = hw
      apis[f"{alias}.{name}"] = entry

  indexing = ref_indexing(index)

  # What each discharge rule binds; it may add primitives (functional forms)
  # to the index, so this runs before the keys are fixed.
  full, partial = discharge_facts()
  rule_bind_ids, done = {}, set()
  while True:
    pending = [(pid, prim) for pid, (prim, _m, _v) in list(index.by_id.items()) if pid not in done]
    if not pending:
      break
    for pid, prim in pending:
      done.add(pid)
      rule, _kind = discharge_rule(prim, full, partial)
      if rule is not None:
        rule_bind_ids[pid] = rule_binds(rule, index)

  keys = index.keys()
  for entry in apis.values():
    for field in ("binds", "bindsTransitive"):
      if field in entry:
        entry[field] = sorted(keys[i] for i in entry[field])
  for entry in indexing.values():
    for op in ("getitem", "setitem"):
      if entry.get(op) is not None:
        entry[op] = sorted(keys[i] for i in entry[op])

  arms, has_fallback, interp_module = gpu_interpret_arms()
  generic_lowerings, cpu_lowerings = cpu_lowering_sets()
  semantics, have_mgpu = mosaic_gpu_semantics()
  gates = hardware_gates()

  primitives = {}
  for prim_id, (prim, module_name, var) in index.by_id.items():
    handling, message = arms.get(prim_id, ("fallback" if has_fallback else None, None))
    has_cpu = prim_id in generic_lowerings or prim_id in cpu_lowerings
    entry = {
        "name": prim.name,
        "module": module_name,
        "variable": var,
        "multipleResults": bool(getattr(prim, "multiple_results", False)),
        "discharge": discharge_entry(prim, full, partial, keys, rule_bind_ids.get(prim_id)),
        "gpuInterpret": {"handling": handling, "message": message} if interp_module else None,
        "cpuLowering": has_cpu,
        "mosaicGpuLowering": semantics.get(prim_id, []) if have_mgpu else None,
        "effects": effect_names(prim),
        "hardware": hardware_entry(prim.name, gates),
    }
    if interp_module and handling == "fallback":
      # The fallback re-binds the primitive; the re-bound program is then
      # lowered for CPU, so without a CPU rule it fails there.
      entry["gpuInterpret"]["fallbackOutcome"] = "ok" if has_cpu else "missing-lowering"
    primitives[keys[prim_id]] = entry

  return {
      "schemaVersion": SCHEMA_VERSION,
      "generator": "analysis/knowledge/extract_knowledge.py",
      "jax_version": getattr(jax, "__version__", None),
      "jaxlib_version": getattr(getattr(jaxlib, "version", None), "__version__", None)
      or getattr(jaxlib, "__version__", None),
      "python": platform.python_version(),
      "methods": {
          "apiBinds": f"bytecode scan of global/attribute chains resolving to Primitive objects, "
                      f"following functions in {', '.join(FOLLOW_PREFIXES)} up to depth {TRANSITIVE_DEPTH}",
          "discharge": "jax._src.state.discharge._discharge_rules / _partial_discharge_rules; "
                       "'raises' = first statement of the rule is a raise (AST); 'binds' = "
                       "primitives the rule's own bytecode binds (prim.bind); 'writesOperands' = "
                       "non-None positions of a full rule's returned new_invals (AST)",
          "gpuInterpret": f"AST of {interp_module}.JaxprInterpreter.interpret match arms" if interp_module else None,
          "cpuLowering": "mlir._lowerings or mlir._platform_specific_lowerings['cpu']",
          "mosaicGpuLowering": "jax._src.pallas.mosaic_gpu.lowering.mosaic_lowering_rules keys",
          "effects": "effect names referenced by the primitive's abstract_eval code",
          "refIndexing": "bytecode scan of the allocation's Ref type's _getitem/_setitem, "
                         "following functions they import",
          "hardware": "name rule (wgmma, tcgen05/tmem) + capability gates parsed from jax._src.test_util",
      },
      "modules": modules,
      "apis": apis,
      "primitives": primitives,
      "refIndexing": indexing,
      "interpretGPUParams": interpret_gpu_params(),
      "hardwareGates": gates,
      "errorTemplates": error_templates(),
      "mosaicGpuDefaults": mosaic_gpu_defaults(),
      "mosaicGpuResources": mosaic_gpu_resources(),
      "mosaicGpuRules": mosaic_gpu_rules(),
  }


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("-o", "--output", help="write here instead of stdout")
  args = parser.parse_args(argv)
  write_table(extract(), args.output)
  return 0


def write_table(table, output):
  """The table as the bundled files hold it, to `output` or stdout."""
  text = json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
  if output:
    with open(output, "w", encoding="utf-8") as f:
      f.write(text)
  else:
    sys.stdout.write(text)


if __name__ == "__main__":
  sys.exit(main())
