"""JAX's source as the static extractor reads it: files parsed with `ast` (with
newer syntax rewritten for older Pythons), modules, their imports and the
objects their names resolve to. Nothing is imported or executed."""

from __future__ import annotations

import ast
import os
import re


_MAX_FILE_BYTES = 8 << 20  # JAX's largest module is ~0.3 MB


class Obj:
  kind = "other"

  def __init__(self, module, name, node=None):
    self.module, self.name, self.node = module, name, node

  def key(self):
    return (self.kind, self.module, self.name)

  def __eq__(self, other):
    return isinstance(other, Obj) and self.key() == other.key()

  def __hash__(self):
    return hash(self.key())

  def __repr__(self):
    return f"{self.kind}:{self.module}.{self.name}"


class ModuleObj(Obj):
  kind = "module"


class FuncObj(Obj):
  kind = "function"  # name is the qualname ("Class.method" for methods)


class ClassObj(Obj):
  kind = "type"


class PrimObj(Obj):
  kind = "primitive"  # name: the defining variable; prim_name: Primitive("...")

  def __init__(self, module, name, node, prim_name, cls_name):
    super().__init__(module, name, node)
    self.prim_name, self.cls_name = prim_name, cls_name


class ValueObj(Obj):
  kind = "value"  # anything else bound at module level (node: its value)


def _chain(node):
  """["a", "b", "c"] for the expression a.b.c; None for anything else."""
  names = []
  while isinstance(node, ast.Attribute):
    names.append(node.attr)
    node = node.value
  if isinstance(node, ast.Name):
    names.append(node.id)
    return names[::-1]
  return None


# Calls whose result the reference's _unwrap peels back to their first
# argument (functools.partial's .func, functools.wraps' __wrapped__).
_UNWRAPPED_CALLS = ("partial", "named_call", "jit", "wraps", "custom_jvp", "custom_vjp")


def _is_partial(node):
  chain = _chain(node)
  return bool(chain) and chain[-1] == "partial"


_GENERIC_DEF = re.compile(r"^([ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w+)\[", re.M)


_TYPE_ALIAS = re.compile(r"^([ \t]*)type[ \t]+(\w+)[ \t]*(\[[^\]=]*\])?[ \t]*=", re.M)


_FSTRING = re.compile(r"""\b[rR]?[fF][rR]?(["'])""")


def _drop_brackets(text, start):
  """text without the balanced [...] that opens at `start`."""
  depth, i = 0, start
  while i < len(text):
    if text[i] == "[":
      depth += 1
    elif text[i] == "]":
      depth -= 1
      if depth == 0:
        return text[:start] + text[i + 1:]
    i += 1
  return text


def parse_source(source):
  """ast of a module written for a newer Python than this one.

  The pinned interpreter (3.11) cannot parse JAX 0.11's 3.12 syntax, so what
  it cannot read is rewritten into what it can, keeping every line where it
  was: PEP 695 type parameters (`def f[T](`, `class C[T]:`) are dropped,
  `type X = ...` becomes `X = ...`, and an f-string that nests its own quotes
  (PEP 701) becomes a placeholder string (its text is then not known). Returns
  (tree, how many rewrites it needed, the text parsed)."""
  try:
    return ast.parse(source), 0, source
  except SyntaxError:
    pass
  text = source
  while True:
    m = _GENERIC_DEF.search(text)
    if not m:
      break
    text = _drop_brackets(text, m.end() - 1)
  text = _TYPE_ALIAS.sub(lambda m: f"{m.group(1)}{m.group(2)} =", text)
  rewrites = 1
  for _ in range(200):
    try:
      return ast.parse(text), rewrites, text
    except SyntaxError as e:
      lines = text.split("\n")
      if not e.lineno or e.lineno > len(lines):
        raise
      line = lines[e.lineno - 1]
      m = _FSTRING.search(line)
      if not m:
        raise
      # The rest of the line from the f-string's opening to its last quote.
      end = line.rfind(m.group(1))
      if end <= m.end() - 1:
        raise
      lines[e.lineno - 1] = line[:m.start()] + '"<f-string>"' + line[end + 1:]
      text = "\n".join(lines)
      rewrites += 1
  raise SyntaxError("too many rewrites")


