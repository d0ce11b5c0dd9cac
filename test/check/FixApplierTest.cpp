#include "check/FixApplier.h"

#include "TempDir.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace pallas::check;
using namespace pallas::analysis;
using pallas::check::testing::TempDir;

namespace {

Finding withFix(const std::string& path, SourceRange range, std::string newText,
                FixSafety safety = FixSafety::Safe) {
  Finding f;
  f.code = "PLS001";
  f.location = {path, range};
  Fix fix;
  fix.title = "rewrite";
  fix.safety = safety;
  fix.edits.push_back({path, range, std::move(newText)});
  f.fixes.push_back(std::move(fix));
  return f;
}

} // namespace

TEST(FixApplier, AppliesEditsAndKeepsTheRestByteIdentical) {
  TempDir dir;
  std::string text = "a = 1\r\nb = plgpu.inline_mgpu(x)  # caf\xc3\xa9\nc = 3";
  fs::path file = dir.write("k.py", text);
  ::chmod(file.c_str(), 0750);
  std::vector<Finding> findings = {
      withFix(file, {{1, 4}, {1, 21}}, "standard"),
      withFix(file, {{2, 0}, {2, 0}}, "# inserted\n"),
  };
  FixOutcome out = applyFixes(findings, {{file.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 2u);
  EXPECT_EQ(out.fixed, (std::vector<bool>{true, true}));
  EXPECT_EQ(TempDir::read(file), "a = 1\r\nb = standard(x)  # caf\xc3\xa9\n# inserted\nc = 3");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  // No temporary files are left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(FixApplier, SafetyLevels) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", text);
  std::vector<Finding> findings = {withFix(file, {{0, 4}, {0, 5}}, "2", FixSafety::Unsafe)};
  EXPECT_EQ(applyFixes(findings, {{file.string(), text}}, {}).findingsFixed, 0u);
  EXPECT_EQ(TempDir::read(file), text);
  findings.push_back(withFix(file, {{0, 0}, {0, 1}}, "y", FixSafety::DisplayOnly));
  FixOutcome out = applyFixes(findings, {{file.string(), text}}, FixOptions{true});
  EXPECT_EQ(out.fixed, (std::vector<bool>{true, false}));
  EXPECT_EQ(TempDir::read(file), "x = 2\n");
}

TEST(FixApplier, OverlappingFixesAreSkippedWhole) {
  TempDir dir;
  std::string text = "abcdef\n";
  fs::path file = dir.write("k.py", text);
  Finding twoEdits = withFix(file, {{0, 2}, {0, 4}}, "X");
  twoEdits.fixes[0].edits.push_back({file, {{0, 5}, {0, 6}}, "Y"});
  std::vector<Finding> findings = {withFix(file, {{0, 0}, {0, 3}}, "Z"), twoEdits};
  FixOutcome out = applyFixes(findings, {{file.string(), text}}, {});
  EXPECT_EQ(out.fixed, (std::vector<bool>{true, false}));
  EXPECT_EQ(TempDir::read(file), "Zdef\n"); // none of the second fix's edits
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].find("overlaps another fix"), std::string::npos);
}

TEST(FixApplier, FileChangedOnDiskIsLeftAlone) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", "x = 1  # edited meanwhile\n");
  FixOutcome out = applyFixes({withFix(file, {{0, 4}, {0, 5}}, "2")}, {{file.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 0u);
  EXPECT_EQ(TempDir::read(file), "x = 1  # edited meanwhile\n");
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].find("changed on disk since it was read"), std::string::npos);
}

