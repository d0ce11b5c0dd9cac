// The finding codes pallas-lsp reports (DESIGN.md's table), their metadata
// for SARIF and documentation links, and rule selection in ruff's manner
// (`select` / `ignore` with code prefixes, the most specific one wins).
#pragma once

#include "pallas/analysis/Finding.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

struct RuleInfo {
  std::string_view code;    // "PLS001"
  std::string_view name;    // "inline-mgpu-on-discharging-path" (kebab-case, like ruff)
  std::string_view summary; // one sentence
  analysis::Severity defaultSeverity;
};

const std::vector<RuleInfo>& knownRules();
const RuleInfo* findRule(std::string_view code);
// Link to the rule's page, docs/codes/<CODE>.md, in the project's repository.
std::string ruleDocsUri(std::string_view code);
// The project's home page (CMake cache variable PALLAS_LSP_HOMEPAGE).
std::string_view homepageUri();
std::string_view toolVersion();

// A code selector as written by the user: "ALL", a full code or a prefix of
// known codes ("PLS", "PLS00"). Returns an error message for anything else.
std::optional<std::string> validateSelector(std::string_view selector);
// Splits "PLS001,PLS002" (commas and/or spaces) into selectors.
std::vector<std::string> splitSelectors(std::string_view list);

// Rule selection as layers, applied in order (defaults, then the config
// file, then the command line). A layer with `select` replaces what earlier
// layers enabled; its `ignore` then removes codes. Within a layer the longest
// matching selector decides, and on a tie `ignore` wins ("select PLS,
// ignore PLS001" disables PLS001; "select PLS001, ignore PLS" keeps it).
struct SelectionLayer {
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
};

class RuleSelection {
public:
  void addLayer(SelectionLayer layer) { layers_.push_back(std::move(layer)); }
  bool enabled(std::string_view code) const;

private:
  std::vector<SelectionLayer> layers_;
};

} // namespace pallas::check