class Module:
  def __init__(self, name, path, source):
    self.name, self.path, self.source = name, path, source
    self.tree, self.rewrites, self.source = parse_source(source)
    self.globals = {}  # name -> ("import", module) | ("from", module, attr) | ("node", node)
    self._collect(self.tree.body)

  def _collect(self, body):
    for stmt in body:
      if isinstance(stmt, ast.Import):
        for alias in stmt.names:
          if alias.asname:
            self.globals[alias.asname] = ("import", alias.name)
          else:
            top = alias.name.split(".")[0]
            self.globals.setdefault(top, ("import", top))
      elif isinstance(stmt, ast.ImportFrom):
        base = self._absolute(stmt)
        for alias in stmt.names:
          if alias.name != "*":
            self.globals[alias.asname or alias.name] = ("from", base, alias.name)
      elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        self.globals[stmt.name] = ("node", stmt)
      elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
          if isinstance(target, ast.Name):
            self.globals[target.id] = ("node", stmt.value)
      elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        self.globals[stmt.target.id] = ("node", stmt.value)
      elif isinstance(stmt, ast.If):
        # Names a type checker sees (`if typing.TYPE_CHECKING:`) do not exist
        # at run time; for other switches both branches' names are kept.
        if "TYPE_CHECKING" not in ast.unparse(stmt.test):
          self._collect(stmt.body)
        self._collect(stmt.orelse)
      elif isinstance(stmt, ast.Delete):
        for target in stmt.targets:
          if isinstance(target, ast.Name):
            self.globals.pop(target.id, None)
      elif isinstance(stmt, ast.Try):
        self._collect(stmt.body)

  def _absolute(self, stmt):
    if not stmt.level:
      return stmt.module or ""
    package = self.name if self.path.endswith("__init__.py") else self.name.rpartition(".")[0]
    for _ in range(stmt.level - 1):
      package = package.rpartition(".")[0]
    return f"{package}.{stmt.module}" if stmt.module else package


