#include "pallas/analysis/Rewrite.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace pallas::analysis;

namespace {

// Apply single-line edits (tests only use those) to text.
std::string applyFix(std::string text, const Fix& f) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  auto edits = f.edits;
  std::sort(edits.begin(), edits.end(),
            [](auto& a, auto& b) { return b.range.start < a.range.start; });
  for (auto& e : edits) {
    size_t s = starts[e.range.start.line] + e.range.start.column;
    size_t en = starts[e.range.end.line] + e.range.end.column;
    text.replace(s, en - s, e.newText);
  }
  return text;
}

} // namespace

TEST(PathFixes, RunCompiledRemovesKeywordAndCommaBefore) {
  std::string t = "y = pl.pallas_call(k, out_shape=s, interpret=True)(x)\n";
  auto f = runCompiledFix(t, "/a.py", {0, 4});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->safety, FixSafety::Unsafe);
  EXPECT_EQ(applyFix(t, *f), "y = pl.pallas_call(k, out_shape=s)(x)\n");
}

TEST(PathFixes, RunCompiledFirstArgumentTakesCommaAfter) {
  std::string t = "f = pl.pallas_call(interpret=True, out_shape=s)\n";
  auto f = runCompiledFix(t, "/a.py", {0, 4});
  ASSERT_TRUE(f);
  EXPECT_EQ(applyFix(t, *f), "f = pl.pallas_call(out_shape=s)\n");
}

TEST(PathFixes, RunCompiledInDecoratorAndMultiline) {
  std::string t =
      "@functools.partial(\n    pl.pallas_call,\n    out_shape=s,\n    interpret=True,\n)\n"
      "def k(x_ref, o_ref):\n  pass\n";
  auto f = runCompiledFix(t, "/a.py", {0, 0});
  ASSERT_TRUE(f);
  // The comma before goes with the argument; the trailing comma stays.
  EXPECT_EQ(applyFix(t, *f), "@functools.partial(\n    pl.pallas_call,\n    out_shape=s,\n)\n"
                             "def k(x_ref, o_ref):\n  pass\n");
}

TEST(PathFixes, RunCompiledAbsentKeyword) {
  EXPECT_FALSE(runCompiledFix("f = pl.pallas_call(k, out_shape=s)\n", "/a.py", {0, 4}));
  // A decorator launch without interpret= (a compiled-path finding): no fix,
  // and the walk up from the decorator ends (it once looped forever).
  std::string t = "@functools.partial(pl.pallas_call, out_shape=s)\ndef k(x_ref, o_ref):\n  pass\n";
  EXPECT_FALSE(runCompiledFix(t, "/a.py", {0, 0}));
  EXPECT_FALSE(runCompiledFix(t, "/a.py", {0, 1}));
  auto gpu = gpuInterpretFix(t, "/a.py", {0, 1});
  ASSERT_TRUE(gpu);
  EXPECT_NE(applyFix(t, *gpu).find("out_shape=s, interpret=InterpretGPUParams())"),
            std::string::npos);
}

TEST(PathFixes, GpuInterpretReplacesValueAndImports) {
  std::string t = "import jax\nf = pl.pallas_call(k, interpret=True)\n";
  auto f = gpuInterpretFix(t, "/a.py", {1, 4});
  ASSERT_TRUE(f);
  EXPECT_EQ(applyFix(t, *f),
            "import jax\nfrom jax._src.pallas.mosaic_gpu.interpret.params import "
            "InterpretGPUParams\nf = pl.pallas_call(k, interpret=InterpretGPUParams())\n");
  std::string t2 = "from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams\n"
                   "f = pl.pallas_call(k)\n";
  auto f2 = gpuInterpretFix(t2, "/a.py", {1, 4});
  ASSERT_TRUE(f2);
  EXPECT_EQ(applyFix(t2, *f2),
            "from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams\n"
            "f = pl.pallas_call(k, interpret=InterpretGPUParams())\n");
}

TEST(PathFixes, IgnoreAppendsAndMerges) {
  std::string t = "x = f(a)   \ny = g(b)  # pallas-lsp: ignore[PLS002]\n";
  auto f = ignoreFix(t, "/a.py", 0, "PLS001");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->safety, FixSafety::DisplayOnly);
  EXPECT_EQ(applyFix(t, *f),
            "x = f(a)  # pallas-lsp: ignore[PLS001]\ny = g(b)  # pallas-lsp: ignore[PLS002]\n");
  auto g = ignoreFix(t, "/a.py", 1, "PLS001");
  ASSERT_TRUE(g);
  EXPECT_EQ(applyFix(t, *g), "x = f(a)   \ny = g(b)  # pallas-lsp: ignore[PLS002, PLS001]\n");
  EXPECT_FALSE(ignoreFix(t, "/a.py", 1, "PLS002")); // already ignored
  EXPECT_FALSE(ignoreFix(t, "/a.py", 9, "PLS001"));
}

TEST(PathFixes, RunOnGpuNamesTheEnclosingFunction) {
  std::string t = "def main():\n  y = pl.pallas_call(k, interpret=True)(x)\n";
  auto f = runOnGpuFix(t, "/w/a b.py", {1, 6});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->safety, FixSafety::DisplayOnly);
  ASSERT_TRUE(f->run);
  EXPECT_EQ(f->run->path, "/w/a b.py");
  EXPECT_EQ(f->run->entry, "main");
  EXPECT_EQ(f->run->mode, "compiled");
  EXPECT_FALSE(runOnGpuFix("y = pl.pallas_call(k)(x)\n", "/a.py", {0, 4}));
}

TEST(PathFixes, PathFixesOrderAndGpuInterpretGate) {
  std::string t = "def main():\n  y = pl.pallas_call(k, interpret=True)(x)\n";
  Finding f;
  f.code = "PLS001";
  f.location = {"/a.py", {{1, 2}, {1, 3}}};
  f.launch = SourceLocation{"/a.py", {{1, 6}, {1, 6}}};
  auto fixes = pathFixes(t, f);
  ASSERT_EQ(fixes.size(), 3u);
  EXPECT_NE(fixes[0].title.find("compiled"), std::string::npos);
  EXPECT_NE(fixes[1].title.find("GPU now"), std::string::npos);
  EXPECT_NE(fixes[2].title.find("Ignore"), std::string::npos);
  f.gpuInterpretRunsLaunch = true; // the analysis found GPU interpret mode runs the launch
  auto withGpu = pathFixes(t, f);
  ASSERT_EQ(withGpu.size(), 4u);
  EXPECT_NE(withGpu[1].title.find("GPU interpret"), std::string::npos);
}
