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
  return std::nullopt;
}

InterpretEval evaluateInterpret(TSNode expr, const syntax::ParsedSource& doc,
                                const Globals& globals, const LocalLookup& lookupLocal) {
  InterpretEval e;
  if (isNull(expr)) {
    e.paths = {"compiled"};
    e.source = "absent";
    return e;
  }
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  e.text = str(doc.textOf(expr));
  std::string_view t = syntax::type(expr);
  if (t == "true" || t == "false" || t == "none" || t == "integer") {
    InterpretEval l = evalFromText(e.text);
    return l;
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
    e.paths = {"unknown"};
    e.source = "unknown";
    return e;
  }
  if (t == "identifier" && lookupLocal) {
    if (auto local = lookupLocal(e.text)) {
      InterpretEval inner = evaluateInterpret(local->first, doc, globals, nullptr);
      if (local->second == "default_param")
        inner.source = "default_param";
      inner.text = e.text;
      if (local->second == "unknown")
        inner = InterpretEval{{"unknown"}, "unknown", e.text, {}};
      return inner;
    }
  }
  // Python's order of execution: a module-level name holds its last
  // top-level assignment, or what a function run at module level rebound it
  // to with `global` (docs/analysis.md 8.15).
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
  if (t == "identifier") {
    if (auto mv = moduleValue(doc, e.text)) {
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
  if (t == "attribute" && is(field(expr, "object"), "identifier")) {
    std::string object = str(doc.textOf(field(expr, "object")));
    std::string attr = str(doc.textOf(field(expr, "attribute")));
    TSNode built{};
    bool local = false;
    if (lookupLocal)
      if (auto l = lookupLocal(object)) {
        local = true;
        if (l->second == "local")
          built = l->first;
      }
    if (!local)
      if (auto mv = moduleValue(doc, object); mv && mv->state == ModuleValue::State::Known)
        built = mv->value;
    if (!isNull(built))
      if (auto v = constructedField(built, attr, doc, globals)) {
        InterpretEval inner = evaluateInterpret(*v, doc, globals, nullptr);
        inner.text = e.text;
        return inner;
      }
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
