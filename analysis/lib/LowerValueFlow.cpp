// What the lowering records so that values can be followed the way Python
// evaluates them (docs/analysis.md 8.30, 8.31):
// - the elements an unpacking assignment binds when its value is a tuple
//   the text fixes (`block, interp = settings()` with `settings` returning
//   `128, True`; a name bound to such a call; nested `a, (b, c) = ...`);
// - the parameters an `interpret=` expression reads (`interpret=(mode ==
//   "debug")`), so that the discharge pass can evaluate it again under each
//   caller's arguments (CallContexts.cpp) instead of leaving a "may".
#include "Lowerer.h"
#include "NamesInternal.h"

namespace pallas::analysis::lower {

namespace {
constexpr int kMaxHops = 8; // names bound to names bound to calls...

// The `count` elements of a tuple / list display as written; empty when it
// has another number or a `*splat` (what it unpacks to is not written).
std::vector<TSNode> sequenceElements(TSNode seq, size_t count) {
  std::vector<TSNode> elements;
  for (TSNode el : syntax::namedChildren(seq)) {
    if (is(el, "comment"))
      continue;
    if (is(el, "list_splat"))
      return {};
    elements.push_back(el);
  }
  return elements.size() == count ? elements : std::vector<TSNode>{};
}
} // namespace

std::vector<TSNode> Lowerer::unpackedElements(TSNode value, size_t count, bool* moduleScope) {
  *moduleScope = false;
  for (int hops = 0; hops < kMaxHops && !isNull(value); ++hops) {
    while (is(value, "parenthesized_expression"))
      value = ts_node_named_child(value, 0);
    if (is(value, "identifier") && !*moduleScope) {
      // A local bound to a call or a tuple literal (not a parameter, not
      // rebound after a closure reads it).
      const Var* v = findLocal(text(value));
      ValInfo* vi = v ? infoOf(v->value) : nullptr;
      if (!vi || vi->isParam || readsLate(text(value)))
        return {};
      value = !isNull(vi->tupleLiteral) ? vi->tupleLiteral : vi->constant;
      continue;
    }
    if (is(value, "call")) {
      auto returned = names::returnedValue(value, doc_);
      if (!returned)
        return {};
      // The elements read the function's module-level names; the unit is
      // lowered again when the document's functions change.
      deps_.instances = names::instancesFingerprint(doc_);
      *moduleScope = true;
      value = *returned;
      continue;
    }
    break;
  }
  if (!is(value, "tuple") && !is(value, "expression_list") && !is(value, "list"))
    return {};
  return sequenceElements(value, count);
}

std::vector<TSNode> Lowerer::paramTupleDefault(TSNode value, size_t count, std::string* param) {
  while (is(value, "parenthesized_expression"))
    value = ts_node_named_child(value, 0);
  if (!is(value, "identifier") || readsLate(text(value)))
    return {};
  const Var* v = findLocal(text(value));
  ValInfo* vi = v ? infoOf(v->value) : nullptr;
  auto arg = v ? llvm::dyn_cast<mlir::BlockArgument>(v->value) : mlir::BlockArgument();
  auto f = arg ? llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!vi || !vi->isParam || !f || arg.getArgNumber() >= f.getArgNames().size())
    return {};
  llvm::StringRef name = pd::enumName(f.getArgNames()[arg.getArgNumber()]);
  TSNode dflt = vi->paramDefault;
  while (is(dflt, "parenthesized_expression"))
    dflt = ts_node_named_child(dflt, 0);
  if (name.starts_with("*") || (!is(dflt, "tuple") && !is(dflt, "list")))
    return {};
  std::vector<TSNode> elements = sequenceElements(dflt, count);
  if (elements.empty())
    return {};
  *param = name.str();
  return elements;
}

// A parameter's default as the constant it holds once the def has run: a
// literal as written; a module-level name or expression over such names
// (`mode=MODE`, `MODE = Mode.DEBUG`) folded when the def is a statement of
// the module, whose defaults Python evaluates with the module's names
// (8.53). Otherwise the text as written (the call contexts leave what is
// not a constant unknown).
std::string Lowerer::defaultText(TSNode dflt) {
  std::string written = text(dflt);
  TSNode def = dflt;
  while (!isNull(def) && !is(def, "function_definition") && !is(def, "lambda"))
    def = ts_node_parent(def);
  TSNode holder = is(ts_node_parent(def), "decorated_definition") ? ts_node_parent(def) : def;
  if (names::constantFromText(written) || !is(def, "function_definition") ||
      !is(ts_node_parent(holder), "module"))
    return written;
  bool fromModule = true;
  std::optional<names::PyConstant> c = names::constantOf(dflt, doc_, nullptr, &fromModule);
  std::optional<std::string> spelled = c ? names::constantSourceText(*c) : std::nullopt;
  return spelled ? *spelled : written;
}

