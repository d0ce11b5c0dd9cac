// The evaluator's answer to "which launches does this document make, on
// which paths, and what does each kernel bind there" (docs/analysis.md §8):
// the document's module is run by the evaluator (analysis/eval) with the
// Pallas overlay (PallasOverlay.h), once per findings run, and its launch
// records are handed to the checks as LaunchRunViews (LaunchRuns.h).
#pragma once

#include "LaunchRuns.h"
#include "PallasOverlay.h"
#include "ShapeEval.h"

#include <memory>

namespace pallas::analysis::passes {

// Is the evaluator the engine that finds launches and walks kernels?
// (PALLAS_LSP_ENGINE=walk selects the earlier kernel walk.)
bool evaluatorEngine();

struct Evaluation;

// The launch records of `doc` (evaluated once per pass run, kept in ctx).
const std::vector<LaunchRecord>& evaluatedLaunches(detail::PassContext& ctx,
                                                   const knowledge::KnowledgeBase& kb,
                                                   const std::string& doc);

// The evaluator's records of the launch whose API call is at `at` (its own
// runs and its callers'), for the path matrix; empty when it has none.
std::vector<const LaunchRecord*> evaluatedRecordsAt(const detail::PassContext& ctx,
                                                    const knowledge::KnowledgeBase& kb,
                                                    const std::string& doc,
                                                    const SourceLocation& at);

// The operands the launch whose API call is at `at` runs with, as the
// evaluator saw them at the calls that ran it (`make()(a, b)`,
// `jax.jit(kernel).trace(a, b)` in a caller): nullopt unless every call
// passed the same known shapes and dtypes, positionally.
std::optional<std::vector<shape::Value>> evaluatedOperands(const detail::PassContext& ctx,
                                                           const knowledge::KnowledgeBase& kb,
                                                           const std::string& doc,
                                                           const SourceLocation& at);

// The values the evaluator computed for expressions, for the shape
// evaluator's questions it cannot answer from the source (ShapeEval.h
// setOracle); empty under PALLAS_LSP_ENGINE=walk.
shape::Evaluator::Oracle evaluatedShapes(const detail::PassContext& ctx,
                                         const std::shared_ptr<const knowledge::KnowledgeBase>& kb);

// forEachLaunch over the evaluator's records (LaunchRuns.cpp calls it when
// evaluatorEngine()).
void forEachEvaluatedLaunch(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                            const knowledge::KnowledgeBase& kb, const LaunchVisitor& perLaunch);

} // namespace pallas::analysis::passes
