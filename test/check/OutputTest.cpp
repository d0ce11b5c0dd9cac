// The four renderings, on findings built here (the formatter's input is a
// plain struct; no analysis is involved).
#include "check/Report.h"
#include "config/Rules.h"
#include "pallas/support/Uri.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

using namespace pallas::check;
using namespace pallas::analysis;
using nlohmann::json;

namespace {

const std::string kText = "import x\n# caf\xc3\xa9 \xf0\x9f\x98\x80 x = plgpu.inline_mgpu()\n";

Finding sampleFinding() {
  Finding f;
  f.code = "PLS001";
  f.severity = Severity::Error;
  // Line 1, byte column 13 is the "x" after "# café 😀 " (13 bytes, 9 code points).
  f.location = {"/repo/src/k.py", {{1, 13}, {1, 35}}};
  f.message = "inline_mgpu_p does not support discharge, 100% sure: a,b";
  f.executionPath = "interpret=True (HLO interpreter)";
  f.launch = SourceLocation{"/repo/src/launch.py", {{4, 2}, {4, 16}}};
  f.related = {{{"/repo/src/launch.py", {{4, 2}, {4, 16}}}, "pallas_call with interpret=True"}};
  f.callChain = {"kernel (k.py:1)", "helper (k.py:2)"};
  f.jaxVersion = "0.10.2";
  f.jaxException = "NotImplementedError";
  f.jaxErrorFirstLine = "inline_mgpu_p does not support discharge.";
  Fix fix;
  fix.title = "Run on the compiled path";
  fix.safety = FixSafety::Unsafe;
  fix.edits = {{"/repo/src/k.py", {{1, 13}, {1, 35}}, "pl.load()"}};
  f.fixes = {fix};
  return f;
}

Report sampleReport() {
  static const std::map<std::string, LineIndex> lines = {{"/repo/src/k.py", LineIndex(kText)}};
  Report report;
  report.findings = {sampleFinding()};
  Finding warning = sampleFinding();
  warning.code = "PLS003";
  warning.severity = Severity::Warning;
  warning.location = {"/elsewhere/w.py", {{0, 0}, {0, 3}}};
  warning.launch.reset();
  warning.related.clear();
  warning.callChain.clear();
  warning.fixes.clear();
  warning.jaxException.clear();
  warning.jaxErrorFirstLine.clear();
  report.findings.push_back(warning);
  report.files = 3;
  report.jaxVersion = "0.10.2";
  report.base = "/repo";
  report.lines = [](const std::string& path) -> const LineIndex* {
    auto it = lines.find(path);
    return it == lines.end() ? nullptr : &it->second;
  };
  return report;
}

std::string render(OutputFormat format, const Report& report) {
  std::ostringstream out;
  writeReport(out, format, report);
  return out.str();
}

} // namespace

TEST(LineIndex, OffsetsAndCodePointColumns) {
  LineIndex index(kText);
  EXPECT_EQ(index.lineCount(), 3u);
  EXPECT_EQ(index.offset(1, 0), 9u);
  EXPECT_FALSE(index.offset(1, 200));
  EXPECT_FALSE(index.offset(7, 0));
  // "# café 😀 " is 13 bytes and 9 code points; 1-based column 10.
  EXPECT_EQ(index.codePointColumn(1, 13), 10u);
  EXPECT_EQ(index.codePointColumn(0, 3), 4u);
  EXPECT_EQ(index.codePointColumn(9, 3), 4u); // missing line: byte column + 1
}

