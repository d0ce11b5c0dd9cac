// The workspace as the shape evaluator (ShapeEval.h) reads it during one pass
// run: documents and the call graph's call sites, each looked up once and
// shared by every launch the run evaluates. One class for the SMEM budget
// (SmemBudget.h), the launch configuration checks and the Mosaic GPU rule
// checks (MosaicLaunch.h). It can also record which callers a launch's
// evaluation asked for (LaunchCache.h keys cached results on them).
#pragma once

#include "ShapeEval.h"
#include "pallas/analysis/detail/Passes.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pallas::analysis::detail {

class SmemIndex {
public:
  explicit SmemIndex(const PassContext& ctx);
  ~SmemIndex();
  const shape::SourceIndex& get() const;
  shape::Evaluator& evaluator() const { return *eval_; }
  // (path, symbol) of every callersOf query the evaluator makes from now
  // on is appended to `into` (null: stop recording).
  void recordCallerQueries(std::vector<std::pair<std::string, std::string>>* into) const;
  // The call sites of (path, symbol), not recorded.
  std::vector<shape::SourceIndex::CallSite> callSites(const std::string& path,
                                                      const std::string& symbol) const;

private:
  class Workspace;
  std::unique_ptr<Workspace> impl_;
  std::unique_ptr<shape::Evaluator> eval_; // its caches serve every launch of the run
};

} // namespace pallas::analysis::detail
