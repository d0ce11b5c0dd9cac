// Python syntax -> py dialect, one construct at a time (PyOps.td says what
// each op means). The symbol table (Scopes.h) decides each name's namespace;
// the rest is a direct translation.
#include "pallas/py/Lowering.h"

#include "Literals.h"
#include "Scopes.h"
#include "SyntaxNodes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/py/Dialect.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/xxhash.h"

#include <optional>
#include <unordered_map>

namespace pallas::py {

using namespace syntax;

namespace {

bool isComprehensionNode(TSNode n) {
  auto t = type(n);
  return t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
         t == "generator_expression";
}

// Does the body of a def yield (not counting nested scopes)?
bool yieldsIn(TSNode n, unsigned depth = 0) {
  if (isNull(n) || depth > 400)
    return false;
  auto t = type(n);
  if (t == "yield")
    return true;
  if (t == "function_definition" || t == "lambda" || t == "class_definition" ||
      isComprehensionNode(n))
    return false;
  for (TSNode k : kids(n))
    if (yieldsIn(k, depth + 1))
      return true;
  return false;
}

class Lowerer {
public:
  Lowerer(mlir::MLIRContext* ctx, const SourceView& src, const ScopeTable& scopes)
      : b_(ctx), text_(src.text), scopes_(scopes), scope_(scopes.module()) {
    file_ = mlir::StringAttr::get(ctx, src.path);
    obj_ = ObjectType::get(ctx);
  }

  mlir::Operation* unit(TSNode stmt) {
    std::string kind = "stmt", name;
    TSNode def = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    if (is(def, "function_definition")) {
      kind = "def";
      name = std::string(textOf(field(def, "name")));
    } else if (is(def, "class_definition")) {
      kind = "class";
      name = std::string(textOf(field(def, "name")));
    }
    auto op = UnitOp::create(b_, loc(stmt), kind, name);
    mlir::Block* body = new mlir::Block();
    op.getBody().push_back(body);
    b_.setInsertionPointToEnd(body);
    statement(stmt);
    return op;
  }

private:
  // ---- basics -------------------------------------------------------------

  std::string_view textOf(TSNode n) const {
    if (isNull(n))
      return {};
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (s > text_.size() || e > text_.size() || e < s)
      return {};
    return text_.substr(s, e - s);
  }

  mlir::Location loc(TSNode n) {
    if (isNull(n))
      return mlir::FileLineColRange::get(file_, 1, 1, 1, 1);
    TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
    // 1-based lines and columns (UTF-8 bytes), as the pallas dialect's.
    return mlir::FileLineColRange::get(file_, s.row + 1, s.column + 1, e.row + 1, e.column + 1);
  }

  mlir::ArrayAttr strings(const std::vector<std::string>& items) {
    llvm::SmallVector<mlir::Attribute> attrs;
    for (const std::string& s : items)
      attrs.push_back(b_.getStringAttr(s));
    return b_.getArrayAttr(attrs);
  }

  mlir::Value constant(mlir::Location at, ConstKind kind, mlir::Attribute value = {}) {
    return ConstantOp::create(b_, at, obj_, kind, value).getResult();
  }
  mlir::Value none(mlir::Location at) { return constant(at, ConstKind::none); }
  mlir::Value str(mlir::Location at, llvm::StringRef s) {
    return constant(at, ConstKind::str, b_.getStringAttr(s));
  }
  mlir::Value unknown(TSNode n, llvm::StringRef what, mlir::ValueRange parts = {}) {
    return ErrorOp::create(b_, loc(n), obj_, what, parts).getResult();
  }

  // A new block in `region` with the builder at its end (restored by guard).
  mlir::Block* enter(mlir::Region& region, unsigned args = 0,
                     std::optional<mlir::Location> at = std::nullopt) {
    mlir::Block* block = new mlir::Block();
    region.push_back(block);
    for (unsigned i = 0; i < args; ++i)
      block->addArgument(obj_, at ? *at : b_.getUnknownLoc());
    b_.setInsertionPointToEnd(block);
    return block;
  }

  // ---- names --------------------------------------------------------------

  mlir::Value load(TSNode at, llvm::StringRef name) {
    return LoadOp::create(b_, loc(at), obj_, name, scopes_.resolve(scope_, name)).getResult();
  }
  void store(TSNode at, llvm::StringRef name, mlir::Value v) {
    StoreOp::create(b_, loc(at), name, scopes_.resolve(scope_, name), v);
  }
  // A walrus binds in the nearest scope that is not a comprehension.
  void storeWalrus(TSNode at, llvm::StringRef name, mlir::Value v) {
    const ScopeInfo* s = scope_;
    while (s->kind == ScopeInfo::Kind::Comprehension && s->parent)
      s = s->parent;
    Scope where = scopes_.resolve(s, name);
    if (s != scope_ && where == Scope::local)
      where = Scope::free; // the comprehension writes its enclosing function's variable
    StoreOp::create(b_, loc(at), name, where, v);
  }

  // ---- expressions --------------------------------------------------------

  mlir::Value expr(TSNode n) {
    if (isNull(n))
      return unknown(n, "missing");
    if (depth_ >= kMaxLoweredNesting)
      return unknown(n, "too_deep");
    ++depth_;
    mlir::Value v = exprInner(n);
    --depth_;
    return v;
  }

  mlir::Value exprInner(TSNode n) {
    auto t = type(n);
    mlir::Location at = loc(n);
    if (t == "identifier")
      return load(n, textOf(n));
    if (t == "true" || t == "false")
      return constant(at, ConstKind::boolean, b_.getBoolAttr(t == "true"));
    if (t == "none")
      return none(at);
    if (t == "ellipsis")
      return constant(at, ConstKind::ellipsis);
    if (t == "integer" || t == "float")
      return number(n);
    if (t == "string" || t == "concatenated_string")
      return string(n);
    if (t == "parenthesized_expression") {
      std::vector<TSNode> k = kids(n);
      return k.size() == 1 ? expr(k[0]) : unknown(n, "parenthesized_expression");
    }
    if (t == "attribute")
      return AttrOp::create(b_, at, obj_, expr(field(n, "object")), textOf(field(n, "attribute")))
          .getResult();
    if (t == "subscript")
      return SubscriptOp::create(b_, at, obj_, expr(field(n, "value")), subscriptIndex(n))
          .getResult();
    if (t == "call")
      return call(n);
    if (t == "binary_operator")
      return BinaryOp::create(b_, at, obj_, textOf(field(n, "operator")), expr(field(n, "left")),
                              expr(field(n, "right")), false)
          .getResult();
    if (t == "unary_operator")
      return UnaryOp::create(b_, at, obj_, textOf(field(n, "operator")), expr(field(n, "argument")))
          .getResult();
    if (t == "not_operator")
      return UnaryOp::create(b_, at, obj_, "not", expr(field(n, "argument"))).getResult();
    if (t == "boolean_operator")
      return boolOp(n);
    if (t == "comparison_operator")
      return compare(n);
    if (t == "conditional_expression")
      return conditional(n);
    if (t == "named_expression") {
      mlir::Value v = expr(field(n, "value"));
      storeWalrus(field(n, "name"), textOf(field(n, "name")), v);
      return v;
    }
    if (t == "lambda")
      return function(n, {});
    if (t == "tuple" || t == "expression_list" || t == "pattern_list")
      return display<TupleOp>(n);
    if (t == "list")
      return display<ListOp>(n);
    if (t == "set")
      return display<SetOp>(n);
    if (t == "dictionary")
      return dictionary(n);
    if (isComprehensionNode(n))
      return comprehension(n);
    if (t == "await")
      return AwaitOp::create(b_, at, obj_, expr(firstKid(n))).getResult();
    if (t == "yield")
      return yieldExpr(n);
    if (t == "slice")
      return slice(n);
    if (t == "keyword_argument" || t == "list_splat" || t == "dictionary_splat")
      return unknown(n, t);
    if (t == "assignment" || t == "augmented_assignment") {
      statement(n); // `x = y` where an expression was expected (recovery)
      return none(at);
    }
    llvm::SmallVector<mlir::Value> parts;
    if (t == "ERROR")
      for (TSNode k : kids(n))
        if (isExpressionNode(k))
          parts.push_back(expr(k));
    return unknown(n, t, parts);
  }

