// The hover's lookup (Project::apiAt): the innermost JAX/Pallas API call
// whose callee name, as written, contains a position.
#include "ProjectImpl.h"
#include "SourceRanges.h"

namespace pallas::analysis {

namespace pd = pallas::dialect;

std::optional<ApiAt> Project::apiAt(const std::string& path, SourcePos pos) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return std::nullopt;
  impl_->ensureCurrent(*d);
  if (!d->module)
    return std::nullopt;
  std::vector<std::string_view> lines = splitLines(d->doc.text());
  std::optional<ApiAt> best;
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
    if (r.start == r.end || pos < r.start || r.end < pos)
      return;
    auto width = [](const SourceRange& x) { return x.end.column - x.start.column; };
    if (!best || width(r) < width(best->range))
      best = ApiAt{api, r};
  });
  return best;
}

} // namespace pallas::analysis
