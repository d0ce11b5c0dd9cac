// What a parameter of the module-level def around the launch holds when the
// walk needs its value (a condition that picks the kernel, a registry's
// key): the constant every caller of the def passes, a caller that leaves
// it out giving its default; with no caller in the workspace (an entry
// point such as `def run(use_fence=True)`), its default. That is how the
// launch's own `interpret=` parameter is read (docs/analysis.md 8.5, 8.60).
#include "KernelWalkInternal.h"
#include "ParameterDefaults.h"

namespace pallas::analysis::passes {

namespace {

// A literal Python writes as is: True / False / None, a decimal integer, a
// plain string (no prefix, no interpolation); nullopt for anything else.
std::optional<KernelWalk::Literal> literalOf(TSNode n, const syntax::ParsedSource& doc) {
  std::string text(doc.textOf(n));
  if (syntax::is(n, "true") || syntax::is(n, "false"))
    return KernelWalk::Literal{pd::ConstantKind::Bool, text};
  if (syntax::is(n, "none"))
    return KernelWalk::Literal{pd::ConstantKind::None, text};
  long value = 0;
  if (syntax::is(n, "integer") && !llvm::StringRef(text).getAsInteger(10, value))
    return KernelWalk::Literal{pd::ConstantKind::Int, text};
  if (syntax::is(n, "string") && text.size() >= 2 &&
      (text.front() == '"' || text.front() == '\'') &&
      !syntax::anyNode(
          n, [](TSNode c) { return syntax::is(c, "interpolation"); }, [](TSNode) { return false; }))
    return KernelWalk::Literal{pd::ConstantKind::Str, text};
  return std::nullopt;
}

} // namespace

std::optional<KernelWalk::Literal> KernelWalk::literalValue(mlir::Value v) const {
  if (!v)
    return std::nullopt;
  if (auto c = v.getDefiningOp<pd::ConstantOp>())
    return Literal{c.getKind(), c.getValue().str()};
  // A module constant the front end resolved (`KEY = "fenced"`).
  if (auto g = v.getDefiningOp<pd::GlobalOp>()) {
    llvm::StringRef r = g.getResolved();
    if (!r.consume_front("const:"))
      return std::nullopt;
    if (r == "True" || r == "False")
      return Literal{pd::ConstantKind::Bool, r.str()};
    if (r == "None")
      return Literal{pd::ConstantKind::None, r.str()};
    long n = 0;
    if (!r.getAsInteger(10, n))
      return Literal{pd::ConstantKind::Int, r.str()};
    if (r.size() >= 2 && (r.front() == '"' || r.front() == '\''))
      return Literal{pd::ConstantKind::Str, r.str()};
  }
  return std::nullopt;
}

namespace {

// The syntax of `def` (a pallas.func or pallas.closure) in its document:
// the function_definition or lambda its location starts.
TSNode defSyntax(const detail::Workspace& ws, const std::string& doc, mlir::Operation* def,
                 const syntax::ParsedSource*& source) {
  detail::DocumentSyntax s = ws.syntaxOf(doc);
  source = s.doc;
  if (!s.doc)
    return {};
  SourceLocation at = detail::sourceLocation(def->getLoc());
  TSPoint point{at.range.start.line, at.range.start.column};
  TSNode n = ts_node_named_descendant_for_point_range(s.doc->root(), point, point);
  while (!syntax::isNull(n) && !syntax::is(n, "function_definition") &&
         !syntax::is(n, "decorated_definition") && !syntax::is(n, "lambda"))
    n = ts_node_parent(n);
  if (syntax::is(n, "decorated_definition"))
    n = syntax::field(n, "definition");
  if (!syntax::is(n, "function_definition") && !syntax::is(n, "lambda"))
    return {};
  return n;
}

} // namespace

TSNode parameterDefaultNode(const detail::Workspace& ws, const std::string& doc,
                            mlir::Operation* def, unsigned index,
                            const syntax::ParsedSource*& source) {
  mlir::ArrayAttr names = parameterNames(def);
  TSNode n = defSyntax(ws, doc, def, source);
  if (syntax::isNull(n) || !names)
    return {};
  llvm::StringRef name = strAt(names, index);
  for (TSNode p : syntax::namedChildren(syntax::field(n, "parameters"))) {
    if (!syntax::is(p, "default_parameter") && !syntax::is(p, "typed_default_parameter"))
      continue;
    if (llvm::StringRef(source->textOf(syntax::field(p, "name"))) == name)
      return syntax::field(p, "value");
  }
  return {};
}

std::vector<unsigned> KernelWalk::keywordOnlyParameters(mlir::Operation* defOp,
                                                        const std::string& doc) const {
  std::vector<unsigned> out;
  const syntax::ParsedSource* source = nullptr;
  TSNode def = defSyntax(ws_, doc, defOp, source);
  mlir::ArrayAttr names = parameterNames(defOp);
  if (syntax::isNull(def) || !names)
    return out;
  bool keywordOnly = false;
  for (TSNode p : syntax::namedChildren(syntax::field(def, "parameters"))) {
    std::string_view t = syntax::type(p);
    bool star =
        t == "keyword_separator" || t == "list_splat_pattern" ||
        (t == "typed_parameter" && syntax::is(ts_node_named_child(p, 0), "list_splat_pattern"));
    if (star) {
      keywordOnly = true;
      continue;
    }
    if (!keywordOnly || (t != "default_parameter" && t != "typed_default_parameter"))
      continue;
    llvm::StringRef name = source->textOf(syntax::field(p, "name"));
    for (unsigned i = 0; i < names.size(); ++i)
      if (strAt(names, i) == name)
        out.push_back(i);
  }
  return out;
}

std::optional<KernelWalk::Literal> KernelWalk::defaultLiteral(mlir::BlockArgument arg) const {
  auto it = defaulted_.find(arg);
  if (it == defaulted_.end())
    return std::nullopt;
  const syntax::ParsedSource* source = nullptr;
  TSNode value = parameterDefaultNode(ws_, it->second, arg.getOwner()->getParentOp(),
                                      arg.getArgNumber(), source);
  if (syntax::isNull(value) || !source)
    return std::nullopt;
  return literalOf(value, *source);
}

KernelWalk::Callable KernelWalk::defaultCallable(mlir::BlockArgument arg, unsigned depth) const {
  auto it = defaulted_.find(arg);
  // A default is evaluated where its def is: only a module-level def's is
  // read in the module's names (a nested def's could name its enclosing
  // function's locals).
  auto owner = llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp());
  if (it == defaulted_.end() || !owner || owner.getKind() != pd::FuncKind::Def || depth > 8)
    return {};
  const syntax::ParsedSource* source = nullptr;
  TSNode value = parameterDefaultNode(ws_, it->second, owner, arg.getArgNumber(), source);
  if (!syntax::is(value, "identifier") || !source)
    return {};
  return moduleFunction(it->second, source->textOf(value));
}

