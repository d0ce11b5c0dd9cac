// The Translator's Mosaic GPU, MLIR ir and raw dialect APIs: the few with a
// standard meaning (fragmented-array loads and splats, ir types, memref
// stores) and the blocker named for the rest.
#include "TranslatorImpl.h"

#include <charconv>

namespace pallas::analysis::rewrite {

// Mosaic GPU APIs with no standard meaning (everything mgpuApi does not map).
bool Translator::blocksAlways(const std::string& m) {
  return m != "FragmentedArray.load_tiled" && m != "FragmentedArray.load_untiled" &&
         m != "FragmentedArray.load_strided" && m != "FragmentedArray.splat" &&
         m != "FragmentedArray.broadcasted_iota" && m != "c" && m != "memref_slice" && !isLayout(m);
}

// Layout objects (mgpu.WGMMA_LAYOUT, mgpu.WGStridedFragLayout(...)): only
// ever passed as `layout=`, which standard code drops.
bool Translator::isLayout(const std::string& m) {
  return m.find("Layout") != std::string::npos || m.find("LAYOUT") != std::string::npos;
}

ExprP Translator::mgpuApi(pd::PrimOp p, const std::string& m) {
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
    return asUnsigned(mkExpr(Expr::Op::Index, Ty::Array, "", {ref}), isFalse(arg("is_signed", 99)));
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

ExprP Translator::irType(pd::PrimOp p, const std::string& t) {
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
    int bits = 0;
    if (std::from_chars(w->text.data(), w->text.data() + w->text.size(), bits).ec != std::errc())
      bits = 0; // not a number: no width below matches
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      return block(o, "ir." + t + "(" + w->text + ")");
    if (t == "IntegerType.get_signless")
      return mkSignless(bits);
    return mkDType(
        jnpName((t == "IntegerType.get_unsigned" ? "uint" : "int") + std::to_string(bits)));
  }
  return block(o, "ir." + t);
}

ExprP Translator::dialect(pd::PrimOp p, const std::string& d, const std::string& op) {
  mlir::Operation* o = p.getOperation();
  mlir::ArrayAttr kws = p.getKeywords();
  auto arg = [&](llvm::StringRef kw, unsigned positional) {
    return hasKeyword(kws, kw, positional) ? usable(o, keywordOperand(o, kws, kw, positional))
                                           : ExprP{};
  };
  auto indices = [&](const ExprP& list, std::vector<ExprP>& out) {
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

} // namespace pallas::analysis::rewrite
