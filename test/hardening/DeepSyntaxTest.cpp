// Deeply nested Python through parse, name resolution, lowering, the passes
// and the fixes. Each input crashed `check`, `mlir` and the server with a
// stack overflow (issue 14, item 2): every walk over the syntax is now
// iterative or stops at kMaxAnalysedNesting, and the place where the
// analysis stopped is reported (UpdateStats::tooDeepAt).
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"

#include <gtest/gtest.h>
#include <string>

using namespace pallas::analysis;

namespace {

const std::string kImports = "from jax.experimental import pallas as pl\n"
                             "from jax.experimental.pallas import mosaic_gpu as plgpu\n";

std::string repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

// Lowers, verifies, finds and attaches fixes: everything a check does.
UpdateStats analyse(const std::string& text) {
  Project project;
  const std::string path = "/hardening/deep.py";
  UpdateStats stats = project.setDocument(path, text);
  EXPECT_TRUE(stats.verified);
  EXPECT_TRUE(verifyModule(project, path));
  std::vector<Finding> findings = project.findings(path);
  attachFixes(project, path, findings);
  return stats;
}

TEST(DeepSyntax, AttributeChainOf40000PartsAtModuleLevel) {
  UpdateStats s = analyse(kImports + "x = a" + repeat(".b", 40000) + "\n");
  ASSERT_TRUE(s.tooDeepAt);
  EXPECT_EQ(s.tooDeepAt->line, 2u);
}

TEST(DeepSyntax, AttributeChainOf40000PartsOnAnImportedModule) {
  analyse(kImports + "import a\ndef f():\n  return a" + repeat(".b", 40000) + "\n");
}

TEST(DeepSyntax, AttributeChainAsADecorator) {
  analyse(kImports + "@pl" + repeat(".b", 40000) + "\ndef f():\n  pass\n");
}

TEST(DeepSyntax, ChainedAssignmentOf40000Targets) {
  // Iterative now: nothing is too deep (the parser guard lets 40,000 `=`
  // through), and every target is bound.
  UpdateStats s = analyse(kImports + "def f():\n  " + repeat("a = ", 40000) + "1\n");
  EXPECT_FALSE(s.tooDeepAt);
}

TEST(DeepSyntax, NestedTupleTargets) {
  UpdateStats s =
      analyse(kImports + "def f():\n  " + repeat("[", 30000) + "a" + repeat("]", 30000) + " = 1\n");
  ASSERT_TRUE(s.tooDeepAt);
  EXPECT_EQ(s.tooDeepAt->line, 3u);
}

TEST(DeepSyntax, ElifChainOf60000Clauses) {
  // Each elif nests a pallas.if in the previous one's else region (and the
  // clauses were looked up by index: quadratic).
  UpdateStats s = analyse(kImports + "def f(x):\n  if x:\n    pass\n" +
                          repeat("  elif x:\n    pass\n", 60000) + "  else:\n    pass\n");
  ASSERT_TRUE(s.tooDeepAt);
  EXPECT_GT(s.tooDeepAt->line, 200u);
}

TEST(DeepSyntax, Parentheses400000Deep) {
  analyse(kImports + "def f():\n  x = " + repeat("(", 400000) + "1" + repeat(")", 400000) + "\n");
}

TEST(DeepSyntax, CallsAndSubscripts) {
  analyse(kImports + "def f():\n  x = a" + repeat("()", 40000) + "\n  y = a" +
          repeat("[0]", 40000) + "\n  z = " + repeat("-", 100000) +
          "1\n  w = " + repeat("not ", 100000) + "1\n");
}

TEST(DeepSyntax, NestedModuleLevelBlocks) {
  std::string text = kImports;
  for (int i = 0; i < 300; ++i)
    text += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  text += std::string(300, ' ') + "import jax\n";
  analyse(text);
}

TEST(DeepSyntax, UnclosedBrackets) {
  analyse(kImports + "def f():\n  x = " + repeat("[(", 100000) + "\n");
}

TEST(DeepSyntax, ShallowCodeIsNotReportedTooDeep) {
  UpdateStats s =
      analyse(kImports + "def f(x):\n  if x:\n    y = (x + 1) * 2\n  elif x:\n    pass\n" +
              "  a = b = c = x.y.z\n  (p, (q, r)) = x\n  return a\n");
  EXPECT_FALSE(s.tooDeepAt);
}

TEST(DeepSyntax, DepthJustBelowTheLimitIsAnalysed) {
  // 200 nested parentheses around a name: lowered completely.
  UpdateStats s =
      analyse(kImports + "def f():\n  x = " + repeat("(", 200) + "1" + repeat(")", 200) + "\n");
  EXPECT_FALSE(s.tooDeepAt);
  s = analyse(kImports + "def f():\n  x = " + repeat("(", 300) + "1" + repeat(")", 300) + "\n");
  EXPECT_TRUE(s.tooDeepAt);
}

} // namespace

// What stays open past the parser guard's count (analysis/lib/ParserGuard.h)
// is blanked and reported. (These inputs crashed Debian's tree-sitter 0.20.7
// in ts_tree_delete before the guard existed; the guard now bounds the cost
// of error recovery, which grows faster than linearly in what is open.)
struct Overload {
  const char* name;
  std::string text;
  uint32_t line; // where the blanking starts
};
void PrintTo(const Overload& o, std::ostream* os) {
  *os << o.name;
} // not 200 KB of text

class ParserOverload : public ::testing::TestWithParam<Overload> {};

TEST_P(ParserOverload, IsBlankedAndReported) {
  std::string text = kImports + "def ok():\n  return 1\n" + "x = " + GetParam().text + "\n";
  UpdateStats s = analyse(text);
  ASSERT_TRUE(s.tooDeepAt);
  EXPECT_EQ(s.tooDeepAt->line, GetParam().line);
}

