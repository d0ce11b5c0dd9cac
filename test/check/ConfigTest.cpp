#include "config/Config.h"

#include "TempDir.h"
#include "config/TomlLimits.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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

// ---- issue 34: untrusted pyproject.toml ------------------------------------------

namespace {

std::string configErrorOf(const std::string& text) {
  try {
    (void)parsePyproject(text, "/p/pyproject.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

} // namespace

// 100,000-part dotted keys overflowed toml++'s stack (SIGSEGV in check and
// in the server at the first didOpen), in a key or a table header, under
// any table. Refused before parsing, with the place.
TEST(ConfigLimits, DeepKeysAndHeadersAreRefusedNotParsed) {
  for (const std::string& text :
       {repeat("a.", 100000) + "a = 1\n", "[" + repeat("a.", 100000) + "a]\n",
        "[[" + repeat("a.", 100000) + "a]]\n", "x = 1\n[tool]\n" + repeat("b.", 70) + "c = 2\n",
        "v = " + repeat("[", 300) + repeat("]", 300) + "\n",
        "t = " + repeat("{a = ", 80) + "1" + repeat("}", 80) + "\n",
        "[" + repeat("a.", 40) + "a]\n" + repeat("b.", 30) + "c = 1\n"}) {
    std::string error = configErrorOf(text);
    EXPECT_NE(error.find("nested deeper than 64 levels"), std::string::npos)
        << text.substr(0, 60) << " -> " << error;
    EXPECT_EQ(error.rfind("/p/pyproject.toml:", 0), 0u) << error;
  }
  // The place: line and column where the limit is passed.
  EXPECT_NE(configErrorOf("ok = 1\n" + repeat("a.", 70) + "a = 1\n").find("pyproject.toml:2:"),
            std::string::npos);
}

TEST(ConfigLimits, RealisticNestingAndDotsInValuesPass) {
  std::string text = "[tool.pallas-lsp]\nselect = [\"PLS001\"]\n"
                     "[tool.ruff.lint.per-file-ignores]\n\"tests/*\" = [\"E501\"]\n"
                     "[project]\nversion = \"1.2.3\"\nfloats = [" +
                     repeat("1.5, ", 5000) + "2.5]\nurl = 'a.b.c.d.e'\n" + "s = \"\"\"" +
                     repeat("x.", 1000) + "\"\"\"\n" + "# " + repeat("c.", 1000) + "\n" +
                     repeat("k", 3) + "." + repeat("q.", 30) + "z = 1\n";
  EXPECT_EQ(checkTomlLimits(text), std::nullopt);
  EXPECT_NO_THROW((void)parsePyproject(text, "/p/pyproject.toml"));
}

TEST(ConfigLimits, SizeAndPatternLengthAreBounded) {
  EXPECT_NE(configErrorOf(std::string(kMaxTomlBytes + 1, '\n')).find("larger than 1 MiB"),
            std::string::npos);
  std::string longPattern(kMaxGlobPatternLength + 1, 'x');
  EXPECT_NE(configErrorOf("[tool.pallas-lsp]\nextend-exclude = [\"" + longPattern + "\"]\n")
                .find("a pattern longer than 4096"),
            std::string::npos);
  EXPECT_NE(
      configErrorOf("[tool.pallas-lsp.per-file-ignores]\n\"" + longPattern + "\" = [\"PLS001\"]\n")
          .find("a pattern longer than 4096"),
      std::string::npos);
}

TEST(ConfigLimits, AFifoOrADeviceIsNotRead) {
  TempDir dir;
  std::filesystem::path fifo = dir.path() / "pyproject.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    (void)loadPyproject(fifo);
    FAIL() << "a FIFO was read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file (a FIFO)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)loadPyproject("/dev/zero"), ConfigError);
}

// Found by fuzz_config: toml++ 3.3 reads a table header's key without
// checking its first character (an assertion, or undefined behaviour where
// assertions are off). Refused before the parser sees it.
TEST(ConfigLimits, AHeaderThatDoesNotStartWithAKeyIsRefused) {
  for (const std::string& text : {"[, \"x\"]\n", "[\n", "[[ ,]]\n", "[\t=]\n", "[\x01]\n"}) {
    std::string error = configErrorOf(text);
    EXPECT_NE(error.find("invalid TOML: a table header must start with a key"), std::string::npos)
        << text << " -> " << error;
  }
  EXPECT_EQ(checkTomlLimits("[ a ]\n[\"q\"]\n['l'.x]\n[[t]]\n[]\n"), std::nullopt);
}

// Found by fuzz_config: toml++ 3.3 parses a value where an array expects one
// without checking for '}'. Refused before the parser sees it.
TEST(ConfigLimits, AnArrayThatMeetsABraceWhereAValueGoesIsRefused) {
  for (const std::string& text :
       {"v = [ }\n", "v = [1, }\n", "v = [\n  # c\n  }\n", "t = {a = [[ }]}\n"}) {
    std::string error = configErrorOf(text);
    EXPECT_NE(error.find("invalid TOML: expected a value or ']' in the array, saw '}'"),
              std::string::npos)
        << text << " -> " << error;
  }
  EXPECT_EQ(checkTomlLimits("v = [1, [2], {a = [3]}, '}', \"}\"]\nt = {a = 1}\n"), std::nullopt);
}

// Found by fuzz_config: toml++ 3.3 asks whether a character is white space
// wherever one may be, and for most characters outside ASCII (U+00A1 to
// U+0499 among them) its table reaches __builtin_unreachable. TOML allows
// them only in strings and comments; elsewhere they are refused first.
TEST(ConfigLimits, CharactersOutsideAsciiOnlyInStringsAndComments) {
  for (const std::string& text :
       {"\xc3\xa9 = 1\n", "x = 1\xc3\xa9\n", "[a\xc3\xa9]\n", "v = [1, \xcf\x9e]\n",
        "s = \"\"\"a \\\n  \xc3\xa9\"\"\"\n", "s = \"\"\"\\\xc3\xa9\"\"\"\n"}) {
    std::string error = configErrorOf(text);
    EXPECT_TRUE(error.find("outside ASCII outside a string or comment") != std::string::npos ||
                error.find("non-ASCII character after a backslash") != std::string::npos)
        << text << " -> " << error;
  }
  // In strings, comments and quoted keys they are what they always were.
  EXPECT_NO_THROW((void)parsePyproject("# caf\xc3\xa9\n[\"caf\xc3\xa9\"]\nname = \"Zo\xc3\xab\"\n"
                                       "d = '''\xcf\x9e'''\ne = \"\"\"\xc3\xa9 \\\n  x\"\"\"\n",
                                       "/p/pyproject.toml"));
}

// Found by fuzz_config (10-minute run): toml++ 3.3 reads the time of a
// date-time without checking that a digit follows the 'T'.
TEST(ConfigLimits, ADateTimeWithoutItsHourIsRefused) {
  for (const std::string& text :
       {"w = 1979-05-27T-7:32:00Z\n", "t = { w = 1979-05-27tx }\n", "v = [1979-05-27T]\n"}) {
    std::string error = configErrorOf(text);
    EXPECT_NE(error.find("invalid TOML: a date-time needs the hour after 'T'"), std::string::npos)
        << text << " -> " << error;
  }
  EXPECT_EQ(checkTomlLimits("a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\n"
                            "d = 1979-05-27 07:32:00\ne = 12345678901\n"),
            std::nullopt);
}