  static bool isExpressionNode(TSNode n) {
    static const char* const kinds[] = {"identifier",
                                        "call",
                                        "attribute",
                                        "subscript",
                                        "binary_operator",
                                        "string",
                                        "integer",
                                        "float",
                                        "tuple",
                                        "list",
                                        "dictionary",
                                        "lambda",
                                        "conditional_expression",
                                        "parenthesized_expression",
                                        "keyword_argument"};
    for (const char* k : kinds)
      if (is(n, k))
        return !is(n, "keyword_argument");
    return false;
  }

  TSNode firstKid(TSNode n) {
    std::vector<TSNode> k = kids(n);
    return k.empty() ? TSNode{} : k[0];
  }

  mlir::Value number(TSNode n) {
    mlir::Location at = loc(n);
    Number num = parseNumber(textOf(n));
    switch (num.kind) {
    case Number::Int:
      return constant(at, ConstKind::integer, b_.getI64IntegerAttr(num.i));
    case Number::BigInt:
      return constant(at, ConstKind::bigint, b_.getStringAttr(num.text));
    case Number::Float:
      return constant(at, ConstKind::floating, b_.getF64FloatAttr(num.f));
    case Number::Complex:
      return constant(at, ConstKind::complex, b_.getF64FloatAttr(num.f));
    case Number::Bad:
      break;
    }
    return unknown(n, "number");
  }

  // A string literal, implicitly concatenated strings, or an f-string: the
  // literal pieces as constants, each {...} as py.format, joined.
  mlir::Value string(TSNode n) {
    mlir::Location at = loc(n);
    std::vector<TSNode> pieces;
    if (is(n, "concatenated_string")) {
      for (TSNode k : kids(n))
        if (is(k, "string"))
          pieces.push_back(k);
    } else {
      pieces.push_back(n);
    }
    llvm::SmallVector<mlir::Value> parts;
    std::string literal;
    bool isBytes = false, formatted = false;
    for (TSNode s : pieces) {
      TSNode start{};
      for (TSNode k : allKids(s))
        if (is(k, "string_start"))
          start = k;
      StringPrefix prefix = parsePrefix(textOf(start));
      isBytes = isBytes || prefix.bytes;
      for (TSNode k : kids(s)) {
        if (is(k, "string_content")) {
          literal += prefix.raw ? std::string(textOf(k)) : decodeEscapes(textOf(k), prefix.bytes);
        } else if (is(k, "interpolation")) {
          formatted = true;
          if (!literal.empty()) {
            parts.push_back(str(at, literal));
            literal.clear();
          }
          parts.push_back(interpolation(k));
        } else if (is(k, "escape_interpolation")) {
          std::string_view e = textOf(k); // "{{" or "}}"
          literal += e.empty() ? std::string() : std::string(1, e[0]);
        }
      }
    }
    if (!formatted)
      return constant(at, isBytes ? ConstKind::bytes : ConstKind::str, b_.getStringAttr(literal));
    if (!literal.empty())
      parts.push_back(str(at, literal));
    return JoinStrOp::create(b_, at, obj_, parts).getResult();
  }

  mlir::Value interpolation(TSNode n) {
    mlir::Value value = expr(field(n, "expression"));
    std::string conversion;
    TSNode conv = field(n, "type_conversion");
    if (!isNull(conv)) {
      std::string_view c = textOf(conv);
      if (!c.empty() && c[0] == '!')
        c.remove_prefix(1);
      conversion = std::string(c);
    }
    llvm::SmallVector<mlir::Value> args{value};
    TSNode spec = field(n, "format_specifier");
    if (!isNull(spec)) {
      bool nested = false;
      for (TSNode k : kids(spec))
        nested = nested || is(k, "interpolation");
      if (nested) {
        args.push_back(unknown(spec, "format_specifier"));
      } else {
        std::string_view s = textOf(spec);
        if (!s.empty() && s[0] == ':')
          s.remove_prefix(1);
        args.push_back(str(loc(spec), llvm::StringRef(s.data(), s.size())));
      }
    }
    return FormatOp::create(b_, loc(n), obj_, args, conversion).getResult();
  }

  mlir::Value subscriptIndex(TSNode n) {
    std::vector<TSNode> indices = fieldAll(n, "subscript");
    if (indices.size() == 1)
      return expr(indices[0]);
    llvm::SmallVector<mlir::Value> elems;
    llvm::SmallVector<bool> starred;
    for (TSNode i : indices) {
      bool star = is(i, "list_splat");
      elems.push_back(star ? expr(firstKid(i)) : expr(i));
      starred.push_back(star);
    }
    return TupleOp::create(b_, loc(n), obj_, elems, starred).getResult();
  }

  mlir::Value slice(TSNode n) {
    // Children in order: [lower] ':' [upper] [':' [step]]
    mlir::Location at = loc(n);
    std::optional<mlir::Value> parts[3];
    unsigned slot = 0;
    for (TSNode k : allKids(n)) {
      if (!ts_node_is_named(k)) {
        if (textOf(k) == ":")
          ++slot;
        continue;
      }
      if (slot < 3)
        parts[slot] = expr(k);
    }
    mlir::Value lo = parts[0] ? *parts[0] : none(at);
    mlir::Value hi = parts[1] ? *parts[1] : none(at);
    mlir::Value st = parts[2] ? *parts[2] : none(at);
    return SliceOp::create(b_, at, obj_, lo, hi, st).getResult();
  }

