#include "PathRules.h"

#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

using knowledge::DischargeStatus;
using knowledge::GpuInterpretHandling;

std::string templ(const knowledge::KnowledgeBase& kb, const std::string& key,
                  const std::vector<std::string>& holes, std::string fallback) {
  auto text = kb.formatError(key, holes);
  return text ? *text : std::move(fallback);
}

std::string exceptionOf(const knowledge::KnowledgeBase& kb, const std::string& key,
                        const char* fallback) {
  const knowledge::ErrorTemplate* t = kb.errorTemplate(key);
  return t && !t->exception.empty() ? t->exception : fallback;
}

bool isInline(const Binding& b) {
  return b.prim->name == "inline_mgpu_p";
}

// The bind-time rule of program_id / num_programs reads the grid
// environment the interpreters set up, so they never reach lowering.
// (Not in the knowledge table yet: def_bind_with_trace is not extracted.)
bool resolvedAtBind(const Binding& b) {
  return b.prim->name == "program_id" || b.prim->name == "num_programs";
}

std::string advice(const Binding& b, ExecPath path, const knowledge::KnowledgeBase& kb) {
  const std::string& name = b.prim->name;
  bool gpuRuns = b.prim->gpuInterpret == GpuInterpretHandling::Arm ||
                 b.prim->gpuInterpret == GpuInterpretHandling::ArmNoop ||
                 (b.prim->gpuInterpret == GpuInterpretHandling::Fallback && b.prim->cpuLowering);
  bool gpuOption = isInline(b) && kb.hasInterpretGpuOption("inline_mgpu");
  std::string gpuAlt;
  if (gpuOption)
    gpuAlt = ", or use GPU interpret mode with InterpretGPUParams(inline_mgpu=...)";
  else if (gpuRuns)
    gpuAlt = ", or use GPU interpret mode (interpret=InterpretGPUParams()), which runs " + name;
  switch (path) {
  case ExecPath::InterpretHlo:
    if (isInline(b))
      return "Run this kernel compiled on a GPU (interpret=False)" + gpuAlt +
             ", or write the region with standard Pallas primitives (ref[...] loads and stores, "
             "jnp/lax) while "
             "debugging" +
             (gpuOption ? std::string()
                        : "; GPU interpret mode cannot run inline_mgpu in JAX " + kb.jaxVersion()) +
             ".";
    return "Run this kernel compiled on a GPU (interpret=False)" + gpuAlt +
           ", or use standard Pallas primitives instead of " + b.api + ".";
  case ExecPath::InterpretGpu:
    return "Run this kernel compiled on a GPU" + (gpuOption ? gpuAlt : std::string()) +
           ", or use standard Pallas primitives instead of " + b.api + " when interpreting.";
  case ExecPath::Compiled:
    return "Do not hand " + std::string(b.refs.what) + " to " + b.api +
           ": load its value (acc_ref[...]) and pass an SMEM/GMEM Ref or an array instead.";
  }
  return "";
}

// The equation has a discharged Ref operand: its discharge rule decides.
std::optional<Failure> dischargeVerdict(const Binding& b, ExecPath path,
                                        const knowledge::KnowledgeBase& kb) {
  const auto& p = *b.prim;
  std::string by =
      path == ExecPath::Compiled ? "Mosaic GPU lowering" : std::string(pathLabel(path));
  Failure f;
  f.code = isInline(b) ? "PLS001" : "PLS002";
  f.phase = b.refs.phase;
  switch (p.discharge) {
  case DischargeStatus::Exists:
    return std::nullopt;
  case DischargeStatus::None:
    f.exception = exceptionOf(kb, "noDischargeRule", "NotImplementedError");
    f.jaxError = templ(kb, "noDischargeRule", {p.name},
                       "No state discharge rule implemented for primitive: " + p.name);
    f.reason = by + " discharges " + b.refs.what + " given to " + b.api + ", and " + p.name +
               " has no state discharge rule";
    break;
  case DischargeStatus::Raises:
    f.exception = p.dischargeException.empty() ? "NotImplementedError" : p.dischargeException;
    f.jaxError = !p.dischargeMessage.empty() ? p.dischargeMessage
                                             : templ(kb, "inlineMgpuDischarge", {},
                                                     p.name + " does not support discharge.");
    f.reason = by + " discharges " + b.refs.what + " given to " + b.api + ", and " + p.name +
               "'s discharge rule always raises";
    break;
  }
  f.advice = advice(b, path, kb);
  return f;
}

Failure missingLowering(const Binding& b, ExecPath path, const knowledge::KnowledgeBase& kb,
                        std::string reason) {
  Failure f;
  f.code = isInline(b) ? "PLS001" : "PLS002";
  f.phase = Phase::Lowering;
  f.exception = exceptionOf(kb, "missingLowering", "NotImplementedError");
  f.jaxError = templ(kb, "missingLowering", {b.prim->name, "cpu"},
                     "MLIR translation rule for primitive '" + b.prim->name +
                         "' not found for platform cpu");
  f.reason = std::move(reason);
  f.advice = advice(b, path, kb);
  return f;
}

