// attachFixes: the one call the server and `check` make to get the fixes of
// docs/fixes.md onto a document's findings.
#include "pallas/analysis/Rewrite.h"

#include "PathFixesImpl.h"

#include <algorithm>

namespace pallas::analysis {

namespace {

void addOnce(Finding& f, Fix fix) {
  bool present = std::any_of(f.fixes.begin(), f.fixes.end(),
                             [&](const Fix& g) { return g.title == fix.title; });
  if (!present) f.fixes.push_back(std::move(fix));
}

} // namespace

void attachFixes(const Project& project, const std::string& path, std::vector<Finding>& findings) {
  if (findings.empty() || !project.hasDocument(path)) return;
  bool any = std::any_of(findings.begin(), findings.end(),
                         [&](const Finding& f) { return f.location.path == path; });
  if (!any) return;
  // One syntax tree for every finding: the Project's own (no second parse).
  rewrite::SourceIndex::CacheScope scope;
  std::shared_ptr<const rewrite::SourceIndex> index;
  project.withSyntax(path, [&](TSTree* tree, std::string_view text) {
    index = std::make_shared<const rewrite::SourceIndex>(text, tree);
  });
  if (!index) return;
  rewrite::SourceIndex::remember(index); // the rewrite's own lookups find it
  const rewrite::SourceIndex& src = *index;
  // Every PLS001 rewrite in one pass over the module (per finding, it was a
  // walk of the whole module each: findings x file size).
  std::vector<SourcePos> regionPositions;
  for (const Finding& f : findings)
    if (f.location.path == path && f.code == "PLS001") regionPositions.push_back(f.location.range.start);
  std::vector<RewriteResult> rewrites = ProjectRewriter(project).rewriteAll(path, regionPositions);
  size_t next = 0;
  for (Finding& f : findings) {
    if (f.location.path != path) continue; // findings of other documents are theirs to fix
    if (f.code == "PLS001") {
      RewriteResult& r = rewrites[next++];
      if (r.fix) addOnce(f, std::move(*r.fix));
    }
    if (f.code == "PLS001" || f.code == "PLS002") {
      for (Fix& fix : rewrite::pathFixes(src, f)) addOnce(f, std::move(fix));
    } else if (auto fix = rewrite::ignoreFix(src, path, f.location.range.start.line, f.code)) {
      addOnce(f, std::move(*fix));
    }
  }
}

} // namespace pallas::analysis
