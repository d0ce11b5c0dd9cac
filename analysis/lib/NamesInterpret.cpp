// Names.h: the few expressions the analysis evaluates statically, through
// the module's names: interpret= at a launch, and the kinds of scratch
// shapes (smem, barrier, acc, ...).
#include "NamesInternal.h"
#include "pallas/analysis/detail/Apis.h"

namespace pallas::analysis::names {

InterpretEval evalFromText(const std::string& text) {
  InterpretEval e;
  e.text = text;
  if (text == "True" || text == "1") {
    e.paths = {"interpret_hlo"};
    e.source = "literal";
  } else if (text == "False" || text == "None" || text == "0") {
    e.paths = {"compiled"};
    e.source = "literal";
  } else {
    e.paths = {"unknown"};
    e.source = "unknown";
  }
  return e;
}

std::string allocationKind(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals) {
  TSNode callee = is(expr, "call") ? field(expr, "function") : expr;
  std::string api = apiOf(callee, doc, globals);
  if (api.empty())
    api = dottedName(callee, doc);
  if (api == detail::apiName(detail::Api::Acc) || api == detail::apiName(detail::Api::AccInit) ||
      endsWith(api, "WGMMAAccumulatorRef"))
    return "acc";
  if (endsWith(api, ".SMEM"))
    return "smem";
  if (endsWith(api, ".RefUnion"))
    return "union";
  if (endsWith(api, ".TMEM"))
    return "tmem";
  if (endsWith(api, ".GMEM"))
    return "gmem";
  if (endsWith(api, "Barrier"))
    return "barrier";
  if (api.find("Semaphore") != std::string::npos)
    return "semaphore";
  return "other";
}

std::optional<std::vector<std::string>> scratchKinds(TSNode expr, const syntax::ParsedSource& doc,
                                                     const Globals& globals) {
  if (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  std::vector<std::string> kinds;
  if (is(expr, "list") || is(expr, "tuple")) {
    for (TSNode el : syntax::namedChildren(expr)) {
      if (is(el, "comment"))
        continue;
      if (is(el, "list_splat"))
        return std::nullopt;
      kinds.push_back(allocationKind(el, doc, globals));
    }
    return kinds;
  }
  if (is(expr, "dictionary")) {
    for (TSNode pair : syntax::namedChildren(expr)) {
      if (!is(pair, "pair"))
        return std::nullopt;
      kinds.push_back(allocationKind(field(pair, "value"), doc, globals));
    }
    return kinds;
  }
  // `dict(name=plgpu.Barrier(), ...)`, as a dict literal.
  if (is(expr, "call") && doc.textOf(field(expr, "function")) == "dict") {
    for (TSNode a : syntax::namedChildren(field(expr, "arguments"))) {
      if (is(a, "comment"))
        continue;
      if (!is(a, "keyword_argument"))
        return std::nullopt;
      kinds.push_back(allocationKind(field(a, "value"), doc, globals));
    }
    return kinds;
  }
  return std::nullopt;
}

namespace {

// `dataclasses.replace` under any import spelling.
bool isDataclassesReplace(TSNode callee, const syntax::ParsedSource& doc, const Globals& globals) {
  if (auto b = resolveGlobalExpr(callee, doc, globals); b && b->target == "dataclasses.replace")
    return true;
  if (!is(callee, "attribute") || str(doc.textOf(field(callee, "attribute"))) != "replace")
    return false;
  auto m = resolveGlobalExpr(field(callee, "object"), doc, globals);
  return m && m->kind == Binding::Kind::Module && m->target == "dataclasses";
}

// The expression the field `attr` holds in the object `built` evaluates to
// (8.16): a dataclass / NamedTuple constructor call (constructedField), or a
// copy with fields replaced, `obj._replace(attr=v)` / `dataclasses.replace(obj,
// attr=v)`: v when given, else the field of obj (a call, or a local or
// module-level name bound to one), as Python builds the copy.
std::optional<TSNode> fieldOfObject(TSNode built, const std::string& attr,
                                    const syntax::ParsedSource& doc, const Globals& globals,
                                    const LocalLookup& lookupLocal, int depth) {
  while (is(built, "parenthesized_expression"))
    built = ts_node_named_child(built, 0);
  if (depth > kMaxDepth)
    return std::nullopt;
  if (is(built, "identifier")) {
    // A module-level value's own names are the module's.
    bool fromModule = false;
    auto value = valueOfName(built, doc, lookupLocal, &fromModule);
    return value ? fieldOfObject(*value, attr, doc, globals, fromModule ? nullptr : lookupLocal,
                                 depth + 1)
                 : std::nullopt;
  }
  if (!is(built, "call"))
    return std::nullopt;
  TSNode callee = field(built, "function");
  TSNode object{};
  bool replace = false;
  if (is(callee, "attribute") && str(doc.textOf(field(callee, "attribute"))) == "_replace") {
    object = field(callee, "object");
    replace = true;
  } else if (isDataclassesReplace(callee, doc, globals)) {
    for (TSNode a : syntax::namedChildren(field(built, "arguments")))
      if (!is(a, "comment")) {
        object = is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat")
                     ? TSNode{}
                     : a;
        break;
      }
    if (isNull(object))
      return std::nullopt;
    replace = true;
  }
  if (!replace) {
    if (auto field = constructedField(built, attr, doc, globals))
      return field;
    // `make_config()` returning `Config(interpret=True)` (8.31).
    auto returned = returnedValue(built, doc);
    return returned ? fieldOfObject(*returned, attr, doc, globals, nullptr, depth + 1)
                    : std::nullopt;
  }
  for (TSNode a : syntax::namedChildren(field(built, "arguments"))) {
    if (is(a, "dictionary_splat"))
      return std::nullopt; // may replace any field
    if (is(a, "keyword_argument") && keywordName(a, doc) == attr)
      return field(a, "value");
  }
  return fieldOfObject(object, attr, doc, globals, lookupLocal, depth + 1);
}

// Truthiness of an evaluated interpret= value: False / None / 0 select the
// compiled path, True and an InterpretGPUParams object are truthy.
std::optional<bool> truthyPaths(const InterpretEval& e) {
  // A parameter's value comes from each call site (CallContexts), not from
  // its default: an expression over it is not folded here.
  if (e.paths.size() != 1 || e.paths[0] == "unknown" || e.source == "param" ||
      e.source == "default_param")
    return std::nullopt;
  return e.paths[0] != "compiled";
}

InterpretEval fromConstant(const PyConstant& c, bool fromModule) {
  InterpretEval e;
  e.paths = {c.truthy() ? "interpret_hlo" : "compiled"};
  if (c.kind == PyConstant::Kind::Str || c.kind == PyConstant::Kind::Enum)
    e.paths = {"unknown"}; // interpret="..." is not a value JAX takes
  e.source = fromModule ? "module_constant" : "literal";
  return e;
}

// interpret= written as an expression over constants (NamesConstants.cpp):
// `not ON_GPU`, `mode == "debug"`, `CONFIG["interpret"]`,
// `DEBUG_PARAMS if DEBUG else False`, `FORCE or False`. nullopt when `expr`
// is none of these forms; an unknown InterpretEval when it is one whose
// value the text does not determine.
std::optional<InterpretEval> evaluateComposite(TSNode expr, const syntax::ParsedSource& doc,
                                               const Globals& globals,
                                               const LocalLookup& lookupLocal) {
  std::string_view t = syntax::type(expr);
  bool fromModule = false;
  InterpretEval unknown{{"unknown"}, "unknown", "", {}};
  if (t == "conditional_expression") {
    TSNode chosen = conditionalBranch(expr, doc, lookupLocal, &fromModule);
    return isNull(chosen) ? unknown : evaluateInterpret(chosen, doc, globals, lookupLocal);
  }
  if (t == "subscript") {
    auto element = elementOf(expr, doc, lookupLocal, &fromModule);
    if (!element)
      return unknown;
    // An element of a module-level container reads module-level names.
    InterpretEval inner =
        evaluateInterpret(*element, doc, globals, fromModule ? nullptr : lookupLocal);
    if (fromModule && inner.source != "unknown")
      inner.source = "module_constant";
    return inner;
  }
  if (t == "boolean_operator") {
    // Python returns an operand: `a or b` is a when a is truthy, else b.
    InterpretEval left = evaluateInterpret(field(expr, "left"), doc, globals, lookupLocal);
    auto truth = truthyPaths(left);
    if (!truth)
      return unknown;
    bool isOr = doc.textOf(field(expr, "operator")) == "or";
    return *truth == isOr ? left
                          : evaluateInterpret(field(expr, "right"), doc, globals, lookupLocal);
  }
  if (t == "not_operator") {
    InterpretEval inner = evaluateInterpret(field(expr, "argument"), doc, globals, lookupLocal);
    auto truth = truthyPaths(inner);
    if (!truth)
      return unknown;
    inner.paths = {*truth ? "compiled" : "interpret_hlo"};
    inner.params.clear();
    return inner;
  }
  if (t == "comparison_operator" || (t == "identifier" && doc.textOf(expr) == "__debug__")) {
    auto c = constantOf(expr, doc, lookupLocal, &fromModule);
    return c ? fromConstant(*c, fromModule) : unknown;
  }
  return std::nullopt;
}

} // namespace

std::optional<InterpretEval> moduleObjectFieldInterpret(const std::string& name,
                                                        const std::string& attr,
                                                        const syntax::ParsedSource& doc,
                                                        const Globals& globals) {
  auto mv = moduleValue(doc, name);
  if (!mv || mv->state != ModuleValue::State::Known)
    return std::nullopt;
  auto v = fieldOfObject(mv->value, attr, doc, globals, nullptr, 0);
  if (!v) {
    // A plain class's object (8.79).
    auto built = builtObjectAttributeInterpret(mv->value, attr, doc, globals);
    if (built)
      built->text = name + "." + attr;
    return built;
  }
  InterpretEval e = evaluateInterpret(*v, doc, globals, nullptr);
  if (e.paths.size() != 1 || e.paths[0] == "unknown" || e.source == "param" ||
      e.source == "default_param")
    return std::nullopt;
  e.text = name + "." + attr;
  return e;
}

InterpretEval evaluateInterpret(TSNode expr, const syntax::ParsedSource& doc,
                                const Globals& globals, const LocalLookup& lookupLocal) {
  InterpretEval e;
  if (isNull(expr)) {
    e.paths = {"compiled"};
    e.source = "absent";
    return e;
  }
  // `(flag := True)`: the value the walrus binds (8.75).
  while (is(expr, "parenthesized_expression") || is(expr, "named_expression"))
    expr = is(expr, "named_expression") ? field(expr, "value") : ts_node_named_child(expr, 0);
  e.text = str(doc.textOf(expr));
  std::string_view t = syntax::type(expr);
  if (t == "true" || t == "false" || t == "none" || t == "integer") {
    InterpretEval l = evalFromText(e.text);
    return l;
  }
  // Values followed through names, fields and returns nest: bounded.
  static thread_local int depth = 0;
  struct DepthGuard {
    DepthGuard() { ++depth; }
    ~DepthGuard() { --depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  } guard;
  if (depth > kMaxDepth) {
    e.paths = {"unknown"};
    e.source = "unknown";
    return e;
  }
  if (t == "call") {
    TSNode callee = field(expr, "function");
    std::string api = apiOf(callee, doc, globals);
    if (api.empty())
      api = dottedName(callee, doc);
    if (endsWith(api, "InterpretGPUParams")) {
      e.paths = {"interpret_gpu"};
      e.source = "interpret_gpu_params";
      TSNode args = field(expr, "arguments");
      for (TSNode a : syntax::namedChildren(args)) {
        if (is(a, "keyword_argument"))
          e.params.emplace_back(keywordName(a, doc), str(doc.textOf(field(a, "value"))));
      }
      return e;
    }
    // `CONFIG.get("interpret", False)` on a dict literal (8.69): the value
    // under the key, else the default (None: compiled).
    bool gotFromModule = false;
    if (auto got = dictGet(expr, doc, lookupLocal, &gotFromModule)) {
      InterpretEval inner = isNull(*got) ? evalFromText("None")
                                         : evaluateInterpret(*got, doc, globals,
                                                             gotFromModule ? nullptr : lookupLocal);
      if (gotFromModule && inner.source != "unknown")
        inner.source = "module_constant";
      inner.text = e.text;
      return inner;
    }
    // `bool(x)`: True or False by x's truth (8.67).
    if (is(callee, "identifier") && doc.textOf(callee) == "bool") {
      bool fromModule = false;
      if (auto c = constantOf(expr, doc, lookupLocal, &fromModule)) {
        InterpretEval b = fromConstant(*c, fromModule);
        b.text = e.text;
        return b;
      }
    }
    // A dataclass field's default written `field(default=v)` or
    // `field(default_factory=f)` (8.55): what the field holds when the
    // constructor leaves it out, v or what calling f returns.
    if (api == "dataclasses.field" || importedName(callee, doc, globals) == "dataclasses.field") {
      for (TSNode a : syntax::namedChildren(field(expr, "arguments"))) {
        if (!is(a, "keyword_argument"))
          continue;
        std::string k = keywordName(a, doc);
        TSNode v = field(a, "value");
        InterpretEval inner;
        if (k == "default") {
          inner = evaluateInterpret(v, doc, globals, nullptr);
        } else if (k == "default_factory" && is(v, "lambda") && isNull(field(v, "parameters"))) {
          inner = evaluateInterpret(field(v, "body"), doc, globals, nullptr);
        } else if (k == "default_factory" &&
                   endsWith(apiOf(v, doc, globals), "InterpretGPUParams")) {
          inner.paths = {"interpret_gpu"};
          inner.source = "interpret_gpu_params";
        } else {
          continue;
        }
        inner.text = e.text;
        return inner;
      }
      e.paths = {"unknown"};
      e.source = "unknown";
      return e;
    }
    // What a module-level function returns (8.31), with the module's names.
    if (auto returned = returnedValue(expr, doc)) {
      InterpretEval inner = evaluateInterpret(*returned, doc, globals, nullptr);
      if (inner.source != "unknown")
        inner.source = "module_constant";
      inner.text = e.text;
      return inner;
    }
    e.paths = {"unknown"};
    e.source = "unknown";
    return e;
  }
  if (t == "identifier" && lookupLocal) {
    if (auto local = lookupLocal(e.text)) {
      // A parameter one caller binds to a constant (8.30, CallContexts).
      if (startsWith(local->second, kBoundConstant)) {
        auto c = constantFromText(std::string_view(local->second).substr(kBoundConstant.size()));
        if (!c)
          return InterpretEval{{"unknown"}, "unknown", e.text, {}, false};
        InterpretEval bound = fromConstant(*c, false);
        bound.text = e.text;
        return bound;
      }
      InterpretEval inner = evaluateInterpret(local->first, doc, globals, nullptr);
      if (local->second == "default_param")
        inner.source = "default_param";
      inner.text = e.text;
      if (local->second == "unknown")
        inner = InterpretEval{{"unknown"}, "unknown", e.text, {}, false};
      return inner;
    }
  }
  if (t == "identifier") {
    std::optional<ModuleValue> mv = valueSetBefore(doc, e.text, expr);
    if (!mv)
      mv = moduleValue(doc, e.text);
    if (mv) {
      if (mv->state == ModuleValue::State::Unknown) {
        e.paths = {"unknown"};
        e.source = "unknown";
        return e;
      }
      if (mv->state == ModuleValue::State::Known) {
        InterpretEval inner = evaluateInterpret(mv->value, doc, globals, nullptr);
        if (inner.source != "unknown")
          inner.source = "module_constant";
        inner.text = e.text;
        return inner;
      }
    }
  }
  // A field of a dataclass / NamedTuple object: `cfg.interpret` where cfg is
  // `Config(interpret=True)` (a local or module-level name) (8.16).
  // fieldOfObject looks the name up (a local, else a module-level value).
  if (t == "attribute" && is(field(expr, "object"), "identifier")) {
    // `self._interpret` read in a property of a known receiver (8.44).
    if (lookupLocal)
      if (auto local = lookupLocal(str(doc.textOf(expr)))) {
        if (local->second != "local" || isNull(local->first))
          return InterpretEval{{"unknown"}, "unknown", e.text, {}, false};
        InterpretEval inner = evaluateInterpret(local->first, doc, globals, nullptr);
        inner.text = e.text;
        return inner;
      }
    // `self.interpret` in a method: what the objects the document builds
    // hold (8.25).
    if (auto inst = instanceAttributeInterpret(expr, doc, globals)) {
      inst->text = e.text;
      return *inst;
    }
    // `Cfg.interpret`, a class attribute (not shadowed by a local name).
    if (!(lookupLocal && lookupLocal(str(doc.textOf(field(expr, "object"))))))
      if (auto cls = classAttributeInterpret(expr, doc, globals))
        return *cls;
    std::string attr = str(doc.textOf(field(expr, "attribute")));
    // The object: `cfg` bound to a construction, or a parameter whose
    // default builds one (`def run(x, cfg=Config())`, also `cfg = cfg or
    // Config()`, 8.46 / 8.51): then the default's field, a default_param
    // its callers may override (CallContexts).
    TSNode object = field(expr, "object");
    bool fromDefault = false;
    std::optional<TSNode> built;
    if (lookupLocal && is(object, "identifier"))
      if (auto local = lookupLocal(str(doc.textOf(object)));
          local && local->second == "default_param" && !isNull(local->first)) {
        built = local->first;
        fromDefault = true;
      }
    if (!fromDefault) {
      bool fromModule = false;
      built = is(object, "identifier") ? valueOfName(object, doc, lookupLocal, &fromModule)
                                       : std::optional<TSNode>(object);
    }
    auto asDefault = [&](InterpretEval inner) {
      if (fromDefault && inner.source != "unknown")
        inner.source = "default_param";
      inner.text = e.text;
      return inner;
    };
    // A dataclass field its `__post_init__` stores (8.48): the stored
    // expression evaluated on the object built, `self.x` being the
    // construction's argument for x or x's default (literals only).
    if (auto store = built ? postInitStore(*built, attr, doc, globals) : std::nullopt) {
      std::string self = str(doc.textOf(ts_node_named_child(field(store->first, "parameters"), 0)));
      LocalLookup receiver =
          [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
        if (name.size() > self.size() + 1 && name.starts_with(self + ".")) {
          std::string x = name.substr(self.size() + 1);
          auto v = x.find('.') == std::string::npos ? constructedField(*built, x, doc, globals)
                                                    : std::nullopt;
          bool literal = v && !syntax::anyNode(
                                  *v, [](TSNode n) { return is(n, "identifier"); },
                                  [](TSNode) { return false; });
          if (literal)
            return std::make_pair(*v, std::string("local"));
          return std::make_pair(TSNode{}, std::string("unknown"));
        }
        if (boundInDef(store->first, name, doc))
          return std::make_pair(TSNode{}, std::string("unknown"));
        return std::nullopt;
      };
      return asDefault(evaluateInterpret(store->second, doc, globals, receiver));
    }
    if (fromDefault) {
      auto v = fieldOfObject(*built, attr, doc, globals, nullptr, 0);
      if (!v)
        return InterpretEval{{"unknown"}, "unknown", e.text, {}, false};
      return asDefault(evaluateInterpret(*v, doc, globals, nullptr));
    }
    if (auto v = fieldOfObject(field(expr, "object"), attr, doc, globals, lookupLocal, 0)) {
      InterpretEval inner = evaluateInterpret(*v, doc, globals, nullptr);
      inner.text = e.text;
      return inner;
    }
    // `SETTINGS.interpret`, SETTINGS a module-level object of a plain class
    // of this file (8.79): what its __init__ stores, or its property.
    if (!(lookupLocal && lookupLocal(str(doc.textOf(object)))))
      if (auto mv = moduleValue(doc, str(doc.textOf(object)));
          mv && mv->state == ModuleValue::State::Known)
        if (auto built = builtObjectAttributeInterpret(mv->value, attr, doc, globals)) {
          built->text = e.text;
          built->source = "module_constant";
          return *built;
        }
  }
  if (auto folded = evaluateComposite(expr, doc, globals, lookupLocal)) {
    // A branch that is a parameter keeps its name: its callers choose it.
    if (folded->source != "param" && folded->source != "default_param")
      folded->text = e.text;
    return *folded;
  }
  if (t == "identifier" || t == "attribute") {
    if (auto b = resolveGlobalExpr(expr, doc, globals); b && b->kind == Binding::Kind::Constant) {
      InterpretEval inner = b->interpret ? *b->interpret : evalFromText(b->target);
      inner.source = "module_constant";
      inner.text = e.text;
      return inner;
    }
  }
  e.paths = {"unknown"};
  e.source = "unknown";
  return e;
}

} // namespace pallas::analysis::names
