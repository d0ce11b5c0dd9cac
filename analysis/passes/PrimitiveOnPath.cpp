// PLS002 primitive-unsupported-on-path: a Pallas or Mosaic GPU primitive
// other than inline_mgpu reached on an execution path that cannot run it.
// Whether a path can run it is JAX's rule (PathRules); this check owns the
// code, the advice, how the message names the call, and the one failure that
// is not a primitive's: interpret=True rejecting run_scoped with collective
// axes. Emitted by the path-feasibility pass (Discharge.cpp).
#include "PathRules.h"
#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

namespace {

std::string advice(const BoundPrimitive& b, ExecPath path, const knowledge::KnowledgeBase&) {
  switch (path) {
  case ExecPath::InterpretHlo:
    return "Run this kernel compiled on a GPU (interpret=False)" + gpuInterpretAlternative(b) +
           ", or use standard Pallas primitives instead of " + b.api + ".";
  case ExecPath::InterpretGpu:
    return "Run this kernel compiled on a GPU, or use standard Pallas primitives instead of " +
           b.api + " when interpreting.";
  case ExecPath::Compiled:
    return compiledDischargeAdvice(b);
  }
  return "";
}

std::string what(const BoundPrimitive& b) {
  if (b.retraceCollective)
    return "This " + b.api;
  if (b.interpretRule == "ref_transform")
    return "A scratch Ref allocated with transforms (" + b.detail + ")";
  return "`" + b.api + "` (primitive " + b.prim->name + ")";
}

std::string subject(const BoundPrimitive& b) {
  return "`" + b.api + "`";
}

} // namespace

const PathCheck& primitiveOnPathCheck() {
  static const PathCheck check{RuleId::PrimitiveOnPath, advice, what, subject};
  return check;
}

Failure retraceCollectiveFailure(const BoundPrimitive& b, const LaunchFacts& launch,
                                 const knowledge::KnowledgeBase& kb) {
  Failure f;
  f.rule = RuleId::PrimitiveOnPath;
  f.phase = Phase::Retrace;
  const knowledge::ErrorTemplate* t = kb.errorTemplate("runScopedCollectiveAxes");
  f.exception = t && !t->exception.empty() ? t->exception : "NotImplementedError";
  f.jaxError = kb.formatError("runScopedCollectiveAxes", {})
                   .value_or("run_scoped interpret rule does not support collective axes");
  f.reason =
      b.api == apiText(Api::GpuKernel)
          ? "a plgpu.kernel with a thread axis (num_threads=" + std::to_string(launch.numThreads) +
                ", thread_name=...) runs its body in run_scoped(collective_axes=thread_name), "
                "which the HLO interpreter rejects before it looks at the body"
          : "the HLO interpreter does not support run_scoped with collective axes";
  f.advice = "Run this kernel compiled on a GPU, or use GPU interpret mode "
             "(interpret=InterpretGPUParams()), which simulates the threads; or leave out "
             "thread_name (and use num_threads=1) while debugging with interpret=True.";
  return f;
}

} // namespace pallas::analysis::passes