  // Arguments of a call (or a class line): values and their kinds.
  void arguments(TSNode args, llvm::SmallVectorImpl<mlir::Value>& values,
                 std::vector<std::string>& kinds) {
    if (is(args, "generator_expression")) {
      values.push_back(expr(args));
      kinds.emplace_back();
      return;
    }
    for (TSNode a : kids(args)) {
      auto t = type(a);
      if (t == "list_splat") {
        values.push_back(expr(firstKid(a)));
        kinds.emplace_back("*");
      } else if (t == "dictionary_splat") {
        values.push_back(expr(firstKid(a)));
        kinds.emplace_back("**");
      } else if (t == "keyword_argument") {
        values.push_back(expr(field(a, "value")));
        kinds.emplace_back(textOf(field(a, "name")));
      } else {
        values.push_back(expr(a));
        kinds.emplace_back();
      }
    }
  }

  mlir::Value call(TSNode n) {
    mlir::Value callee = expr(field(n, "function"));
    llvm::SmallVector<mlir::Value> values;
    std::vector<std::string> kinds;
    arguments(field(n, "arguments"), values, kinds);
    return CallOp::create(b_, loc(n), obj_, callee, values, strings(kinds)).getResult();
  }

  mlir::Value boolOp(TSNode n) {
    mlir::Value lhs = expr(field(n, "left"));
    std::string op(textOf(field(n, "operator")));
    auto bop = BoolOp::create(b_, loc(n), obj_, op, lhs);
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(bop.getRhs());
    TSNode right = field(n, "right");
    ResultOp::create(b_, loc(right), expr(right));
    return bop.getResult();
  }

  mlir::Value compare(TSNode n) {
    llvm::SmallVector<mlir::Value> operands;
    std::vector<std::string> ops;
    std::string pending;
    for (TSNode k : allKids(n)) {
      if (ts_node_is_named(k)) {
        if (!operands.empty())
          ops.push_back(pending);
        pending.clear();
        operands.push_back(expr(k));
      } else {
        if (!pending.empty())
          pending += ' ';
        pending += std::string(textOf(k));
      }
    }
    return CompareOp::create(b_, loc(n), obj_, operands, strings(ops)).getResult();
  }

  mlir::Value conditional(TSNode n) {
    std::vector<TSNode> k = kids(n); // then, condition, else
    if (k.size() != 3)
      return unknown(n, "conditional_expression");
    auto op = CondOp::create(b_, loc(n), obj_, expr(k[1]));
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getThenRegion());
    ResultOp::create(b_, loc(k[0]), expr(k[0]));
    enter(op.getElseRegion());
    ResultOp::create(b_, loc(k[2]), expr(k[2]));
    return op.getResult();
  }

  template <typename OpT> mlir::Value display(TSNode n) {
    llvm::SmallVector<mlir::Value> elems;
    llvm::SmallVector<bool> starred;
    for (TSNode k : kids(n)) {
      bool star = is(k, "list_splat") || is(k, "list_splat_pattern");
      elems.push_back(star ? expr(firstKid(k)) : expr(k));
      starred.push_back(star);
    }
    return OpT::create(b_, loc(n), obj_, elems, starred).getResult();
  }

  mlir::Value dictionary(TSNode n) {
    llvm::SmallVector<mlir::Value> items;
    llvm::SmallVector<bool> splat;
    for (TSNode k : kids(n)) {
      if (is(k, "pair")) {
        items.push_back(expr(field(k, "key")));
        items.push_back(expr(field(k, "value")));
        splat.push_back(false);
      } else if (is(k, "dictionary_splat")) {
        items.push_back(expr(firstKid(k)));
        splat.push_back(true);
      }
    }
    return DictOp::create(b_, loc(n), obj_, items, splat).getResult();
  }

  mlir::Value yieldExpr(TSNode n) {
    bool from = hasToken(n, "from");
    TSNode value = firstKid(n);
    mlir::Value v = isNull(value) ? none(loc(n)) : expr(value);
    return YieldOp::create(b_, loc(n), obj_, v, from).getResult();
  }

  mlir::Value comprehension(TSNode n) {
    auto t = type(n);
    std::string kind = t == "list_comprehension"         ? "list"
                       : t == "set_comprehension"        ? "set"
                       : t == "dictionary_comprehension" ? "dict"
                                                         : "generator";
    std::vector<TSNode> clauses;
    TSNode body = field(n, "body");
    for (TSNode k : kids(n))
      if (is(k, "for_in_clause") || is(k, "if_clause"))
        clauses.push_back(k);
    if (clauses.empty() || !is(clauses[0], "for_in_clause"))
      return unknown(n, t);
    mlir::Value first = expr(field(clauses[0], "right"));
    const ScopeInfo* inner = scopes_.scopeOf(n);
    auto op = ComprehensionOp::create(b_, loc(n), obj_, kind, first,
                                      strings(inner ? inner->locals : std::vector<std::string>{}));
    mlir::OpBuilder::InsertionGuard g(b_);
    mlir::Block* block = enter(op.getBody(), 1, loc(n));
    ScopeGuard sg(*this, inner);
    clause(clauses, 0, block->getArgument(0), body);
    return op.getResult();
  }

  void clause(const std::vector<TSNode>& clauses, size_t i, mlir::Value firstIterable,
              TSNode body) {
    if (i == clauses.size()) {
      if (is(body, "pair")) {
        mlir::Value k = expr(field(body, "key"));
        mlir::Value v = expr(field(body, "value"));
        AppendOp::create(b_, loc(body), mlir::ValueRange{k, v});
      } else {
        AppendOp::create(b_, loc(body), mlir::ValueRange{expr(body)});
      }
      return;
    }
    TSNode c = clauses[i];
    mlir::OpBuilder::InsertionGuard g(b_);
    if (is(c, "for_in_clause")) {
      mlir::Value iterable = i == 0 ? firstIterable : expr(field(c, "right"));
      auto loop = ForOp::create(b_, loc(c), iterable, hasToken(c, "async"));
      mlir::Block* blk = enter(loop.getBody(), 1, loc(c));
      assign(field(c, "left"), blk->getArgument(0));
      clause(clauses, i + 1, firstIterable, body);
    } else {
      auto branch = IfOp::create(b_, loc(c), expr(firstKid(c)));
      enter(branch.getThenRegion());
      clause(clauses, i + 1, firstIterable, body);
    }
  }

  // ---- functions and classes ----------------------------------------------

  struct ScopeGuard {
    Lowerer& l;
    const ScopeInfo* saved;
    ScopeGuard(Lowerer& lowerer, const ScopeInfo* next) : l(lowerer), saved(lowerer.scope_) {
      if (next)
        l.scope_ = next;
    }
    ~ScopeGuard() { l.scope_ = saved; }
  };

