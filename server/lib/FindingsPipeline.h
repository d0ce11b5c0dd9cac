// The one place the server turns a document into the findings the user sees:
//
//   Project::findings(path)  ->  attachFixes  ->  check::applyPolicy
//
// Push diagnostics, pull diagnostics (document and workspace) and code
// actions all call `findings()`, so a code action always acts on exactly the
// diagnostics the editor shows, and the editor shows exactly what
// `pallas-lsp check` reports for the same file: the same `[tool.pallas-lsp]`
// of the nearest pyproject.toml, the same `# pallas-lsp: ignore[...]`
// comments, the same severity overrides. The client's own `select`/`ignore`
// settings (section "pallas-lsp") layer over the configuration the way
// `check --select/--ignore` do.
#pragma once

#include "config/Policy.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::server {

class FindingsPipeline {
public:
  // The text of a file as the editor has it (draft, else Project/disk): the
  // suppression comments are read from it.
  using TextLookup = std::function<std::optional<std::string>(const std::string& path)>;
  // Where to say that a pyproject.toml could not be used (once per message).
  using Warn = std::function<void(const std::string& message)>;

  FindingsPipeline(const analysis::Project& project, TextLookup text, Warn warn);

  // The findings of `path` after fixes and policy, in analysis order.
  // Findings the analysis places in other files (a helper a kernel calls)
  // follow the configuration and the comments of the file they are in.
  std::vector<analysis::Finding> findings(const std::string& path) const;
  // The same, unless `stop` (asked between the analysis's passes and
  // launches) says a newer version made them stale: nullopt then.
  std::optional<std::vector<analysis::Finding>>
  findingsUnlessStopped(const std::string& path, const std::function<bool()>& stop) const;

  // A document's first diagnostics, in two steps that give what findings()
  // gives: `shown` are the findings after policy before their fixes are
  // attached (`fixes` empty: the rewrite is a third of opening a 10k-line
  // file; policy does not read fixes, so they are the same findings in the
  // same order), from a run that keys no launch results (Project::
  // LaunchResults::Skip: the keys are a quarter of the passes on a large
  // module); keepLaunchResults then keys and keeps that run's launch
  // results for the edits (adopting them: no launch is evaluated again),
  // and withFixes(path, analysed) attaches the fixes and applies policy.
  struct FirstFindings {
    std::vector<analysis::Finding> analysed; // before fixes and policy
    std::vector<analysis::Finding> shown;    // after policy, without fixes
  };
  std::optional<FirstFindings> firstFindings(const std::string& path,
                                             const std::function<bool()>& stop) const;
  std::vector<analysis::Finding> withFixes(const std::string& path,
                                           std::vector<analysis::Finding> analysed) const;
  // A run that keeps each launch's results (its findings are the same as
  // firstFindings'), so that the next edit re-evaluates only what it
  // touched. Right after firstFindings, with no edit between, it adopts
  // that run's results and costs only their keys. Stopped like any run by
  // a newer edit, whose run keeps them.
  void keepLaunchResults(const std::string& path, const std::function<bool()>& stop) const;

  // Client settings: `select` / `ignore` (arrays of codes or prefixes) at the
  // top level or under "pallas-lsp" / "pallasLsp". A missing key keeps the
  // current value. Returns whether the selection changed.
  bool applySettings(const nlohmann::json& settings);

  check::SelectionOverrides selection() const;

  // Records a document's text as given to the server: one over the analysis
  // budget (pallas/support/AnalysisBudget.h) is not analysed (the caller
  // gives the Project an empty text for it), and its findings are PLS010's
  // "skipped: too large to analyse" alone. Returns whether it is over.
  bool noteDocumentText(const std::string& path, std::string_view text);

  // Lets go of what is kept for a document (didClose).
  void forget(const std::string& path);

private:
  // Run suggestions run the entry the run lenses run, or go (see the .cpp).
  void runWhatTheLensesRun(std::vector<analysis::Finding>& findings) const;
  // Configuration, `# pallas-lsp: ignore` comments and the client's
  // selection, per file the findings are in.
  std::vector<analysis::Finding> applyPolicies(std::vector<analysis::Finding> all) const;

  const analysis::Project& project_;
  TextLookup text_;
  Warn warn_;
  mutable std::mutex mutex_;
  check::SelectionOverrides overrides_;
  mutable std::set<std::string> warned_;
  // Fixes of earlier versions, reused for findings whose code did not change.
  mutable analysis::FixCache fixCache_;
  // Documents over the analysis budget: their one finding (under mutex_).
  std::map<std::string, analysis::Finding> tooLarge_;
  std::optional<analysis::Finding> tooLargeFinding(const std::string& path) const;
};

} // namespace pallas::server
