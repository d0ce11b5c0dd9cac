// The inline_mgpu rewrite through the Project-level entry (real lowering,
// real MLIR, real tree-sitter). Numerics are checked with JAX in
// test_rewrite.py; here: the shape of the edit and the blockers.
#include "pallas/analysis/Rewrite.h"

#include "pallas/analysis/Project.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace pallas::analysis;

namespace {

const char* kHeader = "import jax.numpy as jnp\n"
                      "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                      "import jax.experimental.mosaic.gpu as mgpu\n"
                      "from jax._src.lib.mlir import ir\n";

RewriteResult rewrite(const std::string& body, SourcePos pos, std::string* text = nullptr) {
  Project p;
  std::string src = std::string(kHeader) + body;
  p.setDocument("/tmp/rw/k.py", src);
  if (text)
    *text = src;
  return rewriteInlineMgpu(p, "/tmp/rw/k.py", pos);
}

const char* kAdd = "def kernel(x_ref, o_ref):\n"
                   "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))\n"
                   "  def foo(ctx, ref):\n"
                   "    x = mgpu.FragmentedArray.load_strided(ref)\n"
                   "    return x + x * x\n"
                   "  o_ref[...] = foo(x_ref)\n";

} // namespace

TEST(Rewrite, ReplacesDecoratorAndDefKeepingNameAndCallSites) {
  std::string text;
  RewriteResult r = rewrite(kAdd, {6, 4}, &text);
  ASSERT_TRUE(r.fix) << r.blocker;
  EXPECT_EQ(r.fix->safety, FixSafety::Unsafe);
  // The imports only the region used (plgpu, mgpu) go; `ir`, unused before
  // the rewrite too, is not the rewrite's to remove.
  ASSERT_EQ(r.fix->edits.size(), 3u);
  EXPECT_EQ(r.fix->edits[0].range.start, (SourcePos{1, 0}));
  EXPECT_EQ(r.fix->edits[0].range.end, (SourcePos{2, 0}));
  EXPECT_EQ(r.fix->edits[1].range.start, (SourcePos{2, 0}));
  EXPECT_EQ(r.fix->edits[1].range.end, (SourcePos{3, 0}));
  EXPECT_EQ(r.fix->edits[0].newText + r.fix->edits[1].newText, "");
  const TextEdit& e = r.fix->edits[2];
  EXPECT_EQ(e.range.start, (SourcePos{5, 2})); // the `@` of the decorator
  EXPECT_EQ(e.range.end, (SourcePos{8, 20}));  // end of `return x + x * x`
  EXPECT_NE(e.newText.find("def foo(ref):"), std::string::npos) << e.newText;
  EXPECT_NE(e.newText.find("    x = ref[...]"), std::string::npos) << e.newText;
  EXPECT_NE(e.newText.find("    return x + (x * x)"), std::string::npos) << e.newText;
  EXPECT_EQ(e.newText.find("inline_mgpu("), std::string::npos);
  EXPECT_EQ(r.hoverText(), "");
}

TEST(Rewrite, OperatorTokensOfNestedExpressionsAtOnePosition) {
  RewriteResult r = rewrite("def kernel(x_ref):\n"
                            "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))\n"
                            "  def foo(ctx, ref):\n"
                            "    x = mgpu.FragmentedArray.load_strided(ref)\n"
                            "    return x - x / x * x\n",
                            {6, 4});
  ASSERT_TRUE(r.fix) << r.blocker;
  EXPECT_NE(r.fix->edits.back().newText.find("return x - ((x / x) * x)"), std::string::npos)
      << r.fix->edits.back().newText;
}

