// Where an import looks for a module (pallas/analysis/ModuleCandidates.h):
// the order Python tries, shared by the analysis and `check`'s import step.
#include "pallas/analysis/ModuleCandidates.h"

#include <gtest/gtest.h>

namespace pallas::analysis {
namespace {

std::vector<std::string> candidates(std::string_view dotted, int level) {
  std::vector<std::string> out;
  for (const auto& p : moduleCandidates(dotted, level, "/r/pkg/sub/mod.py", {"/r"}))
    out.push_back(p.generic_string());
  return out;
}

TEST(ModuleCandidates, AbsoluteImportsTryTheImportersFolderThenTheRoots) {
  EXPECT_EQ(candidates("a.b", 0),
            (std::vector<std::string>{"/r/pkg/sub/a/b.py", "/r/pkg/sub/a/b/__init__.py",
                                      "/r/a/b.py", "/r/a/b/__init__.py"}));
}

TEST(ModuleCandidates, RelativeImportsClimbOneFolderPerExtraDot) {
  EXPECT_EQ(candidates("m", 1),
            (std::vector<std::string>{"/r/pkg/sub/m.py", "/r/pkg/sub/m/__init__.py"}));
  EXPECT_EQ(candidates("m", 2), (std::vector<std::string>{"/r/pkg/m.py", "/r/pkg/m/__init__.py"}));
  // `from .. import x`: the package folder itself.
  EXPECT_EQ(candidates("", 2), (std::vector<std::string>{"/r/pkg/__init__.py"}));
}

TEST(ModuleCandidates, ARootThatIsTheImportersFolderIsTriedOnce) {
  std::vector<std::string> out;
  for (const auto& p : moduleCandidates("m", 0, "/r/x.py", {"/r"}))
    out.push_back(p.generic_string());
  EXPECT_EQ(out, (std::vector<std::string>{"/r/m.py", "/r/m/__init__.py"}));
}

} // namespace
} // namespace pallas::analysis
