// Read-only answers the server copies into a document's immutable snapshot
// (server/lib/DocumentSnapshot.h) once per analysed version, so that its
// readers (the hover) never take the Project's lock themselves.
#include "ProjectImpl.h"
#include "SourceRanges.h"

namespace pallas::analysis {

namespace pd = pallas::dialect;

std::vector<ApiAt> Project::apiSites(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return {};
  impl_->ensureCurrent(*d);
  if (!d->module)
    return {};
  std::vector<std::string_view> lines = splitLines(d->doc.text());
  std::vector<ApiAt> sites;
  d->module->getOperation()->walk([&](mlir::Operation* op) {
    std::string api;
    if (auto p = llvm::dyn_cast<pd::PrimOp>(op))
      api = p.getApi().str();
    else if (auto s = llvm::dyn_cast<pd::ScopeOp>(op))
      api = s.getApi().str();
    else if (auto l = llvm::dyn_cast<pd::LaunchOp>(op))
      api = l.getApi().str();
    else if (llvm::isa<pd::InlineMgpuOp>(op))
      api = "plgpu.inline_mgpu";
    else
      return;
    if (api.empty() || api.starts_with("python."))
      return; // Python statements, not APIs
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    if (!loc || loc.getLine() == 0)
      return;
    SourceRange r = llvm::isa<pd::InlineMgpuOp>(op)
                        ? inlineMgpuDecorator(lines, loc.getLine() - 1)
                        : nameAt(lines, loc.getLine() - 1, loc.getColumn() - 1);
    if (r.start == r.end)
      return;
    sites.push_back(ApiAt{std::move(api), r});
  });
  return sites;
}

std::optional<ApiAt> innermostApiAt(const std::vector<ApiAt>& sites, SourcePos pos) {
  std::optional<ApiAt> best;
  auto width = [](const SourceRange& x) { return x.end.column - x.start.column; };
  for (const ApiAt& site : sites) {
    if (pos < site.range.start || site.range.end < pos)
      continue;
    if (!best || width(site.range) < width(best->range))
      best = site;
  }
  return best;
}

} // namespace pallas::analysis
