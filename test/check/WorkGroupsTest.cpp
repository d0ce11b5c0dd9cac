// How `check` splits its files between workers (server/cli/check/WorkGroups.h).
#include "check/WorkGroups.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using pallas::check::workGroups;

namespace {

std::vector<std::string> oneFolder(size_t n) {
  std::vector<std::string> files;
  for (size_t i = 0; i < n; ++i)
    files.push_back("/repo/tests/pallas/k" + std::to_string(i) + ".py");
  return files;
}

std::string folderOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

} // namespace

// 200 kernels in one folder went to a single worker; now every worker of
// the two gets pieces.
TEST(WorkGroups, OneLargeFolderIsSplitForTheWorkers) {
  auto files = oneFolder(200);
  auto groups = workGroups(files, std::vector<size_t>(200, 1000), 2);
  EXPECT_GE(groups.size(), 4u);
  for (const auto& g : groups)
    EXPECT_LE(g.size(), 200u / 4);
}

TEST(WorkGroups, EveryFileOnceAndGroupsShareAFolder) {
  std::vector<std::string> files = oneFolder(37);
  for (int i = 0; i < 5; ++i)
    files.push_back("/repo/other/h" + std::to_string(i) + ".py");
  files.push_back("/repo/top.py");
  std::vector<size_t> sizes(files.size(), 10);
  auto groups = workGroups(files, sizes, 3);
  std::multiset<std::string> seen;
  for (const auto& g : groups) {
    ASSERT_FALSE(g.empty());
    for (const std::string& f : g) {
      seen.insert(f);
      EXPECT_EQ(folderOf(f), folderOf(g.front())) << f;
    }
  }
  EXPECT_EQ(seen, std::multiset<std::string>(files.begin(), files.end()));
}

// Largest pieces first, so the last ones handed out are small.
TEST(WorkGroups, LargestBytesFirst) {
  std::vector<std::string> files{"/a/small.py", "/b/big.py", "/c/middle.py"};
  auto groups = workGroups(files, {10, 5000, 300}, 2);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], std::vector<std::string>{"/b/big.py"});
  EXPECT_EQ(groups[1], std::vector<std::string>{"/c/middle.py"});
  EXPECT_EQ(groups[2], std::vector<std::string>{"/a/small.py"});
}

TEST(WorkGroups, OneWorkerKeepsSmallFoldersWhole) {
  std::vector<std::string> files{"/a/x.py", "/a/y.py", "/b/z.py"};
  auto groups = workGroups(files, {1, 1, 1}, 1);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].size() + groups[1].size(), 3u);
}

TEST(WorkGroups, NoFilesNoGroups) {
  EXPECT_TRUE(workGroups({}, {}, 2).empty());
}