TEST(TextOutput, LinesAndSummary) {
  Report report = sampleReport();
  report.fixableUnsafe = 1;
  EXPECT_EQ(
      render(OutputFormat::Text, report),
      "src/k.py:2:10: error[PLS001] inline_mgpu_p does not support discharge, 100% sure: a,b\n"
      "/elsewhere/w.py:1:1: warning[PLS003] inline_mgpu_p does not support discharge, 100% sure: "
      "a,b\n"
      "Found 1 error and 1 warning.\n"
      "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n");
  report.quiet = true;
  EXPECT_EQ(render(OutputFormat::Text, report).find("Found"), std::string::npos);
  report.quiet = false;
  report.findings.clear();
  report.fixableUnsafe = 0;
  EXPECT_EQ(render(OutputFormat::Text, report), "All checks passed!\n");
  report.fixesApplied = 2;
  EXPECT_EQ(render(OutputFormat::Text, report), "Found 2 errors (2 fixed, 0 remaining).\n");
}

TEST(TextOutput, PluralsAndFixHint) {
  Report report = sampleReport();
  report.findings.pop_back();
  report.fixableSafe = 1;
  EXPECT_EQ(
      render(OutputFormat::Text, report).substr(render(OutputFormat::Text, report).find("Found")),
      "Found 1 error.\n[*] 1 fixable with the `--fix` option.\n");
}

TEST(JsonOutput, Schema) {
  json doc = json::parse(render(OutputFormat::Json, sampleReport()));
  EXPECT_EQ(doc["version"], std::string(toolVersion()));
  EXPECT_EQ(doc["jaxVersion"], "0.10.2");
  EXPECT_EQ(doc["summary"], (json{{"files", 3}, {"findings", 2}, {"errors", 1}, {"warnings", 1}}));
  ASSERT_EQ(doc["findings"].size(), 2u);
  const json& f = doc["findings"][0];
  EXPECT_EQ(f["code"], "PLS001");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["path"], "/repo/src/k.py");
  EXPECT_EQ(f["range"], (json{{"start", {{"line", 1}, {"column", 13}}},
                              {"end", {{"line", 1}, {"column", 35}}}}));
  EXPECT_EQ(f["executionPath"], "interpret=True (HLO interpreter)");
  EXPECT_EQ(f["launch"]["path"], "/repo/src/launch.py");
  EXPECT_EQ(f["launch"]["range"]["start"]["line"], 4);
  EXPECT_EQ(f["callChain"], (json{"kernel (k.py:1)", "helper (k.py:2)"}));
  EXPECT_EQ(f["related"][0]["message"], "pallas_call with interpret=True");
  EXPECT_EQ(f["jaxVersion"], "0.10.2");
  EXPECT_EQ(f["fixes"][0]["safety"], "unsafe");
  EXPECT_EQ(f["fixes"][0]["edits"][0]["newText"], "pl.load()");
  EXPECT_EQ(f["jaxError"], (json{{"type", "NotImplementedError"},
                                 {"firstLine", "inline_mgpu_p does not support discharge."}}));
  EXPECT_TRUE(doc["findings"][1]["launch"].is_null());
  EXPECT_TRUE(doc["findings"][1]["jaxError"].is_null()); // PLS003 predicts no JAX error
  // Exactly these keys, no more.
  std::vector<std::string> keys;
  for (auto it = f.begin(); it != f.end(); ++it)
    keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"callChain", "code", "executionPath", "fixes",
                                            "headline", "jaxError", "jaxVersion", "launch",
                                            "message", "path", "range", "related", "severity"}));
  // No subject: the headline is the message's first sentence, cut to 100.
  EXPECT_EQ(f["headline"], "inline_mgpu_p does not support discharge, 100% sure: a,b");
}

// Issue 15: a finding with a subject prints its headline (region, path,
// launch line), then the details on an indented line.
TEST(TextOutput, HeadlineThenDetails) {
  Report report = sampleReport();
  report.findings.resize(1);
  report.findings[0].subject = "region 'touch'";
  std::string text = render(OutputFormat::Text, report);
  EXPECT_EQ(text.substr(0, text.find("Found")),
            "src/k.py:2:10: error[PLS001] region 'touch' can't run under interpret=True (launch at "
            "line 5)\n    inline_mgpu_p does not support discharge, 100% sure: a,b\n");
}

