// The decision and the lowering: walks the region of a `pallas.inline_mgpu`
// op in program order and maps each op that has a standard-Pallas meaning to
// an Expr of the StdProgram (see StdProgram.h for the types). The first op
// that has none (raw gpu/nvvm/llvm/arith dialect ops, anything done with the
// launch context such as TMA copies, barriers, fences, Python control flow)
// stops the translation and is reported as the blocker.
//
// Statement order: side effects (stores) and values bound to a Python name
// are emitted where the body has them; other values are translated when a
// later op needs them, so sub-expressions that only feed dropped statements
// (`del ctx`, an `assert` about the memref type) never block.
#include "TranslatorImpl.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace pallas::analysis::rewrite {

OpPos opPos(mlir::Location loc) {
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
    OpPos p;
    p.file = f.getFilename().str();
    p.pos = {f.getLine() ? f.getLine() - 1 : 0, f.getColumn() ? f.getColumn() - 1 : 0};
    p.valid = f.getLine() > 0;
    return p;
  }
  if (auto c = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
    OpPos p = opPos(c.getCallee());
    return p.valid ? p : opPos(c.getCaller());
  }
  if (auto n = llvm::dyn_cast<mlir::NameLoc>(loc))
    return opPos(n.getChildLoc());
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : fused.getLocations())
      if (OpPos p = opPos(l); p.valid)
        return p;
  return {};
}

std::string Translator::kindKey(mlir::Operation* o) {
  if (auto p = llvm::dyn_cast<pd::PrimOp>(o))
    return "prim:" + p.getApi().str();
  if (auto p = llvm::dyn_cast<pd::OpaqueOp>(o))
    return "opaque:" + p.getWhat().str();
  return o->getName().getStringRef().str();
}

TSNode Translator::syntaxOf(mlir::Operation* o) {
  OpPos p = opPos(o->getLoc());
  if (!p.valid)
    return TSNode{};
  // Ops of one kind at one position share the candidate list: filtering it
  // once per op made a long expression (whose operators all start at its
  // first operand) quadratic.
  auto key = std::make_pair(std::make_pair(p.pos.line, p.pos.column), kindKey(o));
  auto cached = candidates_.find(key);
  if (cached == candidates_.end())
    cached = candidates_.emplace(std::move(key), candidatesOf(o, p)).first;
  const std::vector<TSNode>& nodes = cached->second;
  unsigned k = nth_.lookup(o);
  if (llvm::isa<pd::ConstantOp>(o))
    k = 0; // the innermost named node is the literal
  return k < nodes.size() ? nodes[k] : TSNode{};
}

// The nodes starting at `p` that an op of `o`'s kind can stand for,
// innermost first.
std::vector<TSNode> Translator::candidatesOf(mlir::Operation* o, const OpPos& p) {
  SourceIndex::Keep keep = [](TSNode, TSNode) { return true; };
  std::string method;
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(o)) {
    llvm::StringRef api = prim.getApi();
    if (api == "ref.at") {
      keep = [this](TSNode n, TSNode) {
        TSNode v = fieldOf(n, "value");
        return typeOf(n) == "subscript" && typeOf(v) == "attribute" &&
               src_.textOf(fieldOf(v, "attribute")) == "at";
      };
    } else if (api.ends_with(".__getitem__")) {
      keep = [](TSNode n, TSNode) { return typeOf(n) == "subscript"; };
    } else if (api.starts_with("ref.") || api.starts_with("value.")) {
      method = api.split('.').second.str();
      // A method call `x.m(...)`, or an attribute `x.m` that is not called.
      keep = [this, method](TSNode n, TSNode enclosing) {
        if (typeOf(n) == "call") {
          TSNode f = fieldOf(n, "function");
          return typeOf(f) == "attribute" && src_.textOf(fieldOf(f, "attribute")) == method;
        }
        if (typeOf(n) != "attribute" || src_.textOf(fieldOf(n, "attribute")) != method)
          return false;
        // Not the callee of a call: a call starts where its callee does, so
        // such a parent is the next node starting here (ts_node_parent
        // would cost the node's depth, for every attribute of a chain).
        return !(typeOf(enclosing) == "call" && ts_node_eq(fieldOf(enclosing, "function"), n));
      };
    } else {
      keep = [](TSNode n, TSNode) { return typeOf(n) == "call"; };
    }
  } else if (auto opq = llvm::dyn_cast<pd::OpaqueOp>(o)) {
    std::string what = opq.getWhat().str();
    keep = [what](TSNode n, TSNode) { return typeOf(n) == what; };
  } else if (llvm::isa<pd::ConstantOp>(o)) {
    keep = [](TSNode n, TSNode) { return ts_node_is_named(n); };
  }
  return src_.nodesStartingAt(p.pos, keep);
}

