#include "config/Config.h"

#include "TempDir.h"

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace pallas::check;
using pallas::analysis::Severity;
using pallas::check::testing::TempDir;

namespace {
std::string errorOf(std::string_view text) {
  try {
    parsePyproject(text, "/p/pyproject.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Config, NoTableMeansNoConfig) {
  EXPECT_FALSE(parsePyproject("[project]\nname = \"x\"\n[tool.ruff]\nline-length = 100\n",
                              "/p/pyproject.toml"));
  EXPECT_FALSE(parsePyproject("", "/p/pyproject.toml"));
}

TEST(Config, ParsesEveryKey) {
  auto config = parsePyproject(R"(
[project]
name = "demo"
description = """multi
line"""
dependencies = ["jax>=0.10", {name = "x"}]  # other tables may use all of TOML

[tool.pallas-lsp]
select = ["PLS00"]
ignore = ["PLS003"]
exclude = ["generated"]
extend-exclude = ["tests/data/*.py"]
python = ".venv/bin/python"
respect-gitignore = false
per-file-ignores = { "tests/*" = ["PLS001", "PLS002"] }

[tool.pallas-lsp.severity]
PLS003 = "error"
PLS00 = "hint"
)",
                               "/p/pyproject.toml");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->root, fs::path("/p"));
  EXPECT_EQ(config->select, std::vector<std::string>{"PLS00"});
  EXPECT_EQ(config->ignore, std::vector<std::string>{"PLS003"});
  ASSERT_EQ(config->exclude.size(), 1u); // `exclude` replaces the defaults
  EXPECT_TRUE(config->excluded("/p/x/generated"));
  EXPECT_FALSE(config->excluded("/p/x/venv"));
  EXPECT_TRUE(config->excluded("/p/tests/data/k.py"));
  EXPECT_FALSE(config->excluded("/p/tests/k.py"));
  EXPECT_EQ(config->python, ".venv/bin/python");
  EXPECT_FALSE(config->respectGitignore);
  EXPECT_EQ(config->ignoredFor("/p/tests/k.py"), (std::vector<std::string>{"PLS001", "PLS002"}));
  EXPECT_TRUE(config->ignoredFor("/p/src/k.py").empty());
  EXPECT_EQ(config->severityFor("PLS003"), Severity::Error); // longest selector wins
  EXPECT_EQ(config->severityFor("PLS001"), Severity::Hint);
}

TEST(Config, DefaultsExcludeVirtualEnvironmentsAndCaches) {
  Config config;
  config.root = "/p";
  for (const char* p :
       {"/p/venv", "/p/a/.venv", "/p/lib/site-packages", "/p/node_modules", "/p/x/__pycache__"})
    EXPECT_TRUE(config.excluded(p)) << p;
  EXPECT_FALSE(config.excluded("/p/src"));
}

TEST(Config, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(errorOf("[tool.pallas-lsp]\nselect = \"PLS001\"\n"),
            "/p/pyproject.toml:2:10: tool.pallas-lsp.select must be an array of strings");
  EXPECT_EQ(
      errorOf("[tool.pallas-lsp]\nselect = [\"PLS001\", \"E501\"]\n"),
      "/p/pyproject.toml:2:21: tool.pallas-lsp.select: unknown rule selector 'E501' (known: ALL, "
      "PLS001-PLS011 and their prefixes)");
  EXPECT_NE(errorOf("[tool.pallas-lsp]\nselct = []\n")
                .find("pyproject.toml:2:1: unknown key 'tool.pallas-lsp.selct'"),
            std::string::npos);
  EXPECT_NE(errorOf("[tool.pallas-lsp]\nrespect-gitignore = \"yes\"\n").find(":2:"),
            std::string::npos);
  EXPECT_NE(errorOf("[tool.pallas-lsp.severity]\nPLS003 = \"fatal\"\n").find("must be one of"),
            std::string::npos);
  EXPECT_NE(errorOf("[tool.pallas-lsp]\nper-file-ignores = [\"x\"]\n")
                .find("per-file-ignores must be a table"),
            std::string::npos);
  std::string syntax = errorOf("[tool.pallas-lsp]\nselect = [\"PLS001\"\n");
  EXPECT_EQ(syntax.rfind("/p/pyproject.toml:", 0), 0u) << syntax;
  EXPECT_NE(syntax.find("invalid TOML"), std::string::npos) << syntax;
  EXPECT_NE(errorOf("[tool]\npallas-lsp = 3\n").find("must be a table"), std::string::npos);
}

TEST(ConfigResolver, NearestPyprojectWithTheTableWins) {
  TempDir dir;
  dir.write("pyproject.toml", "[tool.pallas-lsp]\nignore = [\"PLS003\"]\n");
  dir.write("a/pyproject.toml", "[project]\nname = \"no table here\"\n");
  dir.write("a/b/pyproject.toml", "[tool.pallas-lsp]\nignore = [\"PLS001\"]\n");
  ConfigResolver resolver = ConfigResolver::discover();
  auto top = resolver.forPath(dir.path() / "a" / "k.py");
  EXPECT_EQ(top->file, dir.path() / "pyproject.toml"); // a/ has no table: skipped
  EXPECT_EQ(top->ignore, std::vector<std::string>{"PLS003"});
  auto deep = resolver.forPath(dir.path() / "a" / "b" / "c" / "k.py");
  EXPECT_EQ(deep->file, dir.path() / "a" / "b" / "pyproject.toml");
  // Cached per folder: the same object comes back.
  EXPECT_EQ(resolver.forPath(dir.path() / "a" / "k2.py").get(), top.get());
}

TEST(ConfigResolver, FixedAndNone) {
  TempDir dir;
  fs::path file = dir.write("cfg/custom.toml", "[tool.pallas-lsp]\nselect = [\"PLS004\"]\n");
  auto fixed = ConfigResolver::fixed(file);
  EXPECT_EQ(fixed.forPath("/anywhere/k.py")->select, std::vector<std::string>{"PLS004"});
  dir.write("pyproject.toml", "[tool.pallas-lsp]\nselect = [\"PLS001\"]\n");
  auto none = ConfigResolver::none(dir.path());
  EXPECT_FALSE(none.forPath(dir.path() / "k.py")->select);
  EXPECT_THROW(ConfigResolver::fixed(dir.path() / "missing.toml"), ConfigError);
}

TEST(ConfigResolver, BrokenConfigIsAnError) {
  TempDir dir;
  dir.write("pyproject.toml", "[tool.pallas-lsp\n");
  EXPECT_THROW(ConfigResolver::discover().forPath(dir.path() / "k.py"), ConfigError);
}