  std::string qualname(llvm::StringRef name) const {
    return qualPrefix_.empty() ? name.str() : qualPrefix_ + name.str();
  }

  // A def or lambda: defaults evaluated here, the body in its own scope.
  // Returns the function object (decorators not applied).
  mlir::Value function(TSNode def, const std::string& name) {
    bool lambda = is(def, "lambda");
    std::string fname = lambda ? std::string("<lambda>") : name;
    std::vector<std::string> params;
    std::string kinds;
    llvm::SmallVector<bool> hasDefault;
    llvm::SmallVector<mlir::Value> defaults;
    bool seenStar = false;
    TSNode plist = field(def, "parameters");
    std::vector<TSNode> ps = kids(plist);
    // Parameters before a `/` are positional-only.
    size_t slash = 0;
    for (size_t i = 0; i < ps.size(); ++i)
      if (is(ps[i], "positional_separator"))
        slash = i;
    for (size_t i = 0; i < ps.size(); ++i) {
      TSNode p = ps[i];
      auto t = type(p);
      if (t == "positional_separator")
        continue;
      if (t == "keyword_separator") {
        seenStar = true;
        continue;
      }
      std::string pname;
      char kind = i < slash ? 'p' : (seenStar ? 'k' : 'n');
      TSNode value{};
      if (t == "identifier") {
        pname = std::string(textOf(p));
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        pname = std::string(textOf(field(p, "name")));
        value = field(p, "value");
      } else if (t == "typed_parameter") {
        for (TSNode k : kids(p)) {
          if (is(k, "identifier")) {
            pname = std::string(textOf(k));
            break;
          }
          if (is(k, "list_splat_pattern") || is(k, "dictionary_splat_pattern")) {
            pname = std::string(textOf(firstKid(k)));
            kind = is(k, "list_splat_pattern") ? 'v' : 'w';
            break;
          }
        }
      } else if (t == "list_splat_pattern") {
        pname = std::string(textOf(firstKid(p)));
        kind = 'v';
      } else if (t == "dictionary_splat_pattern") {
        pname = std::string(textOf(firstKid(p)));
        kind = 'w';
      } else {
        continue; // tuple parameters (Python 2) and recovery leftovers
      }
      if (kind == 'v')
        seenStar = true;
      params.push_back(pname);
      kinds.push_back(kind);
      hasDefault.push_back(!isNull(value));
      if (!isNull(value))
        defaults.push_back(expr(value));
    }
    const ScopeInfo* inner = scopes_.scopeOf(def);
    std::vector<std::string> locals;
    if (inner) {
      locals = params;
      for (const std::string& l : inner->locals)
        if (std::find(params.begin(), params.end(), l) == params.end())
          locals.push_back(l);
    }
    std::string kind = lambda ? "lambda" : (hasToken(def, "async") ? "async" : "def");
    TSNode body = field(def, "body");
    auto op = DefOp::create(b_, loc(def), obj_, fname, qualname(fname), kind, strings(params),
                            kinds, b_.getDenseBoolArrayAttr(hasDefault), strings(locals),
                            !lambda && yieldsIn(body), defaults);
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getBody());
    ScopeGuard sg(*this, inner);
    std::string savedPrefix = qualPrefix_;
    qualPrefix_ = qualname(fname) + ".<locals>.";
    if (lambda)
      ReturnOp::create(b_, loc(body), expr(body));
    else
      block(body);
    qualPrefix_ = savedPrefix;
    return op.getResult();
  }

