// `interpret=args.interpret` with `args = parser.parse_args(argv)` in the
// function around the launch (docs/analysis.md 8.66). argparse gives every
// option its default unless the argument list names it, so when that list
// is certainly empty — `[]`, `()`, `list(argv)` of a parameter whose callers
// all leave it to an empty default (or, with no caller, whose default is
// empty) — the value is the option's default. `parse_args()` reads
// sys.argv: the command line may set the option, so it stays unknown
// ("may"), as does a parser the function hands elsewhere or changes with
// set_defaults, an option declared with a name that is not a literal, and
// `args` changed or handed on before the launch.
#include "CallContexts.h"
#include "ParameterDefaults.h"

#include <algorithm>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

std::string keywordAt(mlir::ArrayAttr a, unsigned i) {
  return a && i < a.size() ? pd::enumName(a[i]).str() : std::string();
}

// A string literal's text without its quotes; nullopt for anything else.
std::optional<std::string> stringOf(mlir::Value v) {
  auto c = v ? v.getDefiningOp<pd::ConstantOp>() : nullptr;
  llvm::StringRef t = c && c.getKind() == pd::ConstantKind::Str ? c.getValue() : "";
  if (t.size() < 2)
    return std::nullopt;
  return t.drop_front().drop_back().str();
}

bool isEmptyLiteral(mlir::Value v) {
  auto o = v ? v.getDefiningOp<pd::OpaqueOp>() : nullptr;
  return o && (o.getWhat() == "list" || o.getWhat() == "tuple") && o.getArgs().empty();
}

// Whether the argument list `v` given to parse_args is certainly empty.
bool certainlyEmpty(CallIndex& index, const std::string& doc, mlir::Value v) {
  if (isEmptyLiteral(v))
    return true;
  // list(x) / tuple(x): as x.
  if (auto copy = v ? v.getDefiningOp<pd::CallIndirectOp>() : nullptr;
      copy && copy.getArgs().size() == 1 && keywordAt(copy.getKeywords(), 0).empty()) {
    auto g = copy.getCallee().getDefiningOp<pd::GlobalOp>();
    return g && (g.getResolved() == "builtins.list" || g.getResolved() == "builtins.tuple") &&
           certainlyEmpty(index, doc, copy.getArgs()[0]);
  }
  auto arg = llvm::dyn_cast_or_null<mlir::BlockArgument>(v);
  auto func = arg ? llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!func || func.getKind() != pd::FuncKind::Def)
    return false;
  std::string name = keywordAt(func.getArgNames(), arg.getArgNumber());
  if (name.empty() || name.front() == '*')
    return false;
  const syntax::ParsedSource* source = nullptr;
  TSNode dflt = parameterDefaultNode(index.workspace(), doc, func, arg.getArgNumber(), source);
  bool emptyDefault = (syntax::is(dflt, "list") || syntax::is(dflt, "tuple")) &&
                      ts_node_named_child_count(dflt) == 0;
  // Positional only when no `*args` / keyword-only marker comes before it.
  bool positional = true;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    positional &= !llvm::StringRef(keywordAt(func.getArgNames(), i)).starts_with("*");
  for (const detail::CallEdge& e : index.callersOf(doc, func.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      return false;
    detail::CallArguments a = detail::edgeArguments(index.workspace(), e);
    bool splat = false;
    mlir::Value given =
        argumentAt(a, name, positional ? static_cast<int>(arg.getArgNumber()) : -1, &splat);
    if (given ? !isEmptyLiteral(given) : (splat || !emptyDefault))
      return false;
  }
  return emptyDefault || !index.callersOf(doc, func.getSymName()).empty();
}

// The attribute an add_argument call stores to (argparse's `dest`): `dest=`,
// else the first long option ("--use-x" is use_x), else the first short
// one, else the positional name; nullopt when a name is not a literal.
std::optional<std::string> destOf(pd::PrimOp add, bool& positionalArgument) {
  std::optional<std::string> longName, shortName, plain, dest;
  for (unsigned i = 1; i < add.getArgs().size(); ++i) {
    std::string kw = keywordAt(add.getKeywords(), i);
    if (kw == "*" || kw == "**")
      return std::nullopt;
    if (kw == "dest")
      dest = stringOf(add.getArgs()[i]);
    if (!kw.empty())
      continue;
    std::optional<std::string> n = stringOf(add.getArgs()[i]);
    if (!n)
      return std::nullopt;
    llvm::StringRef s(*n);
    if (s.starts_with("--") && !longName)
      longName = s.drop_front(2).str();
    else if (s.starts_with("-") && !shortName)
      shortName = s.drop_front(1).str();
    else if (!s.starts_with("-") && !plain)
      plain = *n;
  }
  positionalArgument = plain.has_value();
  std::string d = dest ? *dest : longName ? *longName : shortName ? *shortName : plain.value_or("");
  if (d.empty())
    return std::nullopt;
  std::replace(d.begin(), d.end(), '-', '_');
  return d;
}