// The syntax node of each operand of `o`, in operand order (mirrors the
// lowering's order of sub-expressions; null where it cannot be told).
std::vector<TSNode> Translator::operandNodes(mlir::Operation* o) {
  std::vector<TSNode> out;
  TSNode n = syntaxOf(o);
  if (isNull(n))
    return out;
  auto addArgs = [&](TSNode argList) {
    for (TSNode a : syntax::childrenOf(argList, true)) {
      std::string_view t = typeOf(a);
      if (t == "comment")
        continue;
      if (t == "keyword_argument")
        a = fieldOf(a, "value");
      else if (t == "list_splat" || t == "dictionary_splat")
        a = ts_node_named_child(a, 0);
      out.push_back(a);
    }
  };
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(o)) {
    llvm::StringRef api = prim.getApi();
    if (typeOf(n) == "subscript") {
      TSNode v = fieldOf(n, "value");
      out.push_back(api == "ref.at" ? fieldOf(v, "object") : v);
      for (TSNode index : syntax::fieldChildren(n, "subscript"))
        out.push_back(index);
    } else if (typeOf(n) == "attribute") {
      out.push_back(fieldOf(n, "object"));
    } else if (api.starts_with("ref.") || api.starts_with("value.")) {
      out.push_back(fieldOf(fieldOf(n, "function"), "object"));
      addArgs(fieldOf(n, "arguments"));
    } else {
      addArgs(fieldOf(n, "arguments"));
    }
    return out;
  }
  for (TSNode ch : syntax::childrenOf(n, true)) {
    std::string_view t = typeOf(ch);
    if (t == "comment" || t == "keyword_identifier")
      continue;
    if (t == "keyword_argument")
      ch = fieldOf(ch, "value");
    out.push_back(ch);
  }
  return out;
}

ExprP Translator::block(mlir::Operation* o, std::string what) {
  if (blocker.empty()) {
    blocker = std::move(what);
    blockerPos = opPos(o->getLoc());
  }
  return nullptr;
}

bool Translator::inRegion(mlir::Value v) {
  mlir::Region* r = v.getParentRegion();
  return r && (r == &op_.getBody() || op_.getBody().isAncestor(r));
}

ExprP Translator::operand(mlir::Operation* user, unsigned i) {
  mlir::Value v = user->getOperand(i);
  if (inRegion(v))
    return value(v);
  // Captured from the enclosing function: print it as the body wrote it.
  std::vector<TSNode> nodes = operandNodes(user);
  if (i < nodes.size() && !isNull(nodes[i]))
    return mkName(std::string(src_.textOf(nodes[i])), Ty::Py);
  return block(user, "a value captured from the enclosing function");
}

ExprP Translator::value(mlir::Value v) {
  if (auto it = vals_.find(v); it != vals_.end())
    return it->second;
  ExprP e;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    if (op_.getBody().empty() || arg.getOwner() != &op_.getBody().front())
      return block(op_, "a block argument of a nested construct");
    unsigned idx = arg.getArgNumber();
    if (idx == 0) {
      e = mkName("ctx", Ty::Ctx);
    } else {
      Ty ty = Ty::Array;
      if (auto kinds = op_.getArgTypeKinds(); kinds && idx - 1 < kinds->size())
        ty = pd::enumName((*kinds)[idx - 1]) == "ref" ? Ty::Ref : Ty::Array;
      std::string name = idx - 1 < prog_.params.size() ? prog_.params[idx - 1] : "arg";
      // A parameter with a default or annotation: its name is what comes first.
      size_t cut = name.find_first_of(":=");
      if (cut != std::string::npos)
        name = name.substr(0, cut);
      while (!name.empty() && name.back() == ' ')
        name.pop_back();
      e = mkName(name, ty);
    }
  } else {
    e = translate(v.getDefiningOp());
  }
  if (e)
    vals_[v] = e;
  return e;
}

// A value that may appear in standard code.
ExprP Translator::usable(mlir::Operation* user, ExprP e) {
  if (!e)
    return nullptr;
  if (e->ty == Ty::Ctx)
    return block(user, "the launch context (" + e->text + ")");
  if (e->ty == Ty::Api)
    return block(user, e->text + " (a Mosaic GPU/MLIR builder object)");
  if (e->ty == Ty::Layout)
    return block(user, "a layout used as a value");
  return e;
}