INSTANTIATE_TEST_SUITE_P(
    DeepSyntax, ParserOverload,
    ::testing::Values(
        Overload{"brackets", repeat("[(", 40000), 4},
        Overload{"parentheses", repeat("(", 70000), 4}, Overload{"minus", repeat("-", 70000), 4},
        Overload{"assignments", repeat("a = ", 70000), 4},
        Overload{"conditionals", repeat("1 if 1 else ", 70000), 4},
        Overload{"lambdas", repeat("lambda: ", 70000), 4},
        Overload{"nots", repeat("not ", 70000), 4},
        Overload{"headers", "1\n" + repeat("if x:\n", 70000), 5},
        // Found by fuzz_python_structured: "\r\n" reset the count.
        Overload{"crlf_headers", "1\r\n" + repeat("if x:\r\n", 29196), 5},
        Overload{"headers_and_blank_lines", "1\n" + repeat("if x:\n\n# c\n", 29196), 5},
        // One logical line over backslash continuations, LF and CRLF.
        Overload{"continued_minus", repeat("-", 35000) + "\\\n" + repeat("-", 35000), 4},
        Overload{"crlf_continued_minus", repeat("-", 35000) + "\\\r\n" + repeat("-", 35000), 4}),
    [](const ::testing::TestParamInfo<Overload>& info) { return std::string(info.param.name); });

// Under the guard's count, yet each gathered 65,536 subtrees or more in
// error recovery, which corrupted the heap of Debian's tree-sitter 0.20.7
// (a crash in the parse itself; the first found by fuzz_python_structured:
// a 32,768-target chained assignment ending in undecodable bytes). The
// runtime compiled from npm (CMakeLists.txt) parses them; they are analysed
// in full, nothing blanked.
class UnderTheGuard : public ::testing::TestWithParam<Overload> {};

TEST_P(UnderTheGuard, IsParsedAndAnalysedInFull) {
  UpdateStats s = analyse(kImports + "def ok():\n  return 1\n" + GetParam().text + "\n");
  EXPECT_FALSE(s.tooDeepAt);
}

INSTANTIATE_TEST_SUITE_P(
    DeepSyntax, UnderTheGuard,
    ::testing::Values(Overload{"chained_assignment_into_bad_bytes",
                               "def f():\n  " + repeat("x = ", 32768) + "jnp[\x8a\x82 ]", 0},
                      Overload{"open_subscripts", "x = y" + repeat("[y", 40000), 0},
                      Overload{"open_conditionals", "x = " + repeat("a if b else ", 20000), 0},
                      Overload{"open_dicts", "x = {" + repeat("a: {", 24000), 0}),
    [](const ::testing::TestParamInfo<Overload>& info) { return std::string(info.param.name); });

TEST(DeepSyntax, EditsThatOverloadAndRecover) {
  Project project;
  const std::string path = "/hardening/edit.py";
  project.setDocument(path, kImports + "x = 1\n");
  // Type 70,000 '(' (one edit), then delete them again.
  size_t at = kImports.size() + 4;
  UpdateStats s = project.editDocument(path, {ByteEdit{at, at + 1, repeat("(", 70000)}});
  EXPECT_TRUE(s.tooDeepAt);
  EXPECT_TRUE(verifyModule(project, path));
  s = project.editDocument(path, {ByteEdit{at, at + 70000, "2"}});
  EXPECT_FALSE(s.tooDeepAt);
  EXPECT_EQ(project.documentText(path), kImports + "x = 2\n");
}

TEST(DeepSyntax, LegitimateLargeLiteralsAreNotBlanked) {
  UpdateStats s = analyse(kImports + "DATA = [" + repeat("-1.5, ", 30000) + "]\nT = {" +
                          repeat("'k': (1, [2]), ", 15000) + "}\ns = '" + repeat("((", 60000) +
                          "'\n# " + repeat("(", 70000) + "\n");
  EXPECT_FALSE(s.tooDeepAt);
}

TEST(ManyUnits, IdenticalStatementsAreReusedInLinearTime) {
  // Found by fuzz_python_structured: reusing units looked through every old
  // unit with the same text for each new one (quadratic per keystroke).
  Project project;
  const std::string path = "/hardening/same.py";
  std::string text = kImports + repeat("x = 1\n", 70000);
  project.setDocument(path, text);
  for (int i = 0; i < 3; ++i) {
    UpdateStats s =
        project.editDocument(path, {ByteEdit{kImports.size(), kImports.size(), "y = 2\n"}});
    EXPECT_EQ(s.functionsRelowered, 1u);
    EXPECT_TRUE(s.verified);
  }
}

// Found by fuzz_python_structured (10-minute run): under findParserOverload's
// count, yet tree-sitter's error recovery took minutes on it (a 3,900-deep
// bracket left open, then a 32,768-target chained assignment inside it). The
// parse budget ends it: the file is analysed as empty and reported at its
// start. Finishing at all is the check (ctest's timeout is the bound).
TEST(DeepSyntax, ErrorRecoveryOverItsBudgetIsReported) {
  std::string text = "import jax\n" + kImports + "def f5(x, y=x):\n  " + repeat("[", 3904) +
                     "a]] = x\n"
                     "  o_ref[...] = pl.pallas_call(kernel, out_shape=x, interpret=False)\n"
                     "  x = ref.ref.ref.ref.ref\n"
                     "  (a), b = x\n"
                     "def f7(x, y=True):\n  " +
                     repeat("a = ", 32768) + "b\n";
  UpdateStats s = analyse(text);
  ASSERT_TRUE(s.tooDeepAt);
  EXPECT_EQ(s.tooDeepAt->line, 0u);
}
