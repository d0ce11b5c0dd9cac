"""State discharge facts of an imported JAX: which primitives have a (partial)
discharge rule, whether it raises, what it binds and which operands it writes."""

from __future__ import annotations

from .live_objects import _first_statement_raise, _function_ast, _parsed_source, _qualname, _referenced_objects, _try_import, _unwrap
from .source_ast import unpack_error_message, unpack_mismatch_of, written_operands_of


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


def written_operands(rule):
  """Which operands a full discharge rule returns a new value for: the
  positions of the non-None entries of the first element of every `return`
  ((new_invals, outs)). None when a return is not such a literal."""
  func = _function_ast(rule)
  return None if func is None else written_operands_of(func)


def _unpack_raise(rule, module_name, var):
  """("ValueError", message) when the rule's first line unpacks the
  primitive's args tree into more or fewer names than its binders pack."""
  mismatch = unpack_mismatch_of(_function_ast(rule), _parsed_source(_try_import(module_name) if module_name else None), var) if var else None
  message = unpack_error_message(*mismatch) if mismatch else None
  return ("ValueError", message) if message else None


def discharge_entry(prim, full, partial, keys=None, binds=None, module_name=None, var=None):
  rule, kind = discharge_rule(prim, full, partial)
  if rule is None:
    return {"status": "none"}
  entry = {"status": "exists", "kind": kind, "rule": _qualname(rule)}
  raised = _first_statement_raise(rule) or _unpack_raise(rule, module_name, var)
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
