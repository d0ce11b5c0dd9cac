// Launch wrappers (docs/analysis.md, "Launch wrappers"): a call of a method
// that forwards its `*args` / `**kwargs` to a launch API is that launch,
// written at the call. JAX's own tests launch almost every kernel so
// (`self.kernel(...)`, `self.pallas_call(...)` of a base TestCase class).
#include "Lowerer.h"

namespace pallas::analysis::lower {

namespace {

// The class definition `name` at module level of `doc` (decorated or not).
TSNode classNamed(const syntax::Document& doc, const std::string& name) {
  for (TSNode s : syntax::namedChildren(doc.root())) {
    TSNode def = is(s, "decorated_definition") ? field(s, "definition") : s;
    if (is(def, "class_definition") && doc.textOf(field(def, "name")) == name)
      return def;
  }
  return TSNode{};
}

// The method `name` written in the body of class `cls` (the last one wins).
TSNode methodNamed(const syntax::Document& doc, TSNode cls, const std::string& name) {
  TSNode out{};
  for (TSNode m : syntax::namedChildren(field(cls, "body")))
    if (is(m, "function_definition") && doc.textOf(field(m, "name")) == name)
      out = m;
  return out;
}

} // namespace

// `self.m` in a method of class C (or in a closure inside one) where m is a
// launch wrapper of C or of a base class of this file: the launch API it
// reaches and the keywords each forwarding call adds, outermost first.
std::optional<LaunchWrapper> Lowerer::launchWrapperOf(TSNode callee) {
  if (!is(callee, "attribute") || className_.empty() || !selfValue_)
    return std::nullopt;
  TSNode object = field(callee, "object");
  if (!is(object, "identifier"))
    return std::nullopt;
  const Var* self = findLocal(text(object));
  if (!self || self->value != selfValue_)
    return std::nullopt;
  // The class binding carries its wrappers; looking it up records the
  // dependency (a wrapper edited elsewhere in the file re-lowers this unit).
  std::optional<Binding> cls = findGlobal(className_);
  if (!cls || cls->kind != Binding::Kind::Class)
    return std::nullopt;
  std::string method = text(field(callee, "attribute"));
  auto found = cls->launchWrappers.find(method);
  if (found == cls->launchWrappers.end())
    return std::nullopt;
  LaunchWrapper out;
  out.method = method;
  std::string definer = found->second;
  // Follow `self.m(...)` / `super().m(...)` chains to the launch API.
  for (unsigned depth = 0; depth < 8; ++depth) {
    TSNode clsDef = classNamed(doc_, definer);
    TSNode def = isNull(clsDef) ? TSNode{} : methodNamed(doc_, clsDef, method);
    if (isNull(def))
      return std::nullopt;
    // The bases of the defining class, for `super().m`.
    std::map<std::string, std::string> inherited;
    for (TSNode base : syntax::namedChildren(field(clsDef, "superclasses")))
      if (is(base, "identifier"))
        if (const Binding* b = globals_.find(text(base)); b && b->kind == Binding::Kind::Class)
          for (auto& [m, c] : b->launchWrappers)
            inherited.emplace(m, c); // the leftmost base first
    auto isWrapper = [&](const std::string& inner, bool viaSuper) {
      return (viaSuper ? inherited : cls->launchWrappers).count(inner) > 0;
    };
    auto call = names::launchWrapperCall(def, doc_, globals_, isWrapper);
    if (!call)
      return std::nullopt;
    for (TSNode a : syntax::namedChildren(field(call->call, "arguments")))
      if (is(a, "keyword_argument"))
        out.keywords.emplace_back(text(field(a, "name")), field(a, "value"));
    if (!call->api.empty()) {
      out.api = call->api;
      return out;
    }
    method = call->inner;
    definer = call->viaSuper ? inherited[method] : cls->launchWrappers[method];
  }
  return std::nullopt;
}

// What the wrapper's own keywords select: they are written in the wrapper's
// body, whose locals are not known here, so only what they show by
// themselves is used (a literal interpret=, a backend's params object).
void Lowerer::applyWrapperKeywords(const LaunchWrapper& w, LaunchKeywords& kw,
                                   std::optional<names::InterpretEval>& interpret,
                                   bool& scratchUnknown) {
  for (auto& [k, v] : w.keywords) {
    if (k == "interpret") {
      names::InterpretEval e = names::evaluateInterpret(v, doc_, globals_, nullptr);
      e.source = e.paths.size() == 1 && e.paths[0] == pd::path::kUnknown ? "unknown" : e.source;
      interpret = e;
    }
    if (k == "compiler_params" || k == "backend" || k == "mesh" || k == "interpret") {
      if (kw.backend.empty() && !is(v, "identifier"))
        kw.backend = backendOf(v);
    }
    kw.compilerParams |= k == "compiler_params";
    kw.wrapperCompilerParams |= k == "compiler_params";
    scratchUnknown |= k == "scratch_shapes" || k == "scratch_types";
    if (k == "num_threads")
      kw.threads = v;
    if (k == "thread_name")
      kw.threadName = v;
  }
}

} // namespace pallas::analysis::lower