  mlir::Value classDef(TSNode cls) {
    std::string name(textOf(field(cls, "name")));
    llvm::SmallVector<mlir::Value> values;
    std::vector<std::string> kinds;
    TSNode supers = field(cls, "superclasses");
    if (!isNull(supers))
      arguments(supers, values, kinds);
    auto op = ClassOp::create(b_, loc(cls), obj_, name, qualname(name), values, strings(kinds));
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getBody());
    ScopeGuard sg(*this, scopes_.scopeOf(cls));
    std::string savedPrefix = qualPrefix_;
    qualPrefix_ = qualname(name) + ".";
    block(field(cls, "body"));
    qualPrefix_ = savedPrefix;
    return op.getResult();
  }

  // `@d1 @d2 def f`: decorators evaluated first, applied innermost first.
  void definition(TSNode stmt) {
    TSNode def = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    llvm::SmallVector<std::pair<TSNode, mlir::Value>> decorators;
    if (is(stmt, "decorated_definition"))
      for (TSNode d : kids(stmt))
        if (is(d, "decorator"))
          decorators.push_back({d, expr(firstKid(d))});
    TSNode nameNode = field(def, "name");
    std::string name(textOf(nameNode));
    mlir::Value v = is(def, "class_definition") ? classDef(def) : function(def, name);
    for (auto it = decorators.rbegin(); it != decorators.rend(); ++it)
      v = CallOp::create(b_, loc(it->first), obj_, it->second, mlir::ValueRange{v}, strings({""}))
              .getResult();
    store(nameNode, name, v);
  }

  // ---- targets ------------------------------------------------------------

  void assign(TSNode target, mlir::Value v) {
    if (isNull(target))
      return;
    if (depth_ >= kMaxLoweredNesting) { // [[[[...a]]]] = 1 nests as deep as the file
      unknown(target, "too_deep");
      return;
    }
    ++depth_;
    assignInner(target, v);
    --depth_;
  }

  void assignInner(TSNode target, mlir::Value v) {
    auto t = type(target);
    if (t == "identifier") {
      store(target, textOf(target), v);
    } else if (t == "attribute") {
      SetAttrOp::create(b_, loc(target), expr(field(target, "object")),
                        textOf(field(target, "attribute")), v);
    } else if (t == "subscript") {
      mlir::Value obj = expr(field(target, "value"));
      SetItemOp::create(b_, loc(target), obj, subscriptIndex(target), v);
    } else if (t == "parenthesized_expression") {
      assign(firstKid(target), v);
    } else if (t == "tuple_pattern" || t == "list_pattern" || t == "pattern_list" || t == "tuple" ||
               t == "list" || t == "expression_list") {
      std::vector<TSNode> elems = kids(target);
      int64_t star = -1;
      for (size_t i = 0; i < elems.size(); ++i)
        if (is(elems[i], "list_splat_pattern") || is(elems[i], "list_splat"))
          star = static_cast<int64_t>(i);
      llvm::SmallVector<mlir::Type> types(elems.size(), obj_);
      auto op = UnpackOp::create(b_, loc(target), types, v, star);
      for (size_t i = 0; i < elems.size(); ++i) {
        TSNode e = elems[i];
        if (static_cast<int64_t>(i) == star)
          e = firstKid(e);
        assign(e, op.getResult(i));
      }
    } else {
      unknown(target, "target");
    }
  }

  // ---- statements ---------------------------------------------------------

  void block(TSNode n) {
    if (isNull(n))
      return;
    if (!is(n, "block")) { // `if x: y` on one line still has a block; recovery may not
      statement(n);
      return;
    }
    for (TSNode s : kids(n))
      statement(s);
  }

  void statement(TSNode n) {
    if (depth_ >= kMaxLoweredNesting) {
      unknown(n, "too_deep");
      return;
    }
    ++depth_;
    statementInner(n);
    --depth_;
  }

  void statementInner(TSNode n) {
    auto t = type(n);
    mlir::Location at = loc(n);
    if (t == "expression_statement") {
      std::vector<TSNode> k = kids(n);
      if (k.size() == 1)
        expr(k[0]);
      else if (!k.empty())
        display<TupleOp>(n);
    } else if (t == "assignment") {
      assignment(n);
    } else if (t == "augmented_assignment") {
      augmented(n);
    } else if (t == "function_definition" || t == "class_definition" ||
               t == "decorated_definition") {
      definition(n);
    } else if (t == "if_statement") {
      ifStatement(n, field(n, "condition"), field(n, "consequence"), fieldAll(n, "alternative"), 0);
    } else if (t == "for_statement") {
      mlir::Value iterable = expr(field(n, "right"));
      auto loop = ForOp::create(b_, at, iterable, hasToken(n, "async"));
      mlir::OpBuilder::InsertionGuard g(b_);
      mlir::Block* body = enter(loop.getBody(), 1, at);
      assign(field(n, "left"), body->getArgument(0));
      block(field(n, "body"));
      elseClause(fieldAll(n, "alternative"), loop.getOrelse());
    } else if (t == "while_statement") {
      auto loop = WhileOp::create(b_, at);
      mlir::OpBuilder::InsertionGuard g(b_);
      enter(loop.getCondition());
      TSNode cond = field(n, "condition");
      ResultOp::create(b_, loc(cond), expr(cond));
      enter(loop.getBody());
      block(field(n, "body"));
      elseClause(fieldAll(n, "alternative"), loop.getOrelse());
    } else if (t == "try_statement") {
      tryStatement(n);
    } else if (t == "with_statement") {
      std::vector<TSNode> items;
      for (TSNode k : kids(n))
        if (is(k, "with_clause"))
          for (TSNode i : kids(k))
            if (is(i, "with_item"))
              items.push_back(i);
      withItems(n, items, 0, hasToken(n, "async"));
    } else if (t == "return_statement") {
      std::vector<TSNode> k = kids(n);
      mlir::Value v = k.empty() ? none(at) : (k.size() == 1 ? expr(k[0]) : display<TupleOp>(n));
      ReturnOp::create(b_, at, v);
    } else if (t == "raise_statement") {
      llvm::SmallVector<mlir::Value> args;
      TSNode cause = field(n, "cause");
      for (TSNode k : kids(n))
        if (isNull(cause) || !ts_node_eq(k, cause))
          args.push_back(expr(k));
      if (!isNull(cause))
        args.push_back(expr(cause));
      RaiseOp::create(b_, at, args);
    } else if (t == "assert_statement") {
      llvm::SmallVector<mlir::Value> args;
      for (TSNode k : kids(n))
        args.push_back(expr(k));
      AssertOp::create(b_, at, args);
    } else if (t == "break_statement") {
      BreakOp::create(b_, at);
    } else if (t == "continue_statement") {
      ContinueOp::create(b_, at);
    } else if (t == "pass_statement" || t == "global_statement" || t == "nonlocal_statement" ||
               t == "future_import_statement" || t == "type_alias_statement") {
      // nothing runs (global/nonlocal were read by the symbol table)
    } else if (t == "delete_statement") {
      for (TSNode k : kids(n))
        deleteTarget(k);
    } else if (t == "import_statement") {
      importStatement(n);
    } else if (t == "import_from_statement") {
      importFrom(n);
    } else if (t == "match_statement") {
      matchStatement(n);
    } else if (t == "block") {
      block(n);
    } else if (t == "ERROR") {
      // Keep what can be read of a broken statement.
      for (TSNode k : kids(n)) {
        if (isExpressionNode(k))
          expr(k);
        else if (is(k, "expression_statement") || is(k, "assignment") ||
                 is(k, "function_definition") || is(k, "class_definition") ||
                 is(k, "decorated_definition") || is(k, "if_statement") ||
                 is(k, "return_statement") || is(k, "import_statement") ||
                 is(k, "import_from_statement") || is(k, "block"))
          statement(k);
      }
      unknown(n, "ERROR");
    } else {
      unknown(n, t);
    }
  }

  void assignment(TSNode n) {
    // `a = b = c`: right nests; `x: T = v` has a type; `x: T` binds nothing.
    std::vector<TSNode> targets;
    TSNode cur = n;
    TSNode annotation = field(n, "type");
    while (is(cur, "assignment")) {
      targets.push_back(field(cur, "left"));
      TSNode right = field(cur, "right");
      if (isNull(right)) {
        cur = TSNode{};
        break;
      }
      cur = right;
    }
    if (!isNull(annotation) && targets.size() == 1 && is(targets[0], "identifier") &&
        scope_->kind != ScopeInfo::Kind::Function)
      AnnotateOp::create(b_, loc(annotation), textOf(targets[0]), expr(annotation));
    if (isNull(cur))
      return;
    mlir::Value v = is(cur, "augmented_assignment") ? (augmented(cur), none(loc(cur))) : expr(cur);
    for (TSNode target : targets)
      assign(target, v);
  }

  void augmented(TSNode n) {
    TSNode target = field(n, "left");
    std::string op(textOf(field(n, "operator")));
    if (!op.empty() && op.back() == '=')
      op.pop_back();
    mlir::Location at = loc(n);
    auto combine = [&](mlir::Value current) {
      return BinaryOp::create(b_, at, obj_, op, current, expr(field(n, "right")), true).getResult();
    };
    if (is(target, "identifier")) {
      store(target, textOf(target), combine(load(target, textOf(target))));
    } else if (is(target, "attribute")) {
      mlir::Value obj = expr(field(target, "object"));
      llvm::StringRef name(textOf(field(target, "attribute")));
      mlir::Value cur = AttrOp::create(b_, loc(target), obj_, obj, name).getResult();
      SetAttrOp::create(b_, loc(target), obj, name, combine(cur));
    } else if (is(target, "subscript")) {
      mlir::Value obj = expr(field(target, "value"));
      mlir::Value idx = subscriptIndex(target);
      mlir::Value cur = SubscriptOp::create(b_, loc(target), obj_, obj, idx).getResult();
      SetItemOp::create(b_, loc(target), obj, idx, combine(cur));
    } else {
      unknown(target, "target");
    }
  }

  void deleteTarget(TSNode k) {
    auto t = type(k);
    if (t == "identifier") {
      DeleteOp::create(b_, loc(k), textOf(k), scopes_.resolve(scope_, textOf(k)));
    } else if (t == "attribute") {
      DelAttrOp::create(b_, loc(k), expr(field(k, "object")), textOf(field(k, "attribute")));
    } else if (t == "subscript") {
      mlir::Value obj = expr(field(k, "value"));
      DelItemOp::create(b_, loc(k), obj, subscriptIndex(k));
    } else if (t == "expression_list" || t == "tuple" || t == "list" ||
               t == "parenthesized_expression") {
      for (TSNode e : kids(k))
        deleteTarget(e);
    }
  }

  void elseClause(const std::vector<TSNode>& alternatives, mlir::Region& region) {
    for (TSNode a : alternatives)
      if (is(a, "else_clause")) {
        mlir::OpBuilder::InsertionGuard g(b_);
        enter(region);
        block(field(a, "body"));
      }
  }

  void ifStatement(TSNode at, TSNode cond, TSNode then, const std::vector<TSNode>& alts,
                   size_t next) {
    // Each elif nests in the previous one's else region: as deep as the chain.
    if (depth_ >= kMaxLoweredNesting) {
      unknown(at, "too_deep");
      return;
    }
    ++depth_;
    ifStatementInner(at, cond, then, alts, next);
    --depth_;
  }

  void ifStatementInner(TSNode at, TSNode cond, TSNode then, const std::vector<TSNode>& alts,
                        size_t next) {
    auto op = IfOp::create(b_, loc(at), expr(cond));
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getThenRegion());
    block(then);
    if (next < alts.size()) {
      TSNode a = alts[next];
      enter(op.getElseRegion());
      if (is(a, "elif_clause"))
        ifStatement(a, field(a, "condition"), field(a, "consequence"), alts, next + 1);
      else
        block(field(a, "body"));
    }
  }

  void tryStatement(TSNode n) {
    auto op = TryOp::create(b_, loc(n));
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getBody());
    block(field(n, "body"));
    bool haveHandlers = false;
    for (TSNode k : kids(n)) {
      if (is(k, "except_clause") || is(k, "except_group_clause")) {
        if (!haveHandlers) {
          enter(op.getHandlers());
          haveHandlers = true;
        } else {
          b_.setInsertionPointToEnd(&op.getHandlers().front());
        }
        exceptClause(k);
      } else if (is(k, "else_clause")) {
        enter(op.getOrelse());
        block(field(k, "body"));
      } else if (is(k, "finally_clause")) {
        enter(op.getFinalbody());
        for (TSNode b : kids(k))
          if (is(b, "block"))
            block(b);
      }
    }
  }

  void exceptClause(TSNode k) {
    // `except E as e:`: value E, alias e (also written as an as_pattern).
    TSNode value = field(k, "value"), alias = field(k, "alias"), body{};
    for (TSNode c : kids(k)) {
      if (is(c, "block"))
        body = c;
      else if (is(c, "as_pattern")) {
        std::vector<TSNode> parts = kids(c);
        if (!parts.empty())
          value = parts[0];
        for (TSNode p : parts)
          if (is(p, "as_pattern_target"))
            alias = firstKid(p);
      } else if (isNull(value) && !is(c, "block") && (isNull(alias) || !ts_node_eq(c, alias)))
        value = c;
    }
    auto op = ExceptOp::create(b_, loc(k), is(k, "except_group_clause"));
    mlir::OpBuilder::InsertionGuard g(b_);
    if (!isNull(value)) {
      enter(op.getExceptionType());
      ResultOp::create(b_, loc(value), expr(value));
    }
    mlir::Block* blk = enter(op.getBody(), 1, loc(k));
    if (!isNull(alias))
      assign(alias, blk->getArgument(0));
    block(body);
  }

  void withItems(TSNode stmt, const std::vector<TSNode>& items, size_t i, bool isAsync) {
    if (i == items.size()) {
      block(field(stmt, "body"));
      return;
    }
    TSNode value = field(items[i], "value");
    TSNode target{};
    if (is(value, "as_pattern")) {
      std::vector<TSNode> parts = kids(value);
      for (TSNode p : parts)
        if (is(p, "as_pattern_target"))
          target = firstKid(p);
      value = parts.empty() ? TSNode{} : parts[0];
    }
    auto op = WithOp::create(b_, loc(items[i]), expr(value), isAsync);
    mlir::OpBuilder::InsertionGuard g(b_);
    mlir::Block* blk = enter(op.getBody(), 1, loc(items[i]));
    if (!isNull(target))
      assign(target, blk->getArgument(0));
    withItems(stmt, items, i + 1, isAsync);
  }

  void importStatement(TSNode n) {
    for (TSNode nm : fieldAll(n, "name")) {
      if (is(nm, "aliased_import")) {
        TSNode alias = field(nm, "alias");
        auto op = ImportOp::create(b_, loc(nm), obj_, textOf(field(nm, "name")), false);
        store(alias, textOf(alias), op.getResult());
      } else {
        std::vector<TSNode> parts = kids(nm);
        if (parts.empty())
          continue;
        auto op = ImportOp::create(b_, loc(nm), obj_, textOf(nm), true);
        store(parts[0], textOf(parts[0]), op.getResult());
      }
    }
  }

  void importFrom(TSNode n) {
    TSNode mod = field(n, "module_name");
    int64_t level = 0;
    std::string module;
    if (is(mod, "relative_import")) {
      for (TSNode k : kids(mod)) {
        if (is(k, "import_prefix"))
          level = static_cast<int64_t>(textOf(k).size());
        else if (is(k, "dotted_name"))
          module = std::string(textOf(k));
      }
    } else {
      module = std::string(textOf(mod));
    }
    bool star = false;
    for (TSNode k : kids(n))
      star = star || is(k, "wildcard_import");
    if (star) {
      ImportStarOp::create(b_, loc(n), module, level);
      return;
    }
    for (TSNode nm : fieldAll(n, "name")) {
      TSNode nameNode = is(nm, "aliased_import") ? field(nm, "name") : nm;
      TSNode bindNode = is(nm, "aliased_import") ? field(nm, "alias") : nm;
      auto op = ImportFromOp::create(b_, loc(nm), obj_, module, level, textOf(nameNode));
      store(bindNode, textOf(bindNode), op.getResult());
    }
  }

  // ---- match --------------------------------------------------------------

  void matchStatement(TSNode n) {
    std::vector<TSNode> subjects = fieldAll(n, "subject");
    mlir::Value subject = subjects.size() == 1 ? expr(subjects[0]) : [&] {
      llvm::SmallVector<mlir::Value> elems;
      llvm::SmallVector<bool> starred;
      for (TSNode s : subjects) {
        elems.push_back(expr(s));
        starred.push_back(false);
      }
      return TupleOp::create(b_, loc(n), obj_, elems, starred).getResult();
    }();
    auto op = MatchOp::create(b_, loc(n), subject);
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(op.getCases());
    TSNode body = field(n, "body");
    for (TSNode c : kids(body)) {
      if (!is(c, "case_clause"))
        continue;
      auto caseOp = CaseOp::create(b_, loc(c));
      mlir::OpBuilder::InsertionGuard cg(b_);
      enter(caseOp.getPattern());
      mlir::Value matched;
      std::vector<TSNode> patterns;
      TSNode guard = field(c, "guard");
      for (TSNode k : kids(c))
        if (is(k, "case_pattern"))
          patterns.push_back(k);
      if (patterns.size() == 1) {
        matched = pattern(patterns[0], subject);
      } else { // `case a, b:` is a sequence pattern
        matched = sequencePattern(c, patterns, subject);
      }
      if (!isNull(guard)) {
        auto both = BoolOp::create(b_, loc(guard), obj_, "and", matched);
        mlir::OpBuilder::InsertionGuard gg(b_);
        enter(both.getRhs());
        ResultOp::create(b_, loc(guard), expr(firstKid(guard)));
        matched = both.getResult();
      }
      ResultOp::create(b_, loc(c), matched);
      enter(caseOp.getBody());
      block(field(c, "consequence"));
    }
  }

  mlir::Value truth(TSNode at, bool v) {
    return constant(loc(at), ConstKind::boolean, b_.getBoolAttr(v));
  }

  mlir::Value equals(TSNode at, mlir::Value subject, mlir::Value value, llvm::StringRef op) {
    return CompareOp::create(b_, loc(at), obj_, mlir::ValueRange{subject, value},
                             strings({op.str()}))
        .getResult();
  }

  mlir::Value conj(TSNode at, mlir::Value a, const std::function<mlir::Value()>& rest) {
    auto both = BoolOp::create(b_, loc(at), obj_, "and", a);
    mlir::OpBuilder::InsertionGuard g(b_);
    enter(both.getRhs());
    ResultOp::create(b_, loc(at), rest());
    return both.getResult();
  }

  // Whether `subject` matches pattern node `p`, binding its captures.
  mlir::Value pattern(TSNode p, mlir::Value subject) {
    auto t = type(p);
    if (t == "case_pattern") {
      std::vector<TSNode> k = kids(p);
      if (k.empty()) // `case _:`
        return truth(p, true);
      return k.size() == 1 ? pattern(k[0], subject) : sequencePattern(p, k, subject);
    }
    if (t == "dotted_name") {
      std::vector<TSNode> parts = kids(p);
      if (parts.size() == 1) {
        if (textOf(parts[0]) != "_")
          store(parts[0], textOf(parts[0]), subject);
        return truth(p, true);
      }
      return equals(p, subject, dottedExpr(p), "==");
    }
    if (t == "identifier") {
      if (textOf(p) != "_")
        store(p, textOf(p), subject);
      return truth(p, true);
    }
    if (t == "string" || t == "concatenated_string" || t == "integer" || t == "float" ||
        t == "unary_operator" || t == "binary_operator" || t == "complex_pattern")
      return equals(p, subject, expr(p), "==");
    if (t == "true" || t == "false" || t == "none")
      return equals(p, subject, expr(p), "is");
    if (t == "as_pattern") {
      std::vector<TSNode> parts = kids(p);
      mlir::Value m = parts.empty() ? truth(p, true) : pattern(parts[0], subject);
      for (TSNode k : parts)
        if (is(k, "as_pattern_target"))
          assign(firstKid(k), subject);
      return m;
    }
    if (t == "union_pattern") {
      std::vector<TSNode> alts = kids(p);
      if (alts.empty())
        return truth(p, false);
      mlir::Value m = pattern(alts[0], subject);
      for (size_t i = 1; i < alts.size(); ++i) {
        auto either = BoolOp::create(b_, loc(p), obj_, "or", m);
        mlir::OpBuilder::InsertionGuard g(b_);
        enter(either.getRhs());
        ResultOp::create(b_, loc(alts[i]), pattern(alts[i], subject));
        m = either.getResult();
      }
      return m;
    }
    if (t == "tuple_pattern" || t == "list_pattern")
      return sequencePattern(p, kids(p), subject);
    if (t == "class_pattern")
      return classPattern(p, subject);
    if (t == "dict_pattern")
      return dictPattern(p, subject);
    return unknown(p, "pattern");
  }

  // A dotted name in a pattern (`Color.RED`) read as an expression.
  mlir::Value dottedExpr(TSNode p) {
    std::vector<TSNode> parts = kids(p);
    if (parts.empty())
      return unknown(p, "dotted_name");
    mlir::Value v = load(parts[0], textOf(parts[0]));
    for (size_t i = 1; i < parts.size(); ++i)
      v = AttrOp::create(b_, loc(parts[i]), obj_, v, textOf(parts[i])).getResult();
    return v;
  }

  mlir::Value sequencePattern(TSNode at, const std::vector<TSNode>& elems, mlir::Value subject) {
    // Elements are matched by index; a `*rest` takes the slice between.
    size_t n = elems.size();
    size_t starAt = n;
    for (size_t i = 0; i < n; ++i)
      if (is(elems[i], "splat_pattern") ||
          (is(elems[i], "case_pattern") && !kids(elems[i]).empty() &&
           is(kids(elems[i])[0], "splat_pattern")))
        starAt = i;
    // A sequence (a list or tuple here; str and bytes never match) of the
    // pattern's length, at least the fixed elements' with a `*rest`.
    auto call = [&](llvm::StringRef fn, mlir::ValueRange args) {
      std::vector<std::string> kw(args.size(), "");
      return CallOp::create(b_, loc(at), obj_, load(at, fn), args, strings(kw)).getResult();
    };
    mlir::Value kinds =
        TupleOp::create(b_, loc(at), obj_, mlir::ValueRange{load(at, "list"), load(at, "tuple")},
                        b_.getDenseBoolArrayAttr({false, false}))
            .getResult();
    mlir::Value matched = call("isinstance", {subject, kinds});
    matched = conj(at, matched, [&] {
      mlir::Value len = call("len", {subject});
      size_t fixed = starAt < n ? n - 1 : n;
      mlir::Value want =
          constant(loc(at), ConstKind::integer, b_.getI64IntegerAttr(static_cast<int64_t>(fixed)));
      return CompareOp::create(b_, loc(at), obj_, mlir::ValueRange{len, want},
                               strings({starAt < n ? ">=" : "=="}))
          .getResult();
    });
    for (size_t i = 0; i < n; ++i) {
      TSNode e = elems[i];
      int64_t index = i < starAt ? static_cast<int64_t>(i)
                                 : -static_cast<int64_t>(n - i); // after the star: from the end
      if (i == starAt) {
        TSNode splat = is(e, "splat_pattern") ? e : kids(e)[0];
        TSNode name = firstKid(splat);
        if (!isNull(name) && textOf(name) != "_") {
          mlir::Value lo = constant(loc(e), ConstKind::integer, b_.getI64IntegerAttr(i));
          mlir::Value hi = n - i - 1 == 0
                               ? none(loc(e))
                               : constant(loc(e), ConstKind::integer,
                                          b_.getI64IntegerAttr(-static_cast<int64_t>(n - i - 1)));
          mlir::Value sl = SliceOp::create(b_, loc(e), obj_, lo, hi, none(loc(e))).getResult();
          mlir::Value part = SubscriptOp::create(b_, loc(e), obj_, subject, sl).getResult();
          auto list = CallOp::create(b_, loc(e), obj_, load(e, "list"), mlir::ValueRange{part},
                                     strings({""}));
          store(name, textOf(name), list.getResult());
        }
        continue;
      }
      mlir::Value idx = constant(loc(e), ConstKind::integer, b_.getI64IntegerAttr(index));
      mlir::Value part = SubscriptOp::create(b_, loc(e), obj_, subject, idx).getResult();
      mlir::Value m = pattern(e, part);
      matched = conj(e, matched, [m] { return m; });
    }
    return matched;
  }

  mlir::Value classPattern(TSNode p, mlir::Value subject) {
    std::vector<TSNode> parts = kids(p);
    if (parts.empty() || !is(parts[0], "dotted_name"))
      return unknown(p, "class_pattern");
    mlir::Value cls = dottedExpr(parts[0]);
    std::vector<TSNode> positional, keywords;
    for (size_t i = 1; i < parts.size(); ++i) {
      TSNode k = parts[i];
      TSNode inner = is(k, "case_pattern") && !kids(k).empty() ? kids(k)[0] : k;
      if (is(inner, "keyword_pattern"))
        keywords.push_back(inner);
      else
        positional.push_back(k);
    }
    llvm::SmallVector<mlir::Type> types(positional.size(), obj_);
    auto test = MatchClassOp::create(b_, loc(p), obj_, types, subject, cls,
                                     static_cast<int64_t>(positional.size()));
    mlir::Value matched = test.getMatched();
    for (size_t i = 0; i < positional.size(); ++i) {
      mlir::Value m = pattern(positional[i], test.getParts()[i]);
      matched = conj(positional[i], matched, [m] { return m; });
    }
    for (TSNode kw : keywords) {
      std::vector<TSNode> kp = kids(kw);
      if (kp.size() < 2)
        continue;
      mlir::Value attr = AttrOp::create(b_, loc(kw), obj_, subject, textOf(kp[0])).getResult();
      mlir::Value m = pattern(kp[1], attr);
      matched = conj(kw, matched, [m] { return m; });
    }
    return matched;
  }

  mlir::Value dictPattern(TSNode p, mlir::Value subject) {
    std::vector<TSNode> keys = fieldAll(p, "key"), values = fieldAll(p, "value");
    mlir::Value matched = truth(p, true);
    for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
      mlir::Value key = is(keys[i], "dotted_name") ? dottedExpr(keys[i]) : expr(keys[i]);
      mlir::Value present =
          CompareOp::create(b_, loc(keys[i]), obj_, mlir::ValueRange{key, subject}, strings({"in"}))
              .getResult();
      mlir::Value part = SubscriptOp::create(b_, loc(values[i]), obj_, subject, key).getResult();
      mlir::Value m = pattern(values[i], part);
      matched = conj(keys[i], matched, [&] { return conj(values[i], present, [m] { return m; }); });
    }
    return matched;
  }

  mlir::OpBuilder b_;
  mlir::StringAttr file_;
  mlir::Type obj_;
  std::string_view text_;
  const ScopeTable& scopes_;
  const ScopeInfo* scope_;
  std::string qualPrefix_;
  unsigned depth_ = 0;
};

} // namespace