TEST(Rewrite, AddsMissingNumpyImport) {
  Project p;
  std::string src = "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                    "import jax.experimental.mosaic.gpu as mgpu\n"
                    "from jax._src.lib.mlir import ir\n"
                    "@plgpu.inline_mgpu()\n"
                    "def fn(_):\n"
                    "  return mgpu.FragmentedArray.splat(mgpu.c(1.0, ir.F32Type.get()), (4,))\n";
  p.setDocument("/tmp/rw/i.py", src);
  RewriteResult r = rewriteInlineMgpu(p, "/tmp/rw/i.py", {4, 0});
  ASSERT_TRUE(r.fix) << r.blocker;
  // plgpu, mgpu and ir were used by the region only: their lines go, the
  // last one replaced by the import the new code needs.
  ASSERT_EQ(r.fix->edits.size(), 4u);
  EXPECT_EQ(r.fix->edits[0].newText + r.fix->edits[1].newText, "");
  EXPECT_EQ(r.fix->edits[2].newText, "import jax.numpy as jnp\n");
  EXPECT_EQ(r.fix->edits[2].range.start, (SourcePos{2, 0}));
  EXPECT_EQ(r.fix->edits[2].range.end, (SourcePos{3, 0}));
  EXPECT_NE(r.fix->edits[3].newText.find("return jnp.full((4,), 1.0, dtype=jnp.float32)"),
            std::string::npos)
      << r.fix->edits[3].newText;
  EXPECT_NE(r.fix->edits[3].newText.find("def fn():"), std::string::npos);
}

TEST(Rewrite, TmaThroughContextBlocksWithLocation) {
  RewriteResult r = rewrite("def kernel(s, o):\n"
                            "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))\n"
                            "  def store(ctx, s, o):\n"
                            "    ctx.async_copy(src_ref=s, dst_ref=o)\n",
                            {6, 4});
  EXPECT_FALSE(r.fix);
  EXPECT_EQ(r.blocker, "ctx.async_copy (TMA)");
  EXPECT_EQ(r.blockerLoc.range.start.line, 7u);
  EXPECT_EQ(r.hoverText(), "not rewritable: uses ctx.async_copy (TMA) at line 8");
}

TEST(Rewrite, RawDialectOpBlocks) {
  RewriteResult r = rewrite("from jax._src.lib.mlir.dialects import gpu as gpu_dialect\n"
                            "@plgpu.inline_mgpu()\n"
                            "def fn(_):\n"
                            "  i = gpu_dialect.block_id(gpu_dialect.Dimension.x)\n"
                            "  return i\n",
                            {6, 0});
  EXPECT_FALSE(r.fix);
  EXPECT_EQ(r.blocker, "gpu.block_id (raw gpu dialect op)");
}

TEST(Rewrite, DroppedStatementsDoNotBlock) {
  // `del ctx` and an assert about the memref type have no standard meaning.
  RewriteResult r = rewrite("def kernel(x_ref):\n"
                            "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))\n"
                            "  def foo(ctx, ref):\n"
                            "    del ctx\n"
                            "    assert ref.type.shape == [4]\n"
                            "    return mgpu.FragmentedArray.load_strided(ref)\n",
                            {6, 4});
  ASSERT_TRUE(r.fix) << r.blocker;
  EXPECT_EQ(r.fix->edits.back().newText.find("assert"), std::string::npos);
}

TEST(Rewrite, NoRegionAtPositionGivesNothing) {
  RewriteResult r = rewrite(kAdd, {0, 0});
  EXPECT_FALSE(r.fix);
  EXPECT_TRUE(r.blocker.empty());
}

TEST(Rewrite, UnknownDocumentAndSyntaxErrorsDoNotThrow) {
  Project p;
  EXPECT_FALSE(rewriteInlineMgpu(p, "/nope.py", {0, 0}).fix);
  p.setDocument("/tmp/rw/bad.py", "@plgpu.inline_mgpu(\ndef f(ctx, r:\n  return (((\n");
  EXPECT_FALSE(rewriteInlineMgpu(p, "/tmp/rw/bad.py", {1, 2}).fix);
}

