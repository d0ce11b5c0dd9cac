// Golden MLIR: each test/analysis/golden/NAME.py lowers to exactly
// golden/NAME.mlir (paths printed relative to the golden folder as
// "GOLDEN/..."). Multi-file fixtures are folders golden/NAME/ with a main.py.
// Regenerate after an intended change: PALLAS_UPDATE_GOLDEN=1 analysis_tests
// --gtest_filter='Golden*', then review the diff.
#include "AnalysisTestUtil.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace pallas::analysis;
using namespace pallas::analysis::test;
namespace fs = std::filesystem;

namespace {

const fs::path kGoldenDir = fs::path(PALLAS_ANALYSIS_TEST_DIR) / "golden";

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kGoldenDir)) {
    if (e.is_regular_file() && e.path().extension() == ".py")
      out.push_back(e.path());
    if (e.is_directory() && fs::exists(e.path() / "main.py"))
      out.push_back(e.path() / "main.py");
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, MatchesExpectedModule) {
  fs::path py = GetParam();
  bool isDir = py.filename() == "main.py" && py.parent_path() != kGoldenDir;
  fs::path expectedPath = isDir ? fs::path(py.parent_path().string() + ".mlir")
                                : fs::path(py).replace_extension(".mlir");
  ProjectOptions options;
  options.workspaceRoots.push_back(py.parent_path().string());
  Project project(options);
  UpdateStats s = project.setDocument(py.string(), readFile(py.string()));
  EXPECT_TRUE(s.verified);
  EXPECT_TRUE(verifyModule(project, py.string()));
  std::string actual = replaceAll(project.mlirText(py.string()), kGoldenDir.string(), "GOLDEN");
  if (std::getenv("PALLAS_UPDATE_GOLDEN")) {
    std::ofstream(expectedPath, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << expectedPath;
  }
  ASSERT_TRUE(fs::exists(expectedPath)) << "no golden file " << expectedPath;
  EXPECT_EQ(actual, readFile(expectedPath.string())) << "golden mismatch for " << py;
}

INSTANTIATE_TEST_SUITE_P(Files, Golden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           fs::path p = info.param;
                           std::string name = p.filename() == "main.py"
                                                  ? p.parent_path().filename().string()
                                                  : p.stem().string();
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
