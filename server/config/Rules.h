// Rule selection in ruff's manner (`select` / `ignore` with code prefixes,
// the most specific one wins) over the finding codes registered in
// analysis/include/pallas/analysis/Rules.def, and the links and versions
// SARIF and LSP code descriptions name. The rule metadata itself (names,
// default severities, descriptions) lives in that registry.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Rules.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

using RuleInfo = analysis::Rule;

// Every registered rule, in code order (the registry's table).
std::span<const RuleInfo> knownRules();
using analysis::findRule;
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
