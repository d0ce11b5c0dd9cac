// The Project-level entry: the server and the CLI hold a Project, not a
// module. The rewrite reads the module the Project keeps, under its lock
// (Project::withModule).
#include "InlineMgpuLocator.h"
#include "SourceIndex.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include <map>
#include <optional>
#include <utility>

namespace pallas::analysis {

namespace {

RewriteResult rewriteIn(const std::string& path, std::string_view text, dialect::InlineMgpuOp op) {
  RewriteResult r = detail::rewriteInlineMgpuOp(op, text);
  // Locations name the document as the module does; keep the caller's spelling.
  if (r.fix)
    for (TextEdit& e : r.fix->edits)
      e.path = path;
  if (!r.blocker.empty())
    r.blockerLoc.path = path;
  return r;
}

// Every position's rewrite, reading the module once (under the Project's
// lock: the ops stay valid for the whole call, and the indexes with them).
std::vector<RewriteResult> computeAll(const Project& project, const std::string& path,
                                      const std::vector<SourcePos>& positions) {
  std::vector<RewriteResult> out(positions.size());
  if (!project.hasDocument(path))
    return out;
  project.withModule(path, [&](mlir::ModuleOp module, std::string_view text) {
    std::shared_ptr<const rewrite::SourceIndex> index = rewrite::SourceIndex::of(text);
    rewrite::InlineMgpuDefs defs(module, *index);
    std::optional<rewrite::InlineMgpuCalls> calls;
    std::map<std::string, std::optional<rewrite::InlineMgpuCalls>> otherCalls;
    for (size_t i = 0; i < positions.size(); ++i) {
      SourcePos regionPos = positions[i];
      RewriteResult& r = out[i];
      try {
        // A position in the decorated def (the hover), or the call a PLS001
        // finding points at.
        if (dialect::InlineMgpuOp op = defs.innermostAt(regionPos)) {
          r = rewriteIn(path, text, op);
          continue;
        }
        if (!calls)
          calls.emplace(module);
        detail::CalledInlineMgpu called = calls->at(regionPos);
        if (called.op) {
          r = rewriteIn(path, text, called.op);
          continue;
        }
        if (called.calleeFile.empty() || !project.hasDocument(called.calleeFile))
          continue;
        project.withModule(
            called.calleeFile, [&](mlir::ModuleOp other, std::string_view otherText) {
              std::optional<rewrite::InlineMgpuCalls>& c = otherCalls[called.calleeFile];
              if (!c)
                c.emplace(other);
              if (auto op = c->ofFunction(called.calleeSymbol))
                r = rewriteIn(called.calleeFile, otherText, op);
            });
      } catch (const std::exception&) {
        // Bad input never kills the server: no fix.
        r = RewriteResult{};
      }
    }
  });
  return out;
}

} // namespace

struct ProjectRewriter::Impl {
  const Project& project;
  std::map<std::pair<std::string, SourcePos>, RewriteResult> results;
};

ProjectRewriter::ProjectRewriter(const Project& project) : impl_(new Impl{project, {}}) {}
ProjectRewriter::~ProjectRewriter() = default;

RewriteResult ProjectRewriter::rewrite(const std::string& path, SourcePos regionPos) {
  return rewriteAll(path, {regionPos}).front();
}

std::vector<RewriteResult> ProjectRewriter::rewriteAll(const std::string& path,
                                                       const std::vector<SourcePos>& positions) {
  rewrite::SourceIndex::CacheScope scope; // the region lookups and translations share one parse
  std::vector<RewriteResult> out(positions.size());
  std::vector<SourcePos> todo;
  std::vector<size_t> slots;
  std::map<SourcePos, size_t> firstSlot;
  for (size_t i = 0; i < positions.size(); ++i) {
    auto key = std::make_pair(path, positions[i]);
    if (auto it = impl_->results.find(key); it != impl_->results.end()) {
      out[i] = it->second;
    } else if (firstSlot.emplace(positions[i], todo.size()).second) {
      todo.push_back(positions[i]);
    }
  }
  std::vector<RewriteResult> computed;
  try {
    computed = computeAll(impl_->project, path, todo);
  } catch (const std::exception&) {
    computed.assign(todo.size(), RewriteResult{});
  }
  for (size_t k = 0; k < todo.size(); ++k)
    impl_->results.emplace(std::make_pair(path, todo[k]), std::move(computed[k]));
  for (size_t i = 0; i < positions.size(); ++i)
    if (auto it = impl_->results.find({path, positions[i]}); it != impl_->results.end())
      out[i] = it->second;
  return out;
}

RewriteResult rewriteInlineMgpu(const Project& project, const std::string& path,
                                SourcePos regionPos) {
  return ProjectRewriter(project).rewrite(path, regionPos);
}

} // namespace pallas::analysis
