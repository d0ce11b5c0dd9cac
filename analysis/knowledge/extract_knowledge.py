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
  is taken from the rule's AST. It raises ValueError too when that first
  statement unpacks the primitive's args tree (``a, b, c, d =
  args_tree.unflatten(args_flat)``) into another number of names than every
  binder of the primitive flattens into it (``tree_flatten((a, b, c))``); the
  message is this Python's own. The primitives a rule binds itself
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
* GPU interpret mode's fallback outcome: the fallback re-binds the
  primitive on its operands' values (the buffers' allocation keys for
  Refs), then XLA lowers it for the CPU: "abstract-eval-asserts-ref" when
  the abstract-eval rule's own code has a bare ``assert isinstance(...,
  AbstractRef)`` (a bare AssertionError while the interpreter traces),
  else "ok" with a CPU lowering rule, else "missing-lowering".
* Higher-order APIs (config.HIGHER_ORDER_APIS, e.g. ``jax.checkpoint``):
  the primitives each binds, by the same bytecode scan ("higherOrderApis");
  the names of the primitives Mosaic GPU's resource estimation has an
  estimator for, the keys of ``lowering._resource_estimators``
  ("mosaicGpuResourceEstimators"): before lowering, an equation whose
  params hold a jaxpr and whose primitive has none raises "Resource
  estimation does not support <primitive>".
* Custom derivatives ("customDerivativeApis"): which public functions of
  jax.nn, jax.numpy, jax.lax and jax.scipy.special bind custom_jvp_call /
  custom_vjp_call when called (``jax.nn.relu`` is a ``jax.custom_jvp``
  function, ``jax.nn.softplus`` calls one through ``jnp.logaddexp``), read
  from the source files of the imported JAX by the static reader both
  extractors share (pallas_jax_facts/custom_derivatives.py); a compiled
  Mosaic GPU kernel calling one fails in resource estimation.
