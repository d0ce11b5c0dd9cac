// The Project-level entry: the server and the CLI hold a Project, not a
// module. The rewrite reads the module the Project keeps, under its lock
// (Project::withModule).
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include "SourceIndex.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <utility>

namespace pallas::analysis {

namespace {

RewriteResult rewriteIn(const std::string& path, std::string_view text, dialect::InlineMgpuOp op) {
  RewriteResult r = detail::rewriteInlineMgpuOp(op, text);
  // Locations name the document as the module does; keep the caller's spelling.
  if (r.fix)
    for (TextEdit& e : r.fix->edits) e.path = path;
  if (!r.blocker.empty()) r.blockerLoc.path = path;
  return r;
}

RewriteResult compute(const Project& project, const std::string& path, SourcePos regionPos) {
  RewriteResult r;
  if (!project.hasDocument(path)) return r;
  project.withModule(path, [&](mlir::ModuleOp module, std::string_view text) {
    // A position in the decorated def (the hover), or the call a PLS001
    // finding points at.
    if (dialect::InlineMgpuOp op = detail::findInlineMgpu(module, text, regionPos)) {
      r = rewriteIn(path, text, op);
      return;
    }
    detail::CalledInlineMgpu called = detail::findInlineMgpuCalledAt(module, regionPos);
    if (called.op) {
      r = rewriteIn(path, text, called.op);
      return;
    }
    if (called.calleeFile.empty() || !project.hasDocument(called.calleeFile)) return;
    project.withModule(called.calleeFile, [&](mlir::ModuleOp other, std::string_view otherText) {
      if (auto op = detail::inlineMgpuOfFunction(other, called.calleeSymbol))
        r = rewriteIn(called.calleeFile, otherText, op);
    });
  });
  return r;
}

} // namespace

struct ProjectRewriter::Impl {
  const Project& project;
  std::map<std::pair<std::string, SourcePos>, RewriteResult> results;
};

ProjectRewriter::ProjectRewriter(const Project& project) : impl_(new Impl{project, {}}) {}
ProjectRewriter::~ProjectRewriter() = default;

RewriteResult ProjectRewriter::rewrite(const std::string& path, SourcePos regionPos) {
  rewrite::SourceIndex::CacheScope scope; // the region lookup and its translation share one parse
  auto key = std::make_pair(path, regionPos);
  if (auto it = impl_->results.find(key); it != impl_->results.end()) return it->second;
  RewriteResult r;
  try {
    r = compute(impl_->project, path, regionPos);
  } catch (const std::exception&) {
    // Bad input never kills the server: no fix.
    r = RewriteResult{};
  }
  return impl_->results.emplace(key, std::move(r)).first->second;
}

RewriteResult rewriteInlineMgpu(const Project& project, const std::string& path, SourcePos regionPos) {
  return ProjectRewriter(project).rewrite(path, regionPos);
}

} // namespace pallas::analysis