// The source text of the value argparse gives an option that is not on
// the command line; nullopt when not known.
std::optional<std::string> defaultOf(pd::PrimOp add) {
  std::optional<std::string> action; // "?" when not a literal (an Action class)
  for (unsigned i = 1; i < add.getArgs().size(); ++i) {
    std::string kw = keywordAt(add.getKeywords(), i);
    mlir::Value v = add.getArgs()[i];
    if (kw == "required")
      return std::nullopt; // may be a usage error instead
    if (kw == "action")
      action = stringOf(v).value_or("?");
    if (kw != "default")
      continue;
    if (auto c = v.getDefiningOp<pd::ConstantOp>())
      return c.getValue().str();
    auto g = v.getDefiningOp<pd::GlobalOp>();
    llvm::StringRef r = g ? g.getResolved() : "";
    if (r.consume_front("const:"))
      return r.str();
    return std::nullopt;
  }
  // Without default=: store_true's False, store_false's True, else None.
  if (action == "store_true")
    return "False";
  if (action == "store_false")
    return "True";
  return "None";
}

} // namespace

std::vector<CallContext> argparseCallContexts(CallIndex& index, const std::string& doc,
                                              pd::LaunchOp launch, const std::string& name,
                                              const std::string& attribute) {
  // The read of `args.<attribute>` the launch was given: the nearest before
  // it in its block, written inside the launch's call.
  detail::LineCol launchAt = detail::lineCol(launch->getLoc());
  pd::PrimOp read;
  for (mlir::Operation* op = launch->getPrevNode(); op && !read; op = op->getPrevNode()) {
    detail::LineCol at = detail::lineCol(op->getLoc());
    if (std::pair(at.line, at.column) < std::pair(launchAt.line, launchAt.column))
      break;
    if (auto p = llvm::dyn_cast<pd::PrimOp>(op);
        p && p.getApi() == "value." + attribute && p.getArgs().size() == 1)
      read = p;
  }
  auto parse = read ? read.getArgs()[0].getDefiningOp<pd::PrimOp>() : nullptr;
  if (!parse || parse.getApi() != "value.parse_args" || parse.getArgs().size() != 2 ||
      !keywordAt(parse.getKeywords(), 1).empty() || parse->getBlock() != launch->getBlock())
    return {};
  auto parser = parse.getArgs()[0].getDefiningOp<pd::PrimOp>();
  if (!parser || parser.getApi() != "argparse.ArgumentParser")
    return {};
  // Options inherited from `parents=`, or defaults set by
  // `argument_default=`, are not read.
  for (unsigned i = 0; i < parser.getArgs().size(); ++i) {
    std::string kw = keywordAt(parser.getKeywords(), i);
    if (kw == "parents" || kw == "argument_default" || kw == "*" || kw == "**")
      return {};
  }
  // `args` only read before the launch (not stored to, not handed on).
  for (mlir::Operation* user : parse->getResult(0).getUsers()) {
    auto p = llvm::dyn_cast<pd::PrimOp>(user);
    if (!p || p.getArgs().size() != 1 || !p.getApi().starts_with("value."))
      return {};
  }
  // The parser: options added before parse_args in the same block, nothing
  // else done with it.
  pd::PrimOp option;
  bool positionalArgument = false;
  for (mlir::Operation* user : parser->getResult(0).getUsers()) {
    if (user == parse.getOperation())
      continue;
    auto add = llvm::dyn_cast<pd::PrimOp>(user);
    if (!add || add.getApi() != "value.add_argument" || add.getArgs()[0] != parser->getResult(0) ||
        add->getBlock() != parse->getBlock() || !add->isBeforeInBlock(parse))
      return {};
    bool positional = false;
    std::optional<std::string> dest = destOf(add, positional);
    if (!dest)
      return {};
    if (*dest == attribute) {
      option = add;
      positionalArgument = positional;
    }
  }
  if (!option || positionalArgument || !certainlyEmpty(index, doc, parse.getArgs()[1]))
    return {};
  std::optional<std::string> value = defaultOf(option);
  if (!value)
    return {};
  CallContext c;
  auto owner = launch->getParentOfType<pd::FuncOp>();
  c.caller = owner ? owner.getSymName().str() : "?";
  c.callee = "parse_args";
  c.selector = detail::sourceLocation(option->getLoc());
  c.argumentText = name + "." + attribute + " is the option's default, " + *value +
                   ": the argument list is empty";
  if (auto p = pathOfLiteral(*value))
    c.paths = {*p};
  return {c};
}

} // namespace pallas::analysis::passes
