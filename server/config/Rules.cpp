#include "Rules.h"

#include <algorithm>

#ifndef PALLAS_LSP_VERSION
#error "PALLAS_LSP_VERSION must be defined by the build"
#endif
#ifndef PALLAS_LSP_HOMEPAGE
// Where rule pages (docs/codes/<CODE>.md) are linked from SARIF and LSP
// code descriptions. A build may override it with -DPALLAS_LSP_HOMEPAGE=...
#define PALLAS_LSP_HOMEPAGE "https://github.com/pallas-lsp/pallas-lsp"
#endif

namespace pallas::check {

std::span<const RuleInfo> knownRules() {
  return analysis::allRules();
}

std::string_view homepageUri() {
  return PALLAS_LSP_HOMEPAGE;
}
std::string_view toolVersion() {
  return PALLAS_LSP_VERSION;
}

std::string ruleDocsUri(std::string_view code) {
  const RuleInfo* rule = findRule(code);
  std::string page = rule ? std::string(rule->docsPath) : "docs/codes/" + std::string(code) + ".md";
  return std::string(homepageUri()) + "/blob/main/" + page;
}

std::optional<std::string> validateSelector(std::string_view selector) {
  if (selector == "ALL")
    return std::nullopt;
  if (!selector.empty())
    for (const RuleInfo& rule : knownRules())
      if (rule.code.substr(0, selector.size()) == selector)
        return std::nullopt;
  return "unknown rule selector '" + std::string(selector) + "' (known: ALL, " +
         analysis::ruleCodesText() + " and their prefixes)";
}

std::vector<std::string> splitSelectors(std::string_view list) {
  std::vector<std::string> out;
  std::string current;
  for (char c : list) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!current.empty())
        out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    out.push_back(std::move(current));
  return out;
}

namespace {
// Length of the longest selector in `selectors` matching `code`; -1 if none.
// "ALL" matches everything with specificity 0.
int specificity(const std::vector<std::string>& selectors, std::string_view code) {
  int best = -1;
  for (const std::string& s : selectors) {
    if (s == "ALL")
      best = std::max(best, 0);
    else if (code.substr(0, s.size()) == s)
      best = std::max(best, static_cast<int>(s.size()));
  }
  return best;
}
} // namespace

bool RuleSelection::enabled(std::string_view code) const {
  bool on = true; // nothing configured: every code is on
  for (const SelectionLayer& layer : layers_) {
    int selected = -1;
    if (layer.select) {
      selected = specificity(*layer.select, code);
      on = selected >= 0;
    }
    int ignored = specificity(layer.ignore, code);
    if (ignored >= 0 && ignored >= selected)
      on = false;
  }
  return on;
}

} // namespace pallas::check
