"""Which public numeric functions of JAX bind a custom-derivative primitive
when called (``customDerivativeApis``), read from JAX's source.

A compiled Mosaic GPU kernel cannot contain such an equation: before
lowering, resource estimation raises "Resource estimation does not support
custom_jvp_call" for every equation whose params hold a jaxpr and whose
primitive has no estimator. ``jax.nn.relu`` is a ``jax.custom_jvp``
function, ``jax.nn.softplus`` calls ``jnp.logaddexp``, which calls one: both
fail there, while both interpret modes run them. Which functions do is a
fact of the installed JAX, so it is read here, never listed by hand.

Both extractors call ``custom_derivative_apis(src)`` with a
``static_source.Source`` over the installed JAX's files (the import-based one
points it at the imported package's directory), so both write the same
entries; ``test/knowledge/test_custom_derivatives.py`` traces every public
function with real JAX and compares.

How a function is judged (memoised, at most ``_MAX_DEPTH`` calls deep):

* a def decorated with a class whose ``__call__`` binds a primitive
  (``@custom_jvp``, ``@partial(custom_jvp, nondiff_argnums=...)``,
  ``@custom_vjp``), or a module-level ``f = custom_jvp(g)``, binds that
  primitive;
* otherwise it binds what a function it calls binds. A call under an ``if``
  on a config flag (``if config.softmax_custom_jvp.value:``) counts only when
  the flag's default (``bool_state(..., default=...)`` in jax._src.config)
  takes that branch; a call under any other condition, loop or ``except``
  makes the entry ``conditional`` (it may not be bound).

Each entry: ``{"binds": primitive name, "via": [the functions from the public
name to the decorated one], "conditional": bool, "line": the decorated def's
line, "module": its module}`` and, when the decorated function is the public
one and its body is one ``return <expr>`` written with ``jnp`` / ``lax`` and
its parameters, ``"inline": {"params": [...], "expr": "jnp.maximum(x, 0)"}``:
what it computes without the custom derivative (the fix offered).
"""

from __future__ import annotations

import ast

from .static_source import ClassObj, FuncObj, ModuleObj, ValueObj, _body_nodes, _chain, _is_partial, _local_names

# The public modules whose functions are described, as the analysis names
# them (canonical prefix -> module).
PUBLIC_MODULES = {
    "jax.nn": "jax.nn",
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "jax.scipy.special": "jax.scipy.special",
}

# The wrapper classes: name as users write it -> (module, attribute).
WRAPPERS = {
    "jax.custom_jvp": ("jax", "custom_jvp"),
    "jax.custom_vjp": ("jax", "custom_vjp"),
}

# Module -> alias the inline expression is written with.
_ALIASES = {"jax.numpy": "jnp", "jax.lax": "lax"}

_MAX_DEPTH = 8