// The integration the server and `check` use: real findings from the
// discharge passes, then attachFixes.
TEST(AttachFixes, Pls001GetsRewriteFirstThenPathFixes) {
  Project p;
  std::string src =
      std::string(kHeader) +
      "from jax.experimental import pallas as pl\n"
      "import jax\n"
      "def kernel(x_ref, o_ref):\n"
      "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),),\n"
      "      return_type=plgpu.ShapeDtypeStruct((8,), jnp.float32, layout=plgpu.Layout.WG_SPLAT))\n"
      "  def foo(ctx, ref):\n"
      "    return mgpu.FragmentedArray.load_strided(ref) * 2.0\n"
      "  o_ref[...] = foo(x_ref)\n"
      "def main(x):\n"
      "  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),\n"
      "                        interpret=True)(x)\n";
  p.setDocument("/tmp/rw/app.py", src);
  std::vector<Finding> findings = p.findings("/tmp/rw/app.py");
  auto it = std::find_if(findings.begin(), findings.end(),
                         [](const Finding& f) { return f.code == "PLS001"; });
  ASSERT_NE(it, findings.end()) << "the discharge passes report no PLS001 here";
  attachFixes(p, "/tmp/rw/app.py", findings);
  attachFixes(p, "/tmp/rw/app.py", findings); // idempotent
  it = std::find_if(findings.begin(), findings.end(),
                    [](const Finding& f) { return f.code == "PLS001"; });
  std::vector<std::string> titles;
  for (const Fix& f : it->fixes)
    titles.push_back(f.title);
  ASSERT_GE(titles.size(), 4u);
  EXPECT_EQ(titles[0], "Rewrite `foo` with standard Pallas primitives");
  EXPECT_EQ(titles[1], "Run this kernel compiled (remove `interpret=True`)");
  EXPECT_EQ(titles[2], "Run on GPU now (main, compiled)");
  EXPECT_EQ(titles[3], "Ignore PLS001 on this line");
  EXPECT_EQ(std::count(titles.begin(), titles.end(), titles[0]), 1);
}

// FixCache: the fixes of an edited document equal those computed afresh,
// whether the edit touched the finding's code (recomputed) or another
// function (reused).
TEST(AttachFixes, CacheGivesWhatAFreshComputationGives) {
  auto source = [](const std::string& scale, const std::string& other) {
    return std::string(kHeader) +
           "from jax.experimental import pallas as pl\n"
           "import jax\n"
           "def kernel(x_ref, o_ref):\n"
           "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),),\n"
           "      return_type=plgpu.ShapeDtypeStruct((8,), jnp.float32, "
           "layout=plgpu.Layout.WG_SPLAT))\n"
           "  def foo(ctx, ref):\n"
           "    return mgpu.FragmentedArray.load_strided(ref) * " +
           scale +
           "\n"
           "  o_ref[...] = foo(x_ref)\n"
           "def other(x):\n"
           "  return x + " +
           other +
           "\n"
           "def main(x):\n"
           "  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),\n"
           "                        interpret=True)(x)\n";
  };
  const std::string path = "/tmp/rw/cached.py";
  auto fixesOf = [&](Project& p, FixCache* cache) {
    std::vector<Finding> findings = p.findings(path);
    attachFixes(p, path, findings, cache);
    std::vector<std::string> out;
    for (const Finding& f : findings)
      for (const Fix& fix : f.fixes)
        for (const TextEdit& e : fix.edits)
          out.push_back(f.code + ":" + fix.title + ":" + std::to_string(e.range.start.line) + ":" +
                        e.newText);
    return out;
  };
  Project p;
  FixCache cache;
  for (auto [scale, other] : {std::pair{"2.0", "1"}, {"2.0", "7"}, {"3.0", "7"}, {"3.0", "7"}}) {
    p.setDocument(path, source(scale, other));
    std::vector<std::string> cached = fixesOf(p, &cache), fresh = fixesOf(p, nullptr);
    ASSERT_FALSE(fresh.empty());
    EXPECT_EQ(cached, fresh) << "scale " << scale << ", other " << other;
    bool mentionsScale = std::any_of(cached.begin(), cached.end(), [&](const std::string& s) {
      return s.find(std::string("* ") + scale) != std::string::npos;
    });
    EXPECT_TRUE(mentionsScale) << "the rewrite shows the current body";
  }
  cache.forget(path);
  EXPECT_EQ(fixesOf(p, &cache), fixesOf(p, nullptr));
}

TEST(Rewrite, KeepsTheUsersComments) {
  RewriteResult r = rewrite("def kernel(x_ref):\n"
                            "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))\n"
                            "  def foo(ctx, ref):\n"
                            "    # load it all\n"
                            "    return mgpu.FragmentedArray.load_strided(ref)  # strided\n",
                            {6, 4});
  ASSERT_TRUE(r.fix) << r.blocker;
  const std::string& code = r.fix->edits.back().newText;
  EXPECT_NE(code.find("    # load it all\n"), std::string::npos) << code;
  EXPECT_NE(code.find("    # strided\n"), std::string::npos) << code;
}

