// PLS005: a compiled launch requests more shared memory than JAX allows.
// JAX's Mosaic GPU lowering sums the kernel's SMEM (SmemBudget.h) and raises
//   ValueError: Mosaic GPU kernel exceeds available shared memory:
//   smem_bytes=N > max_smem_bytes=M
// in jax/experimental/mosaic/gpu/core.py `_launch`, before any lowering rule
// runs. The limit is the device's shared_memory_per_block_optin, or 227 KiB
// without a GPU (what `check` on a CI box sees).
#include "CompiledPath.h"
#include "KernelWalk.h"
#include "LaunchCache.h"
#include "PassKnowledge.h"
#include "PathRules.h"
#include "SmemBudget.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/Rules.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/PallasPass.h"

#include <algorithm>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;
using detail::PassContext;
using detail::SmemBudget;

namespace {

std::string topParts(const SmemBudget& b, size_t n) {
  std::vector<detail::SmemPart> sorted = b.parts;
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.name < y.name;
  });
  std::string out;
  for (size_t k = 0; k < sorted.size() && k < n; ++k)
    out += (k ? ", " : "") + sorted[k].name + " (" + detail::withCommas(sorted[k].bytes) + " B)";
  return out;
}

// The PLS005 finding for tensor memory (Blackwell): JAX's Pallas lowering
// asks for all TMEM columns in one allocation, which Mosaic GPU rounds up to
// a power of two and rejects over TMEM_MAX_COLS:
//   ValueError: After rounding up, got N columns, exceeding the limit of 512
// (tcgen05.tmem_alloc_exact_ncols), raised while lowering, whatever GPU the
// kernel is lowered for. Only the GPUs that have TMEM (the knowledge table's
// tcgen05 generations) can run the kernel at all; the message says so when
// the local GPU is not one of them. JAX checks shared memory first: no TMEM
// finding when the SMEM one is raised.
std::optional<Finding> tmemOverLimit(const PassContext& ctx, pd::LaunchOp launch,
                                     const SmemBudget& b, const detail::SmemRules& rules,
                                     CompiledPath compiled) {
  if (!b.analysed || b.tmem.cols <= b.tmem.limit || !b.issues.empty() || b.total > b.limit)
    return std::nullopt;
  Finding f;
  f.code = ruleCode(RuleId::SharedMemoryOverLimit);
  f.severity = compiled == CompiledPath::Certain ? Severity::Error : Severity::Warning;
  f.location = detail::sourceLocation(launch.getLoc());
  f.subject = "tensor memory";
  f.executionPath = pathLabel(ExecPath::Compiled);
  f.launch = f.location;
  f.jaxVersion = rules.jaxVersion;
  f.jaxException = "ValueError";
  f.jaxErrorFirstLine = "After rounding up, got " + std::to_string(b.tmem.allocated) +
                        " columns, exceeding the limit of " + std::to_string(b.tmem.limit);
  std::string parts;
  for (size_t k = 0; k < b.tmem.parts.size() && k < 3; ++k)
    parts += (k ? ", " : "") + b.tmem.parts[k].name + " (" + std::to_string(b.tmem.parts[k].bytes) +
             " columns)";
  // The knowledge table's tcgen05 gate says which generations have TMEM.
  std::string local;
  auto kb = knowledgeFor(ctx.options);
  if (std::string needs =
          kb ? hardwareBlocks(*kb, "tcgen05_mma", ctx.options.gpuComputeCapability) : "";
      !needs.empty())
    local = " The local GPU (compute capability " + ctx.options.gpuComputeCapability +
            ") has no tensor memory at all: TMEM needs " + needs + ".";
  f.message =
      "This launch asks for " + detail::withCommas(b.tmem.cols) +
      " columns of tensor memory (TMEM, Blackwell), over the " + std::to_string(b.tmem.limit) +
      " columns of " + std::to_string(rules.tmemRows) + " lanes an SM has (" + parts + "). " +
      (compiled == CompiledPath::May ? "If it runs compiled, " : "") + "JAX " + rules.jaxVersion +
      " will raise " + f.jaxException + ": " + f.jaxErrorFirstLine + ". " +
      (compiled == CompiledPath::Certain ? "This is the first error JAX raises for this "
                                           "launch. "
                                         : "") +
      "Use fewer or narrower TMEM accumulators, or packed=True for 16-bit ones." + local;
  for (const detail::SmemPart& p : b.tmem.parts)
    if (p.at.path.size() && !(p.at.range.start == f.location.range.start))
      f.related.push_back({p.at, p.name + ": " + std::to_string(p.bytes) + " columns"});
  return f;
}

