#include "pallas/knowledge/PathFacts.h"

#include <algorithm>
#include <iterator>

namespace pallas::knowledge {

namespace {

bool touchesRefs(const PrimitiveFacts& p) {
  for (const std::string& e : p.effects)
    if (e == "ReadEffect" || e == "WriteEffect")
      return true;
  return false;
}

Outcome dischargeOutcome(const PrimitiveFacts& p) {
  return p.discharge == DischargeStatus::Exists ? Outcome::Depends : Outcome::Fails;
}

PathExplanation compiled(const PrimitiveFacts& p) {
  PathExplanation e;
  // A primitive with a discharge rule may still be discharged before
  // lowering by a construct a walk does not see (wgmma_ref on an accumulator
  // that reached the kernel some other way): no verdict on values.
  e.onValues =
      resolvedAtBind(p) || p.discharge != DischargeStatus::None ? Outcome::Runs : Outcome::Depends;
  e.withDischargedRefs = dischargeOutcome(p);
  if (!p.mosaicGpuSemantics.empty())
    e.text = "yes (" + semanticsInWords(p.mosaicGpuSemantics) + ")";
  else
    // wgmma_ref_p and friends: the compiled path discharges accumulators
    // (plgpu.ACC) and run_state refs, and the rule rewrites them into
    // primitives that do lower.
    e.text = p.discharge == DischargeStatus::Exists
                 ? "only discharged (its Ref operands must be accumulators or run_state refs)"
                 : "no Mosaic GPU lowering rule";
  return e;
}

// interpret=True discharges every kernel Ref: a binding with Ref operands
// needs a discharge rule; one without is lowered to XLA for the CPU.
PathExplanation interpretHlo(const PrimitiveFacts& p) {
  PathExplanation e;
  e.onValues = p.cpuLowering || resolvedAtBind(p) ? Outcome::Runs : Outcome::Fails;
  e.withDischargedRefs = dischargeOutcome(p);
  std::string refs;
  switch (p.discharge) {
  case DischargeStatus::Exists:
    refs = "yes (discharged)";
    break;
  case DischargeStatus::None:
    refs = "no: no state discharge rule";
    break;
  case DischargeStatus::Raises:
    refs = "no: `" +
           (p.dischargeMessage.empty() ? p.name + " does not support discharge."
                                       : p.dischargeMessage) +
           "`";
    break;
  }
  if (touchesRefs(p) && p.discharge != DischargeStatus::Raises)
    e.text = refs;
  else
    e.text = "with Ref operands: " + refs +
             "; without: " + (e.onValues == Outcome::Runs ? "yes" : "no: no CPU lowering rule");
  return e;
}

// The GPU interpreter keeps Refs as buffers: it runs the primitives it has
// an arm for and re-binds the rest, which then need a CPU lowering rule.
PathExplanation interpretGpu(const PrimitiveFacts& p) {
  PathExplanation e;
  e.withDischargedRefs = Outcome::Runs; // nothing is discharged (pl.run_state aside)
  // pl.num_programs of a static grid is the grid's size, a Python int,
  // when the kernel is traced: nothing is bound for the interpreter to meet.
  if (resolvedAtBind(p) && p.gpuInterpret != GpuInterpretHandling::Arm) {
    e.onValues = Outcome::Runs;
    e.text = "yes (resolved when the kernel is traced)";
    return e;
  }
  switch (p.gpuInterpret) {
  case GpuInterpretHandling::Arm:
  case GpuInterpretHandling::ArmNoop:
    e.onValues = Outcome::Runs;
    e.text = "yes";
    return e;
  case GpuInterpretHandling::ArmRaises:
    e.onValues = Outcome::Fails;
    e.text =
        "no: `" +
        (p.gpuInterpretMessage.empty() ? p.name + " is not supported" : p.gpuInterpretMessage) +
        "`";
    return e;
  case GpuInterpretHandling::Fallback:
    if (p.gpuInterpretFallbackAssertsRef) {
      // Re-bound on its buffers' values, its abstract eval asserts a Ref.
      e.onValues = Outcome::Fails;
      e.withDischargedRefs = Outcome::Fails;
      e.text = "no: re-bound on values, its abstract eval asserts a Ref (bare AssertionError)";
      return e;
    }
    e.onValues = p.cpuLowering ? Outcome::Runs : Outcome::Fails;
    e.text = p.cpuLowering ? "yes (re-bound, CPU lowering)" : "no: no rule and no CPU lowering";
    return e;
  case GpuInterpretHandling::Unknown:
    break;
  }
  e.onValues = p.cpuLowering ? Outcome::Runs : Outcome::Fails;
  e.text = "unknown";
  return e;
}

} // namespace

bool resolvedAtBind(const PrimitiveFacts& p) {
  return p.name == "program_id" || p.name == "num_programs";
}

PathExplanation explain(const PrimitiveFacts& p, ExecutionPath path) {
  switch (path) {
  case ExecutionPath::Compiled:
    return compiled(p);
  case ExecutionPath::InterpretHlo:
    return interpretHlo(p);
  case ExecutionPath::InterpretGpu:
    return interpretGpu(p);
  }
  return {};
}

// Mosaic GPU registers a lowering rule per (lowering, primitive) thread
// semantics pair, which the table records as "LanexWarpgroup" etc. Said in
// words: under which lowering (compiler_params thread_semantics; Lane is the
// default) and in which code (a whole warpgroup's, or per-warp code inside
// plgpu.WarpMesh) the primitive lowers.
std::string semanticsInWords(const std::vector<std::string>& pairs) {
  std::vector<std::pair<std::string, std::vector<std::string>>> byLowering;
  for (const std::string& pair : pairs) {
    size_t x = pair.find('x');
    std::string lowering = x == std::string::npos ? pair : pair.substr(0, x);
    std::string code = x == std::string::npos ? "" : pair.substr(x + 1);
    auto it = std::find_if(byLowering.begin(), byLowering.end(),
                           [&](const auto& e) { return e.first == lowering; });
    if (it == byLowering.end()) {
      byLowering.push_back({lowering, {}});
      it = std::prev(byLowering.end());
    }
    if (!code.empty())
      it->second.push_back(code == "Warp" ? "per-warp code" : "warpgroup code");
  }
  std::string out;
  for (const auto& [lowering, codes] : byLowering) {
    out += out.empty() ? "" : "; ";
    out += lowering == "Lane" ? "default (Lane) lowering" : lowering + " lowering";
    if (!codes.empty()) {
      out += ", in ";
      for (size_t i = 0; i < codes.size(); ++i)
        out += (i ? " and " : "") + codes[i];
    }
  }
  return out;
}

} // namespace pallas::knowledge
