// What JAX's settings and a test's device marks decide about a launch's
// compiled path (analysis/passes/PallasConfig.cpp, PallasPlatform.cpp):
// runCheck on real files, with the real analysis. `a @ b` in a kernel binds
// dot_general, which Mosaic GPU does not lower; Triton does, and a launch
// that only a TPU runs is not Mosaic GPU's.
#include "FolderCheck.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace pallas::check {
namespace {

using testing::checkFolder;
using testing::TempDir;

constexpr const char* kTest = R"(import jax
import jax.numpy as jnp
from absl.testing import absltest
from jax._src import config
from jax._src import test_util as jtu
from jax.experimental import pallas as pl


def matmul_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] @ y_ref[...]


class MatmulTest(jtu.JaxTestCase):

  def setUp(self):
    super().setUp()
    SETTING

  DECORATOR
  def test_matmul(self):
    x = jnp.ones((64, 64), jnp.float32)
    out = pl.pallas_call(matmul_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, x)
    self.assertAllClose(out, x @ x)


if __name__ == "__main__":
  absltest.main()
)";

std::vector<std::string> codesFor(const std::string& setting, const std::string& decorator) {
  std::string text = kTest;
  text.replace(text.find("SETTING"), 7, setting);
  text.replace(text.find("DECORATOR"), 9, decorator);
  TempDir dir;
  dir.write("matmul_test.py", text);
  CheckResult r = checkFolder(dir);
  EXPECT_TRUE(r.errors.empty());
  std::vector<std::string> out;
  for (const auto& f : r.report.findings)
    out.push_back(std::to_string(f.location.range.start.line + 1) + ":" + f.code + ":" +
                  (f.severity == analysis::Severity::Error ? "error" : "warning"));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(JaxSettings, AMatrixProductFailsOnMosaicGpusCompiledPath) {
  EXPECT_EQ(codesFor("pass", ""), std::vector<std::string>{"10:PLS002:error"});
}

TEST(JaxSettings, TritonLowersThePallasCallWhenTheTestTurnsMosaicGpuOff) {
  // What JAX's own Pallas tests enter in setUp.
  EXPECT_TRUE(codesFor("self.enter_context(config.jax_pallas_use_mosaic_gpu(False))", "").empty());
  EXPECT_TRUE(codesFor("jax.config.update('jax_pallas_use_mosaic_gpu', False)", "").empty());
  // Turned on again: Mosaic GPU.
  EXPECT_EQ(codesFor("jax.config.update('jax_pallas_use_mosaic_gpu', True)", ""),
            std::vector<std::string>{"10:PLS002:error"});
}

TEST(JaxSettings, ATestThatRunsOnlyOnATpuLaunchesNothingMosaicGpuCompiles) {
  EXPECT_TRUE(codesFor("pass", "@jtu.run_on_devices('tpu')").empty());
  EXPECT_TRUE(codesFor("pass", "@jtu.skip_on_devices('gpu')").empty());
  EXPECT_EQ(codesFor("pass", "@jtu.run_on_devices('cuda')"),
            std::vector<std::string>{"10:PLS002:error"});
}

} // namespace
} // namespace pallas::check
