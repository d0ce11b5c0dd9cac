#include "features/CodeActions.h"

#include <gtest/gtest.h>

using namespace pallas::analysis;
using nlohmann::json;
using pallas::server::features::CodeActionConverters;
using pallas::server::features::codeActions;

namespace {

CodeActionConverters conv() {
  CodeActionConverters c;
  // A fake encoding: characters are bytes + 100, so a missed conversion shows.
  c.position = [](const std::string&, SourcePos p) {
    return json{{"line", p.line}, {"character", p.column + 100}};
  };
  c.uri = [](const std::string& p) { return "file://" + p; };
  return c;
}

Finding finding() {
  Finding f;
  f.code = "PLS001";
  f.message = "inline_mgpu_p does not support discharge.";
  f.location = {"/a.py", {{3, 2}, {3, 9}}};
  Fix rewrite{"Rewrite", FixSafety::Unsafe, {{"/a.py", {{1, 0}, {4, 0}}, "def f():\n"}}, {}};
  Fix ignore{"Ignore", FixSafety::DisplayOnly, {{"/a.py", {{3, 9}, {3, 9}}, "  # x"}}, {}};
  Fix safe{"Safe", FixSafety::Safe, {{"/a.py", {{7, 0}, {7, 1}}, "y"}}, {}};
  Fix run{"Run", FixSafety::DisplayOnly, {}, RunSuggestion{"/a.py", "main", "compiled"}};
  f.fixes = {rewrite, ignore, safe, run};
  return f;
}

json params(int line, std::optional<json> only = std::nullopt) {
  json p = {{"textDocument", {{"uri", "file:///a.py"}}},
            {"range",
             {{"start", {{"line", line}, {"character", 105}}},
              {"end", {{"line", line}, {"character", 105}}}}},
            {"context", {{"diagnostics", json::array()}}}};
  if (only)
    p["context"]["only"] = *only;
  return p;
}

} // namespace

TEST(CodeActions, QuickFixesForFindingsInRange) {
  json a = codeActions({finding()}, params(3), conv());
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0]["title"], "Rewrite");
  EXPECT_EQ(a[0]["kind"], "quickfix");
  EXPECT_EQ(a[0]["isPreferred"], true);
  EXPECT_FALSE(a[1].contains("isPreferred"));
  EXPECT_EQ(a[0]["diagnostics"][0]["code"], "PLS001");
  const json& e = a[0]["edit"]["changes"]["file:///a.py"][0];
  EXPECT_EQ(e["range"]["start"]["character"], 100); // converted through the encoding
  EXPECT_EQ(e["newText"], "def f():\n");
  EXPECT_EQ(a[3]["command"]["command"], "pallas.run");
  EXPECT_EQ(a[3]["command"]["title"], "Run");
  EXPECT_EQ(a[3]["command"]["arguments"][0],
            (json{{"uri", "file:///a.py"}, {"entry", "main"}, {"mode", "compiled"}}));
  EXPECT_TRUE(codeActions({finding()}, params(0), conv()).empty());
}

TEST(CodeActions, FixAllOnlySafeFixesAndOnlyWhenAsked) {
  json a = codeActions({finding()}, params(3, json::array({"source.fixAll.pallas-lsp"})), conv());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]["kind"], "source.fixAll.pallas-lsp");
  const json& edits = a[0]["edit"]["changes"]["file:///a.py"];
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0]["newText"], "y");
  EXPECT_EQ(codeActions({finding()}, params(3, json::array({"source"})), conv()).size(), 1u);
  EXPECT_EQ(codeActions({finding()}, params(3, json::array({"quickfix"})), conv()).size(), 4u);
}

TEST(CodeActions, FixAllSkipsOverlappingFixes) {
  Finding f = finding(), g = finding();
  g.fixes = {Fix{"Other", FixSafety::Safe, {{"/a.py", {{7, 0}, {7, 1}}, "z"}}, {}}};
  json a = codeActions({f, g}, params(3, json::array({"source.fixAll"})), conv());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]["edit"]["changes"]["file:///a.py"].size(), 1u);
}