mlir::DictionaryAttr Lowerer::interpretParameters(TSNode expr, TSNode anchor) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  // A local bound once to an expression over parameters (`interpret =
  // mode == "debug"` before the launch, 8.67): that expression, which the
  // call contexts find at its place relative to the launch's keyword
  // ("#expression": rows from the keyword, column; "#text": its text).
  // A `TABLE[key]` mapping (8.73) is found relative to the launch's call.
  TSNode keyword = isNull(anchor) ? expr : anchor;
  if (is(expr, "identifier") && isNull(anchor))
    if (const Var* v = findLocal(text(expr)); v && !readsLate(text(expr)))
      if (ValInfo* vi = infoOf(v->value); vi && !vi->isParam && !isNull(vi->expression))
        expr = vi->expression;
  if (isNull(expr) || is(expr, "identifier") || is(expr, "attribute"))
    return {}; // a parameter itself, or a field of one: CallContexts reads those
  std::map<std::string, std::string> params; // name -> default's text ("" for none)
  mlir::Operation* owner = nullptr;
  bool followable = true;
  syntax::forEachNode(expr, [&](TSNode n) {
    if (!followable)
      return syntax::Walk::Stop;
    // A field of a module-level name (`Mode.DEBUG`, 8.53) reads no
    // parameter: the same for every caller.
    if (is(n, "attribute") && is(field(n, "object"), "identifier") &&
        !findLocal(text(field(n, "object"))))
      return syntax::Walk::SkipChildren;
    // `bool(x)`, the builtin: x's truth (8.67).
    if (is(n, "call") && is(field(n, "function"), "identifier") &&
        text(field(n, "function")) == "bool" && !findLocal("bool") && !findGlobal("bool"))
      return syntax::Walk::Descend;
    // Names with their own scope, calls (they may read anything), fields.
    if (is(n, "lambda") || is(n, "call") || is(n, "attribute") || is(n, "list_comprehension") ||
        is(n, "generator_expression") || is(n, "named_expression")) {
      followable = false;
      return syntax::Walk::Stop;
    }
    if (!is(n, "identifier"))
      return syntax::Walk::Descend;
    std::string name = text(n);
    const Var* v = findLocal(name);
    if (!v)
      return syntax::Walk::Descend; // a module-level name: the same for every caller
    ValInfo* vi = infoOf(v->value);
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v->value);
    auto f = arg ? llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
    if (!vi || !vi->isParam || !f ||
        (f.getKind() != pd::FuncKind::Def && f.getKind() != pd::FuncKind::Method) ||
        readsLate(name) || (owner && owner != f.getOperation())) {
      followable = false; // a local, or parameters of different functions
      return syntax::Walk::Stop;
    }
    owner = f.getOperation();
    params[name] = isNull(vi->paramDefault) ? std::string() : defaultText(vi->paramDefault);
    return syntax::Walk::Descend;
  });
  if (!followable || params.empty())
    return {};
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (auto& [name, dflt] : params)
    attrs.push_back(b_.getNamedAttr(name, b_.getStringAttr(dflt)));
  if (!ts_node_eq(keyword, expr)) {
    TSPoint at = ts_node_start_point(expr), from = ts_node_start_point(keyword);
    attrs.push_back(b_.getNamedAttr(
        "#expression", b_.getStringAttr(std::to_string(static_cast<int64_t>(at.row) - from.row) +
                                        ":" + std::to_string(at.column))));
    attrs.push_back(b_.getNamedAttr("#text", b_.getStringAttr(text(expr))));
  }
  if (!isNull(anchor))
    attrs.push_back(b_.getNamedAttr("#key", b_.getStringAttr("interpret")));
  return b_.getDictionaryAttr(attrs);
}

// The path a launch forwarding `**overrides` takes for a caller that passes
// no interpret= (8.74): the value the keys merged before `overrides` hold
// (a module-level mapping's value read with the module's names; one written
// in the def only as a literal), compiled when they hold none.
std::string Lowerer::kwargsDefaultPath(const LaunchKeywords& kw) {
  TSNode v = kw.kwargsFallback;
  if (!kw.kwargsFallbackKnown)
    return pd::path::kUnknown;
  if (isNull(v))
    return pd::path::kCompiled;
  if (!isNull(names::enclosingScope(v)) && !is(v, "true") && !is(v, "false") && !is(v, "none"))
    return pd::path::kUnknown;
  names::InterpretEval e = names::evaluateInterpret(v, doc_, globals_, nullptr);
  if (e.paths.size() != 1 || e.source == "param" || e.source == "default_param")
    return pd::path::kUnknown;
  return e.paths[0];
}

} // namespace pallas::analysis::lower
