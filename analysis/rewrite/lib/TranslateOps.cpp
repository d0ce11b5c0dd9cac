// The Translator's ops: constants, globals, Python builtins, primitives
// (jnp/lax calls, Ref indexing, methods of arrays and Refs) and Python
// operators, each to its standard-Pallas Expr or a blocker.
#include "TranslatorImpl.h"

#include <set>

namespace pallas::analysis::rewrite {

ExprP Translator::translate(mlir::Operation* o) {
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
ExprP Translator::builtinCall(pd::CallIndirectOp ci) {
  static const std::set<std::string> pure = {"builtins.slice", "builtins.min",   "builtins.max",
                                             "builtins.abs",   "builtins.int",   "builtins.float",
                                             "builtins.len",   "builtins.tuple", "builtins.range"};
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

ExprP Translator::prim(pd::PrimOp p) {
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
  if (api == "ref.at")
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

ExprP Translator::refAt(mlir::Operation* o, unsigned base) {
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

bool Translator::isAttributeAccess(mlir::Operation* o) {
  return typeOf(syntaxOf(o)) == "attribute";
}

ExprP Translator::method(pd::PrimOp p) {
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
    return mkExpr(Expr::Op::Call, Ty::Array, prog_.lax + ".broadcast_in_dim", {self, shape, dims});
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

ExprP Translator::opaque(pd::OpaqueOp q) {
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
    Ty ty = resultTy(args); // before args is moved from (argument order is unspecified)
    return mkExpr(Expr::Op::Binary, ty, tok, std::move(args));
  }
  if (what == "comparison_operator") {
    if (!ops(args))
      return nullptr;
    if (args.size() != 2)
      return block(o, "a chained comparison");
    TSNode n = syntaxOf(o);
    std::string tok;
    for (TSNode ch : syntax::childrenOf(n, /*namedOnly=*/false)) {
      if (!ts_node_is_named(ch))
        tok += (tok.empty() ? "" : " ") + std::string(src_.textOf(ch));
    }
    if (tok.empty())
      return block(o, "a comparison whose operator is not known");
    if (anyUnsigned(args)) {
      Ty ty = resultTy(args); // before args is moved from
      return unsignedBinary(o, tok, std::move(args), ty);
    }
    Ty ty = resultTy(args); // before args is moved from (argument order is unspecified)
    return mkExpr(Expr::Op::Binary, ty, tok, std::move(args));
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

} // namespace pallas::analysis::rewrite
