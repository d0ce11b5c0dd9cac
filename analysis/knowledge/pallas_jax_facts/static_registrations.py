"""The registrations the static extractor finds in JAX's source: primitives,
discharge / lowering / Mosaic GPU rules, the GPU interpreter's arms, API
binds, error templates, InterpretGPUParams and defaults."""

from __future__ import annotations

import ast

from . import config, gpu_backend
from .hardware import capability_gate
from .live_objects import _module_path
from .source_ast import _own_returns, arms_reaching_callbacks, asserts_ref_operand_of, first_statement_raise_of, hardware_named_in, indexing_only_callbacks, interpreter_arms, raise_template_in, range_helper_attribute, returns_before_bind_of, unpack_error_message, unpack_mismatch_of, written_operands_of
from .static_source import ClassObj, FuncObj, ModuleObj, PrimObj, ValueObj, _body_nodes, _chain, _is_partial, _local_names, _outermost_chains


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
    return isinstance(obj, FuncObj) and obj.module.startswith(config.FOLLOW_PREFIXES)

  def follows_class(self, obj):
    if not isinstance(obj, ClassObj) or not obj.module.startswith(config.FOLLOW_PREFIXES):
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
    for depth in range(config.TRANSITIVE_DEPTH + 1):
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
    self.resource_estimators = set()  # primitive names (Mosaic GPU resource estimation)
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
    if what == "_register_resource_estimator" and args:
      # @_register_resource_estimator(lax.cond_p) in Mosaic GPU's lowering.
      prim = self.src.resolve_expr(mod.name, args[0])
      if isinstance(prim, PrimObj):
        self.resource_estimators.add(prim.prim_name)
      elif isinstance(prim, ValueObj) and isinstance(prim.node, ast.Call):
        # lax's `reduce_sum_p = standard_primitive(shape_rule, dtype_rule,
        # 'reduce_sum', ...)`: a factory given the name as its first string.
        callee = _chain(prim.node.func)
        name = next((a.value for a in prim.node.args
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)), None)
        if callee and callee[-1].endswith("primitive") and name:
          self.resource_estimators.add(name)
      return
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
    raised = self.first_statement_raise(rule) or self.unpack_raise(rule, prim)
    if raised is not None:
      exc, message = raised
      entry.update(status="raises", exception=exc, message=message)
    else:
      entry["binds"] = sorted(keys[p] for p in self.rule_binds.get(prim, ()))
      entry["writesOperands"] = self.written_operands(rule) if kind == "full" else None
    return entry

  def first_statement_raise(self, rule):
    return first_statement_raise_of(rule.node)

  def unpack_raise(self, rule, prim):
    """("ValueError", message) when the rule's first line unpacks the
    primitive's args tree into another count than its binders flatten (the
    message as the Python running this extractor words it)."""
    module = self.src.module(prim.module)
    mismatch = unpack_mismatch_of(rule.node, module.tree if module else None, prim.name)
    message = unpack_error_message(*mismatch) if mismatch else None
    return ("ValueError", message) if message else None

  def written_operands(self, rule):
    if isinstance(rule.node, ast.Lambda):
      return None
    return written_operands_of(rule.node)

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
    return sorted(n for n in names if config.EFFECT_NAME.search(n))

  def higher_order_api_binds(self):
    """{api: set of PrimObj}: what each config.HIGHER_ORDER_APIS function
    binds, following also the functions of its own module."""
    out = {}
    for api, (module_name, attr) in sorted(config.HIGHER_ORDER_APIS.items()):
      obj = self.src.resolve(module_name, attr)
      if isinstance(obj, ClassObj):
        obj = self.src.attribute(obj, "__call__")  # jax.custom_jvp binds when called
      if not isinstance(obj, FuncObj):
        continue
      saved = config.FOLLOW_PREFIXES
      config.FOLLOW_PREFIXES = saved + (obj.module,)
      try:
        direct, transitive = self.api_binds(obj)
      finally:
        config.FOLLOW_PREFIXES = saved
      out[api] = direct | transitive
    return out

  def overrides_get_bind_params(self, prim):
    """Whether the primitive's class (or a base below core.Primitive)
    defines get_bind_params."""
    cls = self.src.resolve_expr(prim.module, prim.node.func) if isinstance(prim.node, ast.Call) else None
    for _ in range(6):
      if not isinstance(cls, ClassObj) or cls.name == "Primitive":
        return False
      if self.src.attribute(cls, "get_bind_params") is not None:
        return True
      bases = [self.src.resolve_expr(cls.module, b) for b in cls.node.bases]
      cls = next((b for b in bases if isinstance(b, ClassObj)), None)
    return False

  def abstract_eval_asserts_ref(self, prim):
    """Whether the abstract-eval rule asserts a Ref operand (source_ast)."""
    rule = self.abstract_eval.get(prim)
    return bool(rule is not None and isinstance(rule.node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and asserts_ref_operand_of(rule.node))

  def gpu_interpret_arms(self):
    arms, has_fallback, found = {}, False, None
    for module_name in config.INTERPRET_MODULES:
      interp = self.src.resolve(module_name, "JaxprInterpreter")
      method = self.src.attribute(interp, "interpret") if isinstance(interp, ClassObj) else None
      if not isinstance(method, FuncObj):
        continue
      found = module_name
      for pattern, handling, message in interpreter_arms(method.node):
        if pattern is None:
          has_fallback = True
          continue
        if isinstance(pattern, ast.MatchValue):
          prim = self.src.resolve_expr(module_name, pattern.value)
          if isinstance(prim, PrimObj):
            arms[prim] = (handling, message)
    return arms, has_fallback, found

  def _imported_modules(self, module):
    """The modules `module` imports by name (import x / from pkg import x)."""
    for entry in module.globals.values():
      name = entry[1] if entry[0] == "import" else f"{entry[1]}.{entry[2]}" if entry[0] == "from" else None
      found = self.src.module(name) if name else None
      if found is not None:
        yield found

  def gpu_interpret_indexing_only(self):
    """{prim: attribute}: the same read as live_paths.gpu_interpret_indexing_only."""
    out = {}
    for module_name in config.INTERPRET_MODULES:
      interp = self.src.resolve(module_name, "JaxprInterpreter")
      module = self.src.module(module_name)
      if not isinstance(interp, ClassObj) or module is None:
        continue
      for callbacks_module in self._imported_modules(module):
        if not callbacks_module.name.endswith("callbacks"):
          continue
        callbacks = indexing_only_callbacks(callbacks_module.tree)
        helper = None
        for helper_module in self._imported_modules(callbacks_module):
          helper = next((f for f in helper_module.tree.body
                         if isinstance(f, ast.FunctionDef) and f.name == "to_range"), helper)
        attribute = range_helper_attribute(helper) if helper is not None else None
        if not callbacks or not attribute:
          continue
        for pattern in arms_reaching_callbacks(interp.node, callbacks):
          if isinstance(pattern, ast.MatchValue):
            prim = self.src.resolve_expr(module_name, pattern.value)
            if isinstance(prim, PrimObj):
              out[prim] = attribute
    return out

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
      gate = capability_gate(ast.get_source_segment(mod.source, fn) or "")
      if gate:
        gates[fn.name] = gate
    return gates

  def error_templates(self):
    out = {}
    for key, (module_name, anchor) in sorted(config.ERROR_ANCHORS.items()):
      entry = {"module": module_name, "file": _module_path(module_name), "anchor": anchor, "found": False}
      mod = self.src.module(module_name)
      if mod is not None and (found := raise_template_in(mod.tree, anchor)):
        entry.update(found)
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
    for module_name, attr in config.INTERPRET_PARAMS_PATHS:
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
    for module_name, attr in config.GPU_MODE_CONTEXTS:
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
    trees = [self.src.module(m) for m in ("jax._src.pallas.pallas_call", "jax._src.config")]
    out["pallasCallWithoutParams"] = gpu_backend.pallas_call_gpu_default(
        *(m.tree if m is not None else None for m in trees))
    return out

  # -------------------------------------------------------------- refIndexing

  def ref_indexing(self):
    out = {}
    for name, (module_name, attr) in sorted(config.REF_INDEXING.items()):
      alloc = self.src.resolve(module_name, attr)
      getter = self.src.attribute(alloc, "get_ref_aval") if isinstance(alloc, ClassObj) else None
      if not isinstance(getter, FuncObj):
        continue
      ref_cls = None
      for ret in _own_returns(getter.node):
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
    return hardware_named_in(ast.get_docstring(obj.node))

  def returns_before_bind(self, fn):
    return returns_before_bind_of(fn.node)
