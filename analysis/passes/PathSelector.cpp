// The `interpret=` argument of a launch call (PathSelector.h).
#include "PathSelector.h"

#include "Syntax.h"

namespace pallas::analysis::passes {

std::optional<SourceLocation> interpretArgumentOf(const detail::Workspace& ws,
                                                  const std::string& doc,
                                                  const SourceLocation& launchAt) {
  detail::DocumentSyntax s = ws.syntaxOf(doc);
  if (!s.doc)
    return std::nullopt;
  TSPoint p{launchAt.range.start.line, launchAt.range.start.column};
  // Up from the launch's callee through the calls around it, within its
  // statement (a decorator's call included).
  for (TSNode n = ts_node_descendant_for_point_range(s.doc->root(), p, p); !syntax::isNull(n);
       n = ts_node_parent(n)) {
    std::string_view t = syntax::type(n);
    if (t == "block" || t == "module" || t == "decorated_definition" ||
        t == "function_definition" || t.ends_with("_statement"))
      break;
    if (t != "call")
      continue;
    for (TSNode a : syntax::namedChildren(syntax::field(n, "arguments")))
      if (syntax::is(a, "keyword_argument") &&
          s.doc->textOf(syntax::field(a, "name")) == "interpret") {
        TSPoint b = ts_node_start_point(a), e = ts_node_end_point(a);
        return SourceLocation{doc, {{b.row, b.column}, {e.row, e.column}}};
      }
  }
  return std::nullopt;
}

} // namespace pallas::analysis::passes