// Bytes that are not UTF-8 (a file name is any bytes) neither throw nor
// become U+FFFD: they are \udcXX escapes, which Python's json reads back
// and os.fsencode turns into the bytes on disk (issue 34).
TEST(JsonOutput, InvalidUtf8IsKeptAsSurrogateEscapes) {
  Report report = sampleReport();
  report.findings[0].message = "bad \xff byte";
  report.findings[0].location.path = "/w/k\xfe.py";
  std::string out = render(OutputFormat::Json, report);
  EXPECT_NE(out.find(R"("message": "bad \udcff byte")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("path": "/w/k\udcfe.py")"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xef\xbf\xbd"), std::string::npos);
}

TEST(SarifOutput, Structure) {
  json doc = json::parse(render(OutputFormat::Sarif, sampleReport()));
  EXPECT_EQ(doc["version"], "2.1.0");
  const json& run = doc["runs"][0];
  const json& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "pallas-lsp");
  ASSERT_EQ(driver["rules"].size(), knownRules().size()); // every registered rule
  EXPECT_EQ(driver["rules"][2]["id"], "PLS003");
  EXPECT_EQ(driver["rules"][2]["defaultConfiguration"]["level"], "warning");
  EXPECT_EQ(driver["rules"][0]["helpUri"], ruleDocsUri("PLS001"));
  EXPECT_NE(ruleDocsUri("PLS001").find("docs/codes/PLS001.md"), std::string::npos);
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///repo/");
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  const json& r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "PLS001");
  EXPECT_EQ(r["ruleIndex"], 0);
  EXPECT_EQ(r["level"], "error");
  const json& loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"], (json{{"uri", "src/k.py"}, {"uriBaseId", "%SRCROOT%"}}));
  EXPECT_EQ(loc["region"],
            (json{{"startLine", 2}, {"startColumn", 10}, {"endLine", 2}, {"endColumn", 32}}));
  ASSERT_EQ(r["relatedLocations"].size(), 2u); // the launch and one related
  EXPECT_EQ(r["relatedLocations"][1]["message"]["text"], "pallas_call with interpret=True");
  const json& steps = r["codeFlows"][0]["threadFlows"][0]["locations"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["location"]["message"]["text"], "kernel (k.py:1)");
  EXPECT_EQ(r["properties"]["executionPath"], "interpret=True (HLO interpreter)");
  EXPECT_EQ(r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
            "pl.load()");
  // A file outside the base gets an absolute file URI.
  EXPECT_EQ(run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///elsewhere/w.py");
  EXPECT_EQ(run["results"][1]["level"], "warning");
}

TEST(GithubOutput, AnnotationsAreEscaped) {
  Report report = sampleReport();
  report.findings[0].location.path = "/repo/src/we,ird:name%.py";
  report.findings[0].message = "line one\nline two\r, 50%: done";
  std::string out = render(OutputFormat::Github, report);
  EXPECT_EQ(
      out,
      "::error file=src/we%2Cird%3Aname%25.py,line=2,col=14,endLine=2,endColumn=36,title=PLS001::"
      "src/we,ird:name%25.py:2:14: PLS001 line one%0Aline two%0D, 50%25: done\n"
      "::warning file=/elsewhere/w.py,line=1,col=1,endLine=1,endColumn=4,title=PLS003::"
      "/elsewhere/w.py:1:1: PLS003 inline_mgpu_p does not support discharge, 100%25 sure: a,b\n");
}

TEST(GithubOutput, EscapeFunctions) {
  EXPECT_EQ(githubEscapeData("a%b\r\nc:d,e"), "a%25b%0D%0Ac:d,e");
  EXPECT_EQ(githubEscapeProperty("a%b\r\nc:d,e"), "a%25b%0D%0Ac%3Ad%2Ce");
}

TEST(Report, SortsByPathLineColumnCode) {
  std::vector<Finding> findings(4);
  findings[0].location = {"/b.py", {{0, 0}, {0, 0}}};
  findings[1].location = {"/a.py", {{2, 0}, {2, 0}}};
  findings[2].location = {"/a.py", {{1, 5}, {1, 5}}};
  findings[2].code = "PLS002";
  findings[3].location = {"/a.py", {{1, 5}, {1, 5}}};
  findings[3].code = "PLS001";
  sortFindings(findings);
  EXPECT_EQ(findings[0].code, "PLS001");
  EXPECT_EQ(findings[1].code, "PLS002");
  EXPECT_EQ(findings[2].location.range.start.line, 2u);
  EXPECT_EQ(findings[3].location.path, "/b.py");
}

// A helper reached from two launches gives two findings that differ only in
// their launch; the run's dedupe keeps the first, so the order must not
// depend on which worker finished first (it did on JAX's mosaic_gpu_test.py).
TEST(Report, FindingsThatDifferOnlyInTheirLaunchAreOrderedByIt) {
  std::vector<Finding> findings(3);
  for (Finding& f : findings) {
    f.code = "PLS001";
    f.location = {"/a.py", {{4, 2}, {4, 9}}};
    f.message = "same";
  }
  findings[0].launch = pallas::analysis::SourceLocation{"/a.py", {{90, 4}, {90, 9}}};
  findings[1].launch = pallas::analysis::SourceLocation{"/a.py", {{12, 4}, {12, 9}}};
  findings[1].callChain = {"k (a.py:13)"};
  findings[2].launch = pallas::analysis::SourceLocation{"/a.py", {{12, 4}, {12, 9}}};
  findings[2].callChain = {"j (a.py:11)"};
  std::vector<Finding> reversed(findings.rbegin(), findings.rend());
  sortFindings(findings);
  sortFindings(reversed);
  for (const std::vector<Finding>* list : {&findings, &reversed}) {
    EXPECT_EQ((*list)[0].launch->range.start.line, 12u);
    EXPECT_EQ((*list)[0].callChain, std::vector<std::string>{"j (a.py:11)"});
    EXPECT_EQ((*list)[1].callChain, std::vector<std::string>{"k (a.py:13)"});
    EXPECT_EQ((*list)[2].launch->range.start.line, 90u);
  }
}

TEST(Report, UriEncoding) {
  EXPECT_EQ(pallas::support::pathToUri("/a b/c#d.py"), "file:///a%20b/c%23d.py");
  EXPECT_EQ(pallas::support::percentEncodePath("src/caf\xc3\xa9.py"), "src/caf%C3%A9.py");
}

namespace {
// Runs test/check/validate_sarif.py on `sarif`; returns its exit status.
int validateSarif(const std::string& sarif) {
  std::string file = (std::filesystem::temp_directory_path() /
                      ("pallas-check-sarif-" + std::to_string(::getpid()) + ".json"))
                         .string();
  std::ofstream(file) << sarif;
  std::string command = std::string("'") + PALLAS_TEST_PYTHON + "' '" + PALLAS_SOURCE_ROOT +
                        "/test/check/validate_sarif.py' '" + PALLAS_SOURCE_ROOT + "' '" + file +
                        "'";
  int status = std::system(command.c_str());
  std::filesystem::remove(file);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
} // namespace

TEST(SarifOutput, ValidatesAgainstTheOfficialSchema) {
  // Every optional part in use: related locations, code flows, fixes, a file
  // outside the base, non-ASCII text.
  Report report = sampleReport();
  report.findings[0].fixes[0].safety = FixSafety::Safe;
  EXPECT_EQ(validateSarif(render(OutputFormat::Sarif, report)), 0);
  report.findings.clear();
  EXPECT_EQ(validateSarif(render(OutputFormat::Sarif, report)), 0);
}

TEST(SarifOutput, TheValidatorRejectsAnInvalidLog) {
  // The control: a log with a level SARIF does not have must fail, so the
  // test above can fail too.
  json doc = json::parse(render(OutputFormat::Sarif, sampleReport()));
  doc["runs"][0]["results"][0]["level"] = "fatal";
  EXPECT_EQ(validateSarif(doc.dump()), 1);
}
