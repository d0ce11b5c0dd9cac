// attachFixes: the one call the server and `check` make to get the fixes of
// docs/fixes.md onto a document's findings.
#include "PathFixesImpl.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/Rules.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

namespace pallas::analysis {

namespace {

void addOnce(Finding& f, Fix fix) {
  bool present = std::any_of(f.fixes.begin(), f.fixes.end(),
                             [&](const Fix& g) { return g.title == fix.title; });
  if (!present)
    f.fixes.push_back(std::move(fix));
}

} // namespace

// ---- FixCache ------------------------------------------------------------

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
}
uint64_t hashOf(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}
uint64_t mix(uint64_t h, std::string_view s) {
  return mix(h, hashOf(s));
}
uint64_t mix(uint64_t h, const SourceLocation& l) {
  h = mix(h, l.path);
  for (uint32_t v :
       {l.range.start.line, l.range.start.column, l.range.end.line, l.range.end.column})
    h = mix(h, v);
  return h;
}

// What a finding's fixes are computed from, besides its own fields: the
// top-level statements at the finding, its launch and each edit.
// Where it starts as a (row, column): fixes are positioned by lines, so an
// edit earlier on another line does not move it.
struct Statement {
  uint32_t row = 0, column = 0;
  uint64_t textHash = 0;
  friend bool operator==(const Statement&, const Statement&) = default;
};

// The syntax of one request, hashed lazily per top-level statement.
class StatementHashes {
public:
  explicit StatementHashes(const rewrite::SourceIndex& src) : src_(src) {}
  // The top-level statement holding `p` (none: start 0, hash 0).
  Statement at(SourcePos p) {
    size_t o = src_.offset(p);
    const std::vector<TSNode>& top = src_.topLevel();
    auto it = std::partition_point(top.begin(), top.end(),
                                   [&](TSNode n) { return ts_node_end_byte(n) <= o; });
    if (o == std::string::npos || it == top.end() || ts_node_start_byte(*it) > o)
      return {};
    size_t i = static_cast<size_t>(it - top.begin());
    auto [c, inserted] = cache_.try_emplace(i);
    if (inserted) {
      TSPoint s = ts_node_start_point(*it);
      c->second = {s.row, s.column, hashOf(src_.textOf(*it))};
    }
    return c->second;
  }
  // Every module-level statement that is not a function definition, with
  // where it is (imports, constants, classes: what a region's names mean).
  uint64_t moduleLevel() {
    if (!module_) {
      uint64_t h = 0;
      for (TSNode n : src_.topLevel()) {
        std::string_view t = rewrite::typeOf(n);
        if (t == "function_definition")
          continue;
        if (t == "decorated_definition" &&
            rewrite::typeOf(rewrite::fieldOf(n, "definition")) == "function_definition")
          continue;
        h = mix(mix(h, ts_node_start_point(n).row), src_.textOf(n));
      }
      module_ = h;
    }
    return *module_;
  }

private:
  const rewrite::SourceIndex& src_;
  std::map<size_t, Statement> cache_;
  std::optional<uint64_t> module_;
};

uint64_t findingKey(const Finding& f) {
  uint64_t h = mix(mix(mix(0, f.code), f.message), static_cast<uint64_t>(f.severity));
  h = mix(h, f.location);
  if (f.launch)
    h = mix(h, *f.launch);
  if (f.selectedAt) // the path fixes edit it
    h = mix(h, *f.selectedAt);
  h = mix(mix(h, f.executionPath), static_cast<uint64_t>(f.gpuInterpretRunsLaunch));
  for (const std::string& c : f.callChain)
    h = mix(h, c);
  for (const RelatedInfo& r : f.related)
    h = mix(mix(h, r.location), r.message);
  return h;
}

} // namespace

struct FixCache::Impl {
  struct Entry {
    uint64_t moduleLevel = 0;
    std::vector<std::pair<SourcePos, Statement>> statements; // each must still be there
    std::vector<Fix> fixes;
  };
  std::mutex mutex;
  std::map<std::string, std::map<uint64_t, Entry>> byPath;
  static constexpr size_t kMaxPerPath = 20000;
};

FixCache::FixCache() : impl_(std::make_unique<Impl>()) {}
FixCache::~FixCache() = default;
void FixCache::forget(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  impl_->byPath.erase(path);
}
void FixCache::clear() {
  std::lock_guard lock(impl_->mutex);
  impl_->byPath.clear();
}

void attachFixes(const Project& project, const std::string& path, std::vector<Finding>& findings) {
  attachFixes(project, path, findings, nullptr);
}

