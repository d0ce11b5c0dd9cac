// PLS006: WGMMA shape, dtype and layout. The checks of JAX's Mosaic GPU
// lowering of a `plgpu.wgmma` (jax/_src/pallas/mosaic_gpu/primitives.py
// `_wgmma_lowering`, jax/experimental/mosaic/gpu/wgmma.py `wgmma`,
// `wgmma_m64`) and of the `plgpu.ACC` a `pl.run_scoped` allocates
// (`WGMMAAccumulator.zero`), in the order JAX makes them; the numbers come
// from the knowledge table (MosaicLaunch.h `rule`).
#include "MosaicLaunch.h"
#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>

namespace pallas::analysis::passes::mosaic {

namespace {

// An operand's (Tiling, Swizzle) transforms when that is exactly what it has.
struct Swizzled {
  bool ok = false;
  std::vector<int64_t> tiling;
  int64_t swizzle = 0;
};
Swizzled swizzledOf(const RefInfo& r) {
  Swizzled s;
  if (!r.known || r.sliced)
    return s;
  auto ts = transformsOf(r.holder);
  if (!ts || ts->size() != 2 || (*ts)[0].kind != Transform::Kind::Tiling ||
      (*ts)[1].kind != Transform::Kind::Swizzle)
    return s;
  s.ok = true;
  s.tiling = (*ts)[0].tiling;
  s.swizzle = (*ts)[1].swizzle;
  return s;
}

const char* kAdvice =
    "WGMMA takes an accumulator of a multiple of 64 rows and at most 256 columns (a multiple of "
    "8), operands tiled (8, swizzle // itemsize) with one swizzle, the accumulator dtype the "
    "operand dtype allows, and 32- or 8-bit right-hand sides as (N, K) refs passed through "
    "plgpu.transpose_ref.";

// The first WGMMA rule the call breaks, in JAX's order; nullopt when none is
// known to fail.
std::optional<Candidate> checkWgmma(Session& s, const LaunchView& v,
                                    const knowledge::KnowledgeBase& kb, pd::PrimOp op) {
  auto args = op.getArgs();
  if (args.size() < 3)
    return std::nullopt;
  RefInfo acc = v.ref(s, args[0]), a = v.ref(s, args[1]), b = v.ref(s, args[2]);
  SourceLocation at = detail::sourceLocation(op->getLoc());
  auto report = [&](const Rule& r, const std::string& line, const std::string& what) {
    return v.finding(RuleId::WgmmaShapeDtypeLayout, at, what, r, line, kAdvice, 2);
  };
  // primitives.py: the operands' transforms.
  Swizzled lhs = swizzledOf(a), rhs = swizzledOf(b);
  if (lhs.ok && lhs.tiling.size() == 2) {
    Rule r = rule(kb, "wgmmaLhsTiling");
    auto rows = r.number("tileRows");
    if (r.found && rows && lhs.tiling[0] != *rows) {
      auto bits = bitsOf(a.dtype);
      int64_t elems = bits ? lhs.swizzle * 8 / *bits : lhs.tiling[1];
      return report(
          r,
          r.render({{"tiling", tupleText(lhs.tiling)}, {"swizzle_elems", std::to_string(elems)}}),
          "The left-hand side of this plgpu.wgmma is tiled " + tupleText(lhs.tiling) +
              ", but WGMMA reads tiles of " + std::to_string(*rows) + " rows");
    }
  }
  if (lhs.ok && rhs.ok) {
    Rule match = rule(kb, "wgmmaSwizzleMatch");
    if (match.found && rhs.swizzle != lhs.swizzle)
      return report(match, match.render({}),
                    "The operands of this plgpu.wgmma use different swizzles (" +
                        std::to_string(lhs.swizzle) + " and " + std::to_string(rhs.swizzle) + ")");
    Rule r = rule(kb, "wgmmaRhsTiling");
    auto rows = r.number("tileRows");
    if (r.found && rows && rhs.tiling.size() == 2 && rhs.tiling[0] != *rows)
      return report(r, r.render({}),
                    "The right-hand side of this plgpu.wgmma is tiled " + tupleText(rhs.tiling) +
                        ", but WGMMA reads tiles of " + std::to_string(*rows) + " rows");
  }
  // wgmma.py: the accumulator's dtype for the operands' element type.
  Value element = a.known && a.dtype.kind == Value::Kind::DType ? a.dtype : b.dtype;
  bool accIsAcc = acc.known && acc.holder.kind == Value::Kind::Object &&
                  (acc.holder.s == apiName(Api::Acc) || acc.holder.s == apiName(Api::AccInit));
  if (accIsAcc && element.kind == Value::Kind::DType && acc.dtype.kind == Value::Kind::DType) {
    AccumulatorRule r = accumulatorRule(kb, element.s);
    std::string el = mlirName(element.s), ac = mlirName(acc.dtype.s);
    if (r.found && !el.empty() && !ac.empty() &&
        std::find(r.accumulators.begin(), r.accumulators.end(), acc.dtype.s) ==
            r.accumulators.end())
      return report(r, r.render({{"element_type", el}, {"acc._value.mlir_dtype", ac}}),
                    "This plgpu.wgmma accumulates " + element.s + " operands in " + acc.dtype.s +
                        ", which WGMMA does not support");
  }
  // wgmma.py: N per call.
  auto accShape = accIsAcc ? acc.shape.ints() : std::nullopt;
  if (accShape && accShape->size() == 2) {
    Rule r = rule(kb, "wgmmaN");
    auto most = r.number("nMax"), multiple = r.number("nMultiple");
    int64_t n = (*accShape)[1];
    if (r.found && most && multiple && *multiple > 0 && (n > *most || n % *multiple))
      return report(r, r.render({{"n", std::to_string(n)}}),
                    "This plgpu.wgmma computes " + std::to_string(n) +
                        " accumulator columns, more than one WGMMA call covers (" +
                        std::to_string(*most) + ")");
  }
  // wgmma.py wgmma_m64: only 2-byte operands may be transposed. The
  // right-hand side counts as transposed when it is a plain (K, N) ref.
  if (a.known && b.known && element.kind == Value::Kind::DType) {
    Rule r = rule(kb, "wgmmaTranspose");
    auto itemsize = r.number("transposeItemsize");
    auto bits = bitsOf(element);
    if (r.found && itemsize && bits && *bits != *itemsize * 8 && (a.transposed || !b.transposed))
      return report(r, r.render({}),
                    "This plgpu.wgmma would transpose a " + element.s + " operand" +
                        (a.transposed ? "" : " (a (K, N) right-hand side)") +
                        ", and WGMMA transposes only " + std::to_string(*itemsize) +
                        "-byte operands");
  }
  return std::nullopt;
}

} // namespace

void wgmmaChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                 std::vector<Candidate>& out) {
  Rule accShape = rule(kb, "wgmmaAccumulatorShape");
  walkKernel(s, v, [&](mlir::Operation* op, const std::string& path, unsigned order) {
    if (auto scope = llvm::dyn_cast<pd::ScopeOp>(op);
        scope && scope.getApi() == apiText(Api::RunScoped)) {
      auto rows = accShape.number("rowsMultiple"), cols = accShape.number("colsMultiple");
      if (!accShape.found || !rows || !cols || *rows <= 0 || *cols <= 0)
        return;
      for (const Value& alloc : s.runScopedAllocations(scope, path)) {
        if (!alloc.isObject(apiName(Api::Acc)) && !alloc.isObject(apiName(Api::AccInit)))
          continue;
        auto shape = alloc.field("shape").ints();
        if (!shape || shape->size() != 2)
          continue;
        int64_t m = (*shape)[0], n = (*shape)[1];
        if (m % *rows == 0 && n % *cols == 0)
          continue;
        out.push_back(v.finding(
            RuleId::WgmmaShapeDtypeLayout, detail::sourceLocation(op->getLoc()),
            "This plgpu.ACC is " + tupleText(*shape) + "; a WGMMA accumulator has a multiple of " +
                std::to_string(*rows) + " rows and of " + std::to_string(*cols) + " columns",
            accShape, accShape.render({{"m", std::to_string(m)}, {"n", std::to_string(n)}}),
            kAdvice, 2));
        out.back().order = order;
        break; // JAX stops at the first
      }
      return;
    }
    if (auto prim = llvm::dyn_cast<pd::PrimOp>(op); prim && prim.getApi() == apiText(Api::Wgmma))
      if (auto c = checkWgmma(s, v, kb, prim)) {
        c->order = order;
        out.push_back(std::move(*c));
      }
  });
}

} // namespace pallas::analysis::passes::mosaic