// What the user can turn, named after the largest parts: the pipeline's
// max_concurrent_steps (each SMEM block is buffered that many times), the
// block shapes of the buffered specs, the scratch shapes.
std::string knobs(const SmemBudget& b) {
  std::string out;
  bool staged = false, scratch = false;
  std::vector<detail::SmemPart> sorted = b.parts;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
  for (size_t k = 0; k < sorted.size() && k < 3; ++k) {
    bool isStaged = sorted[k].name.find(" x (") != std::string::npos;
    staged |= isStaged;
    scratch |= !isStaged && sorted[k].name != "barriers" && sorted[k].name != "reduction scratch";
  }
  if (b.pipeline.present)
    out += "Lower max_concurrent_steps (now " + std::to_string(b.pipeline.steps) +
           ": every SMEM block is buffered that many times, " +
           detail::withCommas(b.pipeline.perStep) + " B per step)";
  if (staged)
    out += std::string(out.empty() ? "Use" : ", or use") +
           " smaller block shapes in the BlockSpecs of the largest buffered operands";
  if (scratch)
    out += std::string(out.empty() ? "Use" : ", or use") +
           " smaller or fewer scratch allocations (scratch_shapes / pl.run_scoped), or share "
           "memory between buffers whose lifetimes do not overlap (plgpu.RefUnion)";
  if (out.empty())
    out = "Use smaller blocks, fewer pipeline stages (max_concurrent_steps) or fewer scratch "
          "buffers";
  return out + ".";
}

// The PLS005 finding of one launch (none when it fits or is not sized).
std::vector<Finding> overLimit(const PassContext& ctx, pd::LaunchOp launch,
                               const detail::SmemRules& rules, const detail::SmemIndex& index,
                               CompiledPath compiled) {
  SmemBudget b = detail::smemBudget(ctx, launch, rules, &index);
  if (auto t = tmemOverLimit(ctx, launch, b, rules, compiled))
    return {std::move(*t)};
  if (!b.analysed || b.total <= b.limit || !b.issues.empty())
    return {};
  Finding f;
  f.code = ruleCode(RuleId::SharedMemoryOverLimit);
  f.severity = compiled == CompiledPath::Certain ? Severity::Error : Severity::Warning;
  f.location = detail::sourceLocation(launch.getLoc());
  f.subject = "shared memory";
  f.executionPath = pathLabel(ExecPath::Compiled);
  f.launch = f.location;
  f.jaxVersion = rules.jaxVersion;
  f.jaxException = "ValueError";
  std::string bytes = b.exact() ? std::to_string(b.total) : "<smem_bytes>";
  f.jaxErrorFirstLine = "Mosaic GPU kernel exceeds available shared memory: smem_bytes=" + bytes +
                        " > max_smem_bytes=" + std::to_string(b.limit);
  std::string amount = (b.exact() ? "" : "at least ") + detail::withCommas(b.total) + " B";
  std::string over = b.exact() ? " (" + detail::withCommas(b.total - b.limit) + " B over)" : "";
  f.message =
      "This launch needs " + amount + " of shared memory, over the " + detail::withCommas(b.limit) +
      " B limit (" + b.limitSource + ")" + over + ". Largest: " + topParts(b, 3) + ". " +
      (compiled == CompiledPath::May ? "If it runs compiled, " : "") + "JAX " + rules.jaxVersion +
      " will raise " + f.jaxException + ": " + f.jaxErrorFirstLine + ". " +
      (compiled == CompiledPath::Certain ? "This is the first error JAX raises for this "
                                           "launch. "
                                         : "") +
      knobs(b);
  for (const detail::SmemPart& p : b.parts)
    if (p.at.path.size() && !(p.at.range.start == f.location.range.start))
      f.related.push_back({p.at, p.name + ": " + detail::withCommas(p.bytes) + " B"});
  // The fix: the largest max_concurrent_steps that fits, when the pipeline's
  // value is written in the source and everything else is known.
  if (b.exact() && b.pipeline.present && b.pipeline.at && b.pipeline.steps > 1) {
    for (int64_t k = b.pipeline.steps - 1; k >= 1; --k) {
      detail::SmemRules r = rules;
      r.overrideMaxConcurrentSteps = k;
      SmemBudget t = detail::smemBudget(ctx, launch, r, &index);
      if (t.analysed && t.exact() && t.total <= t.limit) {
        Fix fix;
        fix.title = "Reduce max_concurrent_steps to " + std::to_string(k) + " (SMEM " +
                    detail::withCommas(t.total) + " / " + detail::withCommas(t.limit) + " B)";
        fix.safety = FixSafety::Unsafe; // fewer stages in flight: slower, same results
        fix.edits.push_back({b.pipeline.at->path, b.pipeline.at->range, std::to_string(k)});
        f.fixes.push_back(std::move(fix));
        break;
      }
    }
  }
  return {std::move(f)};
}

