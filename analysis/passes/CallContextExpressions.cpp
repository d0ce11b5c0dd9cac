// interpret= written as an expression over parameters of the function
// around the launch (docs/analysis.md 8.30):
//
//   def apply(x, mode="fast"):
//     return pl.pallas_call(kernel, ..., interpret=(mode == "debug"))(x)
//
// Python evaluates the expression with the values each call binds, so it is
// folded again once per caller (names::evaluateInterpret with the caller's
// constants bound to the parameters): `apply(x, mode="debug")` selects the
// interpret path, a caller leaving `mode` to its default "fast" the compiled
// one, and a caller passing something the text does not fix stays unknown
// ("may"). Parameters are followed one call deep; the expression's other
// names are module-level (the lowering only marks the launch when so).
#include "CallContexts.h"
#include "Names.h"
#include "Syntax.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

std::string strAt(mlir::ArrayAttr a, unsigned i) {
  return a && i < a.size() ? pd::enumName(a[i]).str() : std::string();
}

// The interpret= value node of the launch's call in the document: the
// keyword of a call starting where the launch is whose text is the one the
// lowering evaluated.
TSNode interpretNode(const syntax::ParsedSource& doc, pd::LaunchOp launch) {
  auto text = launch.getInterpretText();
  if (!text)
    return TSNode{};
  TSNode found{};
  callWrittenAt(doc, launch, [&](TSNode call) {
    for (TSNode a : syntax::namedChildren(syntax::field(call, "arguments"))) {
      if (!syntax::is(a, "keyword_argument") || doc.textOf(syntax::field(a, "name")) != "interpret")
        continue;
      TSNode v = syntax::field(a, "value");
      while (syntax::is(v, "parenthesized_expression"))
        v = ts_node_named_child(v, 0);
      if (doc.textOf(v) == text->str()) {
        found = v;
        return true;
      }
    }
    return false;
  });
  return found;
}

// The expression a local the launch reads is bound to (8.67): the node
// `at` ("rows:column", rows counted from the launch's keyword value) whose
// text is `text`; null when the document no longer has it there.
TSNode boundExpression(const syntax::ParsedSource& doc, TSNode keyword, const std::string& at,
                       const std::string& text) {
  llvm::StringRef rows = llvm::StringRef(at).split(':').first;
  llvm::StringRef column = llvm::StringRef(at).split(':').second;
  long dr = 0, col = 0;
  if (rows.getAsInteger(10, dr) || column.getAsInteger(10, col))
    return TSNode{};
  long row = static_cast<long>(ts_node_start_point(keyword).row) + dr;
  if (row < 0 || col < 0)
    return TSNode{};
  TSPoint p{static_cast<uint32_t>(row), static_cast<uint32_t>(col)};
  for (TSNode n = ts_node_descendant_for_point_range(doc.root(), p, p); !syntax::isNull(n);
       n = ts_node_parent(n)) {
    TSPoint start = ts_node_start_point(n);
    if (start.row != p.row || start.column != p.column)
      break;
    if (doc.textOf(n) == text)
      return n;
  }
  return TSNode{};
}

// The constant a caller's argument is, as Python source text; "" when the
// text does not fix it.
std::string constantText(mlir::Value v) {
  mlir::Operation* def = v.getDefiningOp();
  if (auto k = llvm::dyn_cast_or_null<pd::ConstantOp>(def))
    return k.getValue().str();
  if (auto g = llvm::dyn_cast_or_null<pd::GlobalOp>(def)) {
    llvm::StringRef r = g.getResolved();
    if (r.consume_front("const:"))
      return r.str();
  }
  return {};
}

} // namespace

