// The finding codes pallas-lsp reports, generated from Rules.def (the one
// registry): the RuleId enum the checks use, and each rule's code, name,
// default severity, descriptions and documentation page. The server and the
// `check` CLI read the same table for SARIF, rule selection and links.
#pragma once

#include "pallas/analysis/Finding.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pallas::analysis {

enum class RuleId {
#define PALLAS_RULE(Id, Code, Name, DefaultSeverity, Summary, Description) Id,
#include "pallas/analysis/Rules.def"
};

struct Rule {
  RuleId id;
  std::string_view code;        // "PLS001"
  std::string_view name;        // "inline-mgpu-on-discharging-path" (kebab-case, like ruff)
  Severity defaultSeverity;     // before `[tool.pallas-lsp.severity]` / "may" demotion
  std::string_view summary;     // one sentence: SARIF shortDescription, listings
  std::string_view description; // a few sentences: SARIF fullDescription
  std::string_view docsPath;    // "docs/codes/PLS001.md", relative to the repository root
};

// Every registered rule, in code order.
std::span<const Rule> allRules();
const Rule& rule(RuleId id);
// The registered rule with this code; null for anything else.
const Rule* findRule(std::string_view code);
// The code as a Finding stores it: ruleCode(RuleId::InlineMgpuOnPath) == "PLS001".
inline std::string ruleCode(RuleId id) {
  return std::string(rule(id).code);
}
// The registered codes as users read them: "PLS001-PLS004" (a range when
// they are consecutive, else a comma-separated list).
std::string ruleCodesText();

} // namespace pallas::analysis
