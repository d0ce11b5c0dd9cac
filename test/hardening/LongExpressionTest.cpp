// One long expression in an inline_mgpu region (issue 14, item 5): every
// operator of `x + x + ... + x` starts at the first `x`, and finding each
// operator's syntax node walked up the tree with ts_node_parent (itself a
// walk down from the root), so 1,000 terms took ~10 s and 2,000 took up to a
// minute, with the worker busy. The syntax is now indexed by start position
// once per document.
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using namespace pallas::analysis;

namespace {

// An interpret=True kernel with an inline_mgpu region whose body is `body`
// (which reads `x` and assigns `y`).
std::string kernelWith(const std::string& body) {
  return "import jax\n"
         "import jax.numpy as jnp\n"
         "from jax.experimental import pallas as pl\n"
         "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
         "import jax.experimental.mosaic.gpu as mgpu\n"
         "\n"
         "def kernel(x_ref, o_ref):\n"
         "  @plgpu.inline_mgpu(\n"
         "      arg_types=(plgpu.RefType(),),\n"
         "      return_type=plgpu.ShapeDtypeStruct((256,), jnp.float32, "
         "layout=plgpu.Layout.WG_STRIDED((256,), vec_size=2)),\n"
         "  )\n"
         "  def body(ctx, ref):\n"
         "    x = mgpu.FragmentedArray.load_strided(ref, vec_size=2)\n" +
         body +
         "    return y\n"
         "\n"
         "  o_ref[...] = body(x_ref)\n"
         "\n"
         "def run(x):\n"
         "  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32), "
         "interpret=True)(x)\n";
}

std::string sum(size_t terms, const std::string& op = " + ") {
  std::string out = "x";
  for (size_t i = 1; i < terms; ++i)
    out += op + "x";
  return out;
}

std::vector<Finding> findingsWithFixes(const std::string& text) {
  Project project;
  const std::string path = "/hardening/long.py";
  project.setDocument(path, text);
  std::vector<Finding> findings = project.findings(path);
  attachFixes(project, path, findings);
  return findings;
}

const Fix* rewriteFix(const std::vector<Finding>& findings) {
  for (const Finding& f : findings)
    for (const Fix& fix : f.fixes)
      if (fix.title.find("Rewrite") == 0)
        return &fix;
  return nullptr;
}

TEST(LongExpression, ShortEnoughToRewriteIsStillRewritten) {
  // 200 terms: within the lowering's depth, so the rewrite is offered and
  // keeps every term.
  auto findings = findingsWithFixes(kernelWith("    y = " + sum(200) + "\n"));
  ASSERT_FALSE(findings.empty());
  const Fix* fix = rewriteFix(findings);
  ASSERT_NE(fix, nullptr);
  ASSERT_FALSE(fix->edits.empty());
  // The fix may also edit imports (unused ones removed, jnp/lax added): count
  // the terms over all its edits.
  std::string text;
  for (const auto& edit : fix->edits)
    text += edit.newText;
  EXPECT_EQ(std::count(text.begin(), text.end(), '+'), 199) << text;
}

TEST(LongExpression, FiveThousandTermsFinish) {
  for (const char* op : {" + ", " * ", " - "}) {
    auto findings = findingsWithFixes(kernelWith("    y = " + sum(5000, op) + "\n"));
    ASSERT_FALSE(findings.empty()) << op;
    EXPECT_EQ(findings.front().code, "PLS001");
  }
}

TEST(LongExpression, LongAttributeAndMethodChains) {
  std::string chain = "x";
  for (int i = 0; i < 40000; ++i)
    chain += ".b";
  std::string calls = "x";
  for (int i = 0; i < 5000; ++i)
    calls += ".astype(jnp.float32)";
  auto findings = findingsWithFixes(kernelWith("    z = " + chain + "\n    y = " + calls + "\n"));
  ASSERT_FALSE(findings.empty());
}

} // namespace
