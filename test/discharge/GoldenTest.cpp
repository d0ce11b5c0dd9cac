// Golden tests: every fixture under test/discharge/fixtures is analysed as a
// workspace file; the findings it gets must be exactly the `# expect:` marks
// on its lines (`# expect: PLS001/error`, several separated by spaces), no
// more, no fewer. A helper marks the findings a fixture's launch puts in it
// with `# expect(fixture.py): CODE/severity`.
#include "pallas/analysis/Project.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

namespace fs = std::filesystem;
using pallas::analysis::Finding;
using pallas::analysis::Project;
using pallas::analysis::ProjectOptions;
using pallas::analysis::severityName;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// (file, 1-based line, code, severity)
using Mark = std::tuple<std::string, unsigned, std::string, std::string>;

std::set<Mark> marksOf(const fs::path& file) {
  std::set<Mark> marks;
  std::istringstream in(readAll(file));
  std::string line;
  static const std::regex expect(R"(#\s*expect:\s*(.*)$)");
  static const std::regex item(R"((PLS\d{3})/(\w+))");
  for (unsigned n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, expect))
      continue;
    std::string rest = m[1];
    for (std::sregex_iterator it(rest.begin(), rest.end(), item), end; it != end; ++it)
      marks.insert({file.string(), n, (*it)[1], (*it)[2]});
  }
  return marks;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (auto& e : fs::recursive_directory_iterator(PALLAS_DISCHARGE_FIXTURES))
    if (e.path().extension() == ".py" && e.path().filename() != "__init__.py")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, FindingsMatchMarks) {
  // One project per fixture, with every fixture file loaded so imports of
  // helpers (fixtures/pkg) resolve.
  ProjectOptions options;
  options.workspaceRoots = {fs::absolute(PALLAS_DISCHARGE_FIXTURES).string()};
  Project project(options);
  for (const fs::path& f : fixtures())
    project.setDocument(fs::absolute(f).string(), readAll(f));
  fs::path file = fs::absolute(GetParam());
  std::set<Mark> want = marksOf(file);
  std::set<Mark> got;
  for (const Finding& f : project.findings(file.string())) {
    // Findings the fixture's launches produce in helper files are checked
    // against the helper's marks only when they belong to this fixture's
    // launch (the helper marks say which fixture expects them).
    got.insert(
        {f.location.path, f.location.range.start.line + 1, f.code, severityName(f.severity)});
  }
  // Marks in helpers: `# expect(fixture_name.py): PLS001/error` is expected
  // both when fixture_name.py is analysed and when the helper itself is (its
  // findings come from the launches that reach it).
  for (const fs::path& helper : fixtures()) {
    std::istringstream in(readAll(helper));
    std::string line;
    bool self = fs::absolute(helper) == file;
    std::regex scoped("#\\s*expect\\(" +
                      (self ? std::string("[\\w.]+") : file.filename().string()) +
                      "\\):\\s*(PLS\\d{3})/(\\w+)");
    for (unsigned n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (std::regex_search(line, m, scoped))
        want.insert({fs::absolute(helper).string(), n, m[1], m[2]});
    }
  }
  auto show = [](const std::set<Mark>& s) {
    std::string out;
    for (auto& [f, l, c, sev] : s)
      out += "  " + fs::path(f).filename().string() + ":" + std::to_string(l) + " " + c + "/" +
             sev + "\n";
    return out;
  };
  EXPECT_EQ(got, want) << "got:\n" << show(got) << "want:\n" << show(want);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Golden, ::testing::ValuesIn(fixtures()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string n = info.param.stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

} // namespace
