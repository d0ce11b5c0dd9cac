// A test that asserts JAX rejects a kernel gets no finding for the error it
// asserts; the same kernel outside such a test, or under an assertion of a
// different error, still gets it.
#include "pallas/analysis/Project.h"

#include <gtest/gtest.h>
#include <string>

using namespace pallas::analysis;

namespace {

// A kernel that reads a plgpu.ACC accumulator under interpret=True: JAX
// raises NotImplementedError (wgmma_accumulator_deref_p cannot be discharged).
std::string testFile(const std::string& check) {
  return R"(import unittest
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


class AccTest(unittest.TestCase):

  def test_acc_read(self):
    def kernel(x_ref, o_ref):
      def scope(acc_ref):
        return acc_ref[...]
      o_ref[...] = x_ref[...] + pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))

    f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, 64), jnp.float32),
                       interpret=True)
)" + check;
}

size_t findings(const std::string& source) {
  Project p;
  p.setDocument("/virtual/acc_test.py", source);
  return p.findings("/virtual/acc_test.py").size();
}

TEST(ExpectedFailures, NoAssertionKeepsTheFinding) {
  EXPECT_EQ(findings(testFile("    f(jnp.ones((64, 64)))\n")), 1u);
}

TEST(ExpectedFailures, AssertRaisesRegexOfTheErrorDropsIt) {
  EXPECT_EQ(findings(testFile("    with self.assertRaisesRegex(NotImplementedError, 'discharge'):\n"
                              "      f(jnp.ones((64, 64)))\n")),
            0u);
}

TEST(ExpectedFailures, ABaseClassAndPytestRaisesCountToo) {
  EXPECT_EQ(findings(testFile("    import pytest\n    with pytest.raises(RuntimeError):\n"
                              "      f(jnp.ones((64, 64)))\n")),
            0u);
  EXPECT_EQ(findings(testFile("    self.assertRaises((ValueError, Exception), f, 1)\n")), 0u);
}

TEST(ExpectedFailures, AnotherErrorOrAFunctionThatIsNotATestKeepsIt) {
  EXPECT_EQ(findings(testFile("    with self.assertRaises(ValueError):\n"
                              "      f(jnp.ones((64, 64)))\n")),
            1u);
  std::string helper = testFile("    with self.assertRaises(NotImplementedError):\n"
                                "      f(jnp.ones((64, 64)))\n");
  helper.replace(helper.find("def test_acc_read"), 17, "def build_acc_rea");
  EXPECT_EQ(findings(helper), 1u);
}

// A program (not a test) that falls back when the launch raises: a handler
// of the try around the launch that catches JAX's error handles it.
std::string fallbackFile(const std::string& handler) {
  return R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
  def scope(acc_ref):
    return acc_ref[...]
  o_ref[...] = x_ref[...] + pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))


def run(x):
  try:
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, 64), jnp.float32),
                          interpret=True)(x)
)" + handler +
         "    return x\n";
}

TEST(ExpectedFailures, ATryAroundTheLaunchThatCatchesTheErrorHandlesIt) {
  EXPECT_EQ(findings(fallbackFile("  except NotImplementedError:\n")), 0u);
  EXPECT_EQ(findings(fallbackFile("  except (KeyError, RuntimeError) as e:\n")), 0u);
  EXPECT_EQ(findings(fallbackFile("  except:\n")), 0u);
  // A handler of another error, or a try that ends before the launch.
  EXPECT_EQ(findings(fallbackFile("  except ValueError:\n")), 1u);
  std::string before = fallbackFile("  except NotImplementedError:\n");
  const std::string tryLine = "  try:\n", handler = "  except NotImplementedError:\n";
  before.replace(before.rfind(handler), handler.size(), "  finally:\n");
  before.replace(before.find(tryLine), tryLine.size(),
                 "  try:\n    pass\n  except NotImplementedError:\n    pass\n  try:\n");
  EXPECT_EQ(findings(before), 1u) << before;
}

} // namespace
