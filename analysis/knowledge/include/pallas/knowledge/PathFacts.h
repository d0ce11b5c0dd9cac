// What each execution path does with one primitive, from the table's facts
// alone: the one `explain(primitive, path)` both the passes (PathRules, which
// then refine it with what the kernel hands the primitive: discharged Refs,
// the launch's Mosaic GPU semantics, GPU interpreter options) and the hover
// (which states it per primitive) read. docs/analysis.md has JAX's rules.
#pragma once

#include "pallas/knowledge/KnowledgeBase.h"

#include <string>

namespace pallas::knowledge {

enum class ExecutionPath { Compiled, InterpretHlo, InterpretGpu };

enum class Outcome {
  Runs,    // whatever the kernel hands it
  Fails,   // whatever the kernel hands it
  Depends, // on the binding: its Ref operands, the launch's semantics
};

struct PathExplanation {
  // The primitive bound on what the path keeps (values; Refs the path does
  // not discharge). Compiled: Runs when Mosaic GPU never sees it (resolved at
  // bind, or a discharge rule may replace it first), Depends on the launch's
  // semantics otherwise.
  Outcome onValues = Outcome::Depends;
  // With a Ref operand the path discharges: its discharge rule decides
  // (none or raising: Fails; one that binds other primitives: Depends).
  Outcome withDischargedRefs = Outcome::Depends;
  // In words, for the hover: "yes (discharged)", "no: no CPU lowering rule".
  std::string text;
};

PathExplanation explain(const PrimitiveFacts& p, ExecutionPath path);

// Primitives whose bind-time rule reads the grid environment the
// interpreters set up (program_id, num_programs): they never reach lowering.
// (Not in the knowledge table yet: def_bind_with_trace is not extracted.)
bool resolvedAtBind(const PrimitiveFacts& p);

// Mosaic GPU's (lowering x user thread) semantics pairs ("LanexWarpgroup")
// in words: "default (Lane) lowering, in warpgroup code".
std::string semanticsInWords(const std::vector<std::string>& pairs);

} // namespace pallas::knowledge
