// The rule table, expanded from Rules.def.
#include "pallas/analysis/Rules.h"

#include <array>

namespace pallas::analysis {

namespace {

constexpr std::array kRules = {
#define PALLAS_RULE(Id, Code, Name, DefaultSeverity, Summary, Description)                         \
  Rule{RuleId::Id,                                                                                 \
       Code,                                                                                       \
       Name,                                                                                       \
       Severity::DefaultSeverity,                                                                  \
       Summary,                                                                                    \
       Description,                                                                                \
       "docs/codes/" Code ".md"},
#include "pallas/analysis/Rules.def"
};

// RuleId values index kRules: the enum and the table come from one list.
constexpr bool indexedById() {
  for (size_t i = 0; i < kRules.size(); ++i)
    if (static_cast<size_t>(kRules[i].id) != i)
      return false;
  return true;
}
static_assert(indexedById());

int numberOf(std::string_view code) {
  int n = 0;
  for (char c : code.substr(3))
    n = n * 10 + (c - '0');
  return n;
}

} // namespace

std::span<const Rule> allRules() {
  return kRules;
}

const Rule& rule(RuleId id) {
  return kRules[static_cast<size_t>(id)];
}

const Rule* findRule(std::string_view code) {
  for (const Rule& r : kRules)
    if (r.code == code)
      return &r;
  return nullptr;
}

std::string ruleCodesText() {
  bool consecutive = true;
  for (size_t i = 1; i < kRules.size(); ++i)
    consecutive &= numberOf(kRules[i].code) == numberOf(kRules[i - 1].code) + 1;
  if (consecutive && kRules.size() > 2)
    return std::string(kRules.front().code) + "-" + std::string(kRules.back().code);
  std::string out;
  for (const Rule& r : kRules)
    out += (out.empty() ? "" : ", ") + std::string(r.code);
  return out;
}

} // namespace pallas::analysis
