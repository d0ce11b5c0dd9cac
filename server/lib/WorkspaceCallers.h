// Which files of the workspace call into which module: the language
// server's index of callers in files the editor never opened.
//
// A launch whose `interpret=` (or kernel) is a parameter of the function
// around it runs with what each caller passes (docs/analysis.md 8.15, 8.23),
// and a script or a test that passes `interpret=True` is rarely the file the
// user has open. `pallas-lsp check` sees every file of its run; the editor
// sees only open documents. This index says, for an open document, which
// workspace files import it and may choose its launches' paths, so the
// server reads them from disk into the Project (never as open documents)
// before analysing it (docs/analysis.md 8.34).
//
// It reads imports the way `check` does (analysis/ImportScan.h: textual,
// the analysis' own module rule) and is cheap to keep: built once off the
// message queue, then updated one file at a time when a file is saved,
// opened or changed on disk, never per keystroke.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::server {

class WorkspaceCallers {
public:
  explicit WorkspaceCallers(std::vector<std::string> roots);

  // Reads every Python file under the roots once (a background task).
  // Files updated meanwhile keep their update. Returns the number of files
  // that may call into another; stops early, keeping nothing, on `cancel`.
  size_t build(const std::atomic<bool>& cancel);
  bool built() const;

  // `path` now has `text` (saved, opened, or changed on disk), or is gone
  // (nullopt). Returns the files it imported before or imports now: their
  // launches may have a new caller, or lost one.
  std::vector<std::string> update(const std::string& path, std::optional<std::string_view> text);

  // The workspace files that import `path` and may choose the paths of its
  // launches (pass `interpret=` or a kernel), `path` itself left out.
  std::vector<std::string> callersOf(const std::string& path) const;

private:
  // The files `text` imports when it may choose a launch's path; none else.
  std::vector<std::string> callerImports(const std::string& path, std::string_view text) const;
  void setLocked(const std::string& path, std::vector<std::string> imports);

  std::vector<std::string> roots_;
  mutable std::mutex mutex_;
  bool built_ = false;
  bool building_ = false;
  std::set<std::string> updatedWhileBuilding_;
  std::map<std::string, std::vector<std::string>> imports_; // caller -> files it imports
  std::map<std::string, std::set<std::string>> callers_;    // imported file -> its callers
};

} // namespace pallas::server