std::vector<TSNode> topLevelStatements(const SourceView& src) {
  std::vector<TSNode> out;
  for (TSNode s : kids(src.root)) {
    // A top-level error, or a statement holding one that runs over the
    // statements below it (`z = jnp.exp(` typed in a def swallows the defs
    // after it): its chunks, each parsed on its own, so what follows the
    // error is still analysed (PLS011 reports the error itself).
    if ((is(s, "ERROR") || ts_node_has_error(s)) && src.recoveredChunks) {
      std::vector<TSNode> chunks = src.recoveredChunks(s);
      if (!chunks.empty()) {
        for (TSNode chunk : chunks)
          for (TSNode k : kids(chunk))
            out.push_back(k);
        continue;
      }
    }
    out.push_back(s);
  }
  return out;
}

mlir::Operation* lowerUnit(mlir::MLIRContext* context, const SourceView& src, TSNode statement) {
  context->getOrLoadDialect<PyDialect>();
  ScopeTable scopes(statement, src.text);
  Lowerer lowerer(context, src, scopes);
  return lowerer.unit(statement);
}

void lowerModule(mlir::ModuleOp module, const SourceView& src) {
  mlir::MLIRContext* context = module.getContext();
  for (TSNode s : topLevelStatements(src))
    module.getBody()->push_back(lowerUnit(context, src, s));
}