def _call_binds(src, cls):
  """The primitive name a wrapper class's __call__ binds (`p.bind(...)`)."""
  call = src.attribute(cls, "__call__")
  if not isinstance(call, FuncObj):
    return None
  for node in ast.walk(call.node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bind":
      target = src.resolve_expr(call.module, node.func.value)
      if target is not None and getattr(target, "prim_name", None):
        return target.prim_name
  return None


def _parents(tree):
  out = {}
  for node in ast.walk(tree):
    for child in ast.iter_child_nodes(node):
      out[child] = node
  return out


class _Judge:
  def __init__(self, src):
    self.src = src
    self.wrappers = {}  # ClassObj -> (api name, primitive name)
    for api, (module, attr) in WRAPPERS.items():
      cls = src.resolve(module, attr)
      if isinstance(cls, ClassObj):
        prim = _call_binds(src, cls)
        if prim:
          self.wrappers[cls] = (api, prim)
    self.memo = {}
    self.active = set()
    self.flag_defaults = {}

  # ------------------------------------------------------------ wrappers

  def wrapper_of(self, module, expr):
    """(api, primitive) when `expr` (a decorator or callee) names a wrapper
    class, also through functools.partial(wrapper, ...)."""
    if isinstance(expr, ast.Call) and _is_partial(expr.func) and expr.args:
      expr = expr.args[0]
    if isinstance(expr, ast.Call):
      expr = expr.func
    cls = self.src.resolve_expr(module, expr)
    return self.wrappers.get(cls) if isinstance(cls, ClassObj) else None

  def wrapped_global(self, module, name):
    """`f = custom_jvp(g)` at module level: (api, primitive, g's def)."""
    mod = self.src.module(module)
    binding = mod.globals.get(name) if mod is not None else None
    if not binding or binding[0] != "node" or not isinstance(binding[1], ast.Call):
      return None
    call = binding[1]
    found = self.wrapper_of(module, call.func) if not _is_partial(call.func) else self.wrapper_of(module, call)
    if found is None or not call.args:
      return None
    inner = self.src.resolve_expr(module, call.args[-1] if _is_partial(call.func) else call.args[0])
    return found + (inner,)

  # ---------------------------------------------------------- flags

  def flag_default(self, test):
    """True/False: the default of `config.<flag>.value` (or its `not`);
    None for any other condition."""
    negate = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
      negate, test = True, test.operand
    chain = _chain(test)
    if not chain or len(chain) < 3 or chain[-1] != "value" or chain[0] != "config":
      return None
    flag = chain[-2]
    if flag not in self.flag_defaults:
      self.flag_defaults[flag] = None
      mod = self.src.module("jax._src.config")
      binding = mod.globals.get(flag) if mod is not None else None
      if binding and binding[0] == "node" and isinstance(binding[1], ast.Call):
        for kw in binding[1].keywords:
          if kw.arg == "default" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool):
            self.flag_defaults[flag] = kw.value.value
    value = self.flag_defaults[flag]
    return None if value is None else value != negate

  def reached(self, node, parents, func):
    """'always' / 'never' / 'maybe': whether `node` in `func` runs."""
    how = "always"
    child = node
    while child in parents and child is not func:
      parent = parents[child]
      if isinstance(parent, ast.If) and child is not parent.test:
        default = self.flag_default(parent.test)
        in_body = any(child is s for s in parent.body)
        if default is None:
          how = "maybe"
        elif default != in_body:
          return "never"
      elif isinstance(parent, ast.IfExp) and child is not parent.test:
        how = "maybe"
      elif isinstance(parent, (ast.For, ast.While, ast.ExceptHandler, ast.comprehension)):
        how = "maybe"
      elif isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
        how = "maybe"
      elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and parent is not func:
        how = "maybe"  # a nested function: runs if it is called
      child = parent
    return how

  # ----------------------------------------------------------- judging

  def judge(self, fn, depth=0):
    """None, or {"binds", "via": [FuncObj...], "conditional", "decorated": FuncObj}."""
    if not isinstance(fn, FuncObj) or fn.node is None or not fn.module.startswith("jax._src"):
      return None
    if fn in self.memo:
      return self.memo[fn]
    if fn in self.active or depth > _MAX_DEPTH:
      return None
    self.active.add(fn)
    try:
      result = self._judge(fn, depth)
    finally:
      self.active.discard(fn)
    # A cycle cut short may make a None here that a caller outside the
    # cycle would not get; JAX's numeric functions do not recurse.
    self.memo[fn] = result
    return result

  def _judge(self, fn, depth):
    for deco in fn.node.decorator_list:
      found = self.wrapper_of(fn.module, deco)
      if found is not None:
        return {"api": found[0], "binds": found[1], "via": [fn], "conditional": False, "decorated": fn}
    local = _local_names(fn.node)
    parents = _parents(fn.node)
    best = None
    calls = [n for n in _body_nodes(fn.node) if isinstance(n, ast.Call)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
      chain = _chain(call.func)
      if not chain or chain[0] in local:
        continue
      how = self.reached(call, parents, fn.node)
      if how == "never":
        continue
      sub = self.callee(fn.module, chain, depth)
      if sub is None:
        continue
      entry = dict(sub, via=[fn] + sub["via"], conditional=sub["conditional"] or how == "maybe")
      if not entry["conditional"]:
        return entry
      best = best or entry
    return best

  def defining(self, module, name):
    """(module, name) where `name` of `module` is bound, through
    `from x import name` chains."""
    for _ in range(10):
      mod = self.src.module(module)
      binding = mod.globals.get(name) if mod is not None else None
      if not binding or binding[0] != "from":
        return module, name
      module, name = binding[1], binding[2]
    return module, name

  def callee(self, module, chain, depth):
    obj, used = self.src.resolve_prefix(module, chain)
    if used != len(chain):
      return None
    owner = module
    if len(chain) > 1:
      holder = self.src.resolve_chain(module, chain[:-1])
      owner = holder.module if isinstance(holder, ModuleObj) else None
    if owner is not None:
      wrapped = self.wrapped_global(*self.defining(owner, chain[-1]))
      if wrapped is not None and isinstance(wrapped[2], FuncObj):
        return {"api": wrapped[0], "binds": wrapped[1], "via": [wrapped[2]], "conditional": False,
                "decorated": wrapped[2]}
    if isinstance(obj, FuncObj):
      return self.judge(obj, depth + 1)
    return None

  # ------------------------------------------------------------ inline

  def inline(self, fn):
    """{"params", "expr"}: the body of a one-`return` function, written
    with jnp / lax and its parameters; None otherwise."""
    body = list(fn.node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str):
      body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
      return None
    args = fn.node.args
    params = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg or args.kwarg or args.kwonlyargs:
      return None
    expr = body[0].value
    ok = True

    class Rewrite(ast.NodeTransformer):
      def visit_Attribute(inner, node):  # noqa: N805 -- NodeTransformer's signature
        nonlocal ok
        chain = _chain(node)
        if chain is None:
          return inner.generic_visit(node)
        return self._reroot(fn.module, chain, node, params) or self._fail(node)

      def visit_Name(inner, node):  # noqa: N805
        if node.id in params:
          return node
        return self._reroot(fn.module, [node.id], node, params) or self._fail(node)

      def visit_Call(inner, node):  # noqa: N805
        nonlocal ok
        chain = _chain(node.func)
        if chain and chain[0] not in params:
          sub = self.callee(fn.module, chain, 0)
          if sub is not None:
            ok = False
        return inner.generic_visit(node)

    self._ok = True
    rewritten = Rewrite().visit(ast.parse(ast.unparse(expr), mode="eval").body)
    if not ok or not self._ok:
      return None
    return {"params": params, "expr": ast.unparse(rewritten)}

  def _fail(self, node):
    self._ok = False
    return node

  def _reroot(self, module, chain, node, params):
    """`jnp.maximum` (or `lax.select`) when `chain` in `module` names what
    that public module exports under the same name; None otherwise."""
    if len(chain) != 2:
      return None
    holder = self.src.resolve_chain(module, chain[:1])
    if not isinstance(holder, ModuleObj):
      return None
    mine = self.src.resolve(holder.module, chain[1])
    for public, alias in _ALIASES.items():
      theirs = self.src.resolve(public, chain[1])
      if mine is not None and theirs is not None and mine == theirs:
        return ast.parse(f"{alias}.{chain[1]}", mode="eval").body
    return None


def custom_derivative_apis(src):
  """{canonical public name: entry} for every public function of
  PUBLIC_MODULES that binds a custom-derivative primitive (module docstring);
  {} when the wrappers cannot be found."""
  judge = _Judge(src)
  if not judge.wrappers:
    return {}
  public = []
  names_of = {}
  for alias, module_name in sorted(PUBLIC_MODULES.items()):
    mod = src.module(module_name)
    if mod is None:
      continue
    names = None
    binding = mod.globals.get("__all__")
    if binding and binding[0] == "node" and isinstance(binding[1], (ast.List, ast.Tuple)):
      names = [e.value for e in binding[1].elts if isinstance(e, ast.Constant)]
    if names is None:
      names = [n for n in mod.globals if not n.startswith("_")]
    for name in sorted(set(names)):
      if name.startswith("_"):
        continue
      obj = src.resolve(module_name, name)
      if isinstance(obj, (FuncObj, ValueObj)):
        public.append((f"{alias}.{name}", module_name, name, obj))
        names_of.setdefault(obj, f"{alias}.{name}")
  out = {}
  for api, module_name, name, obj in public:
    found = None
    wrapped = judge.wrapped_global(*judge.defining(module_name, name))
    if wrapped is not None and isinstance(wrapped[2], FuncObj):
      found = {"api": wrapped[0], "binds": wrapped[1], "via": [wrapped[2]], "conditional": False,
               "decorated": wrapped[2]}
    elif isinstance(obj, FuncObj):
      found = judge.judge(obj)
    if found is None:
      continue
    decorated = found["decorated"]
    via = [names_of.get(f, f"{f.module}.{f.name}") for f in found["via"]]
    via[0] = api
    entry = {"binds": found["binds"], "wrapper": found["api"], "via": via,
             "conditional": found["conditional"], "module": decorated.module, "line": decorated.node.lineno}
    if len(found["via"]) == 1 and not found["conditional"]:
      inline = judge.inline(decorated)
      if inline is not None:
        entry["inline"] = inline
    out[api] = entry
  return out
