#include "SkippedFile.h"

#include "pallas/analysis/Rules.h"
#include "pallas/support/AnalysisBudget.h"

namespace pallas::check {

std::optional<analysis::Finding> tooLargeToAnalyse(const std::string& path, std::string_view text) {
  std::optional<std::string> over = support::overAnalysisBudget(text);
  if (!over)
    return std::nullopt;
  analysis::Finding f;
  f.code = analysis::ruleCode(analysis::RuleId::TooLargeToAnalyse);
  f.severity = analysis::rule(analysis::RuleId::TooLargeToAnalyse).defaultSeverity;
  f.location = {path, {{0, 0}, {0, 0}}};
  // The first sentence is the headline editors and `--format text` show.
  f.message = "skipped: " + *over +
              ". Nothing in this file is checked; PALLAS_LSP_ANALYSIS_MAX_BYTES and "
              "PALLAS_LSP_ANALYSIS_MAX_TOKENS in the environment raise the budget.";
  return f;
}

} // namespace pallas::check