std::vector<CallContext> expressionCallContexts(CallIndex& index, const std::string& doc,
                                                pd::LaunchOp launch) {
  auto all = launch->getAttrOfType<mlir::DictionaryAttr>("pallas.interpret_parameters");
  if (!all || all.empty())
    return {};
  // The parameters, and where the expression is when a local bound to it
  // is what the launch reads (8.67): "#expression", "#text".
  llvm::SmallVector<mlir::NamedAttribute> over;
  std::string exprAt, exprText;
  bool keyed = false; // `**TABLE[key]`: the entry's "interpret" (8.73)
  for (const mlir::NamedAttribute& p : all) {
    if (p.getName() == "#expression")
      exprAt = llvm::cast<mlir::StringAttr>(p.getValue()).str();
    else if (p.getName() == "#key")
      keyed = true;
    else if (p.getName() == "#text")
      exprText = llvm::cast<mlir::StringAttr>(p.getValue()).str();
    else
      over.push_back(p);
  }
  if (over.empty())
    return {};
  // The def whose parameters they are: the innermost one around the launch
  // that has the first of them.
  std::string first = over.begin()->getName().str();
  pd::FuncOp owner;
  for (auto f = launch->getParentOfType<pd::FuncOp>(); f && !owner;
       f = f->getParentOfType<pd::FuncOp>()) {
    mlir::ArrayAttr names = f.getArgNames();
    for (unsigned i = 0; i < names.size(); ++i)
      if (llvm::StringRef(strAt(names, i)).ltrim('*') == first)
        owner = f;
  }
  if (!owner || (owner.getKind() != pd::FuncKind::Def && owner.getKind() != pd::FuncKind::Method))
    return {};
  detail::DocumentSyntax s = index.workspace().syntaxOf(doc);
  if (!s.doc || !s.globals)
    return {};
  // A keyed mapping is found from the launch's call, which spells no
  // interpret= of its own.
  TSNode expr = keyed ? callWrittenAt(*s.doc, launch, [](TSNode) { return true; })
                      : interpretNode(*s.doc, launch);
  if (keyed && exprAt.empty())
    return {};
  if (!syntax::isNull(expr) && !exprAt.empty())
    expr = boundExpression(*s.doc, expr, exprAt, exprText);
  if (syntax::isNull(expr))
    return {};
  std::vector<CallContext> out;
  for (const detail::CallEdge& e : index.callersOf(doc, owner.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      continue;
    detail::CallArguments args = detail::edgeArguments(index.workspace(), e);
    CallContext c;
    pd::FuncOp callerFunc = e.caller.func;
    c.caller = callerFunc ? callerFunc.getSymName().str() : "?";
    c.callee = owner.getSymName().str();
    c.selector = detail::sourceLocation(e.site->getLoc());
    c.usesDefault = true;
    std::map<std::string, std::string> bound; // parameter -> constant text ("" unknown)
    bool missing = false;
    std::string described;
    for (const mlir::NamedAttribute& p : over) {
      std::string name = p.getName().str();
      std::string dflt = llvm::cast<mlir::StringAttr>(p.getValue()).str();
      mlir::ArrayAttr names = owner.getArgNames();
      int position = -1;
      bool positional = true;
      for (unsigned i = 0; i < names.size(); ++i) {
        llvm::StringRef n = pd::enumName(names[i]);
        if (n.ltrim('*') == name) {
          position = positional ? static_cast<int>(i) : -1;
          break;
        }
        positional &= !n.starts_with("*");
      }
      bool splat = false;
      mlir::Value v = argumentAt(args, name, position, &splat);
      std::string value;
      if (v) {
        value = constantText(v);
        c.usesDefault = false;
        if (mlir::Operation* d = v.getDefiningOp())
          c.selector = detail::sourceLocation(d->getLoc());
        described += (described.empty() ? "" : ", ") + name + "=" +
                     (value.empty() ? std::string("<run-time value>") : value);
      } else if (splat) {
        c.usesDefault = false;
        described += (described.empty() ? "" : ", ") + name + " (through *args / **kwargs)";
      } else if (!dflt.empty()) {
        value = dflt;
        described += (described.empty() ? "" : ", ") + name + " (its default " + dflt + ")";
      } else {
        missing = true; // a required argument left out: the call raises TypeError
      }
      bound[name] = value;
    }
    if (missing)
      continue;
    names::LocalLookup lookup =
        [&](const std::string& n) -> std::optional<std::pair<TSNode, std::string>> {
      auto it = bound.find(n);
      if (it == bound.end())
        return std::nullopt; // a module-level name
      if (it->second.empty())
        return std::make_pair(TSNode{}, std::string("unknown"));
      return std::make_pair(TSNode{}, std::string(names::kBoundConstant) + it->second);
    };
    names::InterpretEval eval = keyed ? names::interpretInMapping(expr, *s.doc, *s.globals, lookup)
                                      : names::evaluateInterpret(expr, *s.doc, *s.globals, lookup);
    c.argumentText =
        (keyed ? "**" : "interpret=") + std::string(s.doc->textOf(expr)) + " with " + described;
    if (eval.paths.size() == 1)
      if (auto path = execPathNamed(eval.paths[0])) {
        c.paths = {*path};
        for (auto& [k, v] : eval.params) {
          if (k == "skip_floating_point_ops")
            c.facts.skipFloatingPointOps = v == "True";
          if (k == "inline_mgpu")
            c.facts.inlineMgpuOptionGiven = true;
          long n = 0;
          if (k == "num_cores_or_threads" && !llvm::StringRef(v).getAsInteger(10, n) && n > 1)
            c.facts.multiThreaded = true;
        }
      }
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace pallas::analysis::passes