class Source:
  """The modules of one JAX tree on disk, parsed on first use."""

  def __init__(self, site_packages):
    self.root = site_packages
    self._modules = {}
    self._resolving = set()

  def file_of(self, module_name):
    base = os.path.join(self.root, *module_name.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
      if os.path.isfile(path):
        return path
    return None

  def module(self, name):
    if name not in self._modules:
      path = self.file_of(name) if name.split(".")[0] in ("jax", "jaxlib") else None
      mod = None
      if path is not None:
        try:
          # The tree may be a workspace's: a planted huge file is skipped.
          if os.path.getsize(path) > _MAX_FILE_BYTES:
            raise ValueError(f"{path} is larger than {_MAX_FILE_BYTES} bytes")
          with open(path, encoding="utf-8") as f:
            mod = Module(name, path, f.read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
          mod = None
      self._modules[name] = mod
    return self._modules[name]

  def all_modules(self, prefixes):
    """Every module file under the given packages (parsed)."""
    out = []
    for prefix in prefixes:
      top = os.path.join(self.root, *prefix.split("."))
      for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for fn in sorted(filenames):
          if not fn.endswith(".py"):
            continue
          rel = os.path.relpath(os.path.join(dirpath, fn), self.root)[:-3].split(os.sep)
          if rel[-1] == "__init__":
            rel = rel[:-1]
          mod = self.module(".".join(rel))
          if mod is not None:
            out.append(mod)
    return out

  # ------------------------------------------------------------ resolution

  def resolve(self, module_name, name):
    """The object `name` is bound to in `module_name`'s globals."""
    key = (module_name, name)
    if key in self._resolving:
      return None
    self._resolving.add(key)
    try:
      return self._resolve(module_name, name)
    finally:
      self._resolving.discard(key)

  def _resolve(self, module_name, name):
    mod = self.module(module_name)
    if mod is None:
      return None
    binding = mod.globals.get(name)
    if binding is None:
      if self.file_of(f"{module_name}.{name}"):
        return ModuleObj(f"{module_name}.{name}", "")
      return None
    if binding[0] == "import":
      return ModuleObj(binding[1], "") if self.module(binding[1]) else None
    if binding[0] == "from":
      sub = f"{binding[1]}.{binding[2]}"
      target = self.module(binding[1])
      if target is not None and binding[2] in target.globals:
        found = self.resolve(binding[1], binding[2])
        if found is not None:
          return found
      if self.file_of(sub):
        return ModuleObj(sub, "")
      return None
    node = binding[1]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
      return FuncObj(module_name, name, node)
    if isinstance(node, ast.ClassDef):
      return ClassObj(module_name, name, node)
    return self._value(module_name, name, node)

  def _value(self, module_name, name, node):
    if isinstance(node, ast.Call):
      callee = _chain(node.func)
      if callee and callee[-1].endswith("Primitive") and node.args:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
          return PrimObj(module_name, name, node, arg.value, callee[-1])
      if callee:
        cls = self.resolve_chain(module_name, callee)
        if isinstance(cls, ClassObj) and self._is_primitive_class(cls) and node.args:
          arg = node.args[0]
          if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return PrimObj(module_name, name, node, arg.value, cls.name)
      if callee and callee[-1] in _UNWRAPPED_CALLS and node.args:
        target = self.resolve_expr(module_name, node.args[0])
        if isinstance(target, FuncObj):
          # partial(f, ...), named_call(f), jit(f): the reference unwraps
          # these (functools.partial / __wrapped__) to f.
          return target
    if isinstance(node, (ast.Name, ast.Attribute)):
      chain = _chain(node)
      if chain:
        target = self.resolve_chain(module_name, chain)
        if target is not None:
          return target
    return ValueObj(module_name, name, node)

  def _is_primitive_class(self, cls, depth=0):
    if depth > 5:
      return False
    for base in cls.node.bases:
      chain = _chain(base)
      if not chain:
        continue
      if chain[-1].endswith("Primitive"):
        return True
      resolved = self.resolve_chain(cls.module, chain)
      if isinstance(resolved, ClassObj) and self._is_primitive_class(resolved, depth + 1):
        return True
    return False

  def resolve_expr(self, module_name, node):
    chain = _chain(node)
    return self.resolve_chain(module_name, chain) if chain else None

  def resolve_chain(self, module_name, chain):
    obj, used = self.resolve_prefix(module_name, chain)
    return obj if used == len(chain) else None

  def resolve_prefix(self, module_name, chain):
    """(object, how many names of the chain it took): the longest prefix."""
    obj = self.resolve(module_name, chain[0])
    if obj is None:
      return None, 0
    used = 1
    for attr in chain[1:]:
      nxt = self.attribute(obj, attr)
      if nxt is None:
        break
      obj, used = nxt, used + 1
    return obj, used

  def attribute(self, obj, attr):
    if isinstance(obj, ModuleObj):
      return self.resolve(obj.module, attr)
    if isinstance(obj, ClassObj):
      for stmt in obj.node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
          return FuncObj(obj.module, f"{obj.name}.{attr}", stmt)
        if isinstance(stmt, ast.ClassDef) and stmt.name == attr:
          return ClassObj(obj.module, f"{obj.name}.{attr}", stmt)
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
          return ValueObj(obj.module, f"{obj.name}.{attr}", stmt.value)
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id == attr:
          return ValueObj(obj.module, f"{obj.name}.{attr}", stmt.value)
    return None


def _local_names(func):
  """Names bound inside a function (parameters, assignments, imports, nested
  defs): in bytecode those are loaded as locals/cells, not globals."""
  names = set()
  for node in ast.walk(func):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
      args = node.args
      for a in args.posonlyargs + args.args + args.kwonlyargs:
        names.add(a.arg)
      for a in (args.vararg, args.kwarg):
        if a is not None:
          names.add(a.arg)
      if node is not func and not isinstance(node, ast.Lambda):
        names.add(node.name)
    elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
      names.add(node.id)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
      for alias in node.names:
        names.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(node, ast.ExceptHandler) and node.name:
      names.add(node.name)
    elif isinstance(node, ast.ClassDef) and node is not func:
      names.add(node.name)
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
      names.add(node.name)
  globals_declared = {n for node in ast.walk(func) if isinstance(node, ast.Global) for n in node.names}
  return names - globals_declared


def _body_nodes(func):
  """The nodes of a function's code (its body and nested code), without its
  decorators, annotations and defaults, which run in the enclosing scope."""
  stack = list(func.body) if not isinstance(func, ast.Lambda) else [func.body]
  while stack:
    node = stack.pop()
    yield node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
      stack.extend(node.body)
      stack.extend(node.args.defaults)
      stack.extend(d for d in node.args.kw_defaults if d is not None)
      stack.extend(node.decorator_list)
      continue
    if isinstance(node, ast.Lambda):
      stack.append(node.body)
      stack.extend(node.args.defaults)
      continue
    if isinstance(node, ast.ClassDef):
      stack.extend(node.body)
      stack.extend(node.bases)
      stack.extend(node.decorator_list)
      continue
    if isinstance(node, (ast.arg, ast.arguments)):
      continue
    if isinstance(node, ast.AnnAssign):
      stack.append(node.target)
      if node.value is not None:
        stack.append(node.value)
      continue
    stack.extend(ast.iter_child_nodes(node))


def _outermost_chains(func):
  """Every Name/Attribute chain loaded in the function's body, each once
  (a.b.c yields ["a", "b", "c"], not also ["a", "b"]), with the attribute
  that follows a call (`.bind`). Code that runs only below compute
  capability 9.0 (source_ast.before_hopper_node_ids) is left out."""
  from .source_ast import before_hopper_node_ids  # noqa: PLC0415 -- source_ast imports nothing of this module
  inner = set()
  skipped = before_hopper_node_ids(func) if not isinstance(func, ast.Lambda) else set()
  nodes = [n for n in _body_nodes(func) if id(n) not in skipped]
  for node in nodes:
    if isinstance(node, ast.Attribute):
      inner.add(id(node.value))
  out = []
  for node in nodes:
    if id(node) in inner:
      continue
    if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
      chain = _chain(node)
      if chain:
        out.append(chain)
  return out
