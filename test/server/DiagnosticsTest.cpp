#include "Diagnostics.h"

#include <gtest/gtest.h>

using namespace pallas::server;
using namespace pallas::analysis;
using pallas::protocol::json;
using pallas::protocol::PositionEncoding;

namespace {

Finding sample() {
  Finding f;
  f.code = "PLS001";
  f.severity = Severity::Error;
  // Byte columns on the line "    # 日本 plgpu.inline_mgpu(...)": 日本 is 6 bytes.
  f.location = {"/w/k.py", {{1, 13}, {1, 29}}};
  f.message = "inline_mgpu cannot be discharged";
  f.executionPath = "interpret=True (HLO interpreter)";
  f.launch = SourceLocation{"/w/launch.py", {{0, 0}, {0, 4}}};
  f.related.push_back({{"/w/k.py", {{0, 0}, {0, 3}}}, "kernel defined here"});
  f.callChain = {"kernel (k.py:1)", "helper (k.py:2)"};
  f.jaxVersion = "0.10.2";
  Fix fix;
  fix.title = "Run on the GPU";
  fix.safety = FixSafety::Unsafe;
  fix.edits.push_back({"/w/k.py", {{1, 13}, {1, 29}}, "pl.load(x)"});
  fix.run = RunSuggestion{"/w/a b.py", "k", "compiled"};
  f.fixes.push_back(fix);
  return f;
}

TextLookup lookup() {
  return [](const std::string& path) -> std::optional<std::string> {
    if (path == "/w/k.py")
      return std::string("def k():\n    # 日本 plgpu.inline_mgpu(...)\n");
    return std::nullopt;
  };
}

TEST(Diagnostics, ConvertsToUtf16) {
  DiagnosticConverter conv(PositionEncoding::UTF16, lookup());
  json d = conv.diagnostic(sample());
  EXPECT_EQ(d["range"]["start"], (json{{"line", 1}, {"character", 9}}));
  EXPECT_EQ(d["range"]["end"], (json{{"line", 1}, {"character", 25}}));
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["code"], "PLS001");
  EXPECT_EQ(d["codeDescription"]["href"],
            "https://github.com/pallas-lsp/pallas-lsp/blob/main/docs/codes/PLS001.md");
  EXPECT_EQ(d["source"], "pallas-lsp");
  std::string msg = d["message"];
  EXPECT_NE(msg.find("inline_mgpu cannot be discharged"), std::string::npos);
  // Issue 35: what data and relatedInformation carry is not repeated in the message.
  EXPECT_EQ(msg.find("execution path:"), std::string::npos);
  EXPECT_EQ(msg.find("call chain:"), std::string::npos);
  EXPECT_EQ(d["data"]["executionPath"], "interpret=True (HLO interpreter)");
  EXPECT_EQ(d["data"]["callChain"], (json::array({"kernel (k.py:1)", "helper (k.py:2)"})));
  ASSERT_EQ(d["relatedInformation"].size(), 2u);
  EXPECT_EQ(d["relatedInformation"][0]["location"]["uri"], "file:///w/launch.py");
  EXPECT_EQ(d["relatedInformation"][1]["message"], "kernel defined here");
  const json& fix = d["data"]["fixes"][0];
  EXPECT_EQ(fix["safety"], "unsafe");
  EXPECT_EQ(fix["edits"][0]["range"]["start"]["character"], 9);
  EXPECT_EQ(fix["command"]["command"], "pallas.run");
  EXPECT_EQ(
      fix["command"]["arguments"],
      (json::array({json{{"uri", "file:///w/a%20b.py"}, {"entry", "k"}, {"mode", "compiled"}}})));
  EXPECT_EQ(d["data"]["jaxVersion"], "0.10.2");
  EXPECT_EQ(d["data"]["launch"]["uri"], "file:///w/launch.py");
}

TEST(Diagnostics, Utf8KeepsByteColumns) {
  DiagnosticConverter conv(PositionEncoding::UTF8, lookup());
  json d = conv.diagnostic(sample());
  EXPECT_EQ(d["range"]["start"]["character"], 13);
}

TEST(Diagnostics, UnknownTextPassesColumnsThrough) {
  DiagnosticConverter conv(PositionEncoding::UTF16,
                           [](const std::string&) { return std::optional<std::string>(); });
  json d = conv.diagnostic(sample());
  EXPECT_EQ(d["range"]["start"]["character"], 13);
}

TEST(Diagnostics, MinimalFinding) {
  Finding f;
  f.code = "PLS003";
  f.severity = Severity::Warning;
  f.location = {"/w/k.py", {{0, 0}, {0, 1}}};
  f.message = "m";
  DiagnosticConverter conv(PositionEncoding::UTF16, lookup());
  json d = conv.diagnostic(f);
  EXPECT_EQ(d["message"], "m");
  EXPECT_EQ(d["severity"], 2);
  EXPECT_FALSE(d.contains("relatedInformation"));
  EXPECT_TRUE(d["data"]["fixes"].empty());
}

} // namespace

// Issue 15: the first line is the headline (region, path, launch line); the
// same site reached from two launches is one diagnostic listing both; the
// line that selects the failing path gets a hint of its own.
TEST(Diagnostics, HeadlineMergeAndSelectionHint) {
  Finding a = sample();
  a.subject = "region 'touch'";
  a.location = {"/w/k.py", {{1, 4}, {1, 9}}};
  a.launch = SourceLocation{"/w/k.py", {{23, 2}, {23, 16}}};
  a.selectedAt = a.launch;
  DiagnosticConverter one(PositionEncoding::UTF8, nullptr);
  json d = one.diagnostics({a});
  ASSERT_EQ(d.size(), 2u);
  std::string message = d[0]["message"];
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "region 'touch' can't run under interpret=True (launch at line 24)");
  EXPECT_NE(message.find("inline_mgpu cannot be discharged"), std::string::npos);
  EXPECT_EQ(d[1]["severity"], 4);
  EXPECT_EQ(d[1]["range"]["start"]["line"], 23);
  EXPECT_EQ(d[1]["message"], "selects interpret=True, which cannot run region 'touch' (line 2)");

  Finding b = a;
  b.launch = SourceLocation{"/w/k.py", {{30, 2}, {30, 16}}};
  b.selectedAt = b.launch;
  b.fixes.clear();
  json merged = one.diagnostics({a, b});
  std::vector<json> main, hints;
  for (const json& x : merged)
    (x["severity"] == 4 ? hints : main).push_back(x);
  ASSERT_EQ(main.size(), 1u);
  EXPECT_EQ(hints.size(), 2u);
  std::string m = main[0]["message"];
  EXPECT_EQ(m.substr(0, m.find('\n')),
            "region 'touch' can't run under interpret=True (launches at lines 24, 31)");
  EXPECT_NE(m.find("launch at line 31"), std::string::npos);
  EXPECT_EQ(main[0]["data"]["launches"].size(), 2u);
  EXPECT_EQ(main[0]["data"]["fixes"].size(), 1u);

  // A long subject is cut so the line stays within 100 characters.
  a.subject = "region '" + std::string(150, 'x') + "'";
  std::string head = headline(a);
  EXPECT_LE(head.size(), kHeadlineMax);
  EXPECT_NE(head.find("(launch at line 24)"), std::string::npos);
}