std::optional<KernelWalk::Literal> KernelWalk::parameterDefault(pd::FuncOp owner, unsigned index,
                                                                const std::string& doc) const {
  const syntax::ParsedSource* source = nullptr;
  TSNode value = parameterDefaultNode(ws_, doc, owner, index, source);
  if (syntax::isNull(value) || !source)
    return std::nullopt;
  return literalOf(value, *source);
}

std::optional<KernelWalk::Literal>
KernelWalk::launchParameterLiteral(mlir::BlockArgument arg, const std::string& doc) const {
  auto owner = llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp());
  if (!owner || owner.getKind() != pd::FuncKind::Def ||
      launch_->getParentOfType<pd::FuncOp>() != owner || doc != launchPath_)
    return std::nullopt;
  unsigned index = arg.getArgNumber();
  llvm::StringRef name = strAt(owner.getArgNames(), index);
  if (name.starts_with("*"))
    return std::nullopt;
  std::vector<detail::CallEdge> callers = ws_.callersOf(launchPath_, owner.getSymName());
  if (callers.empty())
    return parameterDefault(owner, index, doc); // an entry point: run as written
  std::optional<Literal> agreed;
  for (const detail::CallEdge& e : callers) {
    if (llvm::isa<pd::LaunchOp>(e.site))
      return std::nullopt; // the function is a kernel body, not a launcher
    detail::CallArguments a = detail::edgeArguments(ws_, e);
    mlir::Value given;
    bool leftOut = true;
    for (unsigned i = 0, positional = 0; i < a.values.size(); ++i) {
      const std::string& kw = a.keywords[i];
      if (kw == "*" || kw == "**")
        return std::nullopt; // may fill it: not known
      if (kw.empty() ? positional++ == index : kw == name) {
        given = a.values[i];
        leftOut = false;
      }
    }
    std::optional<Literal> v = leftOut ? parameterDefault(owner, index, doc) : literalValue(given);
    if (!v || (agreed && (agreed->kind != v->kind || agreed->text != v->text)))
      return std::nullopt;
    agreed = v;
  }
  return agreed;
}

} // namespace pallas::analysis::passes
