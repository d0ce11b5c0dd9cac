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
#include "Translate.h"

#include "mlir/IR/Location.h"
#include "pallas/analysis/detail/Apis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace pd = pallas::dialect;

namespace pallas::analysis::rewrite {

// ref.at: a Ref view the translation unwraps (detail/Apis.def).
constexpr llvm::StringRef kRefAt{detail::apiName(detail::Api::RefAt)};

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

namespace {

// "jax._src.lib.mlir.dialects.memref.store" -> {"memref", "store"}.
std::pair<std::string, std::string> dialectOp(llvm::StringRef api) {
  size_t i = api.find("dialects.");
  if (i == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = api.substr(i + 9);
  auto [d, op] = rest.split('.');
  // `dialects.memref_dialect.store` spellings do not occur; keep the split.
  return {d.str(), op.str()};
}

// The part of a Mosaic GPU API after its module: "mgpu.FragmentedArray.splat"
// and "jax.experimental.mosaic.gpu.fragmented_array.FragmentedArray.splat"
// both give "FragmentedArray.splat"; "" for other APIs.
std::string mgpuName(llvm::StringRef api) {
  for (llvm::StringRef prefix :
       {"mgpu.", "jax.experimental.mosaic.gpu.", "jax._src.lib.mosaic_gpu."}) {
    if (!api.starts_with(prefix))
      continue;
    llvm::StringRef rest = api.drop_front(prefix.size());
    rest.consume_front("fragmented_array.");
    rest.consume_front("core.");
    return rest.str();
  }
  return "";
}

// "jax._src.lib.mlir.ir.F32Type.get" -> "F32Type.get".
std::string irName(llvm::StringRef api) {
  for (llvm::StringRef marker : {"mlir.ir.", "jaxlib.mlir.ir."}) {
    size_t i = api.find(marker);
    if (i != llvm::StringRef::npos)
      return api.substr(i + marker.size()).str();
  }
  if (api.starts_with("ir."))
    return api.drop_front(3).str();
  return "";
}

bool isJnpOrLax(llvm::StringRef api) {
  return api.starts_with("jnp.") || api.starts_with("lax.") || api.starts_with("jax.numpy.") ||
         api.starts_with("jax.lax.") || api.starts_with("builtins.");
}

class Translator {
public:
  Translator(pd::InlineMgpuOp op, const SourceIndex& src, StdProgram& prog)
      : op_(op), src_(src), prog_(prog) {
    // Number the ops that share a start position and a kind: nested
    // expressions that start at the same place (`x + x + y`) are lowered
    // innermost first, which is also the order of nodesStartingAt.
    std::map<std::pair<std::pair<uint32_t, uint32_t>, std::string>, unsigned> seen;
    op_.getBody().walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation* o) {
      OpPos p = opPos(o->getLoc());
      if (!p.valid)
        return;
      auto key = std::make_pair(std::make_pair(p.pos.line, p.pos.column), kindKey(o));
      nth_[o] = seen[key]++;
    });
  }

  bool run() {
    if (op_.getBody().empty())
      return true; // an empty body: `def f(ctx): pass`
    mlir::Block& body = op_.getBody().front();
    for (mlir::Operation& o : body) {
      if (!statement(&o))
        return false;
    }
    return true;
  }

  std::string blocker;
  OpPos blockerPos;

private:
  // ---- syntax of an op ----------------------------------------------------
  static std::string kindKey(mlir::Operation* o) {
    if (auto p = llvm::dyn_cast<pd::PrimOp>(o))
      return "prim:" + p.getApi().str();
    if (auto p = llvm::dyn_cast<pd::OpaqueOp>(o))
      return "opaque:" + p.getWhat().str();
    return o->getName().getStringRef().str();
  }