uint64_t unitKey(const SourceView& src, TSNode statement) {
  if (ts_node_has_error(statement) || is(statement, "ERROR"))
    return 0;
  uint32_t start = ts_node_start_byte(statement), end = ts_node_end_byte(statement);
  if (end < start || end > src.text.size())
    return 0;
  TSPoint at = ts_node_start_point(statement);
  uint64_t key = static_cast<uint64_t>(
      llvm::hash_combine(llvm::xxh3_64bits(llvm::StringRef(src.text.data() + start, end - start)),
                         at.row, at.column, ts_node_symbol(statement)));
  return key == 0 ? 1 : key;
}

size_t updateModule(mlir::ModuleOp module, const SourceView& src, std::vector<uint64_t>& keys) {
  mlir::MLIRContext* context = module.getContext();
  mlir::Block* body = module.getBody();
  // The units lowered before, by key (two equal statements at one place
  // cannot be, but an unreadable one has key 0 and is never reused).
  std::unordered_multimap<uint64_t, mlir::Operation*> before;
  size_t index = 0;
  for (mlir::Operation& op : *body)
    before.emplace(index < keys.size() ? keys[index++] : 0, &op);
  for (auto& [key, op] : before)
    op->remove();
  std::vector<uint64_t> now;
  size_t lowered = 0;
  for (TSNode s : topLevelStatements(src)) {
    uint64_t key = unitKey(src, s);
    auto kept = key ? before.find(key) : before.end();
    if (kept != before.end()) {
      body->push_back(kept->second);
      before.erase(kept);
    } else {
      body->push_back(lowerUnit(context, src, s));
      ++lowered;
    }
    now.push_back(key);
  }
  for (auto& [key, op] : before)
    op->destroy();
  keys = std::move(now);
  return lowered;
}

} // namespace pallas::py