ExprP Translator::keywordOperand(mlir::Operation* user, mlir::ArrayAttr keywords,
                                 llvm::StringRef kw, unsigned positional) {
  unsigned pos = 0;
  for (unsigned i = 0; i < keywords.size(); ++i) {
    llvm::StringRef k = llvm::cast<mlir::StringAttr>(keywords[i]).getValue();
    if (k == kw || (k.empty() && pos++ == positional))
      return operand(user, i);
  }
  return nullptr;
}

bool Translator::hasKeyword(mlir::ArrayAttr keywords, llvm::StringRef kw, unsigned positional) {
  unsigned pos = 0;
  for (mlir::Attribute a : keywords) {
    llvm::StringRef k = llvm::cast<mlir::StringAttr>(a).getValue();
    if (k == kw || (k.empty() && pos++ == positional))
      return true;
  }
  return false;
}

// is_signed=False turns a signless integer dtype into an unsigned one.
ExprP Translator::applySignedness(ExprP dtype, const ExprP& isSigned) {
  if (!dtype || !dtype->signless)
    return dtype;
  std::string prefix =
      isSigned && isSigned->op == Expr::Op::Literal && isSigned->text == "False" ? ".uint" : ".int";
  return mkDType(prog_.jnp + prefix + std::to_string(dtype->bits));
}

bool Translator::isFalse(const ExprP& e) {
  return e && e->op == Expr::Op::Literal && e->text == "False";
}

// `e` marked as an unsigned view (see Expr::unsignedView).
ExprP Translator::asUnsigned(ExprP e, bool unsignedView) {
  if (!e || e->unsignedView == unsignedView)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->unsignedView = unsignedView;
  return copy;
}

bool Translator::anyUnsigned(const std::vector<ExprP>& args) {
  for (const ExprP& a : args)
    if (a && a->unsignedView)
      return true;
  return false;
}

// The value of a Python integer constant expression (literals, unary minus,
// + - * << | & ^ of them), when it is one and fits in 64 bits.
std::optional<int64_t> Translator::intConstant(const ExprP& e, int depth) {
  if (!e || depth > 16 || e->ty != Ty::Py)
    return std::nullopt;
  if (e->op == Expr::Op::Literal) {
    std::string t;
    for (char c : e->text)
      if (c != '_')
        t += c;
    if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0]))))
      return std::nullopt;
    int base = 10;
    size_t start = 0;
    if (t.size() > 2 && t[0] == '0' &&
        (t[1] == 'x' || t[1] == 'X' || t[1] == 'b' || t[1] == 'B' || t[1] == 'o' || t[1] == 'O')) {
      base = (t[1] == 'x' || t[1] == 'X') ? 16 : (t[1] == 'b' || t[1] == 'B') ? 2 : 8;
      start = 2;
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(t.c_str() + start, &end, base);
    if (errno || !end || *end || v > static_cast<unsigned long long>(INT64_MAX))
      return std::nullopt;
    return static_cast<int64_t>(v);
  }
  if (e->op == Expr::Op::Unary && e->text == "-" && e->args.size() == 1)
    if (auto v = intConstant(e->args[0], depth + 1); v && *v != INT64_MIN)
      return -*v;
  if (e->op == Expr::Op::Binary && e->args.size() == 2) {
    auto a = intConstant(e->args[0], depth + 1), b = intConstant(e->args[1], depth + 1);
    if (!a || !b)
      return std::nullopt;
    const std::string& t = e->text;
    __int128 r;
    if (t == "+")
      r = static_cast<__int128>(*a) + *b;
    else if (t == "-")
      r = static_cast<__int128>(*a) - *b;
    else if (t == "*")
      r = static_cast<__int128>(*a) * *b;
    else if (t == "<<" && *b >= 0 && *b < 64)
      r = static_cast<__int128>(*a) << *b;
    else if (t == "|")
      r = *a | *b;
    else if (t == "&")
      r = *a & *b;
    else if (t == "^")
      r = *a ^ *b;
    else
      return std::nullopt;
    if (r > INT64_MAX || r < INT64_MIN)
      return std::nullopt;
    return static_cast<int64_t>(r);
  }
  return std::nullopt;
}

// Mosaic GPU builds an integer operand's constant with the array's width
// (so 1 << 31 on int32 is the bit pattern 0x80000000); JAX refuses a Python
// int outside int32 with OverflowError. A bitwise operator, or any operator
// on an unsigned view, with such a constant is refused rather than
// rewritten into code that does not run.
bool Translator::intConstantsFit(mlir::Operation* o, const std::string& tok,
                                 const std::vector<ExprP>& args) {
  static const std::set<std::string> integerOnly = {"&", "|", "^", "<<", ">>"};
  if (!integerOnly.count(tok) && !anyUnsigned(args))
    return true;
  for (const ExprP& a : args)
    if (auto v = intConstant(a); v && (*v >= (int64_t{1} << 31) || *v < -(int64_t{1} << 31))) {
      block(o, "an integer constant outside int32 (" + std::to_string(*v) + ") with `" + tok +
                   "`, which JAX cannot combine with an int32 array");
      return false;
    }
  return true;
}

