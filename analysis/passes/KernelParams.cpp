#include "KernelParams.h"

#include "pallas/analysis/detail/Passes.h"

#include <algorithm>

namespace pallas::analysis::passes {

using syntax::field;
using syntax::is;
using syntax::isNull;

TSNode defNodeAt(const shape::Evaluator& eval, const std::string& path, mlir::Location loc) {
  const syntax::ParsedSource* doc = eval.docOf(path);
  detail::LineCol lc = detail::lineCol(loc);
  if (!doc || !lc.line)
    return TSNode{};
  TSPoint p{lc.line - 1, lc.column ? lc.column - 1 : 0};
  std::vector<TSNode> chain = eval.pathAt(doc, p);
  for (size_t k = chain.size(); k-- > 0;) {
    TSNode n = chain[k];
    if (is(n, "function_definition") || is(n, "lambda"))
      return n;
    if (is(n, "decorated_definition"))
      return field(n, "definition");
  }
  return TSNode{};
}

namespace {

// The name a parameter node declares ("*args" for a star parameter, "/"
// for the positional-only marker), and whether it ends the positional ones
// (a bare `*`, `*args`, `**kwargs`).
struct ParamSyntax {
  std::string name;
  bool endsPositional = false;
};

ParamSyntax paramOf(const syntax::ParsedSource& doc, TSNode p) {
  auto text = [&](TSNode n) { return std::string(doc.textOf(n)); };
  if (is(p, "keyword_separator"))
    return {"", true};
  if (is(p, "positional_separator"))
    return {"/", false};
  if (is(p, "identifier"))
    return {text(p), false};
  if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
    return {text(field(p, "name")), false};
  TSNode inner = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : p;
  if (is(inner, "list_splat_pattern"))
    return {"*" + text(ts_node_named_child(inner, 0)), true};
  if (is(inner, "dictionary_splat_pattern"))
    return {"", true};
  return {text(inner), false};
}

} // namespace

TSNode partialCallOf(const shape::Evaluator& eval, TSNode bodyArgument, const shape::Scope& scope) {
  if (!is(bodyArgument, "call") ||
      eval.qualifiedName(field(bodyArgument, "function"), scope) != "functools.partial")
    return TSNode{};
  return bodyArgument;
}

std::vector<std::string> refParameters(const syntax::ParsedSource& defDoc, TSNode def,
                                       const syntax::ParsedSource* callDoc, TSNode partialCall) {
  std::vector<std::string> out;
  TSNode params = field(def, "parameters");
  if (isNull(params))
    return out;
  for (TSNode p : syntax::namedChildren(params)) {
    ParamSyntax s = paramOf(defDoc, p);
    if (s.name == "/")
      continue;
    if (s.endsPositional) {
      if (!s.name.empty())
        out.push_back(s.name); // *args: takes the rest
      break;
    }
    out.push_back(s.name);
  }
  if (!callDoc || isNull(partialCall))
    return out;
  shape::Evaluator::Args bound = shape::Evaluator::argsOf(partialCall, *callDoc);
  if (bound.splat)
    return out;
  // partial(body, a, b, k=v): a and b fill the first parameters, k its own.
  size_t front = bound.positional.empty() ? 0 : bound.positional.size() - 1;
  size_t drop = 0;
  while (drop < front && drop < out.size() && out[drop].rfind('*', 0) != 0)
    ++drop;
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(drop));
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const std::string& n) { return bound.keywords.count(n) > 0; }),
            out.end());
  return out;
}

} // namespace pallas::analysis::passes
