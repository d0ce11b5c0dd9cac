// The calls of a method whose parameter a launch reads as `interpret=`
// (docs/analysis.md 8.65): `obj.m(...)` on an object the document builds
// from the method's class (`C(...)`, a name holding one, `self` in a method
// of C), and the names the class body binds to it with
// `functools.partialmethod(m, ...)`, whose bound arguments come before the
// call's own, as Python passes them.
#include "CallContexts.h"
#include "Names.h"
#include "Syntax.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

std::string keywordAt(mlir::ArrayAttr a, unsigned i) {
  return a && i < a.size() ? pd::enumName(a[i]).str() : std::string();
}

std::string text(TSNode n, const syntax::ParsedSource& doc) {
  return std::string(doc.textOf(n));
}

// Whether `callee` (a call's function) is functools.partialmethod as the
// module binds it.
bool isPartialMethod(TSNode callee, const syntax::ParsedSource& doc, const names::Globals& g) {
  if (syntax::is(callee, "attribute")) {
    TSNode object = syntax::field(callee, "object");
    const names::Binding* b =
        syntax::is(object, "identifier") ? g.find(text(object, doc)) : nullptr;
    return b && b->kind == names::Binding::Kind::Module && b->target == "functools" &&
           text(syntax::field(callee, "attribute"), doc) == "partialmethod";
  }
  const names::Binding* b = syntax::is(callee, "identifier") ? g.find(text(callee, doc)) : nullptr;
  return b && b->kind == names::Binding::Kind::Symbol && b->target == "functools.partialmethod";
}

// The names the body of class `cls` binds to its method `method`: the
// method's own, and each `name = functools.partialmethod(method, ...)`.
std::map<std::string, MethodAlias> aliasesOf(const syntax::ParsedSource& doc,
                                             const names::Globals& g, llvm::StringRef cls,
                                             llvm::StringRef method) {
  std::map<std::string, MethodAlias> out;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode def =
        syntax::is(stmt, "decorated_definition") ? syntax::field(stmt, "definition") : stmt;
    if (!syntax::is(def, "class_definition") || text(syntax::field(def, "name"), doc) != cls)
      continue;
    out[method.str()] = MethodAlias{};
    for (TSNode s : syntax::namedChildren(syntax::field(def, "body"))) {
      TSNode assign = syntax::is(s, "expression_statement") && ts_node_named_child_count(s) == 1
                          ? ts_node_named_child(s, 0)
                          : TSNode{};
      TSNode left = syntax::is(assign, "assignment") ? syntax::field(assign, "left") : TSNode{};
      TSNode call = syntax::is(assign, "assignment") ? syntax::field(assign, "right") : TSNode{};
      if (!syntax::is(left, "identifier") || !syntax::is(call, "call") ||
          !isPartialMethod(syntax::field(call, "function"), doc, g))
        continue;
      std::vector<TSNode> args = syntax::namedChildren(syntax::field(call, "arguments"));
      if (args.empty() || !syntax::is(args[0], "identifier") || text(args[0], doc) != method)
        continue;
      MethodAlias a;
      for (size_t i = 1; i < args.size(); ++i) {
        if (syntax::is(args[i], "keyword_argument"))
          a.keywords.push_back({text(syntax::field(args[i], "name"), doc),
                                text(syntax::field(args[i], "value"), doc)});
        else if (syntax::is(args[i], "list_splat") || syntax::is(args[i], "dictionary_splat"))
          a.unknown = true;
        else if (!syntax::is(args[i], "comment"))
          ++a.positional;
      }
      out[text(left, doc)] = std::move(a);
    }
    return out; // the class this module's name refers to: the first of that name
  }
  return out;
}

// Whether `receiver` is an object of class `cls`: built by `cls(...)`, or
// `self` of a method of cls.
bool isInstanceOf(mlir::Value receiver, llvm::StringRef cls) {
  if (auto built = receiver.getDefiningOp<pd::CallIndirectOp>()) {
    auto g = built.getCallee().getDefiningOp<pd::GlobalOp>();
    return g && g.getResolved() == ("class:" + cls).str();
  }
  auto self = llvm::dyn_cast<mlir::BlockArgument>(receiver);
  auto f = self ? llvm::dyn_cast_or_null<pd::FuncOp>(self.getOwner()->getParentOp()) : nullptr;
  return f && self.getArgNumber() == 0 && f.getKind() == pd::FuncKind::Method &&
         f.getSymName().starts_with((cls + ".").str());
}

// Whether the attribute read at `op` is the function of a call (`obj.m()`:
// lowered as the read with the receiver only, like the bare read `obj.m`).
bool readIsCalled(mlir::Operation* op, const syntax::ParsedSource& doc) {
  SourceLocation at = detail::sourceLocation(op->getLoc());
  TSPoint point{at.range.start.line, at.range.start.column};
  for (TSNode n = ts_node_named_descendant_for_point_range(doc.root(), point, point);
       !syntax::isNull(n); n = ts_node_parent(n)) {
    TSPoint start = ts_node_start_point(n);
    if (start.row != point.row || start.column != point.column)
      return false;
    TSNode parent = ts_node_parent(n);
    if (syntax::is(n, "attribute") && syntax::is(parent, "call") &&
        ts_node_eq(syntax::field(parent, "function"), n))
      return true;
  }
  return false;
}

} // namespace

std::vector<MethodCall> methodCalls(const detail::Workspace& ws, const std::string& doc,
                                    pd::FuncOp method) {
  std::vector<MethodCall> out;
  llvm::StringRef sym = method.getSymName();
  auto [cls, name] = sym.split('.');
  detail::DocumentSyntax s = ws.syntaxOf(doc);
  mlir::ModuleOp module = ws.module(doc);
  if (name.empty() || name.contains('.') || !s.doc || !s.globals || !module)
    return out;
  std::map<std::string, MethodAlias> aliases = aliasesOf(*s.doc, *s.globals, cls, name);
  module.walk([&](pd::PrimOp read) {
    llvm::StringRef api = read.getApi();
    if (!api.consume_front("value.") || read.getArgs().empty() || !aliases.count(api.str()) ||
        !isInstanceOf(read.getArgs()[0], cls))
      return;
    auto caller = read->getParentOfType<pd::FuncOp>();
    MethodCall c;
    c.alias = aliases[api.str()];
    c.edge = {{doc, caller}, read, doc, sym.str()};
    // `obj.m(a, k=v)`: the read carries the call's arguments after the
    // receiver; `f = obj.m` then `f(...)`: the calls of what it read.
    if (read.getArgs().size() > 1 || readIsCalled(read, *s.doc)) {
      for (unsigned i = 1; i < read.getArgs().size(); ++i) {
        c.args.values.push_back(read.getArgs()[i]);
        c.args.keywords.push_back(keywordAt(read.getKeywords(), i));
      }
      out.push_back(c);
      return;
    }
    for (mlir::Operation* user : read->getResult(0).getUsers())
      if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(user);
          call && call.getCallee() == read->getResult(0)) {
        MethodCall each = c;
        each.edge.site = call;
        for (unsigned i = 0; i < call.getArgs().size(); ++i) {
          each.args.values.push_back(call.getArgs()[i]);
          each.args.keywords.push_back(keywordAt(call.getKeywords(), i));
        }
        out.push_back(std::move(each));
      }
  });
  return out;
}

} // namespace pallas::analysis::passes
