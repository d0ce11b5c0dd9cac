// PLS001 inline-mgpu-on-discharging-path: a plgpu.inline_mgpu region reached
// on an execution path that cannot run it. Whether a path can run it is
// JAX's rule (PathRules: its discharge rule always raises, it has no CPU
// lowering); this check owns the code, the advice and how the message names
// the region. Emitted by the path-feasibility pass (Discharge.cpp).
#include "PathRules.h"
#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

std::string advice(const BoundPrimitive& b, ExecPath path, const knowledge::KnowledgeBase& kb) {
  // Newer JAX runs inline_mgpu in GPU interpret mode when asked to.
  bool gpuOption = kb.hasInterpretGpuOption("inline_mgpu");
  std::string gpuAlt = gpuOption
                           ? ", or use GPU interpret mode with InterpretGPUParams(inline_mgpu=...)"
                           : gpuInterpretAlternative(b);
  switch (path) {
  case ExecPath::InterpretHlo:
    return "Run this kernel compiled on a GPU (interpret=False)" + gpuAlt +
           ", or write the region with standard Pallas primitives (ref[...] loads and stores, "
           "jnp/lax) while debugging" +
           (gpuOption ? std::string()
                      : "; GPU interpret mode cannot run inline_mgpu in JAX " + kb.jaxVersion()) +
           ".";
  case ExecPath::InterpretGpu:
    return "Run this kernel compiled on a GPU" + (gpuOption ? gpuAlt : std::string()) +
           ", or use standard Pallas primitives instead of " + b.api + " when interpreting.";
  case ExecPath::Compiled:
    return compiledDischargeAdvice(b);
  }
  return "";
}

// The region's name: the wrapper the kernel calls, or the closure.
std::string regionName(const BoundPrimitive& b) {
  if (!b.inlineName.empty())
    return b.inlineName;
  if (auto call = llvm::dyn_cast_or_null<pd::CallOp>(b.inlineCall))
    return call.getCallee().str();
  if (auto ci = llvm::dyn_cast_or_null<pd::CallIndirectOp>(b.inlineCall)) {
    if (auto c = ci.getCallee().getDefiningOp<pd::ClosureOp>())
      return c.getName().str();
    // A helper defined below the def that calls it, read by name.
    if (auto g = ci.getCallee().getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "late")
      return g.getName().str();
  }
  return "";
}

std::string what(const BoundPrimitive& b) {
  std::string name = regionName(b);
  return name.empty() ? "This inline_mgpu region" : "The inline_mgpu region `" + name + "`";
}

std::string subject(const BoundPrimitive& b) {
  std::string name = regionName(b);
  return name.empty() ? "an inline_mgpu region" : "region '" + name + "'";
}

} // namespace

const PathCheck& inlineMgpuOnPathCheck() {
  static const PathCheck check{RuleId::InlineMgpuOnPath, advice, what, subject};
  return check;
}

} // namespace pallas::analysis::passes