  TSNode syntaxOf(mlir::Operation* o) {
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
  std::vector<TSNode> candidatesOf(mlir::Operation* o, const OpPos& p) {
    SourceIndex::Keep keep = [](TSNode, TSNode) { return true; };
    std::string method;
    if (auto prim = llvm::dyn_cast<pd::PrimOp>(o)) {
      llvm::StringRef api = prim.getApi();
      if (api == kRefAt) {
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
  std::vector<TSNode> operandNodes(mlir::Operation* o) {
    std::vector<TSNode> out;
    TSNode n = syntaxOf(o);
    if (isNull(n))
      return out;
    auto addArgs = [&](TSNode argList) {
      for (uint32_t i = 0, c = isNull(argList) ? 0 : ts_node_named_child_count(argList); i < c;
           ++i) {
        TSNode a = ts_node_named_child(argList, i);
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
        out.push_back(api == kRefAt ? fieldOf(v, "object") : v);
        for (uint32_t i = 0, c = ts_node_child_count(n); i < c; ++i) {
          const char* f = ts_node_field_name_for_child(n, i);
          if (f && std::string_view(f) == "subscript")
            out.push_back(ts_node_child(n, i));
        }
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
    for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) {
      TSNode ch = ts_node_named_child(n, i);
      std::string_view t = typeOf(ch);
      if (t == "comment" || t == "keyword_identifier")
        continue;
      if (t == "keyword_argument")
        ch = fieldOf(ch, "value");
      out.push_back(ch);
    }
    return out;
  }

  // ---- blocking -------------------------------------------------------------
  ExprP block(mlir::Operation* o, std::string what) {
    if (blocker.empty()) {
      blocker = std::move(what);
      blockerPos = opPos(o->getLoc());
    }
    return nullptr;
  }

  // ---- values -------------------------------------------------------------------
  bool inRegion(mlir::Value v) {
    mlir::Region* r = v.getParentRegion();
    return r && (r == &op_.getBody() || op_.getBody().isAncestor(r));
  }

  ExprP operand(mlir::Operation* user, unsigned i) {
    mlir::Value v = user->getOperand(i);
    if (inRegion(v))
      return value(v);
    // Captured from the enclosing function: print it as the body wrote it.
    std::vector<TSNode> nodes = operandNodes(user);
    if (i < nodes.size() && !isNull(nodes[i]))
      return mkName(std::string(src_.textOf(nodes[i])), Ty::Py);
    return block(user, "a value captured from the enclosing function");
  }

  ExprP value(mlir::Value v) {
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
  ExprP usable(mlir::Operation* user, ExprP e) {
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

  ExprP keywordOperand(mlir::Operation* user, mlir::ArrayAttr keywords, llvm::StringRef kw,
                       unsigned positional) {
    unsigned pos = 0;
    for (unsigned i = 0; i < keywords.size(); ++i) {
      llvm::StringRef k = llvm::cast<mlir::StringAttr>(keywords[i]).getValue();
      if (k == kw || (k.empty() && pos++ == positional))
        return operand(user, i);
    }
    return nullptr;
  }

  bool hasKeyword(mlir::ArrayAttr keywords, llvm::StringRef kw, unsigned positional) {
    unsigned pos = 0;
    for (mlir::Attribute a : keywords) {
      llvm::StringRef k = llvm::cast<mlir::StringAttr>(a).getValue();
      if (k == kw || (k.empty() && pos++ == positional))
        return true;
    }
    return false;
  }

  // is_signed=False turns a signless integer dtype into an unsigned one.
  ExprP applySignedness(ExprP dtype, ExprP isSigned) {
    if (!dtype || !dtype->signless)
      return dtype;
    std::string prefix = isSigned && isSigned->op == Expr::Op::Literal && isSigned->text == "False"
                             ? ".uint"
                             : ".int";
    return mkDType(prog_.jnp + prefix + std::to_string(dtype->bits));
  }

  static bool isFalse(const ExprP& e) {
    return e && e->op == Expr::Op::Literal && e->text == "False";
  }

  // `e` marked as an unsigned view (see Expr::unsignedView).
  static ExprP asUnsigned(ExprP e, bool unsignedView = true) {
    if (!e || e->unsignedView == unsignedView)
      return e;
    auto copy = std::make_shared<Expr>(*e);
    copy->unsignedView = unsignedView;
    return copy;
  }

  static bool anyUnsigned(const std::vector<ExprP>& args) {
    for (const ExprP& a : args)
      if (a && a->unsignedView)
        return true;
    return false;
  }

  // The value of a Python integer constant expression (literals, unary minus,
  // + - * << | & ^ of them), when it is one and fits in 64 bits.
  static std::optional<int64_t> intConstant(const ExprP& e, int depth = 0) {
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
          (t[1] == 'x' || t[1] == 'X' || t[1] == 'b' || t[1] == 'B' || t[1] == 'o' ||
           t[1] == 'O')) {
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
  bool intConstantsFit(mlir::Operation* o, const std::string& tok, const std::vector<ExprP>& args) {
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
  ExprP unsignedBinary(mlir::Operation* o, const std::string& tok, std::vector<ExprP> args, Ty ty) {
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

  ExprP jnp(const std::string& fn) { return mkName(prog_.jnp + "." + fn, Ty::Py); }
  std::string jnpName(const std::string& fn) { return prog_.jnp + "." + fn; }

  // ---- ops ------------------------------------------------------------------------
  ExprP translate(mlir::Operation* o) {
    if (!o)
      return nullptr;
    if (auto c = llvm::dyn_cast<pd::ConstantOp>(o)) {
      if (c.getKind() == pd::ConstantKind::None)
        return mkLiteral("None");
      return mkLiteral(c.getValue().str());
    }
    if (auto g = llvm::dyn_cast<pd::GlobalOp>(o)) {
      llvm::StringRef r = g.getResolved();
      if (!mgpuName(r).empty() || !irName(r).empty() || r.contains("dialects"))
        return mkName(g.getName().str(), Ty::Api);
      return mkName(g.getName().str(), Ty::Py);
    }
    if (auto p = llvm::dyn_cast<pd::PrimOp>(o))
      return prim(p);
    if (auto q = llvm::dyn_cast<pd::OpaqueOp>(o))
      return opaque(q);
    if (auto call = llvm::dyn_cast<pd::CallOp>(o))
      return block(o, "a call of " + call.getCallee().str() + " (a user function)");
    if (llvm::isa<pd::IfOp>(o))
      return block(o, "Python control flow (if)");
    if (auto s = llvm::dyn_cast<pd::ScopeOp>(o))
      return block(o, s.getApi().str() + " (a nested construct)");
    if (llvm::isa<pd::ClosureOp>(o))
      return block(o, "a nested function");
    if (llvm::isa<pd::InlineMgpuOp>(o))
      return block(o, "a nested inline_mgpu");
    if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(o))
      if (ExprP b = builtinCall(ci))
        return b;
    return block(o, "a call of an unknown callable");
  }

  // Python builtins of plain Python values (`slice(0, 64)`, `min(a, b)`):
  // the same call in standard code. nullptr when it is not one.
  ExprP builtinCall(pd::CallIndirectOp ci) {
    static const std::set<std::string> pure = {
        "builtins.slice", "builtins.min", "builtins.max",   "builtins.abs",  "builtins.int",
        "builtins.float", "builtins.len", "builtins.tuple", "builtins.range"};
    auto g = ci.getCallee().getDefiningOp<pd::GlobalOp>();
    if (!g || !pure.count(g.getResolved().str()))
      return nullptr;
    mlir::ArrayAttr kws = ci.getKeywords();
    std::vector<ExprP> args;
    std::vector<std::string> names;
    mlir::Operation* o = ci.getOperation();
    for (unsigned i = 1; i < o->getNumOperands(); ++i) {
      ExprP a = usable(o, operand(o, i));
      if (!a)
        return nullptr;
      if (a->ty != Ty::Py)
        return nullptr; // of arrays: jnp's own functions, not these
      args.push_back(a);
      names.push_back(i - 1 < kws.size() ? llvm::cast<mlir::StringAttr>(kws[i - 1]).getValue().str()
                                         : "");
    }
    return mkExpr(Expr::Op::Call, Ty::Py, g.getName().str(), std::move(args), std::move(names));
  }

  ExprP prim(pd::PrimOp p) {
    mlir::Operation* o = p.getOperation();
    llvm::StringRef api = p.getApi();
    mlir::ArrayAttr kws = p.getKeywords();
    // Ops that block whatever their operands are: report them, not an operand.
    if (auto [d, op] = dialectOp(api); !d.empty() && d != "memref")
      return dialect(p, d, op);
    if (std::string m = mgpuName(api); !m.empty() && blocksAlways(m))
      return mgpuApi(p, m);
    // Any use of the launch context has no standard equivalent.
    for (unsigned i = 0; i < o->getNumOperands(); ++i) {
      mlir::Value v = o->getOperand(i);
      if (inRegion(v)) {
        ExprP e = value(v);
        if (!e)
          return nullptr;
        if (e->ty == Ty::Ctx) {
          // Methods on the context lower as `value.m` or `ref.m` (a parameter may be a Ref).
          std::string m = api.starts_with("value.") ? api.drop_front(6).str()
                          : api.starts_with("ref.") ? api.drop_front(4).str()
                                                    : api.str();
          std::string what = "ctx." + m;
          if (m.find("async_copy") != std::string::npos)
            what += " (TMA)";
          else if (m.find("barrier") != std::string::npos)
            what += " (barrier)";
          return block(o, what);
        }
      }
    }
    if (api == kRefAt)
      return refAt(o, 0);
    if (api.ends_with(".__getitem__")) {
      ExprP base = usable(o, operand(o, 0));
      if (!base)
        return nullptr;
      std::vector<ExprP> args{base};
      for (unsigned i = 1; i < o->getNumOperands(); ++i) {
        ExprP e = usable(o, operand(o, i));
        if (!e)
          return nullptr;
        args.push_back(e);
      }
      Ty ty = base->ty == Ty::Py ? Ty::Py : Ty::Array;
      return mkExpr(Expr::Op::Index, ty, "", std::move(args));
    }
    if (api.starts_with("value.") || api.starts_with("ref."))
      return method(p);
    if (std::string m = mgpuName(api); !m.empty())
      return mgpuApi(p, m);
    // Pallas layouts (`plgpu.Layout.WGMMA.to_mgpu()`, `layout.reduce(1)`) are
    // only ever `layout=` arguments, which standard code drops.
    if (api.starts_with("plgpu.Layout.") || api.starts_with("plgpu.SomeLayout"))
      return mkName(api.str(), Ty::Layout);
    if (std::string t = irName(api); !t.empty())
      return irType(p, t);
    if (auto [d, op] = dialectOp(api); !d.empty())
      return dialect(p, d, op);
    if (isJnpOrLax(api)) {
      // Standard code already: print the call as written.
      TSNode n = syntaxOf(o);
      std::vector<ExprP> args;
      std::vector<std::string> names;
      for (unsigned i = 0; i < o->getNumOperands(); ++i) {
        ExprP e = usable(o, operand(o, i));
        if (!e)
          return nullptr;
        args.push_back(e);
        names.push_back(llvm::cast<mlir::StringAttr>(kws[i]).getValue().str());
      }
      if (isNull(n))
        return block(o, api.str());
      bool arrays = false;
      for (auto& a : args)
        arrays |= a->ty == Ty::Array || a->ty == Ty::Ref;
      return mkExpr(Expr::Op::Call, arrays ? Ty::Array : Ty::Py,
                    std::string(src_.textOf(fieldOf(n, "function"))), std::move(args), names);
    }
    return block(o, "a call of " + api.str());
  }

  ExprP refAt(mlir::Operation* o, unsigned base) {
    ExprP ref = usable(o, operand(o, base));
    if (!ref)
      return nullptr;
    std::vector<ExprP> args{ref};
    for (unsigned i = base + 1; i < o->getNumOperands(); ++i) {
      ExprP e = usable(o, operand(o, i));
      if (!e)
        return nullptr;
      args.push_back(e);
    }
    return mkExpr(Expr::Op::RefAt, Ty::Ref, "", std::move(args));
  }

  bool isAttributeAccess(mlir::Operation* o) { return typeOf(syntaxOf(o)) == "attribute"; }

  ExprP method(pd::PrimOp p) {
    mlir::Operation* o = p.getOperation();
    std::string m = p.getApi().split('.').second.str();
    ExprP self = operand(o, 0);
    if (!self)
      return nullptr;
    if (isAttributeAccess(o)) {
      if (m == "shape" || m == "ndim" || m == "size") {
        if (!usable(o, self))
          return nullptr;
        return mkExpr(Expr::Op::Attr, Ty::Py, m, {self});
      }
      if (m == "mlir_dtype" || m == "dtype")
        return mkExpr(Expr::Op::Attr, Ty::DType, "dtype", {self});
      if (m == "layout")
        return mkName(self->text + ".layout", Ty::Layout);
      if (m == "registers" && (self->ty == Ty::Array)) {
        registers_.insert(p.getResult());
        return self;
      }
      if (self->ty == Ty::Py)
        return mkExpr(Expr::Op::Attr, Ty::Py, m, {self});
      return block(o, "." + m + " of a Mosaic GPU value");
    }
    // Method calls.
    mlir::ArrayAttr kws = p.getKeywords();
    auto arg = [&](llvm::StringRef kw, unsigned positional) {
      // positional counts after the receiver
      mlir::ArrayAttr rest = mlir::ArrayAttr::get(o->getContext(), kws.getValue().drop_front());
      unsigned pos = 0;
      for (unsigned i = 0; i < rest.size(); ++i) {
        llvm::StringRef k = llvm::cast<mlir::StringAttr>(rest[i]).getValue();
        if (k == kw || (k.empty() && pos++ == positional))
          return usable(o, operand(o, i + 1));
      }
      return ExprP{};
    };
    if (m == "item" && registers_.contains(o->getOperand(0))) {
      auto e = std::make_shared<Expr>(*self);
      e->ty = Ty::Scalar;
      return e;
    }
    if (self->ty == Ty::Py || self->ty == Ty::DType) {
      // A Python method on a plain value (a shape, a tuple): keep it.
      std::vector<ExprP> args{self};
      std::vector<std::string> names;
      for (unsigned i = 1; i < o->getNumOperands(); ++i) {
        ExprP e = usable(o, operand(o, i));
        if (!e)
          return nullptr;
        args.push_back(e);
        names.push_back(llvm::cast<mlir::StringAttr>(kws[i]).getValue().str());
      }
      return mkExpr(Expr::Op::Method, Ty::Py, m, std::move(args), names);
    }
    if (self->ty == Ty::Ref)
      return block(o, "ref method ." + m + " inside inline_mgpu");
    if (!usable(o, self))
      return nullptr;
    // self is an Array (a FragmentedArray in the original).
    static const std::map<std::string, std::string> unaryJnp = {
        {"exp", "exp"},     {"exp2", "exp2"},       {"log", "log"},   {"log2", "log2"},
        {"sin", "sin"},     {"cos", "cos"},         {"tanh", "tanh"}, {"abs", "abs"},
        {"round", "round"}, {"round_even", "round"}};
    static const std::map<std::string, std::string> binaryJnp = {
        {"max", "maximum"}, {"min", "minimum"}, {"atan2", "arctan2"}, {"copysign", "copysign"}};
    // Signedness decides max/min/astype and the float functions' inputs.
    if (self->unsignedView &&
        (binaryJnp.count(m) || unaryJnp.count(m) || m == "astype" || m == "rsqrt" || m == "erf"))
      return block(o, "FragmentedArray." + m + " of an unsigned (is_signed=False) value");
    if (auto it = unaryJnp.find(m); it != unaryJnp.end())
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName(it->second), {self});
    if (m == "rsqrt" || m == "erf")
      return mkExpr(Expr::Op::Call, Ty::Array, prog_.lax + "." + m, {self});
    if (auto it = binaryJnp.find(m); it != binaryJnp.end()) {
      ExprP other = arg("other", 0);
      if (!other)
        return block(o, "FragmentedArray." + m + " without an operand");
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName(it->second), {self, other});
    }
    if (m == "astype") {
      ExprP dt = arg("new_dtype", 0);
      if (!dt || dt->ty != Ty::DType)
        return block(o, "astype to a dtype that is not known");
      dt = applySignedness(dt, arg("is_signed", 99));
      return mkExpr(Expr::Op::Method, Ty::Array, "astype", {self, dt}, {""});
    }
    if (m == "broadcast_in_dim") {
      ExprP shape = arg("shape", 0), dims = arg("source_dimensions", 1);
      if (!shape || !dims)
        return block(o, "broadcast_in_dim without shape/dimensions");
      return mkExpr(Expr::Op::Call, Ty::Array, prog_.lax + ".broadcast_in_dim",
                    {self, shape, dims});
    }
    if (m == "broadcast") {
      ExprP shape = arg("shape", 0);
      if (!shape)
        return block(o, "broadcast without a shape");
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName("broadcast_to"), {self, shape});
    }
    if (m == "reshape") {
      ExprP shape = arg("shape", 0);
      if (!shape)
        return block(o, "reshape without a shape");
      return mkExpr(Expr::Op::Method, Ty::Array, "reshape", {self, shape}, {""});
    }
    if (m == "to_layout")
      return self; // a layout change only
    if (m == "select") {
      ExprP t = arg("on_true", 0), f = arg("on_false", 1);
      if (!t || !f)
        return block(o, "select without both branches");
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName("where"), {self, t, f});
    }
    if (m == "reduce") {
      ExprP op = arg("op", 0), axis = arg("axis", 1);
      if (!op || !axis || op->op != Expr::Op::Literal)
        return block(o, "reduce with a custom operator");
      std::string kind = op->text;
      std::string fn = kind == "'add'" || kind == "\"add\""   ? "sum"
                       : kind == "'max'" || kind == "\"max\"" ? "max"
                       : kind == "'min'" || kind == "\"min\"" ? "min"
                                                              : "";
      if (fn.empty())
        return block(o, "reduce(" + kind + ")");
      std::vector<ExprP> args{self, axis};
      std::vector<std::string> names{"", "axis"};
      if (fn == "sum") {
        // FragmentedArray.reduce keeps the dtype; jnp.sum would promote ints.
        args.push_back(mkExpr(Expr::Op::Attr, Ty::DType, "dtype", {self}));
        names.push_back("dtype");
      }
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName(fn), std::move(args), names);
    }
    if (m == "store_tiled" || m == "store_untiled") {
      if (ExprP atomic = arg("atomic", 99); atomic && atomic->text != "None")
        return block(o, "an atomic store (" + m + ")");
      ExprP ref = arg("ref", 0);
      if (!ref)
        return block(o, m + " without a ref");
      Stmt s;
      s.kind = Stmt::Kind::Store;
      s.ref = ref;
      s.value = self;
      prog_.body.push_back(s);
      return mkLiteral("None");
    }
    return block(o, "FragmentedArray." + m);
  }

  // Mosaic GPU APIs with no standard meaning (everything mgpuApi does not map).
  static bool blocksAlways(const std::string& m) {
    return m != "FragmentedArray.load_tiled" && m != "FragmentedArray.load_untiled" &&
           m != "FragmentedArray.load_strided" && m != "FragmentedArray.splat" &&
           m != "FragmentedArray.broadcasted_iota" && m != "c" && m != "memref_slice" &&
           !isLayout(m);
  }
  // Layout objects (mgpu.WGMMA_LAYOUT, mgpu.WGStridedFragLayout(...)): only
  // ever passed as `layout=`, which standard code drops.
  static bool isLayout(const std::string& m) {
    return m.find("Layout") != std::string::npos || m.find("LAYOUT") != std::string::npos;
  }

  ExprP mgpuApi(pd::PrimOp p, const std::string& m) {
    mlir::Operation* o = p.getOperation();
    mlir::ArrayAttr kws = p.getKeywords();
    auto arg = [&](llvm::StringRef kw, unsigned positional) {
      return hasKeyword(kws, kw, positional) ? usable(o, keywordOperand(o, kws, kw, positional))
                                             : ExprP{};
    };
    if (m == "FragmentedArray.load_tiled" || m == "FragmentedArray.load_untiled" ||
        m == "FragmentedArray.load_strided") {
      ExprP ref = arg("ref", 0);
      if (!ref)
        return block(o, m + " without a ref");
      return asUnsigned(mkExpr(Expr::Op::Index, Ty::Array, "", {ref}),
                        isFalse(arg("is_signed", 99)));
    }
    if (m == "FragmentedArray.splat") {
      ExprP v = arg("value", 0), shape = arg("shape", 1);
      if (!v || !shape)
        return block(o, "splat without a value and a shape");
      std::vector<ExprP> args{shape, v};
      std::vector<std::string> names{"", ""};
      ExprP dt;
      if (auto it = scalarDtype_.find(p.getOperand(0)); it != scalarDtype_.end())
        dt = it->second;
      dt = applySignedness(dt, arg("is_signed", 99));
      if (dt) {
        args.push_back(dt);
        names.push_back("dtype");
      }
      return mkExpr(Expr::Op::Call, Ty::Array, jnpName("full"), std::move(args), names);
    }
    if (m == "FragmentedArray.broadcasted_iota") {
      ExprP dt = arg("dtype", 0), shape = arg("shape", 1), dim = arg("dimension", 2);
      if (!dt || !shape || !dim)
        return block(o, "broadcasted_iota");
      dt = applySignedness(dt, arg("is_signed", 99));
      return mkExpr(Expr::Op::Call, Ty::Array, prog_.lax + ".broadcasted_iota", {dt, shape, dim});
    }
    if (m == "c") {
      ExprP v = arg("val", 0), t = arg("ty", 1);
      if (!v)
        return block(o, "mgpu.c without a value");
      if (!t || t->ty != Ty::DType)
        return block(o, "mgpu.c of a type that is not known");
      auto e = std::make_shared<Expr>(*v);
      e->ty = Ty::Scalar;
      scalarDtype_[p.getResult()] = t;
      return e;
    }
    if (m == "memref_slice") {
      ExprP ref = arg("ref", 0), idx = arg("index", 1);
      if (!ref || !idx)
        return block(o, "memref_slice");
      return mkExpr(Expr::Op::RefAt, Ty::Ref, "", {ref, idx});
    }
    if (isLayout(m))
      return mkName("mgpu." + m, Ty::Layout);
    if (m == "commit_shared")
      return block(o, "mgpu.commit_shared (shared-memory fence)");
    if (m.find("arrive") != std::string::npos || m.find("Barrier") != std::string::npos ||
        m.find("barrier") != std::string::npos)
      return block(o, "mgpu." + m + " (barrier)");
    return block(o, "mgpu." + m);
  }

  ExprP irType(pd::PrimOp p, const std::string& t) {
    mlir::Operation* o = p.getOperation();
    static const std::map<std::string, std::string> floats = {
        {"F32Type.get", "float32"},           {"F16Type.get", "float16"},
        {"BF16Type.get", "bfloat16"},         {"F64Type.get", "float64"},
        {"IndexType.get", "int32"},           {"Float8E4M3FNType.get", "float8_e4m3fn"},
        {"Float8E5M2Type.get", "float8_e5m2"}};
    if (auto it = floats.find(t); it != floats.end())
      return mkDType(jnpName(it->second));
    if (t == "IntegerType.get_signless" || t == "IntegerType.get_signed" ||
        t == "IntegerType.get_unsigned") {
      ExprP w = o->getNumOperands() ? operand(o, 0) : nullptr;
      if (!w || w->op != Expr::Op::Literal)
        return block(o, "ir." + t + " of a width that is not a literal");
      int bits = std::atoi(w->text.c_str());
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return block(o, "ir." + t + "(" + w->text + ")");
      if (t == "IntegerType.get_signless")
        return mkSignless(bits);
      return mkDType(
          jnpName((t == "IntegerType.get_unsigned" ? "uint" : "int") + std::to_string(bits)));
    }
    return block(o, "ir." + t);
  }

  ExprP dialect(pd::PrimOp p, const std::string& d, const std::string& op) {
    mlir::Operation* o = p.getOperation();
    mlir::ArrayAttr kws = p.getKeywords();
    auto arg = [&](llvm::StringRef kw, unsigned positional) {
      return hasKeyword(kws, kw, positional) ? usable(o, keywordOperand(o, kws, kw, positional))
                                             : ExprP{};
    };
    auto indices = [&](ExprP list, std::vector<ExprP>& out) {
      if (!list)
        return true;
      if (list->op == Expr::Op::List || list->op == Expr::Op::Tuple) {
        out.insert(out.end(), list->args.begin(), list->args.end());
        return true;
      }
      return false;
    };
    if (d == "memref" && op == "load") {
      ExprP ref = arg("memref", 0);
      if (!ref)
        return block(o, "memref.load without a ref");
      std::vector<ExprP> args{ref};
      if (!indices(arg("indices", 1), args))
        return block(o, "memref.load with computed indices");
      if (args.size() == 1)
        args.push_back(mkExpr(Expr::Op::Tuple, Ty::Py, "", {}));
      return mkExpr(Expr::Op::Index, Ty::Scalar, "", std::move(args));
    }
    if (d == "memref" && op == "store") {
      ExprP v = arg("value", 0), ref = arg("memref", 1);
      if (!v || !ref)
        return block(o, "memref.store");
      Stmt s;
      s.kind = Stmt::Kind::Store;
      s.ref = ref;
      s.value = v;
      if (!indices(arg("indices", 2), s.index))
        return block(o, "memref.store with computed indices");
      prog_.body.push_back(s);
      return mkLiteral("None");
    }
    if (d == "llvm" && op == "inline_asm")
      return block(o, "inline PTX (llvm.inline_asm)");
    return block(o, d + "." + op + " (raw " + d + " dialect op)");
  }

  ExprP opaque(pd::OpaqueOp q) {
    mlir::Operation* o = q.getOperation();
    std::string what = q.getWhat().str();
    auto ops = [&](std::vector<ExprP>& out) {
      for (unsigned i = 0; i < o->getNumOperands(); ++i) {
        ExprP e = usable(o, operand(o, i));
        if (!e)
          return false;
        out.push_back(e);
      }
      return true;
    };
    auto resultTy = [](const std::vector<ExprP>& args) {
      Ty ty = Ty::Py;
      for (auto& a : args) {
        if (a->ty == Ty::Array)
          return Ty::Array;
        if (a->ty == Ty::Scalar)
          ty = Ty::Scalar;
      }
      return ty;
    };
    std::vector<ExprP> args;
    if (what == "binary_operator" || what == "augmented_assignment" || what == "boolean_operator") {
      if (!ops(args) || args.size() != 2)
        return args.size() == 2 ? nullptr : block(o, "an operator");
      TSNode n = syntaxOf(o);
      std::string tok(src_.textOf(fieldOf(n, "operator")));
      if (tok.empty())
        return block(o, "an operator whose token is not known");
      if (what == "augmented_assignment")
        tok.pop_back(); // "+=" -> "+"
      if (!intConstantsFit(o, tok, args))
        return nullptr;
      if (anyUnsigned(args)) {
        Ty ty = resultTy(args); // before args is moved from
        return unsignedBinary(o, tok, std::move(args), ty);
      }
      return mkExpr(Expr::Op::Binary, resultTy(args), tok, std::move(args));
    }
    if (what == "comparison_operator") {
      if (!ops(args))
        return nullptr;
      if (args.size() != 2)
        return block(o, "a chained comparison");
      TSNode n = syntaxOf(o);
      std::string tok;
      for (uint32_t i = 0, c = ts_node_child_count(n); i < c; ++i) {
        TSNode ch = ts_node_child(n, i);
        if (!ts_node_is_named(ch))
          tok += (tok.empty() ? "" : " ") + std::string(src_.textOf(ch));
      }
      if (tok.empty())
        return block(o, "a comparison whose operator is not known");
      if (anyUnsigned(args)) {
        Ty ty = resultTy(args); // before args is moved from
        return unsignedBinary(o, tok, std::move(args), ty);
      }
      return mkExpr(Expr::Op::Binary, resultTy(args), tok, std::move(args));
    }
    if (what == "unary_operator" || what == "not_operator") {
      if (!ops(args) || args.size() != 1)
        return nullptr;
      TSNode n = syntaxOf(o);
      std::string tok =
          what == "not_operator" ? "not " : std::string(src_.textOf(fieldOf(n, "operator")));
      // -x and ~x are two's complement whatever the signedness.
      return asUnsigned(mkExpr(Expr::Op::Unary, resultTy(args), tok, args), anyUnsigned(args));
    }
    if (what == "tuple" || what == "expression_list") {
      if (!ops(args))
        return nullptr;
      return mkExpr(Expr::Op::Tuple, Ty::Py, "", std::move(args));
    }
    if (what == "list") {
      if (!ops(args))
        return nullptr;
      return mkExpr(Expr::Op::List, Ty::Py, "", std::move(args));
    }
    if (what == "ellipsis")
      return mkLiteral("...");
    if (what == "slice") {
      if (!ops(args))
        return nullptr;
      for (auto& a : args)
        if (a->ty != Ty::Py)
          return block(o, "a slice with array bounds");
      return mkLiteral(std::string(src_.textOf(syntaxOf(o))));
    }
    return block(o, "Python " + what);
  }

  // ---- statements -----------------------------------------------------------------
  // The Python name an op's value is bound to (`x = <op>`), or "".
  std::string boundName(mlir::Operation* o) {
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

  bool statement(mlir::Operation* o) {
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

  pd::InlineMgpuOp op_;
  const SourceIndex& src_;
  StdProgram& prog_;
  llvm::DenseMap<mlir::Value, ExprP> vals_;
  llvm::DenseMap<mlir::Value, ExprP> scalarDtype_;
  llvm::DenseSet<mlir::Value> registers_;
  llvm::DenseMap<mlir::Operation*, unsigned> nth_;
  std::map<std::pair<std::pair<uint32_t, uint32_t>, std::string>, std::vector<TSNode>> candidates_;
};

} // namespace

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