* Numeric functions ("numericApis", "numericPrimitives"): each public
  function of jax.numpy, jax.lax, jax.nn and jax.scipy.special is traced
  with float32 arrays (jax.make_jaxpr, looking through jit); recorded when
  it binds a primitive Mosaic GPU has no Lane or Warpgroup lowering rule
  for (`jnp.sqrt` binds `sqrt`: "Unimplemented primitive in Pallas Mosaic
  GPU lowering"), with the rules each of its primitives has
  (pallas_jax_facts/live_numeric.py). The static extractor cannot trace:
  null there.
* "getBindParamsOverridden" of a primitive: its class defines its own
  ``get_bind_params`` (custom_jvp_call turns its jaxpr param back into a
  function there), so GPU interpret mode's fallback re-binds it without the
  open jaxpr its "Higher-order primitive" check rejects.
* "mosaicGpuSmemModel": how Mosaic GPU adds up shared memory (each
  allocation rounded, siblings' maximum, nested scopes added, reductions'
  scratch, barriers after the buffers, RefUnion, pipeline slots, the limit
  check and the GPUs its default limit is for), each fact with the line it
  is read from (pallas_jax_facts/smem_model.py, read from source).
* "gpuInterpretAllocates": the scratch dtypes GPU interpret mode allocates
  itself instead of filling them with `uninitialized_memory`
  (pallas_jax_facts/gpu_interpret_allocation.py, read from source).
* Effects: global names referenced by the primitive's abstract-eval rule
  that name an effect (``ReadEffect``, ``WriteEffect``, ``*_effect``).
* Hardware: capability checks parsed from ``jax._src.test_util``'s
  ``skip_unless_*`` gates, attached to primitives by name (wgmma -> sm90a
  gate, tcgen05/tmem -> tcgen05 gate); stated as such in "source".
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import types

# The extractor's modules live beside it (pallas_jax_facts/); run as a script
# (also with -I, which leaves the script's folder off sys.path) it finds them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pallas_jax_facts import config  # noqa: E402
from pallas_jax_facts.hardware import hardware_entry, hardware_gates  # noqa: E402
from pallas_jax_facts.live_binds import api_binds, ref_indexing, returns_before_bind, returns_before_bind_guard  # noqa: E402
from pallas_jax_facts.live_discharge import discharge_entry, discharge_facts, discharge_rule, rule_binds  # noqa: E402
from pallas_jax_facts.live_objects import PrimitiveIndex, _api_doc_hardware, _api_kind, _primitive_class, _public_names, _try_import, _unwrap  # noqa: E402
from pallas_jax_facts.live_params import error_templates, interpret_gpu_params, mosaic_gpu_defaults, mosaic_gpu_resources, mosaic_gpu_rules  # noqa: E402
from pallas_jax_facts.live_higher_order import higher_order_api_binds, resource_estimators  # noqa: E402
from pallas_jax_facts.live_paths import abstract_eval_asserts_ref, cpu_lowering_sets, effect_names, gpu_interpret_arms, gpu_interpret_indexing_only, mosaic_gpu_semantics  # noqa: E402
from pallas_jax_facts.table import fallback_outcome, write_table  # noqa: E402
from pallas_jax_facts.custom_derivatives import custom_derivative_apis  # noqa: E402
from pallas_jax_facts.gpu_interpret_allocation import gpu_interpret_allocates  # noqa: E402
from pallas_jax_facts.smem_model import smem_model  # noqa: E402
from pallas_jax_facts.live_numeric import numeric_api_binds  # noqa: E402
from pallas_jax_facts.static_source import Source  # noqa: E402

SCHEMA_VERSION = config.SCHEMA_VERSION


def extract():
  import jax  # noqa: PLC0415 -- imported here so --help works without JAX

  jaxlib = _try_import("jaxlib")
  primitive_cls = _primitive_class()
  index = PrimitiveIndex(primitive_cls)
  for module_name in config.PRIMITIVE_MODULES:
    index.add_module(module_name)
  for module_name, var in config.EXTRA_PRIMITIVES:
    module = _try_import(module_name)
    if module is not None and hasattr(module, var):
      index.add(getattr(module, var), module_name, var)

  apis, modules = {}, {}
  for alias, module_name in sorted(config.PUBLIC_MODULES.items()):
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
  higher_order = higher_order_api_binds(index)

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
  higher_order = {api: {"binds": sorted(keys[i] for i in ids)} for api, ids in higher_order.items()}
  for entry in indexing.values():
    for op in ("getitem", "setitem"):
      if entry.get(op) is not None:
        entry[op] = sorted(keys[i] for i in entry[op])

  arms, has_fallback, interp_module = gpu_interpret_arms()
  indexing_only = gpu_interpret_indexing_only()
  # The imported JAX's own source files, for the facts both extractors read
  # the same way from source.
  own_source = Source(os.path.dirname(os.path.dirname(jax.__file__)))
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
        "discharge": discharge_entry(prim, full, partial, keys, rule_bind_ids.get(prim_id),
                                     module_name, var),
        "gpuInterpret": {"handling": handling, "message": message} if interp_module else None,
        "cpuLowering": has_cpu,
        "mosaicGpuLowering": semantics.get(prim_id, []) if have_mgpu else None,
        "effects": effect_names(prim),
        "hardware": hardware_entry(prim.name, gates),
        "getBindParamsOverridden": _overrides_get_bind_params(prim),
    }
    if interp_module and handling == "fallback":
      # The fallback re-binds the primitive; the re-bound program is then
      # lowered for CPU, so without a CPU rule it fails there.
      entry["gpuInterpret"]["fallbackOutcome"] = fallback_outcome(has_cpu, abstract_eval_asserts_ref(prim))
    if interp_module and prim_id in indexing_only:
      # Its callback reads Ref transforms as indexing, unchecked: a view's
      # transform lacks this attribute (AttributeError).
      entry["gpuInterpret"]["transformsReadAsIndexing"] = indexing_only[prim_id]
    primitives[keys[prim_id]] = entry

  numeric_apis, numeric_primitives = numeric_api_binds(
      lambda prim: semantics.get(id(prim), []) if have_mgpu else None,
      lambda prim: id(prim) in generic_lowerings or id(prim) in cpu_lowerings)

  return {
      "schemaVersion": config.SCHEMA_VERSION,
      "generator": "analysis/knowledge/extract_knowledge.py",
      "jax_version": getattr(jax, "__version__", None),
      "jaxlib_version": getattr(getattr(jaxlib, "version", None), "__version__", None)
      or getattr(jaxlib, "__version__", None),
      "python": platform.python_version(),
      "methods": {
          "apiBinds": f"bytecode scan of global/attribute chains resolving to Primitive objects, "
                      f"following functions in {', '.join(config.FOLLOW_PREFIXES)} up to depth {config.TRANSITIVE_DEPTH}",
          "discharge": "jax._src.state.discharge._discharge_rules / _partial_discharge_rules; "
                       "'raises' = first statement of the rule is a raise, or unpacks the args "
                       "tree into another count than its binders flatten (AST); 'binds' = "
                       "primitives the rule's own bytecode binds (prim.bind); 'writesOperands' = "
                       "non-None positions of a full rule's returned new_invals (AST)",
          "gpuInterpret": f"AST of {interp_module}.JaxprInterpreter.interpret match arms; "
                          "'transformsReadAsIndexing' = the arm (or its own method) runs a callback "
                          "that passes Ref transforms to the range helper without the module's "
                          "'Unsupported transform' check (AST)" if interp_module else None,
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
      "higherOrderApis": higher_order,
      "mosaicGpuResourceEstimators": resource_estimators(),
      # Read from the imported JAX's own files (as the static extractor does).
      "customDerivativeApis": custom_derivative_apis(own_source),
      # Traced, not read (the static extractor records null).
      "numericApis": numeric_apis,
      "numericPrimitives": numeric_primitives,
      "gpuInterpretAllocates": gpu_interpret_allocates(lambda m: getattr(own_source.module(m), "tree", None)),
      "mosaicGpuSmemModel": smem_model(lambda m: getattr(own_source.module(m), "tree", None),
                                       lambda m: getattr(own_source.module(m), "source", None)),
  }


def _overrides_get_bind_params(prim):
  """Whether the primitive's class (or a base below core.Primitive) defines
  get_bind_params."""
  base = _primitive_class()
  for cls in type(prim).__mro__:
    if cls is base or cls is object:
      return False
    if "get_bind_params" in vars(cls):
      return True
  return False


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("-o", "--output", help="write here instead of stdout")
  args = parser.parse_args(argv)
  write_table(extract(), args.output)
  return 0


if __name__ == "__main__":
  sys.exit(main())
