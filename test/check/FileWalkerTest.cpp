#include "check/FileWalker.h"

#include "TempDir.h"

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace pallas::check;
using pallas::check::testing::TempDir;

namespace {

std::vector<std::string> relative(const WalkResult& result, const fs::path& root) {
  std::vector<std::string> out;
  for (const fs::path& p : result.files)
    out.push_back(p.lexically_relative(root).generic_string());
  return out;
}

} // namespace

TEST(FileWalker, FindsPythonFilesAndSkipsWhatItShould) {
  TempDir dir;
  dir.mkdir(".git");
  dir.write("a.py", "");
  dir.write("notes.txt", "");
  dir.write("pkg/b.py", "");
  dir.write("pkg/__pycache__/b.cpython-311.py", "");
  dir.write(".hidden/c.py", "");
  dir.write("pkg/.secret.py", "");
  dir.write("venv/lib/d.py", "");
  dir.write("env/pyvenv.cfg", "home = /usr\n");
  dir.write("env/lib/e.py", "");
  dir.write("lib/site-packages/f.py", "");
  dir.write("node_modules/g.py", "");
  dir.write(".gitignore", "gen/\n*_pb2.py\n");
  dir.write("gen/h.py", "");
  dir.write("pkg/msg_pb2.py", "");
  dir.write("pkg/.gitignore", "!keep_pb2.py\nlocal/\n");
  dir.write("pkg/keep_pb2.py", "");
  dir.write("pkg/local/i.py", "");
  WalkResult result = discoverFiles({dir.path()}, ConfigResolver::none(dir.path()));
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(relative(result, dir.path()),
            (std::vector<std::string>{"a.py", "pkg/b.py", "pkg/keep_pb2.py"}));
}

TEST(FileWalker, ExplicitFilesAreAlwaysChecked) {
  TempDir dir;
  dir.mkdir(".git");
  dir.write(".gitignore", "ignored.py\n");
  fs::path ignored = dir.write("ignored.py", "");
  fs::path script = dir.write("tool", "#!/usr/bin/env python\n");
  fs::path hidden = dir.write(".hidden/x.py", "");
  WalkResult result =
      discoverFiles({ignored, script, hidden, ignored}, ConfigResolver::none(dir.path()));
  EXPECT_EQ(relative(result, dir.path()),
            (std::vector<std::string>{".hidden/x.py", "ignored.py", "tool"}));
}

TEST(FileWalker, ExplicitHiddenFolderIsWalked) {
  TempDir dir;
  dir.write(".ci/check.py", "");
  WalkResult result = discoverFiles({dir.path() / ".ci"}, ConfigResolver::none(dir.path()));
  EXPECT_EQ(relative(result, dir.path()), (std::vector<std::string>{".ci/check.py"}));
}

TEST(FileWalker, ConfigExcludesAndGitignoreOptOut) {
  TempDir dir;
  dir.mkdir(".git");
  dir.write("pyproject.toml", "[tool.pallas-lsp]\nextend-exclude = [\"tests/data\", \"gen_*.py\"]\n"
                              "respect-gitignore = false\n");
  dir.write(".gitignore", "*.py\n");
  dir.write("k.py", "");
  dir.write("gen_x.py", "");
  dir.write("tests/data/d.py", "");
  dir.write("tests/t.py", "");
  dir.write("build/out.py", ""); // a default exclude, still in force
  WalkResult result = discoverFiles({dir.path()}, ConfigResolver::discover());
  EXPECT_EQ(relative(result, dir.path()), (std::vector<std::string>{"k.py", "tests/t.py"}));
}

TEST(FileWalker, MissingPathsAreErrors) {
  TempDir dir;
  WalkResult result = discoverFiles({dir.path() / "nope.py"}, ConfigResolver::none(dir.path()));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(result.errors[0].find("nope.py"), std::string::npos);
}

TEST(FileWalker, SymlinkedFoldersAreNotFollowed) {
  TempDir dir;
  dir.write("real/a.py", "");
  fs::create_directory_symlink(dir.path(), dir.path() / "real" / "loop");
  WalkResult result = discoverFiles({dir.path()}, ConfigResolver::none(dir.path()));
  EXPECT_EQ(relative(result, dir.path()), (std::vector<std::string>{"real/a.py"}));
}

TEST(FileWalker, CommonRootOfFilesAndFolders) {
  TempDir dir;
  fs::path c = dir.mkdir("a/b/c");
  fs::path e = dir.write("a/b/d/e.py", "");
  EXPECT_EQ(commonRoot({c, e}), dir.path() / "a" / "b");
  EXPECT_EQ(commonRoot({c}), c);               // a folder is its own root
  EXPECT_EQ(commonRoot({e}), e.parent_path()); // a file contributes its folder
}