TEST(FixApplier, EditsOutsideTheFileAreRejected) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", text);
  FixOutcome out =
      applyFixes({withFix(file, {{0, 4}, {0, 50}}, "2"), withFix(file, {{9, 0}, {9, 0}}, "2")},
                 {{file.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 0u);
  EXPECT_EQ(TempDir::read(file), text);
  EXPECT_EQ(out.messages.size(), 2u);
}

TEST(FixApplier, FixesInOtherFilesAreReadFromDisk) {
  TempDir dir;
  fs::path kernel = dir.write("k.py", "k\n");
  fs::path helper = dir.write("h.py", "inline_mgpu\n");
  Finding f = withFix(kernel, {{0, 0}, {0, 1}}, "K");
  f.fixes[0].edits.push_back({helper, {{0, 0}, {0, 11}}, "standard"});
  FixOutcome out = applyFixes({f}, {{kernel.string(), "k\n"}}, {});
  EXPECT_EQ(out.findingsFixed, 1u);
  EXPECT_EQ(TempDir::read(kernel), "K\n");
  EXPECT_EQ(TempDir::read(helper), "standard\n");
}

TEST(FixApplier, ApplyEditsInAnyOrder) {
  EXPECT_EQ(applyEdits("0123456789", {{0, 1, "a"}, {8, 10, ""}, {4, 4, "--"}}), "a123--4567");
}

// ---- issue 14, item 7: links, line ends, permissions ---------------------------

TEST(FixApplier, SymlinkIsWrittenThroughToItsTarget) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path target = dir.write("real/k.py", text);
  fs::path link = dir.path() / "k.py";
  fs::create_symlink("real/k.py", link);
  FixOutcome out = applyFixes({withFix(link, {{0, 4}, {0, 5}}, "2")}, {{link.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 1u);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(link), "real/k.py");
  EXPECT_EQ(TempDir::read(target), "x = 2\n");
}

// Issue 34: a file with other hard links was rewritten in place, which a
// file size limit, a full disk or a kill halfway left holding neither text.
// Such a file is now left alone, with a message, and both names keep it.
TEST(FixApplier, HardLinkedFileIsLeftAloneWithAMessage) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", text);
  fs::path other = dir.path() / "other.py";
  fs::create_hard_link(file, other);
  struct stat before{};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  FixOutcome out =
      applyFixes({withFix(file, {{0, 4}, {0, 5}}, "22222")}, {{file.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 0u);
  EXPECT_TRUE(out.errors.empty());
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].find("has 2 hard links; its fixes were not applied"), std::string::npos)
      << out.messages[0];
  struct stat after{};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(TempDir::read(file), text);
  EXPECT_EQ(TempDir::read(other), text);
}

// Issue 34: under a file size limit (`ulimit -f`) the write of the new text
// raised SIGXFSZ, which killed check halfway and left a partial temporary
// file. Now the write fails with EFBIG, the original is untouched and the
// folder holds nothing new.
TEST(FixApplier, FileSizeLimitLeavesTheOriginalAndNoTemporaryFile) {
  TempDir dir;
  std::string text = "x = 1\n" + std::string(3000, '#') + "\n";
  fs::path file = dir.write("k.py", text);
  struct rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  FixOutcome out = applyFixes({withFix(file, {{0, 4}, {0, 5}}, std::string(8000, '2'))},
                              {{file.string(), text}}, {});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  EXPECT_EQ(out.findingsFixed, 0u);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("File too large"), std::string::npos) << out.errors[0];
  EXPECT_EQ(TempDir::read(file), text);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(FixApplier, LineBreaksOfTheFileAreKeptInEdits) {
  TempDir dir;
  std::string crlf = "a = 1\r\nb = 2\r\n";
  fs::path file = dir.write("crlf.py", crlf);
  applyFixes({withFix(file, {{1, 0}, {1, 5}}, "b = (\n  3)\n# done")}, {{file.string(), crlf}}, {});
  EXPECT_EQ(TempDir::read(file), "a = 1\r\nb = (\r\n  3)\r\n# done\r\n");
  std::string cr = "a = 1\rb = 2\r";
  file = dir.write("cr.py", cr);
  applyFixes({withFix(file, {{1, 0}, {1, 5}}, "b = (\n  3)")}, {{file.string(), cr}}, {});
  EXPECT_EQ(TempDir::read(file), "a = 1\rb = (\r  3)\r");
  std::string lf = "a = 1\nb = 2\n";
  file = dir.write("lf.py", lf);
  applyFixes({withFix(file, {{1, 0}, {1, 5}}, "b = (\r\n  3)")}, {{file.string(), lf}}, {});
  EXPECT_EQ(TempDir::read(file), "a = 1\nb = (\n  3)\n");
}

TEST(FixApplier, ReadOnlyFileIsRefusedWithAMessage) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", text);
  ::chmod(file.c_str(), 0444);
  FixOutcome out = applyFixes({withFix(file, {{0, 4}, {0, 5}}, "2")}, {{file.string(), text}}, {});
  EXPECT_EQ(out.findingsFixed, 0u);
  EXPECT_TRUE(out.changedFiles.empty());
  EXPECT_TRUE(out.errors.empty());
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].find("read-only"), std::string::npos);
  EXPECT_EQ(TempDir::read(file), text);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
}

TEST(FixApplier, PermissionsAreKept) {
  TempDir dir;
  std::string text = "x = 1\n";
  fs::path file = dir.write("k.py", text);
  ::chmod(file.c_str(), 0604);
  applyFixes({withFix(file, {{0, 4}, {0, 5}}, "2")}, {{file.string(), text}}, {});
  EXPECT_EQ(TempDir::read(file), "x = 2\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
}
