// The evaluator's view of the workspace (SmemIndex.h).
#include "SmemIndex.h"

#include "EvalLaunches.h"
#include "PassKnowledge.h"
#include "pallas/analysis/detail/Dialect.h"

#include <map>
#include <optional>

namespace pallas::analysis::detail {

namespace pd = pallas::dialect;

// Documents and pallas.call sites, each looked up once per pass run: the
// call graph is built once (asking the workspace per parameter walked every
// module again for each of a file's 200 kernels).
class SmemIndex::Workspace final : public shape::SourceIndex {
public:
  explicit Workspace(const PassContext& ctx) : ctx_(ctx) {}
  std::optional<File> file(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) {
      auto s = ctx_.workspace.syntaxOf(path);
      std::optional<File> f;
      if (s.doc)
        f = File{s.doc, s.globals};
      it = files_.emplace(path, f).first;
    }
    return it->second;
  }
  std::vector<CallSite> callersOf(const std::string& path,
                                  const std::string& symbol) const override {
    if (recording_)
      recording_->emplace_back(path, symbol);
    return sites(path, symbol);
  }
  std::vector<CallSite> sites(const std::string& path, const std::string& symbol) const {
    if (!edgesBuilt_) {
      edgesBuilt_ = true;
      for (const CallEdge& e : ctx_.workspace.callEdges()) {
        if (!llvm::isa<pd::CallOp>(e.site))
          continue; // a launch runs the function as a kernel body, not a call
        LineCol lc = lineCol(e.site->getLoc());
        if (lc.line)
          edges_[e.calleePath + '\x1f' + e.calleeSymbol].push_back(
              {e.caller.path, lc.line - 1, lc.column ? lc.column - 1 : 0});
      }
    }
    auto it = edges_.find(path + '\x1f' + symbol);
    return it == edges_.end() ? std::vector<CallSite>{} : it->second;
  }
  mutable std::vector<std::pair<std::string, std::string>>* recording_ = nullptr;

private:
  const PassContext& ctx_;
  mutable std::map<std::string, std::optional<File>> files_;
  mutable bool edgesBuilt_ = false;
  mutable std::map<std::string, std::vector<CallSite>> edges_;
};

SmemIndex::SmemIndex(const PassContext& ctx)
    : impl_(std::make_unique<Workspace>(ctx)), eval_(std::make_unique<shape::Evaluator>(*impl_)) {
  // What the source does not fix, the evaluator's run of the program may.
  eval_->setOracle(passes::evaluatedShapes(ctx, passes::knowledgeFor(ctx.options)));
}
SmemIndex::~SmemIndex() = default;

const shape::SourceIndex& SmemIndex::get() const {
  return *impl_;
}

void SmemIndex::recordCallerQueries(std::vector<std::pair<std::string, std::string>>* into) const {
  impl_->recording_ = into;
}

std::vector<shape::SourceIndex::CallSite> SmemIndex::callSites(const std::string& path,
                                                               const std::string& symbol) const {
  return impl_->sites(path, symbol);
}

} // namespace pallas::analysis::detail
