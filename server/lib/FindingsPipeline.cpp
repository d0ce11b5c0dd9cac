#include "FindingsPipeline.h"

#include "RunnerEntries.h"
#include "config/Config.h"
#include "config/SkippedFile.h"
#include "pallas/analysis/Rewrite.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

namespace pallas::server {

namespace fs = std::filesystem;
using nlohmann::json;

FindingsPipeline::FindingsPipeline(const analysis::Project& project, TextLookup text, Warn warn)
    : project_(project), text_(std::move(text)), warn_(std::move(warn)) {}

std::vector<analysis::Finding> FindingsPipeline::findings(const std::string& path) const {
  return *findingsUnlessStopped(path, nullptr);
}

bool FindingsPipeline::noteDocumentText(const std::string& path, std::string_view text) {
  std::optional<analysis::Finding> finding = check::tooLargeToAnalyse(path, text);
  std::lock_guard lock(mutex_);
  if (finding)
    tooLarge_[path] = std::move(*finding);
  else
    tooLarge_.erase(path);
  return finding.has_value();
}

void FindingsPipeline::forget(const std::string& path) {
  fixCache_.forget(path);
  std::lock_guard lock(mutex_);
  tooLarge_.erase(path);
}

std::optional<analysis::Finding> FindingsPipeline::tooLargeFinding(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = tooLarge_.find(path);
  if (it == tooLarge_.end())
    return std::nullopt;
  return it->second;
}

std::optional<std::vector<analysis::Finding>>
FindingsPipeline::findingsUnlessStopped(const std::string& path,
                                        const std::function<bool()>& stop) const {
  if (auto tooLarge = tooLargeFinding(path))
    return applyPolicies({std::move(*tooLarge)});
  std::optional<std::vector<analysis::Finding>> analysed =
      project_.findingsUnlessStopped(path, stop);
  if (!analysed)
    return std::nullopt;
  std::vector<analysis::Finding> all = std::move(*analysed);
  // GPU interpret mode is never offered until the knowledge table can say,
  // per kernel, that it runs everything the kernel reaches (docs/fixes.md).
  analysis::attachFixes(project_, path, all, &fixCache_);
  runWhatTheLensesRun(all);
  return applyPolicies(std::move(all));
}

std::optional<FindingsPipeline::FirstFindings>
FindingsPipeline::firstFindings(const std::string& path, const std::function<bool()>& stop) const {
  if (auto tooLarge = tooLargeFinding(path)) {
    FirstFindings out;
    out.analysed = {std::move(*tooLarge)};
    out.shown = applyPolicies(out.analysed);
    return out;
  }
  std::optional<std::vector<analysis::Finding>> analysed =
      project_.findingsUnlessStopped(path, stop, analysis::Project::LaunchResults::Skip);
  if (!analysed)
    return std::nullopt;
  FirstFindings out;
  out.analysed = std::move(*analysed);
  out.shown = applyPolicies(out.analysed);
  return out;
}

std::vector<analysis::Finding>
FindingsPipeline::withFixes(const std::string& path,
                            std::vector<analysis::Finding> analysed) const {
  analysis::attachFixes(project_, path, analysed, &fixCache_);
  runWhatTheLensesRun(analysed);
  return applyPolicies(std::move(analysed));
}

void FindingsPipeline::runWhatTheLensesRun(std::vector<analysis::Finding>& findings) const {
  // "Run on GPU now" names the function around the launch, which may take
  // arguments (the runner then fails with EntryTakesArguments, issue 35):
  // it runs what the run lenses run instead (RunnerEntries.h), the function
  // itself or the entry that calls it ("via main"), and is dropped where no
  // entry runs it. Code actions and the diagnostics' data agree.
  std::map<std::string, std::vector<runner::RunTarget>> targets; // per file
  for (analysis::Finding& f : findings) {
    std::vector<analysis::Fix> kept;
    for (analysis::Fix& fix : f.fixes) {
      if (fix.run) {
        auto [it, fresh] = targets.try_emplace(fix.run->path);
        if (fresh && text_)
          if (std::optional<std::string> text = text_(fix.run->path))
            it->second = runner::findRunTargets(*text);
        const std::string function = fix.run->entry;
        auto target =
            std::find_if(it->second.begin(), it->second.end(),
                         [&](const runner::RunTarget& t) { return t.function == function; });
        if (target == it->second.end())
          continue;
        if (target->entry != function) {
          fix.run->entry = target->entry;
          if (size_t at = fix.title.find("(" + function + ","); at != std::string::npos)
            fix.title.replace(at + 1, function.size(), target->entry);
        }
      }
      kept.push_back(std::move(fix));
    }
    f.fixes = std::move(kept);
  }
}

void FindingsPipeline::keepLaunchResults(const std::string& path,
                                         const std::function<bool()>& stop) const {
  (void)project_.findingsUnlessStopped(path, stop, analysis::Project::LaunchResults::Keep);
}

std::vector<analysis::Finding>
FindingsPipeline::applyPolicies(std::vector<analysis::Finding> all) const {
  // Resolved per call, not cached: an edit to pyproject.toml then shows at
  // the next analysis without a watcher, and the lookup is a few stats and
  // one small file read per folder.
  check::ConfigResolver configs = check::ConfigResolver::discover();
  check::SelectionOverrides overrides = selection();

  std::map<std::string, std::vector<analysis::Finding>> byFile;
  std::vector<std::string> order; // files in first-seen order
  for (analysis::Finding& f : all) {
    auto [it, inserted] = byFile.try_emplace(f.location.path);
    if (inserted)
      order.push_back(f.location.path);
    it->second.push_back(std::move(f));
  }
  std::vector<analysis::Finding> kept;
  for (const std::string& file : order) {
    std::shared_ptr<const check::Config> config;
    try {
      config = configs.forPath(fs::path(file));
    } catch (const check::ConfigError& e) {
      // A broken pyproject.toml must not hide every diagnostic: say so and
      // use the defaults, as the user would expect from an editor.
      {
        std::lock_guard lock(mutex_);
        if (warned_.insert(e.what()).second && warn_)
          warn_(std::string(e.what()) + " (using the default pallas-lsp settings)");
      }
      config = std::make_shared<const check::Config>();
    }
    std::string text = text_ ? text_(file).value_or(std::string()) : std::string();
    for (analysis::Finding& f :
         check::applyPolicy(std::move(byFile[file]), *config, overrides, text, fs::path(file)))
      kept.push_back(std::move(f));
  }
  return kept;
}

namespace {

// An array of strings, or nullopt when `value` is not one.
std::optional<std::vector<std::string>> strings(const json& value) {
  if (!value.is_array())
    return std::nullopt;
  std::vector<std::string> out;
  for (const json& v : value) {
    if (!v.is_string())
      return std::nullopt;
    out.push_back(v.get<std::string>());
  }
  return out;
}

const json* section(const json& settings) {
  if (!settings.is_object())
    return nullptr;
  for (const char* key : {"pallas-lsp", "pallasLsp"})
    if (auto it = settings.find(key); it != settings.end() && it->is_object())
      return &*it;
  return &settings;
}

} // namespace

bool FindingsPipeline::applySettings(const json& settings) {
  const json* s = section(settings);
  if (!s)
    return false;
  std::lock_guard lock(mutex_);
  check::SelectionOverrides next = overrides_;
  if (auto it = s->find("select"); it != s->end()) {
    // Both editors send `select: []` by default, documented as "all codes":
    // an empty selection means no override, never "report nothing".
    if (it->is_null() || (it->is_array() && it->empty()))
      next.select.reset();
    else if (auto v = strings(*it))
      next.select = std::move(*v);
  }
  if (auto it = s->find("ignore"); it != s->end()) {
    if (it->is_null())
      next.ignore.clear();
    else if (auto v = strings(*it))
      next.ignore = std::move(*v);
  }
  bool changed = next.select != overrides_.select || next.ignore != overrides_.ignore;
  overrides_ = std::move(next);
  return changed;
}

check::SelectionOverrides FindingsPipeline::selection() const {
  std::lock_guard lock(mutex_);
  return overrides_;
}

} // namespace pallas::server