// A binary operator on an operand Mosaic GPU treats as unsigned: the
// two's-complement ones are the same on a signed dtype; `>>` becomes a
// logical shift; the rest would compute a different answer: refused.
ExprP Translator::unsignedBinary(mlir::Operation* o, const std::string& tok,
                                 std::vector<ExprP> args, Ty ty) {
  static const std::set<std::string> same = {"+", "-", "*", "&", "|", "^", "<<", "==", "!="};
  if (same.count(tok))
    return asUnsigned(mkExpr(Expr::Op::Binary, ty, tok, std::move(args)));
  if (tok == ">>")
    return asUnsigned(
        mkExpr(Expr::Op::Call, ty, prog_.lax + ".shift_right_logical", std::move(args)));
  return block(o, "`" + tok +
                      "` on an unsigned (is_signed=False) value, which standard code "
                      "would compute signed");
}

ExprP Translator::jnp(const std::string& fn) {
  return mkName(prog_.jnp + "." + fn, Ty::Py);
}

std::string Translator::jnpName(const std::string& fn) {
  return prog_.jnp + "." + fn;
}

// The Python name an op's value is bound to (`x = <op>`), or "".
std::string Translator::boundName(mlir::Operation* o) {
  TSNode n = syntaxOf(o);
  if (isNull(n))
    return "";
  if (typeOf(n) == "augmented_assignment") {
    TSNode left = fieldOf(n, "left");
    return typeOf(left) == "identifier" ? std::string(src_.textOf(left)) : "";
  }
  TSNode parent = src_.parent(n);
  if (typeOf(parent) != "assignment" || !ts_node_eq(fieldOf(parent, "right"), n))
    return "";
  TSNode left = fieldOf(parent, "left");
  return typeOf(left) == "identifier" ? std::string(src_.textOf(left)) : "";
}

bool Translator::statement(mlir::Operation* o) {
  if (auto r = llvm::dyn_cast<pd::ReturnOp>(o)) {
    if (!r.getValue())
      return true;
    ExprP e = usable(o, value(r.getValue()));
    if (!e)
      return false;
    Stmt s;
    s.kind = Stmt::Kind::Return;
    s.value = e;
    prog_.body.push_back(s);
    return true;
  }
  if (auto q = llvm::dyn_cast<pd::OpaqueOp>(o)) {
    llvm::StringRef w = q.getWhat();
    // Checks about the builder and the context: no meaning in standard code.
    if (w == "assert_statement" || w == "delete_statement" || w == "pass_statement" ||
        w == "comment")
      return true;
  }
  if (o->getNumRegions() > 0)
    return translate(o) != nullptr;
  std::string name = o->getNumResults() ? boundName(o) : "";
  bool root = o->getNumResults() == 0 || o->getResult(0).use_empty();
  if (name.empty() && !root)
    return true; // translated when a later op needs it
  mlir::Value result = o->getNumResults() ? o->getResult(0) : mlir::Value();
  ExprP e = result ? value(result) : translate(o);
  if (!e)
    return false;
  if (!name.empty() && (e->ty == Ty::Array || e->ty == Ty::Scalar || e->ty == Ty::Ref ||
                        e->ty == Ty::Py || e->ty == Ty::DType)) {
    if (!(e->op == Expr::Op::Name && e->text == name)) {
      Stmt s;
      s.kind = Stmt::Kind::Assign;
      s.name = name;
      s.value = e;
      prog_.body.push_back(s);
      // The name stands for the value from now on, its signedness included.
      auto named = asUnsigned(mkName(name, e->ty), e->unsignedView);
      vals_[result] = named;
    }
  }
  return true;
}

Translation translateInlineMgpu(pd::InlineMgpuOp op, const SourceIndex& src,
                                std::vector<std::string> params, const std::string& jnp,
                                const std::string& lax) {
  Translation t;
  StdProgram prog;
  prog.params = std::move(params);
  prog.jnp = jnp;
  prog.lax = lax;
  Translator tr(op, src, prog);
  if (tr.run() && tr.blocker.empty()) {
    t.program = std::move(prog);
  } else {
    t.blocker = tr.blocker.empty() ? "an operation without a standard equivalent" : tr.blocker;
    t.blockerPos = tr.blockerPos;
  }
  return t;
}

} // namespace pallas::analysis::rewrite
