#include "check/Gitignore.h"

#include "TempDir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

namespace fs = std::filesystem;
using pallas::check::GitignoreFile;
using pallas::check::GitignoreStack;
using pallas::check::testing::TempDir;
using Verdict = GitignoreFile::Verdict;

TEST(Gitignore, ParsesCommentsBlanksEscapesAndTrailingSpaces) {
  GitignoreFile file("/r", "# comment\n\n\\#hash\n\\!bang\nspace\\ \ntrail   \r\n");
  ASSERT_EQ(file.rules().size(), 4u);
  EXPECT_EQ(file.match("/r/#hash", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/!bang", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/space ", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/trail", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/comment", false), Verdict::None);
}

TEST(Gitignore, UnanchoredMatchesAtAnyDepthAnchoredOnlyAtBase) {
  GitignoreFile file("/r", "gen.py\n/top.py\nsub/mid.py\n");
  EXPECT_EQ(file.match("/r/gen.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/a/b/gen.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/top.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/a/top.py", false), Verdict::None);
  EXPECT_EQ(file.match("/r/sub/mid.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/a/sub/mid.py", false), Verdict::None);
  EXPECT_EQ(file.match("/elsewhere/gen.py", false), Verdict::None);
}

TEST(Gitignore, DirectoryOnlyPatterns) {
  GitignoreFile file("/r", "out/\n");
  EXPECT_EQ(file.match("/r/out", true), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/x/out", true), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/out", false), Verdict::None); // a file named "out"
}

TEST(Gitignore, LastMatchWinsAndNegationReincludes) {
  GitignoreFile file("/r", "*.py\n!keep.py\n");
  EXPECT_EQ(file.match("/r/a.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/keep.py", false), Verdict::Include);
  GitignoreFile reversed("/r", "!keep.py\n*.py\n");
  EXPECT_EQ(reversed.match("/r/keep.py", false), Verdict::Ignore);
}

TEST(Gitignore, DoubleStarPatterns) {
  GitignoreFile file("/r", "**/fixtures/*.py\ndocs/**\na/**/z.py\n");
  EXPECT_EQ(file.match("/r/fixtures/x.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/t/fixtures/x.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/docs/conf.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/a/z.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/a/b/c/z.py", false), Verdict::Ignore);
  EXPECT_EQ(file.match("/r/b/z.py", false), Verdict::None);
}

TEST(Gitignore, NestedFilesOverrideParents) {
  TempDir dir;
  dir.mkdir(".git");
  dir.write(".gitignore", "*.gen.py\n");
  dir.write("pkg/.gitignore", "!keep.gen.py\nlocal.py\n");
  GitignoreStack root = GitignoreStack::forFolder(dir.path());
  GitignoreStack pkg = root.enter(dir.path() / "pkg");
  EXPECT_TRUE(root.ignored(dir.path() / "x.gen.py", false));
  EXPECT_TRUE(pkg.ignored(dir.path() / "pkg" / "x.gen.py", false));
  EXPECT_FALSE(pkg.ignored(dir.path() / "pkg" / "keep.gen.py", false));
  EXPECT_TRUE(pkg.ignored(dir.path() / "pkg" / "local.py", false));
  EXPECT_FALSE(root.ignored(dir.path() / "local.py", false));
}

TEST(Gitignore, AncestorsUpToTheRepositoryRootApply) {
  TempDir dir;
  dir.mkdir(".git/info");
  dir.write(".git/info/exclude", "secret.py\n");
  dir.write(".gitignore", "sub/skip.py\n");
  fs::path sub = dir.mkdir("sub");
  GitignoreStack stack = GitignoreStack::forFolder(sub);
  EXPECT_TRUE(stack.ignored(sub / "skip.py", false));
  EXPECT_TRUE(stack.ignored(sub / "secret.py", false));
  EXPECT_FALSE(stack.ignored(sub / "other.py", false));
}

TEST(Gitignore, OutsideARepositoryOnlyTheFoldersOwnFileApplies) {
  TempDir dir;
  dir.write(".gitignore", "skip.py\n");
  fs::path sub = dir.mkdir("sub");
  // No .git anywhere up to / (the temp folder is not in a repository), so the
  // parent's .gitignore does not apply to a walk rooted at sub.
  EXPECT_FALSE(GitignoreStack::forFolder(sub).ignored(sub / "skip.py", false));
  EXPECT_TRUE(GitignoreStack::forFolder(dir.path()).ignored(dir.path() / "skip.py", false));
}

// ---- issue 34: an ignore file that is not a file -----------------------------------

// A .gitignore symlinked to /dev/zero read until memory ran out; a FIFO
// hung `check`. Now neither is read: it is reported, and gives no rules.
TEST(Gitignore, AFifoADeviceOrAHugeFileIsReportedNotRead) {
  TempDir dir;
  std::filesystem::path fifo = dir.path() / "fifo" / ".gitignore";
  std::filesystem::create_directories(fifo.parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::path zero = dir.path() / "zero" / ".gitignore";
  std::filesystem::create_directories(zero.parent_path());
  std::filesystem::create_symlink("/dev/zero", zero);
  std::filesystem::path huge =
      dir.write("huge/.gitignore", std::string(pallas::check::kMaxIgnoreFileBytes + 1, '#'));
  std::vector<std::string> errors;
  EXPECT_EQ(GitignoreFile::load(fifo.parent_path(), fifo, &errors), nullptr);
  EXPECT_EQ(GitignoreFile::load(zero.parent_path(), zero, &errors), nullptr);
  EXPECT_EQ(GitignoreFile::load(huge.parent_path(), huge, &errors), nullptr);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("skipped: not a regular file (a FIFO)"), std::string::npos);
  EXPECT_NE(errors[1].find("not a regular file (a character device)"), std::string::npos);
  EXPECT_NE(errors[2].find("larger than 1 MiB"), std::string::npos);
  // A missing one is no error, nor one under a `.git` that is a file (a
  // worktree's).
  EXPECT_EQ(GitignoreFile::load(dir.path(), dir.path() / "none" / ".gitignore", &errors), nullptr);
  std::filesystem::path gitFile = dir.write("wt/.git", "gitdir: /elsewhere\n");
  EXPECT_EQ(GitignoreFile::load(gitFile.parent_path(), gitFile / "info" / "exclude", &errors),
            nullptr);
  EXPECT_EQ(errors.size(), 3u);
}
