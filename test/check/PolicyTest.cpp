#include "config/Policy.h"

#include <gtest/gtest.h>

using namespace pallas::check;
using pallas::analysis::Finding;
using pallas::analysis::Severity;

namespace {

Finding finding(std::string code, uint32_t line) {
  Finding f;
  f.code = std::move(code);
  f.location.path = "/p/k.py";
  f.location.range = {{line, 4}, {line, 9}};
  f.message = "m";
  return f;
}

std::vector<std::string> codes(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings)
    out.push_back(f.code + "@" + std::to_string(f.location.range.start.line));
  return out;
}

std::vector<Finding> sample() {
  return {finding("PLS001", 0), finding("PLS002", 1), finding("PLS003", 2), finding("PLS004", 3)};
}

} // namespace

TEST(RuleSelection, MostSpecificSelectorWinsAndIgnoreWinsTies) {
  RuleSelection s;
  s.addLayer({std::vector<std::string>{"PLS"}, {"PLS001"}});
  EXPECT_FALSE(s.enabled("PLS001"));
  EXPECT_TRUE(s.enabled("PLS002"));
  RuleSelection t;
  t.addLayer({std::vector<std::string>{"PLS001"}, {"PLS"}});
  EXPECT_TRUE(t.enabled("PLS001"));
  EXPECT_FALSE(t.enabled("PLS002"));
  RuleSelection tie;
  tie.addLayer({std::vector<std::string>{"PLS001"}, {"PLS001"}});
  EXPECT_FALSE(tie.enabled("PLS001"));
}

TEST(RuleSelection, LaterLayersSelectReplaces) {
  RuleSelection s;
  s.addLayer({std::nullopt, {"PLS003"}});               // config
  s.addLayer({std::vector<std::string>{"PLS003"}, {}}); // --select PLS003
  EXPECT_TRUE(s.enabled("PLS003"));
  EXPECT_FALSE(s.enabled("PLS001"));
}

TEST(Policy, SelectIgnoreAndCommandLine) {
  Config config;
  config.root = "/p";
  config.ignore = {"PLS003"};
  EXPECT_EQ(codes(applyPolicy(sample(), config, {}, "", "/p/k.py")),
            (std::vector<std::string>{"PLS001@0", "PLS002@1", "PLS004@3"}));
  SelectionOverrides cli;
  cli.select = std::vector<std::string>{"PLS00"};
  cli.ignore = {"PLS004"};
  EXPECT_EQ(codes(applyPolicy(sample(), config, cli, "", "/p/k.py")),
            (std::vector<std::string>{"PLS001@0", "PLS002@1", "PLS003@2"}));
}

TEST(Policy, PerFileIgnoresWinEvenOverSelect) {
  Config config;
  config.root = "/p";
  config.perFileIgnores.emplace_back(PathPattern("k.py"), std::vector<std::string>{"PLS002"});
  SelectionOverrides cli;
  cli.select = std::vector<std::string>{"PLS002"};
  EXPECT_TRUE(applyPolicy(sample(), config, cli, "", "/p/k.py").empty());
  EXPECT_EQ(applyPolicy(sample(), config, cli, "", "/p/other.py").size(), 1u);
}

TEST(Policy, SuppressionCommentsAndSeverityOverrides) {
  Config config;
  config.root = "/p";
  config.severity = {{"PLS001", Severity::Warning}};
  std::string text = "a  # pallas-lsp: ignore[PLS002]\n"
                     "b  # pallas-lsp: ignore[PLS002]\n"
                     "c  # pallas-lsp: ignore\n"
                     "d\n";
  auto kept = applyPolicy(sample(), config, {}, text, "/p/k.py");
  EXPECT_EQ(codes(kept), (std::vector<std::string>{"PLS001@0", "PLS004@3"}));
  EXPECT_EQ(kept[0].severity, Severity::Warning);
  EXPECT_EQ(kept[1].severity, Severity::Error);
}
