"""API -> primitives for the import-based extractor: what each public function
binds (directly and through JAX helpers), its early returns before binding,
and what indexing an allocation's Ref type binds."""

from __future__ import annotations

import types

from . import config
from .live_objects import _follows, _follows_class, _function_ast, _imported_objects, _qualname, _referenced_objects, _try_import, _unwrap
from .source_ast import returns_before_bind_guard_of, returns_before_bind_of


def returns_before_bind(fn):
  """True when fn's own body has a `return` before its first `.bind(...)`."""
  return returns_before_bind_of(_function_ast(fn))


def returns_before_bind_guard(fn):
  """The condition of an early return, when it compares an operand's shape
  with a shape parameter (`if a.shape == shape: return a`, pl.broadcast_to):
  {"shapeOf": i, "equals": j} with i, j the positional parameter indices;
  None otherwise. Then the API binds for certain where parameter i's shape
  is known to differ from parameter j (a Python number, shape (), against a
  non-empty literal shape)."""
  func = _function_ast(fn)
  return None if func is None else returns_before_bind_guard_of(func)


def ref_indexing(index):
  """{allocation: {"refType", "getitem", "setitem"}} with primitive ids."""
  import jax.numpy as jnp  # noqa: PLC0415
  state_types = _try_import("jax._src.state.types")
  base = getattr(state_types, "AbstractRef", None)
  out = {}
  for name, (module_name, attr) in sorted(config.REF_INDEXING.items()):
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


def api_binds(fn, index):
  """(direct primitive ids, transitive primitive ids) for an API function."""
  direct, transitive = set(), set()
  seen = {id(_unwrap(fn))}
  frontier = [fn]
  for depth in range(config.TRANSITIVE_DEPTH + 1):
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
