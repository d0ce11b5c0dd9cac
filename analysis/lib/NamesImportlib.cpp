// `importlib.import_module("pkg.mod")` with a constant name is an import of
// that module (docs/analysis.md 8.18): the name it is assigned to is bound
// like `import pkg.mod as name`, to the workspace file when there is one.
#include "NamesInternal.h"

namespace pallas::analysis::names {

std::optional<std::string> importModuleName(TSNode call, const syntax::ParsedSource& doc,
                                            const Globals& globals) {
  while (is(call, "parenthesized_expression"))
    call = ts_node_named_child(call, 0);
  if (!is(call, "call"))
    return std::nullopt;
  std::optional<Binding> callee = resolveGlobalExpr(field(call, "function"), doc, globals);
  if (!callee || !callee->file.empty() || callee->target != "importlib.import_module")
    return std::nullopt;
  // One positional string literal: a `package=` argument (a relative name)
  // or a computed name is not followed.
  std::vector<TSNode> args;
  for (TSNode a : syntax::namedChildren(field(call, "arguments")))
    if (!is(a, "comment"))
      args.push_back(a);
  if (args.size() != 1 || !is(args[0], "string"))
    return std::nullopt;
  std::string text = str(doc.textOf(args[0]));
  // A plain literal: no prefix (f-strings), no escapes, no concatenation.
  if (text.size() < 2 || (text[0] != '"' && text[0] != '\'') || text.front() != text.back() ||
      text.find('\\') != std::string::npos || text.find('{') != std::string::npos)
    return std::nullopt;
  std::string name = text.substr(1, text.size() - 2);
  if (name.empty() || name.front() == '.' ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
          std::string::npos)
    return std::nullopt;
  return name;
}

std::optional<Binding> Globals::importedModule(const std::string& dotted) const {
  Binding b;
  b.kind = Binding::Kind::Module;
  b.target = dotted;
  if (resolver_ && !isJaxName(dotted))
    if (auto f = resolver_->moduleFile(dotted, 0, path_))
      b.file = *f;
  return b;
}

} // namespace pallas::analysis::names