void attachFixes(const Project& project, const std::string& path, std::vector<Finding>& findings,
                 FixCache* cache) {
  if (findings.empty() || !project.hasDocument(path))
    return;
  bool any = std::any_of(findings.begin(), findings.end(),
                         [&](const Finding& f) { return f.location.path == path; });
  if (!any)
    return;
  // One syntax tree for every finding: the Project's own (no second parse).
  rewrite::SourceIndex::CacheScope scope;
  std::shared_ptr<const rewrite::SourceIndex> index;
  project.withSyntax(path, [&](TSTree* tree, std::string_view text) {
    index = std::make_shared<const rewrite::SourceIndex>(text, tree);
  });
  if (!index)
    return;
  rewrite::SourceIndex::remember(index); // the rewrite's own lookups find it
  const rewrite::SourceIndex& src = *index;
  StatementHashes statements(src);

  // Reuse what an earlier version computed when nothing it read changed.
  std::vector<std::optional<std::vector<Fix>>> reused(findings.size());
  std::vector<uint64_t> keys(findings.size(), 0);
  if (cache) {
    std::lock_guard lock(cache->impl_->mutex);
    auto& kept = cache->impl_->byPath[path];
    for (size_t i = 0; i < findings.size(); ++i) {
      if (findings[i].location.path != path)
        continue;
      keys[i] = findingKey(findings[i]);
      auto it = kept.find(keys[i]);
      if (it == kept.end() || it->second.moduleLevel != statements.moduleLevel())
        continue;
      bool same = std::all_of(it->second.statements.begin(), it->second.statements.end(),
                              [&](const auto& s) { return statements.at(s.first) == s.second; });
      if (same)
        reused[i] = it->second.fixes;
    }
  }

  // Every PLS001 rewrite in one pass over the module (per finding, it was a
  // walk of the whole module each: findings x file size).
  std::vector<SourcePos> regionPositions;
  for (size_t i = 0; i < findings.size(); ++i)
    if (findings[i].location.path == path &&
        findings[i].code == rule(RuleId::InlineMgpuOnPath).code && !reused[i])
      regionPositions.push_back(findings[i].location.range.start);
  std::vector<RewriteResult> rewrites;
  if (!regionPositions.empty())
    rewrites = ProjectRewriter(project).rewriteAll(path, regionPositions);
  size_t next = 0;
  std::vector<std::pair<size_t, std::vector<Fix>>> computed;
  for (size_t i = 0; i < findings.size(); ++i) {
    Finding& f = findings[i];
    if (f.location.path != path)
      continue; // findings of other documents are theirs to fix
    if (reused[i]) {
      for (Fix& fix : *reused[i])
        addOnce(f, std::move(fix));
      continue;
    }
    std::vector<Fix> made;
    if (f.code == rule(RuleId::InlineMgpuOnPath).code) {
      RewriteResult& r = rewrites[next++];
      if (r.fix)
        made.push_back(std::move(*r.fix));
    }
    if (f.code == rule(RuleId::InlineMgpuOnPath).code ||
        f.code == rule(RuleId::PrimitiveOnPath).code) {
      for (Fix& fix : rewrite::pathFixes(src, f))
        made.push_back(std::move(fix));
    } else if (auto fix = rewrite::ignoreFix(src, path, f.location.range.start.line, f.code)) {
      made.push_back(std::move(*fix));
    }
    if (cache)
      computed.emplace_back(i, made);
    for (Fix& fix : made)
      addOnce(f, std::move(fix));
  }

  if (cache && !computed.empty()) {
    std::lock_guard lock(cache->impl_->mutex);
    auto& kept = cache->impl_->byPath[path];
    if (kept.size() > FixCache::Impl::kMaxPerPath)
      kept.clear();
    for (auto& [i, fixes] : computed) {
      const Finding& f = findings[i];
      FixCache::Impl::Entry e;
      e.moduleLevel = statements.moduleLevel();
      std::vector<SourcePos> read{f.location.range.start, f.location.range.end};
      if (f.launch && f.launch->path == path)
        read.push_back(f.launch->range.start);
      if (f.selectedAt && f.selectedAt->path == path)
        read.push_back(f.selectedAt->range.start);
      bool local = true;
      for (const Fix& fix : fixes)
        for (const TextEdit& edit : fix.edits) {
          local = local && edit.path == path;
          read.push_back(edit.range.start);
          read.push_back(edit.range.end);
        }
      if (!local)
        continue; // another file's text is not tracked here
      for (SourcePos p : read)
        e.statements.emplace_back(p, statements.at(p));
      e.fixes = std::move(fixes);
      kept[keys[i]] = std::move(e);
    }
  }
}

} // namespace pallas::analysis
