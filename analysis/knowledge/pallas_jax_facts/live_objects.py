"""Access to the live objects of an imported JAX: modules, functions (unwrapped),
their code objects and source, the index of Primitive objects, and the
global/attribute chains a function's bytecode loads."""

from __future__ import annotations

import ast
import dis
import enum
import functools
import importlib
import inspect
import textwrap
import types

from . import config
from .source_ast import first_statement_raise_of, hardware_named_in


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


def _parsed_source(obj):
  """The AST of obj's source (a module, class or function); None when it
  has none or it does not parse."""
  source = _source_of(obj) if obj is not None else None
  try:
    return ast.parse(source) if source is not None else None
  except SyntaxError:
    return None


def _module_path(module_name):
  """A JAX-relative path such as jax/_src/state/discharge.py."""
  return module_name.replace(".", "/") + ".py"


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
  return first_statement_raise_of(_function_ast(fn, lambdas=True))


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


def _follows(obj):
  module = getattr(_unwrap(obj), "__module__", "") or ""
  return isinstance(_unwrap(obj), types.FunctionType) and module.startswith(config.FOLLOW_PREFIXES)


def _follows_class(obj):
  return (isinstance(obj, type) and not issubclass(obj, BaseException)
          and (getattr(obj, "__module__", "") or "").startswith(config.FOLLOW_PREFIXES))


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
  return hardware_named_in(inspect.getdoc(value))
