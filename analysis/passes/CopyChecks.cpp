// PLS008: copies between GMEM and SMEM: the blocks a pl.pallas_call's
// pipeline copies (inputs before the kernel, outputs after it), the blocks
// plgpu.emit_pipeline copies for its step, and explicit
// plgpu.copy_gmem_to_smem / copy_smem_to_gmem. JAX's checks, in the order it
// makes them for one copy:
//   * Lane lowering, GMEM -> SMEM only: the bytes copied are a multiple of
//     the warpgroup size (jax/_src/pallas/mosaic_gpu/primitives.py
//     `_copy_gmem_to_smem_lowering`);
//   * TMA (jax/experimental/mosaic/gpu/launch_context.py): every GMEM stride
//     but the last a multiple of 16 bytes (`_prepare_tma`), the last
//     dimension of the transformed slice a multiple of 128 bits, and at
//     most 256 elements along each dimension of the box (`async_copy`).
// Numbers from the knowledge table (MosaicLaunch.h `rule`).
#include "MosaicLaunch.h"
#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>

namespace pallas::analysis::passes::mosaic {

namespace {

const char* kAdvice =
    "Tile wide blocks (plgpu.TilingTransform), keep rows a multiple of 16 bytes apart, copy whole "
    "16-byte chunks along the last dimension, and size blocks to a multiple of 128 bytes.";

struct Copy {
  bool toSmem = true;         // GMEM -> SMEM
  std::vector<int64_t> gmem;  // the GMEM array's shape (empty: unknown)
  std::vector<int64_t> smem;  // the SMEM buffer's (untransformed) shape
  std::vector<int64_t> slice; // the box: the SMEM shape after its transforms
  int bits = 0;
  bool swizzled = false, tiled = false; // transforms of the SMEM side
  std::string what;                     // "the block of input 0", ...
};

// Whether JAX copies SMEM -> GMEM as one bulk copy (launch_context.py
// `is_simple_contiguous_copy`: no swizzle, the slice contiguous in GMEM),
// which has no box limit; nullopt when unknown. GMEM -> SMEM copies fill out
// of bounds with zeros, which only the tiled copy does: never bulk.
std::optional<bool> bulkCopy(const Copy& c) {
  if (c.toSmem || c.swizzled)
    return false;
  if (c.tiled || c.gmem.empty() || c.gmem.size() != c.smem.size())
    return std::nullopt;
  for (size_t k = 0; k < c.smem.size(); ++k) {
    if (c.smem[k] == 1)
      continue;
    int64_t gmemStride = 1, sliceStride = 1;
    for (size_t j = k + 1; j < c.smem.size(); ++j) {
      gmemStride *= c.gmem[j];
      sliceStride *= c.smem[j];
    }
    if (gmemStride != sliceStride)
      return false;
  }
  return true;
}

void noteTransforms(Copy& c, const Value& holder) {
  if (auto ts = transformsOf(holder))
    for (const Transform& t : *ts) {
      c.swizzled |= t.kind == Transform::Kind::Swizzle;
      c.tiled |= t.kind == Transform::Kind::Tiling;
    }
}

struct Rules {
  Rule lane, stride, lastDim, box;
  explicit Rules(const knowledge::KnowledgeBase& kb)
      : lane(rule(kb, "laneCopyBytes")), stride(rule(kb, "tmaGmemStride")),
        lastDim(rule(kb, "tmaLastDimBits")), box(rule(kb, "tmaBoxMax")) {}
};

// The first rule the copy breaks.
std::optional<Candidate> checkCopy(const LaunchView& v, const Rules& r, const Copy& c, bool lane,
                                   const SourceLocation& at, int stage) {
  auto report = [&](const Rule& rule, const std::string& line, const std::string& why) {
    return v.finding(RuleId::CopySizeAlignment, at, "The copy of " + c.what + " " + why, rule, line,
                     kAdvice, stage);
  };
  if (c.toSmem && lane && r.lane.found) {
    int64_t elems = 1;
    for (int64_t d : c.smem)
      elems *= d;
    auto multiple = r.lane.number("bytesMultiple");
    if (multiple && *multiple > 0 && elems * c.bits % 8 == 0 && (elems * c.bits / 8) % *multiple) {
      int64_t bytes = elems * c.bits / 8;
      return report(r.lane,
                    r.lane.render({{"bytes", std::to_string(bytes)},
                                   {"WARPGROUP_SIZE", std::to_string(*multiple)}}),
                    "moves " + std::to_string(bytes) + " bytes, not a multiple of " +
                        std::to_string(*multiple) +
                        " (the Lane lowering splits it over a warpgroup)");
    }
  }
  if (auto multiple = r.stride.number("bitsMultiple");
      r.stride.found && multiple && *multiple > 0) {
    int64_t stride = 1;
    for (size_t k = c.gmem.size(); k-- > 1;) {
      stride *= c.gmem[k];
      if (stride * c.bits % *multiple)
        return report(r.stride, r.stride.render({}),
                      "reads rows " + std::to_string(stride * c.bits / 8) +
                          " bytes apart in GMEM; TMA needs strides that are a multiple of " +
                          std::to_string(*multiple / 8) + " bytes");
    }
  }
  if (auto multiple = r.lastDim.number("bitsMultiple");
      r.lastDim.found && multiple && *multiple > 0 && !c.slice.empty()) {
    int64_t bw = c.slice.back() * c.bits;
    if (bw % *multiple)
      return report(r.lastDim, r.lastDim.render({{"zeroth_bw", std::to_string(bw)}}),
                    "moves " + std::to_string(bw) +
                        " bits along its last dimension, not a multiple of " +
                        std::to_string(*multiple));
  }
  if (auto most = r.box.number("maxElems");
      r.box.found && most && !c.slice.empty() && bulkCopy(c) == std::optional<bool>(false)) {
    if (*std::max_element(c.slice.begin(), c.slice.end()) > *most)
      return report(r.box, r.box.render({{"tuple(slice_shape)", tupleText(c.slice)}}),
                    "is one TMA box of " + tupleText(c.slice) + ", wider than " +
                        std::to_string(*most) + " elements along a dimension");
  }
  return std::nullopt;
}

bool inSmem(const Value& spec) {
  auto it = spec.fields.find("memory_space");
  if (it == spec.fields.end() || it->second.kind == Value::Kind::None)
    return true;
  return it->second.isObject(apiName(Api::Smem));
}

// A block of a pallas_call operand as the pipeline copies it.
std::optional<Copy> blockCopy(const Param& p, size_t index) {
  if (!p.spec.isObject(kBlockSpecObject) || !inSmem(p.spec))
    return std::nullopt;
  Value dtype = p.array.field("dtype");
  auto bits = bitsOf(dtype);
  auto gmem = p.array.field("shape").ints();
  Value blockV = p.spec.field("block_shape");
  auto block = blockV.kind == Value::Kind::None ? gmem : blockV.ints();
  if (!bits || !gmem || !block || block->size() != gmem->size())
    return std::nullopt;
  auto slice = transformedShape(Value::seq([&] {
                                  std::vector<Value> items;
                                  for (int64_t d : *block)
                                    items.push_back(Value::integer(d));
                                  return items;
                                }()),
                                dtype, p.spec);
  if (!slice)
    return std::nullopt;
  Copy c;
  c.toSmem = p.kind == Param::Kind::Input;
  c.gmem = *gmem;
  c.smem = *block;
  c.slice = *slice;
  c.bits = *bits;
  noteTransforms(c, p.spec);
  c.what = std::string(c.toSmem ? "input " : "output ") + std::to_string(index) + "'s block " +
           tupleText(*block) + " " + dtype.s;
  return c;
}

// An explicit copy between a kernel operand in GMEM and an SMEM buffer.
std::optional<Copy> explicitCopy(const RefInfo& gmem, const RefInfo& smem, bool toSmem) {
  if (!gmem.known || !smem.known || gmem.param < 0 || gmem.kind == Param::Kind::Scratch ||
      smem.kind != Param::Kind::Scratch || !smem.holder.isObject(apiName(Api::Smem)) ||
      smem.transposed || gmem.transposed)
    return std::nullopt;
  // The GMEM array's shape matters for its strides only: unknown, that one
  // check is left out.
  auto gshape = gmem.array.field("shape").ints();
  auto sshape = smem.shape.ints();
  auto bits = bitsOf(smem.dtype);
  if (!sshape || !bits || smem.sliced)
    return std::nullopt;
  auto slice = transformedShape(smem.shape, smem.dtype, smem.holder);
  if (!slice)
    return std::nullopt;
  Copy c;
  c.toSmem = toSmem;
  c.gmem = gshape.value_or(std::vector<int64_t>{});
  c.smem = *sshape;
  c.slice = *slice;
  c.bits = *bits;
  noteTransforms(c, smem.holder);
  c.what = "the SMEM buffer " + tupleText(*sshape) + " " + smem.dtype.s;
  return c;
}

} // namespace

void copyChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                std::vector<Candidate>& out) {
  Rules r(kb);
  bool lane = v.loweringSemantics == "Lane" ||
              (v.loweringSemantics == "default" && kb.defaultLoweringSemantics() == "Lane");
  if (v.pallasCall) {
    size_t in = 0, outIndex = 0;
    for (const Param& p : v.params) {
      if (p.kind != Param::Kind::Input && p.kind != Param::Kind::Output)
        continue;
      bool input = p.kind == Param::Kind::Input;
      auto c = blockCopy(p, input ? in++ : outIndex++);
      if (!c)
        continue;
      if (auto f = checkCopy(v, r, *c, lane, v.at, input ? 1 : 3)) {
        f->order = static_cast<unsigned>(input ? in : outIndex);
        out.push_back(std::move(*f));
      }
    }
  }
  walkKernel(s, v, [&](mlir::Operation* op, const std::string& path, unsigned order) {
    // plgpu.emit_pipeline copies each operand's blocks with TMA, as a
    // pallas_call's pipeline does: the operand it is called with in GMEM,
    // the spec's block in SMEM.
    if (auto scope = llvm::dyn_cast<pd::ScopeOp>(op);
        scope && scope.getApi() == apiText(Api::EmitPipeline)) {
      size_t inputs = 0;
      const std::vector<Value>& specs = s.pipelineSpecs(scope, path, &inputs);
      for (mlir::Operation* user : scope->getResult(0).getUsers()) {
        auto ci = llvm::dyn_cast<pd::CallIndirectOp>(user);
        if (!ci || ci.getCallee() != scope->getResult(0))
          continue;
        for (size_t k = 0; k < specs.size() && k < ci.getArgs().size(); ++k) {
          RefInfo operand = v.ref(s, ci.getArgs()[k]);
          if (!operand.known || operand.param < 0 || operand.kind == Param::Kind::Scratch ||
              operand.transposed || !specs[k].isObject(kBlockSpecObject))
            continue;
          Param p;
          p.kind = k < inputs ? Param::Kind::Input : Param::Kind::Output;
          p.array = operand.array;
          p.spec = specs[k];
          auto c = blockCopy(p, k < inputs ? k : k - inputs);
          if (!c)
            continue;
          if (auto f = checkCopy(v, r, *c, lane, detail::sourceLocation(op->getLoc()), 2)) {
            f->order = order;
            out.push_back(std::move(*f));
          }
        }
        break;
      }
      return;
    }
    auto prim = llvm::dyn_cast<pd::PrimOp>(op);
    if (!prim || prim.getArgs().size() < 2)
      return;
    llvm::StringRef api = prim.getApi();
    bool toSmem = api == apiText(Api::CopyGmemToSmem);
    if (!toSmem && api != apiText(Api::CopySmemToGmem))
      return;
    RefInfo src = v.ref(s, prim.getArgs()[0]), dst = v.ref(s, prim.getArgs()[1]);
    auto c = toSmem ? explicitCopy(src, dst, true) : explicitCopy(dst, src, false);
    if (!c)
      return;
    if (auto f = checkCopy(v, r, *c, lane, detail::sourceLocation(op->getLoc()), 2)) {
      f->order = order;
      out.push_back(std::move(*f));
    }
  });
}

} // namespace pallas::analysis::passes::mosaic
