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
* defaults: ``CompilerParams.lowering_semantics``'s default (the semantics a
  kernel gets when it does not choose), under "mosaicGpuDefaults".
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys

# Shared with the reference extractor: the same modules, anchors and rules.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_knowledge as ref  # noqa: E402 -- imports no JAX at module level
import extract_mosaic_rules  # noqa: E402 -- issue 17's rule numbers, shared

SCHEMA_VERSION = ref.SCHEMA_VERSION
_MAX_FILE_BYTES = 8 << 20  # JAX's largest module is ~0.3 MB


# ------------------------------------------------------------ object model


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


# ------------------------------------------------------------- functions


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
  that follows a call (`.bind`)."""
  inner = set()
  nodes = list(_body_nodes(func))
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


class Extractor:
  def __init__(self, source):
    self.src = source
    self.index = {}  # PrimObj -> (module, var), first registration wins
    self.order = []
    self._locals = {}

  # ------------------------------------------------------------ indexing

  def add(self, prim, module_name, var):
    if isinstance(prim, PrimObj) and prim not in self.index:
      self.index[prim] = (module_name, var)
      self.order.append(prim)

  def add_module(self, module_name):
    mod = self.src.module(module_name)
    if mod is None:
      return
    for name in sorted(mod.globals):
      obj = self.src.resolve(module_name, name)
      if isinstance(obj, PrimObj):
        self.add(obj, module_name, name)

  def keys(self):
    by_name = {}
    for prim in self.order:
      module, var = self.index[prim]
      by_name.setdefault(prim.prim_name, []).append((module, var, prim))
    result = {}
    for name, entries in by_name.items():
      entries.sort(key=lambda e: (e[0], e[1]))
      for i, (module, var, prim) in enumerate(entries):
        key = name if i == 0 else f"{name}@{module.rsplit('.', 2)[-2]}.{module.rsplit('.', 1)[-1]}"
        result[prim] = key
    return result

  # --------------------------------------------------------- references

  def referenced(self, fn):
    """[(object, followed by .bind)] a function's code loads from globals."""
    if not isinstance(fn, FuncObj) or fn.node is None:
      return []
    key = id(fn.node)
    if key not in self._locals:
      self._locals[key] = _local_names(fn.node)
    local = self._locals[key]
    found = []
    for chain in _outermost_chains(fn.node):
      if chain[0] in local:
        continue
      obj, used = self.src.resolve_prefix(fn.module, chain)
      if obj is None:
        continue
      binds = used < len(chain) and chain[used] in ("bind", "bind_with_trace")
      found.append((obj, binds))
    return found

  def follows(self, obj):
    return isinstance(obj, FuncObj) and obj.module.startswith(ref.FOLLOW_PREFIXES)

  def follows_class(self, obj):
    if not isinstance(obj, ClassObj) or not obj.module.startswith(ref.FOLLOW_PREFIXES):
      return False
    names = {(_chain(b) or [""])[-1] for b in obj.node.bases}
    return not any(n.endswith(("Error", "Exception")) for n in names)

  def methods(self, cls):
    """Plain functions in a class body (what vars(cls) holds as functions)."""
    out = []
    for stmt in cls.node.body:
      if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        decos = {(_chain(d) or [""])[-1] for d in stmt.decorator_list}
        decos |= {(_chain(d.func) or [""])[-1] for d in stmt.decorator_list if isinstance(d, ast.Call)}
        if decos & {"staticmethod", "classmethod", "property", "setter", "getter",
                    "cached_property", "abstractmethod"}:
          continue
        out.append(FuncObj(cls.module, f"{cls.name}.{stmt.name}", stmt))
    return out

  def api_binds(self, fn):
    direct, transitive = set(), set()
    seen = {fn}
    frontier = [fn]
    for depth in range(ref.TRANSITIVE_DEPTH + 1):
      next_frontier = []
      for f in frontier:
        for obj, _binds in self.referenced(f):
          if isinstance(obj, PrimObj):
            self.add(obj, f.module, obj.prim_name)
            (direct if depth == 0 else transitive).add(obj)
          elif self.follows(obj) and obj not in seen:
            seen.add(obj)
            next_frontier.append(obj)
          elif self.follows_class(obj) and obj not in seen:
            seen.add(obj)
            next_frontier.extend(self.methods(obj))
      frontier = next_frontier
    return direct, transitive - direct

  # ------------------------------------------------------------- scanning

  def registrations(self, modules):
    """One pass over every module: discharge rules, CPU lowerings, Mosaic
    GPU lowering rules, abstract-eval rules and multiple_results flags."""
    self.discharge = {}      # prim -> (rule FuncObj or None, kind)
    self.cpu = set()
    self.mgpu = {}           # prim -> set of labels
    self.have_mgpu = False
    self.abstract_eval = {}  # prim -> [FuncObj]
    self.multiple = set()
    mgpu_defaults = self._register_lowering_rule_defaults()
    for mod in modules:
      self._scan(mod, mod.tree.body, {}, mgpu_defaults)

  def _register_lowering_rule_defaults(self):
    lowering = self.src.module("jax._src.pallas.mosaic_gpu.lowering")
    if lowering is None:
      return None
    self.have_mgpu = "mosaic_lowering_rules" in lowering.globals
    binding = lowering.globals.get("register_lowering_rule")
    if not binding or binding[0] != "node" or not isinstance(binding[1], ast.FunctionDef):
      return None
    args = binding[1].args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return [(a.arg, d) for a, d in zip(positional, defaults)]

  def _semantics_values(self, module_name, node, env):
    """Enum member names an expression stands for: ["Lane"], or a tuple's
    members for a starred (LANExWG_SEMANTICS); None when unknown."""
    if isinstance(node, ast.Name) and node.id in env:
      return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
      out = []
      for elt in node.elts:
        v = self._semantics_values(module_name, elt, env)
        if v is None:
          return None
        out.extend(v)
      return out
    chain = _chain(node)
    if not chain:
      return None
    if chain[-1] in ("Lane", "Warpgroup", "Warp"):
      return [chain[-1]]
    obj = self.src.resolve_chain(module_name, chain)
    if isinstance(obj, ValueObj) and isinstance(obj.node, (ast.Tuple, ast.List)):
      return self._semantics_values(obj.module, obj.node, {})
    return None

  def _loop_env(self, module_name, stmt, env):
    """Bindings of a `for x in [literal, ...]` loop: each iteration's env."""
    if not isinstance(stmt.target, ast.Name) or not isinstance(stmt.iter, (ast.List, ast.Tuple)):
      return [env]
    out = []
    for elt in stmt.iter.elts:
      new = dict(env)
      values = self._semantics_values(module_name, elt, env)
      new[stmt.target.id] = values if values is not None else [("expr", elt)]
      out.append(new)
    return out

  def _scan(self, mod, body, env, mgpu_defaults):
    for stmt in body:
      if isinstance(stmt, ast.For):
        for loop_env in self._loop_env(mod.name, stmt, env):
          self._scan(mod, stmt.body, loop_env, mgpu_defaults)
        continue
      if isinstance(stmt, (ast.If, ast.Try, ast.With)):
        self._scan(mod, stmt.body, env, mgpu_defaults)
        self._scan(mod, getattr(stmt, "orelse", []), env, mgpu_defaults)
        continue
      if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        target = (FuncObj(mod.name, stmt.name, stmt) if not isinstance(stmt, ast.ClassDef) else None)
        for deco in stmt.decorator_list:
          self._registration(mod, deco, target, env, mgpu_defaults)
        continue
      if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Call):  # register_x(p)(rule)
          rule = self._rule(mod, call.args[0], env) if call.args else None
          self._registration(mod, call.func, rule, env, mgpu_defaults)
        else:
          self._registration(mod, call, None, env, mgpu_defaults)
        continue
      if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
          chain = _chain(target)
          if chain and chain[-1] == "multiple_results" and len(chain) >= 2:
            prim = self._prim(mod, ast.Name(id=chain[0]) if len(chain) == 2 else target.value, env)
            if isinstance(prim, PrimObj) and isinstance(stmt.value, ast.Constant) and stmt.value.value:
              self.multiple.add(prim)
          elif isinstance(target, ast.Subscript):
            self._subscript_registration(mod, target, stmt.value, env)

  def _prim(self, mod, node, env):
    if isinstance(node, ast.Name) and node.id in env:
      values = env[node.id]
      if values and isinstance(values[0], tuple) and values[0][0] == "expr":
        node = values[0][1]
    return self.src.resolve_expr(mod.name, node)

  def _rule(self, mod, node, env):
    if isinstance(node, ast.Call) and _is_partial(node.func) and node.args:
      node = node.args[0]
    if isinstance(node, ast.Lambda):
      return FuncObj(mod.name, "<lambda>", node)
    obj = self.src.resolve_expr(mod.name, node)
    return obj if isinstance(obj, FuncObj) else None

  def _registration(self, mod, call, rule, env, mgpu_defaults):
    if not isinstance(call, ast.Call):
      # @p.def_effectful_abstract_eval (no call): an abstract-eval rule.
      chain = _chain(call)
      if chain and chain[-1] in ("def_abstract_eval", "def_effectful_abstract_eval") and rule:
        prim = self.src.resolve_chain(mod.name, chain[:-1])
        if isinstance(prim, PrimObj):
          self.abstract_eval[prim] = rule
      return
    func, args, keywords = call.func, call.args, call.keywords
    if _is_partial(func) and args:  # @functools.partial(mlir.register_lowering, p)
      func, args = args[0], args[1:]
    chain = _chain(func)
    if not chain:
      return
    what = chain[-1]
    if what in ("def_abstract_eval", "def_effectful_abstract_eval"):
      prim = self.src.resolve_chain(mod.name, chain[:-1])
      target = self._rule(mod, args[0], env) if args else rule
      if isinstance(prim, PrimObj) and target:
        self.abstract_eval[prim] = target
      return
    if not args or what not in ("register_discharge_rule", "register_partial_discharge_rule",
                                "register_lowering", "register_lowering_rule"):
      return
    # Only JAX's own registries count: Triton and Mosaic TPU have functions
    # of the same names for their own tables.
    registrar = self.src.resolve_chain(mod.name, chain)
    home = registrar.module if isinstance(registrar, FuncObj) else None
    if what in ("register_discharge_rule", "register_partial_discharge_rule"):
      if home != "jax._src.state.discharge":
        return
      prim = self._prim(mod, args[0], env)
      if isinstance(prim, PrimObj):
        kind = "partial" if what == "register_partial_discharge_rule" else "full"
        if what == "register_discharge_rule" and rule is not None and self._reads_should_discharge(rule):
          kind = "partial"  # 0.11+: one registry; the rule is told through its context
        self.discharge[prim] = (rule, kind, what)
    elif what == "register_lowering":
      if home != "jax._src.interpreters.mlir":
        return
      prim = self._prim(mod, args[0], env)
      platform = next((k.value for k in keywords if k.arg == "platform"), None)
      if isinstance(prim, PrimObj):
        if platform is None or (isinstance(platform, ast.Constant) and platform.value == "cpu"):
          self.cpu.add(prim)
    elif what == "register_lowering_rule" and mgpu_defaults is not None:
      if home != "jax._src.pallas.mosaic_gpu.lowering":
        return
      prim = self._prim(mod, args[0], env)
      if not isinstance(prim, PrimObj):
        return
      values = []
      for arg in args[1:]:
        v = self._semantics_values(mod.name, arg.value if isinstance(arg, ast.Starred) else arg, env)
        if v is None:
          return
        values.extend(v)
      params = {name: None for name, _ in mgpu_defaults}
      for (name, default), value in zip(mgpu_defaults[1:], values):
        params[name] = value
      for kw in keywords:
        v = self._semantics_values(mod.name, kw.value, env)
        if kw.arg in params and v:
          params[kw.arg] = v[0]
      labels = []
      for name, default in mgpu_defaults[1:]:
        if params[name] is None and default is not None:
          d = self._semantics_values("jax._src.pallas.mosaic_gpu.lowering", default, {})
          params[name] = d[0] if d else None
        labels.append(params[name])
      if len(labels) == 2 and all(labels):
        self.mgpu.setdefault(prim, set()).add(f"{labels[0]}x{labels[1]}")

  def _subscript_registration(self, mod, target, value, env):
    """`_discharge_rules[p] = rule`, `_lowerings[p] = rule`."""
    chain = _chain(target.value)
    if not chain:
      return
    prim = self._prim(mod, target.slice, env)
    if not isinstance(prim, PrimObj):
      return
    if chain[-1] in ("_discharge_rules", "_partial_discharge_rules"):
      kind = "partial" if chain[-1] == "_partial_discharge_rules" else "full"
      self.discharge[prim] = (self._rule(mod, value, env), kind, chain[-1])
    elif chain[-1] == "_lowerings":
      self.cpu.add(prim)

  def mgpu_updates(self):
    """`mosaic_lowering_rules[semantics].update({p: rule, ...})` in loops."""
    lowering = self.src.module("jax._src.pallas.mosaic_gpu.lowering")
    if lowering is None:
      return

    def visit(body, env):
      for stmt in body:
        if isinstance(stmt, ast.For):
          for loop_env in self._loop_env(lowering.name, stmt, env):
            visit(stmt.body, loop_env)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
          call = stmt.value
          f = call.func
          if not (isinstance(f, ast.Attribute) and f.attr == "update"
                  and isinstance(f.value, ast.Subscript)
                  and _chain(f.value.value) == ["mosaic_lowering_rules"]):
            continue
          sem = self._semantics_values(lowering.name, f.value.slice, env)
          if not sem or len(sem) != 2 or not call.args or not isinstance(call.args[0], ast.Dict):
            continue
          for k in call.args[0].keys:
            prim = self.src.resolve_expr(lowering.name, k) if k is not None else None
            if isinstance(prim, PrimObj):
              self.mgpu.setdefault(prim, set()).add(f"{sem[0]}x{sem[1]}")

    visit(lowering.tree.body, {})

  def _reads_should_discharge(self, rule):
    return any(isinstance(n, ast.Attribute) and n.attr == "should_discharge"
               for n in ast.walk(rule.node))

  # ---------------------------------------------------------------- facts

  def rule_qualname(self, rule):
    return f"{rule.module}.{rule.name}"

  def discharge_entry(self, prim, keys):
    found = self.discharge.get(prim)
    if found is None or found[0] is None:
      return {"status": "none"} if found is None else {"status": "exists", "kind": found[1], "rule": None}
    rule, kind, _how = found
    entry = {"status": "exists", "kind": kind, "rule": self.rule_qualname(rule)}
    raised = self.first_statement_raise(rule)
    if raised is not None:
      exc, message = raised
      entry.update(status="raises", exception=exc, message=message)
    else:
      entry["binds"] = sorted(keys[p] for p in self.rule_binds.get(prim, ()))
      entry["writesOperands"] = self.written_operands(rule) if kind == "full" else None
    return entry

  def first_statement_raise(self, rule):
    func = rule.node
    if isinstance(func, ast.Lambda):
      return None
    for stmt in func.body:
      if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        continue
      if isinstance(stmt, (ast.Delete, ast.Pass)):
        continue
      if isinstance(stmt, ast.Raise):
        return ref._exception_name(stmt), ref._raise_message(stmt)
      return None
    return None

  def written_operands(self, rule):
    if isinstance(rule.node, ast.Lambda):
      return None
    return ref.written_operands_of(rule.node)

  def binds_of_rule(self, rule):
    out = set()
    for obj, binds in self.referenced(rule):
      if binds and isinstance(obj, PrimObj):
        self.add(obj, rule.module, obj.prim_name)
        out.add(obj)
    return out

  def effects(self, prim):
    rule = self.abstract_eval.get(prim)
    if rule is None:
      return []
    local = _local_names(rule.node)
    names = set()
    for node in _body_nodes(rule.node):
      if isinstance(node, ast.Name) and node.id not in local:
        names.add(node.id)
      elif isinstance(node, ast.Attribute):
        names.add(node.attr)
    return sorted(n for n in names if ref.EFFECT_NAME.search(n))

  def gpu_interpret_arms(self):
    arms, has_fallback, found = {}, False, None
    for module_name in ref.INTERPRET_MODULES:
      interp = self.src.resolve(module_name, "JaxprInterpreter")
      method = self.src.attribute(interp, "interpret") if isinstance(interp, ClassObj) else None
      if not isinstance(method, FuncObj):
        continue
      found = module_name
      for pattern, handling, message in ref.interpreter_arms(method.node):
        if pattern is None:
          has_fallback = True
          continue
        if isinstance(pattern, ast.MatchValue):
          prim = self.src.resolve_expr(module_name, pattern.value)
          if isinstance(prim, PrimObj):
            arms[prim] = (handling, message)
    return arms, has_fallback, found

  def hardware_gates(self):
    mod = self.src.module("jax._src.test_util")
    gates = {}
    if mod is None:
      return gates
    found = []
    for stmt in mod.tree.body:
      if isinstance(stmt, ast.FunctionDef):
        found.append(stmt)
      elif isinstance(stmt, ast.ClassDef):
        found.extend(s for s in stmt.body if isinstance(s, ast.FunctionDef))
    for fn in sorted(found, key=lambda f: f.name):
      if not fn.name.startswith("skip_unless_"):
        continue
      gate = ref.capability_gate(ast.get_source_segment(mod.source, fn) or "")
      if gate:
        gates[fn.name] = gate
    return gates

  def error_templates(self):
    out = {}
    for key, (module_name, anchor) in sorted(ref.ERROR_ANCHORS.items()):
      entry = {"module": module_name, "file": ref._module_path(module_name), "anchor": anchor, "found": False}
      mod = self.src.module(module_name)
      if mod is not None:
        for node in ast.walk(mod.tree):
          if not isinstance(node, ast.Raise):
            continue
          message = ref._raise_message(node)
          if message and anchor in message:
            entry.update(found=True, template=message, regex=ref._template_regex(message),
                         exception=ref._exception_name(node), line=node.lineno)
            break
      out[key] = entry
    return out

  # ------------------------------------------------------ interpret params

  def _type_text(self, module_name, node):
    """How str(dataclasses.Field.type) prints an evaluated annotation."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
      return node.value  # a string annotation stays a string
    if isinstance(node, ast.Name) and node.id in ("bool", "int", "float", "str", "bytes"):
      return f"<class '{node.id}'>"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
      def part(n):
        if isinstance(n, ast.Constant) and n.value is None:
          return "None"
        if isinstance(n, ast.Name) and n.id in ("bool", "int", "float", "str", "bytes"):
          return n.id
        obj = self.src.resolve_expr(module_name, n)
        return f"{obj.module}.{obj.name}" if isinstance(obj, ClassObj) else ast.unparse(n)
      return f"{part(node.left)} | {part(node.right)}"
    if isinstance(node, ast.Subscript) and (_chain(node.value) or [""])[-1] == "Literal":
      return f"typing.{ast.unparse(node)}" if isinstance(node.value, ast.Name) else \
          "typing.Literal[" + ast.unparse(node.slice).strip("()") + "]"
    obj = self.src.resolve_expr(module_name, node)
    if isinstance(obj, ClassObj):
      return f"<class '{obj.module}.{obj.name}'>"
    return ast.unparse(node)

  def _default(self, module_name, node):
    if node is None:
      return None, False
    if isinstance(node, ast.Call) and (_chain(node.func) or [""])[-1] == "field":
      for kw in node.keywords:
        if kw.arg == "default":
          return self._default(module_name, kw.value)
        if kw.arg == "default_factory":
          return "<factory>", True
      return None, False
    if isinstance(node, ast.Constant):
      return node.value, True
    chain = _chain(node)
    if chain and len(chain) >= 2:
      return f"{chain[-2]}.{chain[-1]}", True
    return ast.unparse(node), True

  def interpret_gpu_params(self):
    info = {"available": False, "importPaths": [], "fields": [], "contextManagers": []}
    cls = None
    for module_name, attr in ref.INTERPRET_PARAMS_PATHS:
      obj = self.src.resolve(module_name, attr) if self.src.module(module_name) else None
      if obj is not None:
        info["importPaths"].append(f"{module_name}.{attr}")
        cls = cls or obj
    if isinstance(cls, ClassObj) and any("dataclass" in ast.unparse(d) for d in cls.node.decorator_list):
      info["available"] = True
      info["class"] = f"{cls.module}.{cls.name}"
      chain, c = [], cls
      while isinstance(c, ClassObj) and len(chain) < 8:  # base dataclasses' fields come first
        chain.insert(0, c)
        c = self.src.resolve_expr(c.module, c.node.bases[0]) if c.node.bases else None
      fields = {}
      for c in chain:
        for stmt in c.node.body:
          if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
              continue
            default, _has = self._default(c.module, stmt.value)
            fields[stmt.target.id] = {"name": stmt.target.id, "default": default,
                                      "type": self._type_text(c.module, stmt.annotation)}
      fields = list(fields.values())
      info["fields"] = fields
      info["hasInlineMgpuOption"] = any(f["name"] == "inline_mgpu" for f in fields)
    for module_name, attr in ref.GPU_MODE_CONTEXTS:
      if self.src.module(module_name) and self.src.resolve(module_name, attr) is not None:
        info["contextManagers"].append(f"{module_name}.{attr}")
    return info

  def mosaic_gpu_defaults(self):
    """The lowering semantics a kernel gets when its CompilerParams do not
    say: the default of CompilerParams.lowering_semantics."""
    out = {"loweringSemantics": None}
    cls = self.src.resolve("jax._src.pallas.mosaic_gpu.core", "CompilerParams")
    if isinstance(cls, ClassObj):
      for stmt in cls.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id == "lowering_semantics" and stmt.value is not None:
          chain = _chain(stmt.value)
          if chain and chain[-1] in ("Lane", "Warpgroup"):
            out["loweringSemantics"] = chain[-1]
    return out

  # -------------------------------------------------------------- refIndexing

  def ref_indexing(self):
    out = {}
    for name, (module_name, attr) in sorted(ref.REF_INDEXING.items()):
      alloc = self.src.resolve(module_name, attr)
      getter = self.src.attribute(alloc, "get_ref_aval") if isinstance(alloc, ClassObj) else None
      if not isinstance(getter, FuncObj):
        continue
      ref_cls = None
      for ret in ref._own_returns(getter.node):
        if isinstance(ret.value, ast.Call):
          obj = self.src.resolve_expr(getter.module, ret.value.func)
          if isinstance(obj, ClassObj):
            ref_cls = obj
            break
      if ref_cls is None:
        continue
      entry = {"refType": f"{ref_cls.module}.{ref_cls.name}"}
      for op, method in (("getitem", "_getitem"), ("setitem", "_setitem")):
        fn = self.src.attribute(ref_cls, method)
        if not isinstance(fn, FuncObj):
          entry[op] = None
          continue
        ids = set()
        for f in [fn] + self._imported_functions(fn):
          direct, transitive = self.api_binds(f)
          ids |= direct | transitive
        entry[op] = ids
      out[name] = entry
    return out

  def _imported_functions(self, fn):
    out = []
    for node in ast.walk(fn.node):
      if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        for alias in node.names:
          obj = self.src.resolve(node.module, alias.name)
          if isinstance(obj, FuncObj):
            out.append(obj)
    return out

  # ------------------------------------------------------------------ apis

  def public_names(self, module_name):
    mod = self.src.module(module_name)
    if mod is None:
      return []
    names = None
    binding = mod.globals.get("__all__")
    if binding and binding[0] == "node" and isinstance(binding[1], (ast.List, ast.Tuple)):
      names = [e.value for e in binding[1].elts if isinstance(e, ast.Constant)]
    if names is None:
      names = [n for n in mod.globals if not n.startswith("_")]
    return sorted(n for n in names if not n.startswith("_"))

  def callable_value(self, obj):
    """The module of the class of a callable instance bound at module level
    (`enable_debug_checks = config.bool_state(...)`: a config State, which
    the reference sees as a callable whose __module__ is jax._src.config)."""
    if not isinstance(obj, ValueObj) or not isinstance(obj.node, ast.Call):
      return None
    callee = self.src.resolve_expr(obj.module, obj.node.func)
    if isinstance(callee, ClassObj) and self.src.attribute(callee, "__call__") is not None:
      return callee.module
    if isinstance(callee, FuncObj) and callee.module == "jax._src.config" \
        and callee.name.endswith("_state"):
      return callee.module  # *_state(...) returns a callable config State
    return None

  def multiple_results(self, prim):
    if prim in self.multiple:
      return True
    cls = self.src.resolve_expr(prim.module, prim.node.func) if isinstance(prim.node, ast.Call) else None
    for _ in range(5):  # the class (or a base) may say `multiple_results = True`
      if not isinstance(cls, ClassObj):
        return False
      value = self.src.attribute(cls, "multiple_results")
      if isinstance(value, ValueObj) and isinstance(value.node, ast.Constant):
        return bool(value.node.value)
      cls = self.src.resolve_expr(cls.module, cls.node.bases[0]) if cls.node.bases else None
    return False

  def api_kind(self, obj):
    if isinstance(obj, ModuleObj):
      return "module"
    if isinstance(obj, ClassObj):
      return "type"
    if isinstance(obj, FuncObj):
      return "function"
    if isinstance(obj, PrimObj):
      return "primitive"
    return "constant"

  def doc_hardware(self, obj):
    if not isinstance(obj, (FuncObj, ClassObj)) or isinstance(obj.node, ast.Lambda):
      return []
    doc = ast.get_docstring(obj.node) or ""
    return sorted(set(re.findall(r"\b(Hopper|Blackwell|Ampere|sm_?\d+a?|SM\d+A?\+?)\b", doc)))

  def returns_before_bind(self, fn):
    func = fn.node
    if isinstance(func, ast.Lambda):
      return False
    binds = [n.lineno for n in ast.walk(func) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr in ("bind", "bind_with_trace")]
    if not binds:
      return False
    return any(r.lineno < min(binds) for r in ref._own_returns(func))


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
  for module_name in ref.PRIMITIVE_MODULES:
    ex.add_module(module_name)
  for module_name, var in ref.EXTRA_PRIMITIVES:
    obj = src.resolve(module_name, var)
    if isinstance(obj, PrimObj):
      ex.add(obj, module_name, var)

  apis, modules = {}, {}
  for alias, module_name in sorted(ref.PUBLIC_MODULES.items()):
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
          guard = ref.returns_before_bind_guard_of(obj.node) if entry["returnsBeforeBind"] else None
          if guard:
            entry["returnsBeforeBindIf"] = guard
        hw = ex.doc_hardware(obj)
        if hw:
          entry["docHardwareMentions"] = hw
      apis[f"{alias}.{name}"] = entry

  indexing = ex.ref_indexing()
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
  for entry in indexing.values():
    for op in ("getitem", "setitem"):
      if entry.get(op) is not None:
        entry[op] = sorted(keys[p] for p in entry[op])

  arms, has_fallback, interp_module = ex.gpu_interpret_arms()
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
        "hardware": ref.hardware_entry(prim.prim_name, gates),
    }
    if interp_module and handling == "fallback":
      entry["gpuInterpret"]["fallbackOutcome"] = "ok" if has_cpu else "missing-lowering"
    primitives[keys[prim]] = entry

  return {
      "schemaVersion": SCHEMA_VERSION,
      "generator": "analysis/knowledge/extract_knowledge_static.py",
      "jax_version": _version_of(site_packages, "jax"),
      "jaxlib_version": _version_of(site_packages, "jaxlib"),
      "python": None,  # nothing was imported: no interpreter's version applies
      "methods": {
          "apiBinds": "AST: global names/attribute chains a function loads, resolved through the "
                      f"modules' imports to Primitive(...) definitions, following functions in "
                      f"{', '.join(ref.FOLLOW_PREFIXES)} up to depth {ref.TRANSITIVE_DEPTH}",
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
      "mosaicGpuResources": ref.mosaic_gpu_resources_from(
          {name: src.module(name).tree for name in ref.RESOURCE_MODULES if src.module(name)}),
      "mosaicGpuRules": extract_mosaic_rules.mosaic_gpu_rules(
          lambda name: getattr(src.module(name), "tree", None), ref._string_template, ref._exception_name),
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
  ref.write_table(table, args.output)
  return 0


if __name__ == "__main__":
  sys.exit(main())
