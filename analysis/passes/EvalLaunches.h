// The evaluator's answer to "which launches does this document make, on
// which paths, and what does each kernel bind there" (docs/analysis.md §8):
// the document's module is run by the evaluator (analysis/eval) with the
// Pallas overlay (PallasOverlay.h), once per findings run, and its launch
// records are handed to the checks as LaunchRunViews (LaunchRuns.h).
#pragma once

#include "LaunchRuns.h"
#include "PallasOverlay.h"

namespace pallas::analysis::passes {

// Is the evaluator the engine that finds launches and walks kernels?
// (PALLAS_LSP_ENGINE=walk selects the earlier kernel walk.)
bool evaluatorEngine();

struct Evaluation;

// The launch records of `doc` (evaluated once per pass run, kept in ctx).
const std::vector<LaunchRecord>& evaluatedLaunches(detail::PassContext& ctx,
                                                   const knowledge::KnowledgeBase& kb,
                                                   const std::string& doc);

// forEachLaunch over the evaluator's records (LaunchRuns.cpp calls it when
// evaluatorEngine()).
void forEachEvaluatedLaunch(detail::PassContext& ctx, const std::string& doc,
                            mlir::ModuleOp module, const knowledge::KnowledgeBase& kb,
                            const LaunchVisitor& perLaunch);

} // namespace pallas::analysis::passes
