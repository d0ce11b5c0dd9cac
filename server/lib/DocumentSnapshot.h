// What an analysis of one document version left for the readers: an
// immutable snapshot (clangd's PreambleData / ParsedAST split, in small).
//
// The document's worker (DocumentScheduler) builds a new snapshot when an
// analysis of a version completes and swaps it into the SnapshotStore; hover,
// code actions and pull diagnostics read the newest one without the
// Project's lock, so they never wait behind an analysis of another document
// or of an older version. A snapshot is never changed after it is stored:
// a reader keeps its shared_ptr for as long as it answers from it, while a
// newer one replaces it in the store.
#pragma once

#include "InlineRegions.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/support/LineIndex.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pallas::server {

// What the hover reads besides the findings. The API call sites and region
// extents are computed once per version after the diagnostics went out (one
// walk of the module). The path matrices and region rewrites cost seconds on
// a 10k-line module, and a hover needs one of each: they are computed on the
// first hover that needs them and kept for the version (`Memo`), the only
// part of a snapshot that fills in after it is stored.
struct HoverFacts {
  std::vector<analysis::ApiAt> apis; // every API call site
  struct Region {                    // each plgpu.inline_mgpu region
    analysis::SourceRange extent;    // the decorator to the body's last line
    analysis::SourcePos decorator;   // where the rewrite looks the region up
    InlineRegionSpots spots;         // its decorator, name and calls
  };
  std::vector<Region> regions;
  std::string knowledgePath; // the table the passes decided from ("": bundled)
  // The innermost region whose extent contains `pos`; nullptr when none.
  const Region* regionAt(analysis::SourcePos pos) const;
  // The region whose decorator, name or call is at `pos` (the hover answers
  // there, not inside the body); nullptr when none.
  const Region* regionSpelledAt(analysis::SourcePos pos) const;

  // Computed at most once per version, by whichever hover asks first.
  class Memo {
  public:
    const std::vector<analysis::LaunchPaths>&
    launches(const std::function<std::vector<analysis::LaunchPaths>()>& compute);
    analysis::RewriteResult rewrite(analysis::SourcePos decorator,
                                    const std::function<analysis::RewriteResult()>& compute);

  private:
    std::mutex mutex_;
    std::optional<std::vector<analysis::LaunchPaths>> launches_;
    std::map<analysis::SourcePos, analysis::RewriteResult> rewrites_;
  };
  std::shared_ptr<Memo> memo = std::make_shared<Memo>();
};

// The printed MLIR module of one analysed version (`pallas/mlir`). Printing a
// 10k-line module costs about as much as analysing it, too much for every
// keystroke when the module is asked for once in a while (Show MLIR): the
// first request for a version prints it (under the Project's lock) and every
// later one for that version answers from here without the lock.
class MlirText {
public:
  std::shared_ptr<const std::string> get() const;
  // Keeps the first text put for the version; returns the kept one.
  std::shared_ptr<const std::string> put(std::shared_ptr<const std::string> text);

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const std::string> text_;
};

struct DocumentSnapshot {
  std::string path;
  int64_t version = 0;   // the client's version of `text`
  uint64_t analysis = 0; // which scheduled analysis built it (increasing per server)
  std::string text;      // the draft the analysis ran on
  // After policy; with their fixes when `withFixes` (a document's first
  // diagnostics go out before its fixes are computed).
  // Shared, never null: a run stores its snapshot up to three times and each
  // store copied 1,600 findings with their fixes (a tenth of an edit's CPU).
  std::shared_ptr<const std::vector<analysis::Finding>> findings =
      std::make_shared<const std::vector<analysis::Finding>>();
  bool withFixes = false;
  std::shared_ptr<const HoverFacts> hover; // null until computed
  // The update the analysis ran on (`pallas/mlir` reports its counts).
  analysis::UpdateStats stats;
  // Shared by the stores of one run (they are of the same version).
  std::shared_ptr<MlirText> mlir = std::make_shared<MlirText>();
};
using SnapshotPtr = std::shared_ptr<const DocumentSnapshot>;

// The newest snapshot of each open document. Thread-safe; the lock is held
// only to swap or copy a shared_ptr.
class SnapshotStore {
public:
  // Stores `s` unless the store has one from a later analysis (a stopped
  // run that finished late never replaces a newer answer).
  void put(SnapshotPtr s);
  SnapshotPtr get(const std::string& path) const;
  // Waits until the snapshot of `path` is no longer `seen` (or `timeout`).
  void waitForChange(const std::string& path, const SnapshotPtr& seen,
                     std::chrono::milliseconds timeout) const;
  // didClose: the snapshot goes (with the findings, text and hover facts).
  void forget(const std::string& path);
  size_t size() const;

private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, SnapshotPtr> byPath_;
};

// The extent of the `plgpu.inline_mgpu` region decorated at `decorator`:
// from the decorator to the last line indented deeper than it (the nested
// def's body). Text only: the hover maps a position to its region with it.
analysis::SourceRange inlineRegionExtent(const std::string& text, analysis::SourcePos decorator);
// The same over the text's line index, made once for every region of a
// document (one per region made the hover facts regions x file size).
analysis::SourceRange inlineRegionExtent(const support::LineIndex& lines,
                                         analysis::SourcePos decorator);

} // namespace pallas::server
