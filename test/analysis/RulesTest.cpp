// The rule table generated from Rules.def (test/rules checks it against the
// docs, README tables and fixtures).
#include "pallas/analysis/Rules.h"

#include <gtest/gtest.h>
#include <set>

using namespace pallas::analysis;

TEST(Rules, EveryRuleIsFoundByItsCodeAndIdOnce) {
  ASSERT_FALSE(allRules().empty());
  std::set<std::string_view> codes, names;
  for (const Rule& r : allRules()) {
    EXPECT_EQ(findRule(r.code), &rule(r.id)) << r.code;
    EXPECT_EQ(ruleCode(r.id), r.code);
    EXPECT_TRUE(codes.insert(r.code).second) << "duplicate code " << r.code;
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate name " << r.name;
    EXPECT_EQ(r.docsPath, "docs/codes/" + std::string(r.code) + ".md");
    EXPECT_FALSE(r.summary.empty());
    EXPECT_GT(r.description.size(), r.summary.size()) << r.code;
  }
  EXPECT_EQ(findRule("PLS"), nullptr);
  EXPECT_EQ(findRule(""), nullptr);
}

TEST(Rules, TheKnownPathRulesKeepTheirCodes) {
  // Codes are stable: a rule may be added, never renumbered.
  EXPECT_EQ(ruleCode(RuleId::InlineMgpuOnPath), "PLS001");
  EXPECT_EQ(ruleCode(RuleId::PrimitiveOnPath), "PLS002");
  EXPECT_EQ(ruleCode(RuleId::HardwareRequirement), "PLS003");
  EXPECT_EQ(ruleCode(RuleId::InlineMgpuSignature), "PLS004");
  EXPECT_EQ(ruleCode(RuleId::SharedMemoryOverLimit), "PLS005");
  EXPECT_EQ(ruleCode(RuleId::WgmmaShapeDtypeLayout), "PLS006");
  EXPECT_EQ(ruleCode(RuleId::TilingSwizzleTransform), "PLS007");
  EXPECT_EQ(ruleCode(RuleId::CopySizeAlignment), "PLS008");
  EXPECT_EQ(ruleCode(RuleId::LaunchConfigurationRejected), "PLS009");
  EXPECT_EQ(rule(RuleId::HardwareRequirement).defaultSeverity, Severity::Warning);
}

TEST(Rules, CodesTextSpansTheRegistry) {
  std::string text = ruleCodesText();
  EXPECT_EQ(text.rfind(std::string(allRules().front().code), 0), 0u) << text;
  EXPECT_NE(text.find(std::string(allRules().back().code)), std::string::npos) << text;
}
