// What the user asked to see: rule selection (config and command line),
// per-file-ignores, severity overrides and suppression comments, applied to
// the analysis's findings for one file. `pallas-lsp check` and the LSP
// server's diagnostics both go through `applyPolicy`, so the editor and CI
// report the same findings:
//
//   ConfigResolver configs = ConfigResolver::discover();  // once
//   auto config = configs.forPath(file);                   // per document
//   auto shown = applyPolicy(project.findings(file), *config, {}, text, file);
#pragma once

#include "Config.h"
#include "Rules.h"
#include "pallas/analysis/Finding.h"

#include <filesystem>
#include <string_view>
#include <vector>

namespace pallas::check {

// Command-line rule options layered over the configuration.
struct SelectionOverrides {
  std::optional<std::vector<std::string>> select; // --select replaces `select`
  std::vector<std::string> ignore;                // --ignore adds to `ignore`
};

// The findings located in `file` (absolute path; `text` its contents, for
// the suppression comments) that pass the policy, with severities overridden.
// A finding whose code is not enabled, is ignored for this file, or is
// suppressed on its first line or file-wide is dropped.
std::vector<analysis::Finding> applyPolicy(std::vector<analysis::Finding> findings,
                                           const Config& config,
                                           const SelectionOverrides& overrides,
                                           std::string_view text,
                                           const std::filesystem::path& file);

// The rule selection: defaults, then the config, then the command line.
// (per-file-ignores are applied after it, by applyPolicy.)
RuleSelection selectionFor(const Config& config, const SelectionOverrides& overrides);

} // namespace pallas::check
