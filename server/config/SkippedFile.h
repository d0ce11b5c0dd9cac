// The finding for a file the analysis did not take on because it is over
// the analysis budget (PLS010, pallas/support/AnalysisBudget.h). `check` and
// the server report it alike, and the policy (select, ignore,
// per-file-ignores, suppressions) applies to it as to any finding.
#pragma once

#include "pallas/analysis/Finding.h"

#include <optional>
#include <string>
#include <string_view>

namespace pallas::check {

// The finding when `text` (the file at `path`) is over the budget.
std::optional<analysis::Finding> tooLargeToAnalyse(const std::string& path, std::string_view text);

} // namespace pallas::check
