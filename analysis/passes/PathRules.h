// Can an execution path run one primitive binding? JAX's own rules, decided
// from the knowledge table's facts about the primitive:
//   * a discharge rule is consulted only for an equation whose Ref operands
//     are being discharged: none -> "No state discharge rule ...", a rule that
//     raises (inline_mgpu_p's) -> its message; a full rule that writes back
//     an operand not being discharged -> "Did not ask for inval to be
//     discharged"; else the functional primitives the rule binds
//     (wgmma_ref -> wgmma) take the equation's place and are lowered;
//   * an equation that survives discharge is lowered: to XLA for the CPU on
//     interpret=True, where it needs a CPU lowering rule; by Mosaic GPU on
//     the compiled path, where it needs a rule for the launch's lowering and
//     user thread semantics (only when the table lists the primitive's rules);
//   * the GPU interpreter runs primitives it has an arm for, re-binds the
//     rest (which then need a CPU lowering rule), and with
//     skip_floating_point_ops=True skips those with only float or no outputs.
#pragma once

#include "KernelWalk.h"
#include "pallas/analysis/Rules.h"

#include <optional>
#include <string>

namespace pallas::analysis::passes {

// What the launch tells about a path beyond its kind.
struct LaunchFacts {
  bool skipFloatingPointOps = false;  // InterpretGPUParams(skip_floating_point_ops=True)
  bool multiThreaded = false;         // several threads: bodies are compiled in a host callback
  bool inlineMgpuOptionGiven = false; // InterpretGPUParams(inline_mgpu=...) (newer JAX)
  long numThreads = 1;
};

struct Failure {
  RuleId rule = RuleId::PrimitiveOnPath; // the check that owns it (pathCheckFor)
  Phase phase = Phase::Lowering;
  std::string exception;  // "NotImplementedError"
  std::string jaxError;   // JAX's message, from the table's error templates
  std::string reason;     // why this path reaches that error
  std::string advice;     // what to do
  bool uncertain = false; // fails only for some dtypes: report as a warning
};

// The facts a launch states itself (thread count, InterpretGPUParams options).
LaunchFacts launchFactsOf(dialect::LaunchOp launch);

// The transform class JAX gives a Ref view ("ref.reshape" -> ReshapeTransform;
// `.T`, `.transpose(...)` and plgpu.transpose_ref -> TransposeTransform; a
// plgpu.RefUnion member -> ExtractAliasedRef).
std::string viewTransformClass(const std::string& view);

// The hardware a primitive needs when the knowledge table gates it and a GPU
// of `capability` ("9.0") lacks it; "" when it runs there (Hardware.cpp).
std::string hardwareBlocks(const knowledge::KnowledgeBase& kb, const std::string& primKey,
                           llvm::StringRef capability);

// The check that reports a binding's path failures: its rule, what to do
// instead, and how the message names what fails. One per code, each in its
// own file: InlineMgpuOnPath.cpp (PLS001, inline_mgpu regions) and
// PrimitiveOnPath.cpp (PLS002, every other primitive).
struct PathCheck {
  RuleId rule;
  // Advice for a binding `path` cannot run (the rules' own advice for a
  // missing Mosaic GPU rule is code-independent and not asked here).
  std::string (*advice)(const BoundPrimitive& b, ExecPath path, const knowledge::KnowledgeBase& kb);
  // The message's subject: "The inline_mgpu region `touch`", "`plgpu.foo` (primitive foo_p)".
  std::string (*what)(const BoundPrimitive& b);
  // The headline's short subject: "region 'touch'", "`plgpu.foo`".
  std::string (*subject)(const BoundPrimitive& b);
};
const PathCheck& inlineMgpuOnPathCheck(); // InlineMgpuOnPath.cpp
const PathCheck& primitiveOnPathCheck();  // PrimitiveOnPath.cpp
const PathCheck& pathCheckFor(const BoundPrimitive& b);

// Advice pieces the path checks share: ", or use GPU interpret mode (...),
// which runs <name>" when the GPU interpreter runs the primitive (else ""),
// and the advice for a Ref the compiled path discharges.
std::string gpuInterpretAlternative(const BoundPrimitive& b);
std::string compiledDischargeAdvice(const BoundPrimitive& b);

// The failure a run_scoped with collective axes meets on interpret=True
// (PrimitiveOnPath.cpp: JAX rejects it before it looks at the body).
Failure retraceCollectiveFailure(const BoundPrimitive& b, const LaunchFacts& launch,
                                 const knowledge::KnowledgeBase& kb);

// The first failure of `b` on `path`, with the owning check's rule and advice.
std::optional<Failure> decide(const BoundPrimitive& b, ExecPath path, const LaunchFacts& launch,
                              const knowledge::KnowledgeBase& kb);

} // namespace pallas::analysis::passes