void runSharedMemory(PassContext& ctx) {
  if (!ctx.module)
    return;
  std::vector<pd::LaunchOp> launches;
  for (pd::LaunchOp l : detail::moduleScan(ctx, ctx.module).launches)
    if (isStaticallyReachable(l))
      launches.push_back(l);
  const detail::SmemRules rules = detail::smemRulesFor(ctx.options);
  std::unique_ptr<detail::SmemIndex> own;
  const detail::SmemIndex& index = detail::runIndex(ctx, own);
  for (pd::LaunchOp launch : launches) {
    CompiledPath compiled = mosaicGpuCompiledPathOf(launch, ctx.options.assumePath);
    if (compiled == CompiledPath::No)
      continue; // the interpreters allocate no shared memory
    std::vector<Finding> found = detail::perLaunch<std::vector<Finding>>(
        ctx, launch, detail::LaunchCache::Kind::SharedMemoryFindings,
        static_cast<uint64_t>(compiled),
        [&] { return overLimit(ctx, launch, rules, index, compiled); });
    for (Finding& f : found)
      ctx.findings.push_back(std::move(f));
  }
}

} // namespace

} // namespace pallas::analysis::passes

namespace pallas::analysis::detail {

std::optional<LaunchSmem> launchSmem(const PassContext& ctx, dialect::LaunchOp launch,
                                     const SmemIndex* index) {
  if (ctx.launchCache && ctx.launchCache->running())
    index = &ctx.launchCache->index(); // the run's, whatever the caller made
  return perLaunch<std::optional<LaunchSmem>>(
      ctx, launch, LaunchCache::Kind::LaunchSmem, 0, [&]() -> std::optional<LaunchSmem> {
        SmemBudget b = smemBudget(ctx, launch, smemRulesFor(ctx.options), index);
        if (!b.analysed)
          return std::nullopt;
        LaunchSmem s;
        s.total = b.total;
        s.limit = b.limit;
        s.limitSource = b.limitSource;
        std::vector<SmemPart> sorted = b.parts;
        std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
          return x.bytes != y.bytes ? x.bytes > y.bytes : x.name < y.name;
        });
        for (const SmemPart& p : sorted)
          s.parts.emplace_back(p.name, p.bytes);
        s.unknown = b.unknown;
        s.summary = b.summary(3);
        const SmemRules rules = smemRulesFor(ctx.options);
        for (const auto& [label, capability] :
             {std::pair<const char*, const char*>{"Hopper (sm_90a)", "9.0"},
              {"Blackwell (sm_100a)", "10.0"}})
          if (auto limit = smemLimitFor(rules, capability, ctx.options))
            s.targetLimits.emplace_back(label, *limit);
        std::string caps;
        for (const std::string& c : rules.defaultLimitCapabilities)
          caps += (caps.empty() ? "" : " and ") + c;
        s.targetLimitSource =
            "JAX " + rules.jaxVersion + "'s default" +
            (caps.empty() ? "" : ", which its source gives for compute capabilities " + caps) +
            (ctx.options.gpuSharedMemoryPerBlockOptin > 0
                 ? "; the local GPU's shared_memory_per_block_optin for its own generation"
                 : "");
        s.tmemCols = b.tmem.cols;
        s.tmemAllocated = b.tmem.allocated;
        s.tmemLimit = b.tmem.limit;
        std::vector<SmemPart> tp = b.tmem.parts;
        std::sort(tp.begin(), tp.end(), [](const auto& x, const auto& y) {
          return x.bytes != y.bytes ? x.bytes > y.bytes : x.name < y.name;
        });
        for (const SmemPart& p : tp)
          s.tmemParts.emplace_back(p.name, p.bytes);
        return s;
      });
}

} // namespace pallas::analysis::detail

// ---- the pass (Passes.td: pallas-shared-memory) ----------------------------------
namespace pallas::analysis::passes {
#define GEN_PASS_DECL_PALLASSHAREDMEMORY
#define GEN_PASS_DEF_PALLASSHAREDMEMORY
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasSharedMemory, runSharedMemory)
} // namespace pallas::analysis::passes
