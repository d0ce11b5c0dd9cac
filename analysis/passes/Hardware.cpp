// PLS003: a primitive a compiled kernel reaches needs hardware the local GPU
// lacks (wgmma is sm_90a only; tcgen05/TMEM need Blackwell datacenter parts).
// Runs only when ProjectOptions::gpuComputeCapability is set (the server sets
// it from gpu/'s device probe). The requirements are the knowledge table's
// typed `hardware` facts (JAX's own test gates, knowledge/HardwareFacts.h).
#include "KernelWalk.h"
#include "LaunchCache.h"
#include "PassKnowledge.h"
#include "pallas/analysis/Rules.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {} // namespace

std::string hardwareBlocks(const knowledge::KnowledgeBase& kb, const std::string& primKey,
                           llvm::StringRef capability) {
  auto cap = knowledge::ComputeCapability::parse(capability);
  const knowledge::PrimitiveFacts* p = kb.primitive(primKey);
  if (!cap || !p || !p->hardware || p->hardware->allows(*cap))
    return {};
  return p->hardware->needs();
}

namespace {

void runHardware(detail::PassContext& ctx) {
  if (ctx.options.gpuComputeCapability.empty() || !ctx.module)
    return;
  auto cap = knowledge::ComputeCapability::parse(ctx.options.gpuComputeCapability);
  auto kb = knowledgeFor(ctx.options);
  if (!cap || !kb)
    return;
  std::string capText = ctx.options.gpuComputeCapability;
  std::vector<pd::LaunchOp> launches;
  for (pd::LaunchOp l : detail::moduleScan(ctx, ctx.module).launches)
    if (isMosaicGpuLaunch(l) && isStaticallyReachable(l))
      launches.push_back(l);
  std::set<std::pair<mlir::Operation*, std::string>> seen;
  for (pd::LaunchOp launch : launches) {
    bool compiled = false;
    for (mlir::Attribute a : launch.getPaths())
      compiled |= pd::enumName(a) == pd::path::kCompiled || pd::enumName(a) == pd::path::kUnknown;
    if (!compiled)
      continue; // interpreters run on the CPU: no GPU features needed
    KernelWalk walk(ctx.workspace, *kb, ExecPath::Compiled, launch, ctx.path);
    if (!walk.run())
      continue;
    for (const BoundPrimitive& b : walk.bindings()) {
      const auto& needs = b.prim->hardware;
      if (!needs || needs->allows(*cap) || !seen.insert({b.site, b.prim->key}).second)
        continue;
      Finding f;
      f.code = ruleCode(RuleId::HardwareRequirement);
      f.severity = Severity::Warning;
      f.location = detail::sourceLocation(b.site->getLoc());
      f.message =
          "`" + b.api + "` (primitive " + b.prim->name + ") needs " + needs->requires_ +
          " (compute capability " + needs->constraint() + "), but this GPU is compute capability " +
          capText +
          ": compiled Mosaic GPU code using it cannot run here. Run on a GPU that has it, or "
          "choose a code path for this GPU (e.g. wgmma on Hopper, tcgen05_mma on Blackwell).";
      f.executionPath = pathLabel(ExecPath::Compiled);
      f.launch = detail::sourceLocation(launch.getLoc());
      f.related.push_back({*f.launch, "compiled here"});
      for (const Hop& h : b.chain)
        f.callChain.push_back(hopText(h));
      f.jaxVersion = kb->jaxVersion();
      ctx.findings.push_back(std::move(f));
    }
  }
}

} // namespace

// ---- the pass (Passes.td: pallas-hardware) ------------------------------------
#define GEN_PASS_DECL_PALLASHARDWARE
#define GEN_PASS_DEF_PALLASHARDWARE
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasHardware, runHardware)
} // namespace pallas::analysis::passes
