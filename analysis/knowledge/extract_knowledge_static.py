#!/usr/bin/env python3
"""Extract pallas-lsp's JAX knowledge table from JAX's *source files*.

    python extract_knowledge_static.py SITE_PACKAGES [-o OUT.json]

SITE_PACKAGES is the directory that holds the `jax` package (an environment's
``lib/python3.X/site-packages`` or an unpacked wheel). Nothing of it is
imported or executed: every file is read and parsed with Python's own `ast`.
So it runs with pallas-lsp's pinned interpreter, never the user's, which lets
an untrusted workspace be described, and a JAX built for another Python
(JAX 0.11+ needs 3.12) be described from a 3.11 interpreter.

It writes the same schema as extract_knowledge.py (the import-based reference
extractor; test_knowledge_static.py compares the two field by field on the
pinned JAX). Where the reference reads a live registry, this one finds the
registrations in the source:

* primitives: module-level ``x_p = <...>Primitive("name")``; ``x_p.multiple_results = True``.
* discharge: ``register_discharge_rule(p)`` / ``register_partial_discharge_rule(p)``
  used as decorators or called on a rule (JAX 0.10), the single
  ``register_discharge_rule`` whose rules take a ``DischargeContext`` (0.11+;
  such a rule is "partial" when it reads ``ctx.should_discharge``).
* CPU lowering: ``register_lowering(p, rule[, platform=...])`` calls.
* Mosaic GPU lowering: ``register_lowering_rule(p, lowering[, primitive])``
  decorators/calls and ``mosaic_lowering_rules[semantics].update({...})``,
  with the defaults of ``register_lowering_rule``'s own signature.
* API binds: names and attribute chains a function's body loads from its
  module's globals (what the reference finds in bytecode), resolved through
  the modules' imports.
* higher-order APIs: what ``jax.checkpoint`` & co. (config.HIGHER_ORDER_APIS)
  bind, as for the APIs; resource estimators: ``@_register_resource_estimator(p)``.
* custom derivatives: pallas_jax_facts/custom_derivatives.py (decorators and
  ``custom_jvp(f)`` assignments, followed through calls); a primitive's class
  defining ``get_bind_params`` ("getBindParamsOverridden").
* how shared memory adds up: pallas_jax_facts/smem_model.py.
* GPU interpret mode's own scratch allocation: pallas_jax_facts/gpu_interpret_allocation.py.
* defaults: ``CompilerParams.lowering_semantics``'s default (the semantics a
  kernel gets when it does not choose), under "mosaicGpuDefaults".
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys

# The extractor's modules live beside it (pallas_jax_facts/); run as a script
# (also with -I, which leaves the script's folder off sys.path) it finds them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pallas_jax_facts import config  # noqa: E402
from pallas_jax_facts.hardware import hardware_entry  # noqa: E402
from pallas_jax_facts.mosaic_resources import RESOURCE_MODULES, mosaic_gpu_resources_from  # noqa: E402
from pallas_jax_facts.mosaic_rules import mosaic_gpu_rules  # noqa: E402
from pallas_jax_facts.source_ast import _exception_name, _string_template, returns_before_bind_guard_of  # noqa: E402
from pallas_jax_facts.static_registrations import Extractor  # noqa: E402
from pallas_jax_facts.static_source import FuncObj, ModuleObj, PrimObj, Source  # noqa: E402
from pallas_jax_facts.static_source import parse_source  # noqa: E402,F401 -- for tests and tools
from pallas_jax_facts.table import fallback_outcome, write_table  # noqa: E402
from pallas_jax_facts.custom_derivatives import custom_derivative_apis  # noqa: E402
from pallas_jax_facts.gpu_interpret_allocation import gpu_interpret_allocates  # noqa: E402
from pallas_jax_facts.smem_model import smem_model  # noqa: E402


def _version_of(site, package):
  """A package's version from its version.py (`_version = "..."`) or the
  dist-info directory's name; None when neither says."""
  path = os.path.join(site, package, "version.py")
  try:
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read())
    for stmt in tree.body:
      if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_version"
                                              for t in stmt.targets):
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
          return stmt.value.value
  except (OSError, SyntaxError, ValueError):
    pass
  try:
    for entry in sorted(os.listdir(site)):
      m = re.fullmatch(re.escape(package) + r"-([^-]+)\.dist-info", entry)
      if m:
        return m.group(1)
  except OSError:
    pass
  return None


