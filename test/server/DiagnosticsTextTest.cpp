// The cached text of a document's diagnostics (server/lib/DiagnosticsText.h)
// is exactly what converting and serialising them afresh gives, reuses the
// text of unchanged diagnostics, and is remade when a finding or the column
// a position has in the client's encoding changes.
#include "DiagnosticsText.h"

#include <gtest/gtest.h>

using namespace pallas::server;
using namespace pallas::analysis;
using pallas::protocol::json;
using pallas::protocol::PositionEncoding;

namespace {

Finding finding(uint32_t line, const std::string& subject, const std::string& launchLine) {
  Finding f;
  f.code = "PLS001";
  f.location = {"/w/k.py", {{line, 4}, {line, 9}}};
  f.message = "region " + subject + " cannot be discharged";
  f.subject = subject;
  f.executionPath = "interpret=True (HLO interpreter)";
  f.launch = SourceLocation{"/w/k.py", {{0, 0}, {0, 4}}};
  f.selectedAt = SourceLocation{"/w/k.py", {{0, 2}, {0, 6}}};
  f.related.push_back({{"/w/k.py", {{line, 0}, {line, 3}}}, "defined here"});
  f.callChain = {"kernel (k.py:" + launchLine + ")"};
  f.jaxVersion = "0.10.2";
  Fix fix;
  fix.title = "Rewrite";
  fix.edits.push_back({"/w/k.py", {{line, 4}, {line, 9}}, "x[...]"});
  f.fixes.push_back(fix);
  return f;
}

struct Texts {
  std::string text = "launch()\nab = 1\ncd = 2\nef = 3\n";
  TextLookup lookup() {
    return [this](const std::string& path) -> std::optional<std::string> {
      if (path == "/w/k.py")
        return text;
      return std::nullopt;
    };
  }
};

std::vector<Finding> sample() {
  // Two launches at one site (merged into one diagnostic), one other site.
  std::vector<Finding> out{finding(1, "'a'", "1"), finding(2, "'b'", "2"), finding(1, "'a'", "1")};
  out[2].launch = SourceLocation{"/w/k.py", {{3, 0}, {3, 2}}};
  return out;
}

TEST(DiagnosticsText, EqualsConvertingAndSerialisingAfresh) {
  Texts t;
  DiagnosticsTextCache cache;
  json extra = json::array({{{"message", "a GPU run's frame"}}});
  for (PositionEncoding enc : {PositionEncoding::UTF16, PositionEncoding::UTF8}) {
    DiagnosticConverter conv(enc, t.lookup());
    json expected = conv.diagnostics(sample());
    expected.push_back(extra[0]);
    EXPECT_EQ(cache.arrayText(conv, sample(), extra), jsonText(expected));
    // And again from the cache.
    DiagnosticConverter again(enc, t.lookup());
    EXPECT_EQ(cache.arrayText(again, sample(), extra), jsonText(expected));
    EXPECT_EQ(cache.lastMade(), 0u);
  }
  // 2 sites, each with the hint at the line that selects its path.
  EXPECT_EQ(cache.size(), 4u);
}

TEST(DiagnosticsText, RemakesOnlyTheDiagnosticsThatChanged) {
  Texts t;
  DiagnosticsTextCache cache;
  DiagnosticConverter first(PositionEncoding::UTF16, t.lookup());
  cache.arrayText(first, sample());
  EXPECT_EQ(cache.lastMade(), 4u);
  std::vector<Finding> changed = sample();
  changed[1].message = "region 'b' cannot be discharged (now on another path)";
  DiagnosticConverter second(PositionEncoding::UTF16, t.lookup());
  std::string text = cache.arrayText(second, changed);
  // Site 'b' and its hint (made from the same finding); site 'a' and its
  // hint are reused.
  EXPECT_EQ(cache.lastMade(), 2u);
  EXPECT_EQ(cache.lastReused(), 2u);
  EXPECT_EQ(text, jsonText(second.diagnostics(changed)));
  EXPECT_NE(text.find("now on another path"), std::string::npos);
}

TEST(DiagnosticsText, SeesAColumnThatMovesInTheClientsEncoding) {
  Texts t;
  DiagnosticsTextCache cache;
  DiagnosticConverter before(PositionEncoding::UTF16, t.lookup());
  cache.arrayText(before, sample());
  // Same byte columns, but line 1 now starts with a 3-byte character: in
  // UTF-16 every position after it on that line moves left by two.
  t.text = "launch()\n\xE6\x97\xA5 = 1\ncd = 2\nef = 3\n";
  DiagnosticConverter after(PositionEncoding::UTF16, t.lookup());
  std::string text = cache.arrayText(after, sample());
  EXPECT_EQ(text, jsonText(after.diagnostics(sample())));
  EXPECT_GE(cache.lastMade(), 1u);
}

} // namespace
