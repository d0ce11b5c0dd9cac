// Fixes for findings, as the server and the CLI ask for them (issue 5).
// No MLIR or tree-sitter types here: the server includes this header.
//
//  * rewriteInlineMgpu: "Rewrite with standard Pallas primitives" for the
//    `plgpu.inline_mgpu` region at a position, or the operation that
//    prevents it (for the hover: "not rewritable: uses ctx.async_copy (TMA)
//    at line N").
//  * the path quick fixes of docs/fixes.md: run compiled, GPU interpret
//    mode, run on GPU now, ignore here.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Project.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::analysis {

struct RewriteResult {
  std::optional<Fix> fix; // set when the region can be rewritten
  // Otherwise: what prevents it ("ctx.async_copy (TMA)") and where.
  std::string blocker;
  SourceLocation blockerLoc;
  // "not rewritable: uses ctx.async_copy (TMA) at line 12" (1-based line),
  // or "" when rewritable / when no region is at the position.
  std::string hoverText() const;
};

// The inline_mgpu region whose decorated def (or body) contains `regionPos`
// in the document `path` of `project`. No region there: no fix, empty
// blocker. Never throws on bad input.
RewriteResult rewriteInlineMgpu(const Project& project, const std::string& path,
                                SourcePos regionPos);

// The same for many positions (attachFixes): each position is rewritten
// once. Holds a reference to the Project; use it within one request.
class ProjectRewriter {
public:
  explicit ProjectRewriter(const Project& project);
  ~ProjectRewriter();
  ProjectRewriter(const ProjectRewriter&) = delete;
  ProjectRewriter& operator=(const ProjectRewriter&) = delete;
  RewriteResult rewrite(const std::string& path, SourcePos regionPos);
  // The same for every position at once, in order: the module is read once
  // and its inline_mgpu ops are indexed once, so the cost is the module's
  // size plus the positions', not their product.
  std::vector<RewriteResult> rewriteAll(const std::string& path,
                                        const std::vector<SourcePos>& regionPositions);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- path quick fixes (text level, over the document's syntax) ------------

// "Run this kernel compiled": removes `interpret=...` (with its comma) from
// the launch call at `launchPos` (a pallas_call / plgpu.kernel call, or the
// decorator `functools.partial(pl.pallas_call, ..., interpret=...)`).
// Unsafe: the kernel then needs a GPU. nullopt when there is no such keyword.
std::optional<Fix> runCompiledFix(std::string_view text, const std::string& path,
                                  SourcePos launchPos);

// "Use GPU interpret mode": `interpret=InterpretGPUParams()` plus the import
// when missing. The caller decides whether GPU interpret mode supports
// everything the kernel reaches for the user's JAX (the knowledge table);
// call this only when it does. Unsafe (a different interpreter runs).
std::optional<Fix> gpuInterpretFix(std::string_view text, const std::string& path,
                                   SourcePos launchPos);

// "Run on GPU now": the editor command `pallas.run` with
// {uri, entry, mode: "compiled"}. `entry` is the module-level function that
// contains `launchPos` (nullopt at module level). Display-only: a command,
// never applied by fix-all or `check --fix`.
std::optional<Fix> runOnGpuFix(std::string_view text, const std::string& path, SourcePos launchPos);

// "Ignore this finding here": appends `  # pallas-lsp: ignore[CODE]` to the
// line, or adds CODE to an ignore comment already there. Display-only, like
// ruff's noqa action: it silences, it does not fix, so fix-all and
// `check --fix` never apply it.
std::optional<Fix> ignoreFix(std::string_view text, const std::string& path, uint32_t line,
                             const std::string& code);

// Every path quick fix that applies to a PLS001/PLS002 finding, in the order
// the editor should list them. "Use GPU interpret mode" only when the
// analysis found that GPU interpret mode runs everything the finding's launch
// reaches (Finding::gpuInterpretRunsLaunch).
std::vector<Fix> pathFixes(std::string_view text, const Finding& finding);

// What the server and `check` call after Project::findings(path): adds the
// fixes of docs/fixes.md to the findings, once (a fix whose title is already
// there is not added again). PLS001: the rewrite first (when rewritable),
// then the path quick fixes; PLS002: the path quick fixes; every code: the
// ignore comment.
void attachFixes(const Project& project, const std::string& path, std::vector<Finding>& findings);

// Fixes computed for earlier versions of documents, reused when nothing they
// were computed from changed (the server keeps one; an edit then pays only
// for the findings whose code it touched). A finding's fixes are reused when
// the finding is the same (code, message, ranges, launch, path facts), the
// top-level statements holding the finding, its launch and every edit of
// its fixes have the same text at the same place, and so do all module-level
// statements that are not function definitions (imports, constants, classes:
// what names in a region resolve to). Fixes that edit another file are not
// kept. Thread-safe.
class FixCache {
public:
  FixCache();
  ~FixCache();
  FixCache(const FixCache&) = delete;
  FixCache& operator=(const FixCache&) = delete;
  // Lets go of what was kept for `path` (didClose).
  void forget(const std::string& path);
  void clear();

private:
  friend void attachFixes(const Project&, const std::string&, std::vector<Finding>&, FixCache*);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
void attachFixes(const Project& project, const std::string& path, std::vector<Finding>& findings,
                 FixCache* cache);

// A file:// URI for an absolute path (percent-encoding what RFC 3986 needs).
std::string fileUri(const std::string& path);

} // namespace pallas::analysis