// skip_floating_point_ops=True: the GPU interpreter skips an equation whose
// outputs are all floating point, or that has none. Only inline_mgpu's
// outputs are known statically (its return_type).
enum class Skip { Yes, No, Unknown };
Skip skippedAsFloat(const Binding& b) {
  pd::InlineMgpuOp op = b.inlineMgpu;
  if (!op)
    return Skip::Unknown;
  auto rt = op.getReturnType();
  if (!rt || rt->trim() == "None")
    return Skip::Yes; // no outputs
  llvm::StringRef t = *rt;
  bool floaty = t.contains("float") || t.contains("bfloat16");
  bool other = t.contains("int") || t.contains("bool") || t.contains("complex");
  if (floaty && !other)
    return Skip::Yes;
  if (other && !floaty)
    return Skip::No;
  return Skip::Unknown;
}

} // namespace

std::optional<Failure> decide(const Binding& b, ExecPath path, const LaunchFacts& launch,
                              const knowledge::KnowledgeBase& kb) {
  if (!b.prim)
    return std::nullopt;
  const auto& p = *b.prim;

  if (b.retraceCollective) {
    Failure f;
    f.code = "PLS002";
    f.phase = Phase::Retrace;
    f.exception = exceptionOf(kb, "runScopedCollectiveAxes", "NotImplementedError");
    f.jaxError = templ(kb, "runScopedCollectiveAxes", {},
                       "run_scoped interpret rule does not support collective axes");
    f.reason =
        b.api == "plgpu.kernel"
            ? "a multi-threaded plgpu.kernel (num_threads=" + std::to_string(launch.numThreads) +
                  ") runs its body in run_scoped(collective_axes=...), which the HLO interpreter "
                  "rejects "
                  "before it looks at the body"
            : "the HLO interpreter does not support run_scoped with collective axes";
    f.advice =
        "Run this kernel compiled on a GPU, or use GPU interpret mode "
        "(interpret=InterpretGPUParams()), "
        "which simulates the threads; or use num_threads=1 while debugging with interpret=True.";
    return f;
  }

  switch (path) {
  case ExecPath::InterpretHlo:
    if (b.refs.discharged())
      return dischargeVerdict(b, path, kb);
    if (p.cpuLowering || resolvedAtBind(b))
      return std::nullopt;
    return missingLowering(
        b, path, kb,
        b.api + " takes no Ref that interpret=True discharges, so " + p.name +
            " survives discharge and is lowered to XLA for the CPU, which has no rule for it");
  case ExecPath::Compiled:
    if (b.refs.discharged())
      return dischargeVerdict(b, path, kb);
    return std::nullopt;
  case ExecPath::InterpretGpu: {
    if (b.cpuLowered) {
      // Inside pl.run_state: XLA discharges and lowers the body.
      if (b.refs.discharged())
        return dischargeVerdict(b, ExecPath::InterpretHlo, kb);
      if (p.cpuLowering || resolvedAtBind(b))
        return std::nullopt;
      return missingLowering(
          b, path, kb,
          "the GPU interpreter has no rule for pl.run_state and lowers it to XLA for the CPU, "
          "which has no rule for " +
              p.name);
    }
    if (isInline(b) && launch.inlineMgpuOptionGiven)
      return std::nullopt;
    switch (p.gpuInterpret) {
    case GpuInterpretHandling::Arm:
    case GpuInterpretHandling::ArmNoop:
      return std::nullopt;
    case GpuInterpretHandling::ArmRaises: {
      Failure f;
      f.code = isInline(b) ? "PLS001" : "PLS002";
      f.exception = "NotImplementedError";
      f.jaxError = p.gpuInterpretMessage.empty()
                       ? p.name + " is not supported by the GPU interpreter"
                       : p.gpuInterpretMessage;
      f.reason = "the GPU interpreter's rule for " + p.name + " raises";
      f.advice = advice(b, path, kb);
      return f;
    }
    case GpuInterpretHandling::Fallback:
    case GpuInterpretHandling::Unknown:
      break;
    }
    if (p.cpuLowering)
      return std::nullopt;
    bool uncertain = false;
    if (launch.skipFloatingPointOps) {
      Skip s = skippedAsFloat(b);
      if (s == Skip::Yes)
        return std::nullopt;
      uncertain = s == Skip::Unknown;
    }
    std::string reason =
        "the GPU interpreter has no rule for " + p.name +
        ": it re-binds the primitive, which is then lowered to XLA for the CPU, which has no rule "
        "for it";
    if (uncertain)
      reason +=
          " (unless skip_floating_point_ops=True skips it: only when all its outputs are floats)";
    Failure f = missingLowering(b, path, kb, reason);
    if (launch.multiThreaded && !p.effects.empty()) {
      // Several threads: each thread's body is traced and compiled inside a
      // host callback, where the primitive's effects fail first.
      f.exception = "ValueError";
      f.jaxError = "Cannot lower jaxpr with effects: {...} (the " + p.name +
                   " equation's effects, inside the per-thread host callback)";
      f.reason = "with several threads the GPU interpreter compiles each thread's body in a host "
                 "callback, and " +
                 p.name + " (which it does not interpret) cannot be lowered there";
    }
    f.uncertain = uncertain;
    return f;
  }
  }
  return std::nullopt;
}

} // namespace pallas::analysis::passes

namespace pallas::analysis::detail {
// Not a pass: every analysis/passes/*.cpp is registered by its stem.
void pallasRegisterPasses_PathRules(PassRegistry&) {}
} // namespace pallas::analysis::detail