// Issue 15: an import the rest of the file still uses stays; `import jax`
// alone gets `import jax.numpy as jnp` added rather than jax.numpy written out.
TEST(Rewrite, KeepsImportsStillUsedAndAddsShortNames) {
  Project p;
  std::string src = "import jax\n"
                    "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                    "import jax.experimental.mosaic.gpu as mgpu\n"
                    "from jax._src.lib.mlir import ir\n"
                    "@plgpu.inline_mgpu()\n"
                    "def fn(_):\n"
                    "  return mgpu.FragmentedArray.splat(mgpu.c(1.0, ir.F32Type.get()), (4,))\n"
                    "K = plgpu.kernel\n";
  p.setDocument("/tmp/rw/j.py", src);
  RewriteResult r = rewriteInlineMgpu(p, "/tmp/rw/j.py", {5, 0});
  ASSERT_TRUE(r.fix) << r.blocker;
  std::string all;
  for (const TextEdit& e : r.fix->edits)
    all += std::to_string(e.range.start.line) + "-" + std::to_string(e.range.end.line) + ":" +
           e.newText + "|";
  EXPECT_EQ(all.find("1-2:"), std::string::npos) << all;  // plgpu is still used below
  EXPECT_NE(all.find("2-3:|"), std::string::npos) << all; // mgpu goes
  EXPECT_NE(all.find("3-4:import jax.numpy as jnp\n|"), std::string::npos) << all;
  EXPECT_NE(all.find("jnp.full((4,), 1.0, dtype=jnp.float32)"), std::string::npos) << all;
  EXPECT_EQ(all.find("jax.numpy.full"), std::string::npos) << all;
}

// Issue 15: locals only the Mosaic GPU code needed (ir types) are not kept as
// dead assignments in the standard code.
TEST(Rewrite, DropsDeadLocals) {
  RewriteResult r = rewrite("def kernel(x_ref, o_ref):\n"
                            "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))\n"
                            "  def twice(ctx, x, o):\n"
                            "    i32 = ir.IntegerType.get_signless(32)\n"
                            "    h = mgpu.FragmentedArray.load_strided(x)\n"
                            "    (h + h).store_untiled(o)\n"
                            "  twice(x_ref, o_ref)\n",
                            {6, 4});
  ASSERT_TRUE(r.fix) << r.blocker;
  const std::string& code = r.fix->edits.back().newText;
  EXPECT_EQ(code.find("i32"), std::string::npos) << code;
  EXPECT_NE(code.find("    h = x[...]\n    o[...] = h + h"), std::string::npos) << code;
}

// Mosaic GPU shifts an unsigned (is_signed=False) array right logically, a
// signed one arithmetically; in standard code `>>` on int32 is arithmetic.
// Issue 36: an unsigned `>>` rewritten as `>>` was caught only by the
// real-JAX rewrite test (test_rewrite.py); here the rewrite's own text is
// checked for both signednesses, and for an operator that has no unsigned
// standard form.
TEST(Rewrite, UnsignedShiftRightIsLogicalSignedIsArithmetic) {
  auto region = [](const char* signedness, const char* op) {
    return std::string("def kernel(x_ref, o_ref):\n"
                       "  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))\n"
                       "  def high(ctx, x, o):\n"
                       "    h = mgpu.FragmentedArray.load_strided(x, is_signed=") +
           signedness + ")\n    (h " + op + " 16).store_untiled(o)\n";
  };
  RewriteResult u = rewrite(region("False", ">>"), {6, 4});
  ASSERT_TRUE(u.fix) << u.blocker;
  const std::string& unsignedText = u.fix->edits.back().newText;
  EXPECT_NE(unsignedText.find(".shift_right_logical(h, 16)"), std::string::npos) << unsignedText;
  EXPECT_EQ(unsignedText.find(">>"), std::string::npos) << unsignedText;

  RewriteResult s = rewrite(region("True", ">>"), {6, 4});
  ASSERT_TRUE(s.fix) << s.blocker;
  const std::string& signedText = s.fix->edits.back().newText;
  EXPECT_NE(signedText.find("h >> 16"), std::string::npos) << signedText;
  EXPECT_EQ(signedText.find("shift_right_logical"), std::string::npos) << signedText;

  RewriteResult d = rewrite(region("False", "//"), {6, 4});
  EXPECT_FALSE(d.fix);
  EXPECT_NE(d.blocker.find("on an unsigned (is_signed=False) value"), std::string::npos)
      << d.blocker;
}
