#include "Policy.h"

#include "Suppression.h"

namespace pallas::check {

RuleSelection selectionFor(const Config& config, const SelectionOverrides& overrides) {
  RuleSelection selection;
  selection.addLayer({config.select, config.ignore});
  if (overrides.select || !overrides.ignore.empty())
    selection.addLayer({overrides.select, overrides.ignore});
  return selection;
}

std::vector<analysis::Finding> applyPolicy(std::vector<analysis::Finding> findings,
                                           const Config& config,
                                           const SelectionOverrides& overrides,
                                           std::string_view text,
                                           const std::filesystem::path& file) {
  RuleSelection selection = selectionFor(config, overrides);
  // per-file-ignores win over everything, --select included (as in ruff).
  SuppressionDirective perFile;
  perFile.codes = config.ignoredFor(file);
  Suppressions suppressions = Suppressions::parse(text);
  std::vector<analysis::Finding> kept;
  kept.reserve(findings.size());
  for (analysis::Finding& f : findings) {
    if (!selection.enabled(f.code) || perFile.covers(f.code))
      continue;
    if (suppressions.suppresses(f.code, f.location.range.start.line))
      continue;
    if (auto severity = config.severityFor(f.code))
      f.severity = *severity;
    kept.push_back(std::move(f));
  }
  return kept;
}

} // namespace pallas::check
