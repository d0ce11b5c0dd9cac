"""Per-path facts of an imported JAX: the GPU interpreter's arms, CPU lowering
rules, Mosaic GPU lowering rules per semantics, and effects."""

from __future__ import annotations

import ast
import enum
import types

from . import config
from .live_objects import _code_objects, _parsed_source, _resolve_chain, _source_of, _try_import, _unwrap
from .source_ast import (arms_reaching_callbacks, asserts_ref_operand_of, indexing_only_callbacks, interpreter_arms,
                         range_helper_attribute)


def _case_primitive(pattern, module):
  """Resolves `case a.b_p:` (MatchValue of a dotted name) to an object."""
  if isinstance(pattern, ast.MatchValue):
    dotted = ast.unparse(pattern.value).split(".")
    return _resolve_chain(module, dotted) if len(dotted) > 1 else vars(module).get(dotted[0])
  return None


def gpu_interpret_arms():
  """{id(prim): (handling, message)} plus whether a fallback arm exists."""
  arms, has_fallback, found_module = {}, False, None
  for module_name in config.INTERPRET_MODULES:
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


def gpu_interpret_indexing_only():
  """{id(prim): attribute} for the primitives whose GPU interpreter arm runs
  a callback that reads its Refs' transforms as indexing without the check
  reads and writes make (source_ast.indexing_only_callbacks): a Ref viewed
  through a transpose or a reshape fails with AttributeError, the transform
  having no `attribute` (the one the range helper reads)."""
  out = {}
  for module_name in config.INTERPRET_MODULES:
    module = _try_import(module_name)
    interpreter = getattr(module, "JaxprInterpreter", None) if module else None
    tree = _parsed_source(interpreter)
    if tree is None:
      continue
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)
    # The callbacks module is what the arms' methods name (`gpu_callbacks.wgmma`).
    for name, value in sorted(vars(module).items()):
      if not isinstance(value, types.ModuleType) or not value.__name__.endswith("callbacks"):
        continue
      callbacks_tree = _parsed_source(value)
      if callbacks_tree is None or cls is None:
        continue
      callbacks = indexing_only_callbacks(callbacks_tree)
      helper = None
      for helper_module in vars(value).values():
        if isinstance(helper_module, types.ModuleType) and hasattr(helper_module, "to_range"):
          helper_tree = _parsed_source(getattr(helper_module, "to_range"))
          helper = helper_tree.body[0] if helper_tree is not None else None
      attribute = range_helper_attribute(helper) if helper is not None else None
      if not callbacks or not attribute:
        continue
      for pattern in arms_reaching_callbacks(cls, callbacks):
        prim = _case_primitive(pattern, module)
        if prim is not None:
          out[id(prim)] = attribute
  return out


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
      names.update(n for n in sub.co_names if config.EFFECT_NAME.search(n))
  return sorted(names)


def abstract_eval_asserts_ref(prim):
  """Whether the primitive's abstract-eval rule asserts (bare `assert`) that
  its operand is a Ref (source_ast.asserts_ref_operand_of); the rule is the
  one effect_names reads, its own def or the one a wrapper closes over."""
  rule = _unwrap(getattr(prim, "abstract_eval", None))
  closure = getattr(rule, "__closure__", None) or ()
  candidates = [rule] + [c.cell_contents for c in closure
                         if isinstance(getattr(c, "cell_contents", None), types.FunctionType)]
  for candidate in candidates:
    text = _source_of(_unwrap(candidate)) if candidate is not None else None
    if not text:
      continue
    try:
      tree = ast.parse(text)
    except SyntaxError:
      continue
    func = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if func is not None and asserts_ref_operand_of(func):
      return True
  return False