def extract(site_packages):
  src = Source(site_packages)
  ex = Extractor(src)
  for module_name in config.PRIMITIVE_MODULES:
    ex.add_module(module_name)
  for module_name, var in config.EXTRA_PRIMITIVES:
    obj = src.resolve(module_name, var)
    if isinstance(obj, PrimObj):
      ex.add(obj, module_name, var)

  apis, modules = {}, {}
  for alias, module_name in sorted(config.PUBLIC_MODULES.items()):
    present = src.module(module_name) is not None
    modules[alias] = {"module": module_name, "imported": present}
    if not present:
      continue
    for name in ex.public_names(module_name):
      obj = src.resolve(module_name, name)
      if obj is None or isinstance(obj, ModuleObj):
        continue
      kind = ex.api_kind(obj)
      entry = {"kind": kind, "definedIn": obj.module if kind in ("function", "type") else None}
      instance_of = ex.callable_value(obj)
      if instance_of is not None:
        entry = {"kind": "function", "definedIn": instance_of, "binds": [], "bindsTransitive": []}
      if isinstance(obj, PrimObj):
        ex.add(obj, module_name, name)
        entry.update(kind="primitive", binds=[obj], bindsTransitive=[])
      elif isinstance(obj, FuncObj):
        direct, transitive = ex.api_binds(obj)
        entry.update(binds=sorted(direct, key=repr), bindsTransitive=sorted(transitive, key=repr))
        if direct:
          entry["returnsBeforeBind"] = ex.returns_before_bind(obj)
          guard = returns_before_bind_guard_of(obj.node) if entry["returnsBeforeBind"] else None
          if guard:
            entry["returnsBeforeBindIf"] = guard
        hw = ex.doc_hardware(obj)
        if hw:
          entry["docHardwareMentions"] = hw
      apis[f"{alias}.{name}"] = entry

  indexing = ex.ref_indexing()
  higher_order = ex.higher_order_api_binds()
  ex.registrations(src.all_modules(["jax._src", "jax.experimental.pallas"]))
  ex.mgpu_updates()

  ex.rule_binds, done = {}, set()
  while True:
    pending = [p for p in list(ex.order) if p not in done]
    if not pending:
      break
    for prim in pending:
      done.add(prim)
      found = ex.discharge.get(prim)
      if found is not None and found[0] is not None:
        ex.rule_binds[prim] = ex.binds_of_rule(found[0])

  keys = ex.keys()
  for entry in apis.values():
    for field in ("binds", "bindsTransitive"):
      if field in entry:
        entry[field] = sorted(keys[p] for p in entry[field])
  higher_order = {api: {"binds": sorted(keys[p] for p in prims)} for api, prims in higher_order.items()}
  for entry in indexing.values():
    for op in ("getitem", "setitem"):
      if entry.get(op) is not None:
        entry[op] = sorted(keys[p] for p in entry[op])

  arms, has_fallback, interp_module = ex.gpu_interpret_arms()
  indexing_only = ex.gpu_interpret_indexing_only()
  gates = ex.hardware_gates()
  primitives = {}
  for prim in ex.order:
    module_name, var = ex.index[prim]
    handling, message = arms.get(prim, ("fallback" if has_fallback else None, None))
    has_cpu = prim in ex.cpu
    entry = {
        "name": prim.prim_name,
        "module": module_name,
        "variable": var,
        "multipleResults": ex.multiple_results(prim),
        "discharge": ex.discharge_entry(prim, keys),
        "gpuInterpret": {"handling": handling, "message": message} if interp_module else None,
        "cpuLowering": has_cpu,
        "mosaicGpuLowering": sorted(ex.mgpu.get(prim, ())) if ex.have_mgpu else None,
        "effects": ex.effects(prim),
        "hardware": hardware_entry(prim.prim_name, gates),
        "getBindParamsOverridden": ex.overrides_get_bind_params(prim),
    }
    if interp_module and handling == "fallback":
      entry["gpuInterpret"]["fallbackOutcome"] = fallback_outcome(has_cpu, ex.abstract_eval_asserts_ref(prim))
    if interp_module and prim in indexing_only:
      entry["gpuInterpret"]["transformsReadAsIndexing"] = indexing_only[prim]
    primitives[keys[prim]] = entry

  return {
      "schemaVersion": config.SCHEMA_VERSION,
      "generator": "analysis/knowledge/extract_knowledge_static.py",
      "jax_version": _version_of(site_packages, "jax"),
      "jaxlib_version": _version_of(site_packages, "jaxlib"),
      "python": None,  # nothing was imported: no interpreter's version applies
      "methods": {
          "apiBinds": "AST: global names/attribute chains a function loads, resolved through the "
                      f"modules' imports to Primitive(...) definitions, following functions in "
                      f"{', '.join(config.FOLLOW_PREFIXES)} up to depth {config.TRANSITIVE_DEPTH}",
          "discharge": "AST: register_discharge_rule / register_partial_discharge_rule calls and "
                       "decorators; a 0.11+ rule reading ctx.should_discharge counts as partial",
          "gpuInterpret": f"AST of {interp_module}.JaxprInterpreter.interpret match arms" if interp_module else None,
          "cpuLowering": "AST: register_lowering(p, ...) calls with no platform or platform='cpu'",
          "mosaicGpuLowering": "AST: register_lowering_rule(p, ...) with its signature's defaults, "
                               "mosaic_lowering_rules[...].update({...})",
          "effects": "AST: effect names referenced by the primitive's abstract-eval rule",
          "refIndexing": "AST: the Ref type get_ref_aval returns; its _getitem/_setitem binds",
          "hardware": "name rule (wgmma, tcgen05/tmem) + capability gates parsed from jax/_src/test_util.py",
          "extraction": "static (source files read with ast; nothing imported or executed)",
      },
      "modules": modules,
      "apis": apis,
      "primitives": primitives,
      "refIndexing": indexing,
      "interpretGPUParams": ex.interpret_gpu_params(),
      "hardwareGates": gates,
      "errorTemplates": ex.error_templates(),
      "mosaicGpuDefaults": ex.mosaic_gpu_defaults(),
      "mosaicGpuResources": mosaic_gpu_resources_from(
          {name: src.module(name).tree for name in RESOURCE_MODULES if src.module(name)}),
      "mosaicGpuRules": mosaic_gpu_rules(lambda name: getattr(src.module(name), "tree", None), _string_template,
                                         _exception_name),
      "higherOrderApis": higher_order,
      # None when the lowering module (and so the registry) is absent.
      "mosaicGpuResourceEstimators": (sorted(ex.resource_estimators)
                                      if src.module("jax._src.pallas.mosaic_gpu.lowering") else None),
      "customDerivativeApis": custom_derivative_apis(src),
      # Found by tracing (pallas_jax_facts/live_numeric.py): not readable here.
      "numericApis": None,
      "numericPrimitives": None,
      "gpuInterpretAllocates": gpu_interpret_allocates(lambda name: getattr(src.module(name), "tree", None)),
      "mosaicGpuSmemModel": smem_model(lambda name: getattr(src.module(name), "tree", None),
                                       lambda name: getattr(src.module(name), "source", None)),
  }


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("site_packages", help="the directory that holds the jax package")
  parser.add_argument("-o", "--output", help="write here instead of stdout")
  args = parser.parse_args(argv)
  if not os.path.isfile(os.path.join(args.site_packages, "jax", "__init__.py")):
    print(f"no jax package under {args.site_packages}", file=sys.stderr)
    return 2
  sys.setrecursionlimit(10000)
  table = extract(args.site_packages)
  if not table.get("jax_version"):
    print(f"cannot read the JAX version under {args.site_packages}", file=sys.stderr)
    return 2
  if not table["primitives"] or not table["apis"]:
    # Not a usable JAX (a stub, a broken install): an empty table would make
    # every kernel look clean, so none is written.
    print(f"no Pallas primitives or APIs found under {args.site_packages}", file=sys.stderr)
    return 2
  write_table(table, args.output)
  return 0


if __name__ == "__main__":
  sys.exit(main())
