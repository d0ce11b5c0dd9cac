// Unit tests of what the oracle cannot show (test/oracle/fixtures/
// compiled_smem_tmem_*, _ws_*, _pc_grid_spec_* show JAX's own verdicts): the
// sizes the budget declares unknown instead of guessing, and the note about a
// local GPU without tensor memory.
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

const char* kHeader = R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
)";

class TmemBudget : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-tmem-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<Finding> check(const std::string& body, ProjectOptions options = {}) {
    project_ = std::make_unique<Project>(std::move(options));
    path_ = (dir_ / "k.py").string();
    project_->setDocument(path_, kHeader + body);
    std::vector<Finding> out;
    for (Finding& f : project_->findings(path_))
      if (f.code == "PLS005")
        out.push_back(std::move(f));
    return out;
  }
  std::optional<LaunchSmem> budget() {
    auto launches = project_->launchPaths(path_);
    return launches.size() == 1 ? launches[0].smem : std::nullopt;
  }

  fs::path dir_;
  std::string path_;
  std::unique_ptr<Project> project_;
};

const char* kTmemKernel = R"(
def kernel(x_ref, o_ref, acc, acc2):
  pass

def launch(x):
  return plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct((128, 128), jnp.float32),
                      scratch_types=[plgpu.TMEM((128, 256), jnp.float32), SECOND])(x)

def main():
  launch(jnp.ones((128, 128), jnp.float32))
)";

std::string tmemKernel(const std::string& second) {
  std::string s = kTmemKernel;
  s.replace(s.find("SECOND"), 6, second);
  return s;
}

// The columns, their rounding and the parts reach the launch matrix.
TEST_F(TmemBudget, ColumnsAreAlignedSummedAndRounded) {
  auto fs = check(tmemKernel("plgpu.TMEM((128, 100), jnp.float32)"));
  EXPECT_TRUE(fs.empty());
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->tmemCols, 256 + 104) << "100 columns aligned to 8";
  EXPECT_EQ(b->tmemAllocated, 512) << "rounded up to a power of two";
  EXPECT_EQ(b->tmemLimit, 512);
  ASSERT_EQ(b->tmemParts.size(), 2u);
  EXPECT_EQ(b->tmemParts[0].first, "acc (128, 256) float32");
  EXPECT_EQ(b->total, 4) << "the TMEM address word";
  EXPECT_NE(b->summary.find("TMEM 360 / 512 columns (512 allocated)"), std::string::npos)
      << b->summary;
}

// An explicit layout= decides the columns in ways the budget does not
// model: unknown, and no finding even though the known part is large.
TEST_F(TmemBudget, AnExplicitLayoutIsUnknown) {
  auto fs = check(tmemKernel("plgpu.TMEM((128, 512), jnp.float32, layout=LAYOUT)"));
  EXPECT_TRUE(fs.empty());
  auto b = budget();
  ASSERT_TRUE(b);
  ASSERT_EQ(b->unknown.size(), 1u);
  EXPECT_NE(b->unknown[0].find("explicit TMEM layout"), std::string::npos) << b->unknown[0];
}

// A local Hopper GPU has no tensor memory: the finding says so; a local
// Blackwell one does not get the note.
TEST_F(TmemBudget, TheMessageNamesALocalGpuWithoutTmem) {
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  auto fs = check(tmemKernel("plgpu.TMEM((128, 300), jnp.float32)"), hopper);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].subject, "tensor memory");
  EXPECT_NE(fs[0].message.find("After rounding up, got 1024 columns, exceeding the limit of 512"),
            std::string::npos);
  EXPECT_NE(fs[0].message.find("(compute capability 9.0) has no tensor memory"), std::string::npos)
      << fs[0].message;
  ProjectOptions blackwell;
  blackwell.gpuComputeCapability = "10.0";
  fs = check(tmemKernel("plgpu.TMEM((128, 300), jnp.float32)"), blackwell);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].message.find("has no tensor memory"), std::string::npos) << fs[0].message;
}

// A warp-specialized pipeline whose output index map is a def that ignores
// the step: JAX traces it (pipeline.py _uses_arguments) and gives such an
// output one buffer, not max_concurrent_steps; the evaluator sees the def
// read no parameter.
TEST_F(TmemBudget, AWarpSpecializedOutputWhoseDefIndexMapIgnoresTheStepIsOneBuffer) {
  check(R"(
def out_map(k):
  return (0, 0)

def kernel(a_gmem, o_gmem):
  def body(indices, a_smem, o_smem):
    o_smem[...] = a_smem[...]

  plgpu.emit_pipeline_warp_specialized(
      body, grid=(8,), memory_registers=40,
      in_specs=[pl.BlockSpec((128, 64), lambda k: (0, k))],
      out_specs=[pl.BlockSpec((128, 64), out_map)],
      wg_axis="wg", num_compute_wgs=1)(a_gmem, o_gmem)

def launch(a):
  return plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct((128, 64), jnp.float32),
                      num_threads=2, thread_name="wg")(a)

def main():
  launch(jnp.ones((128, 512), jnp.float32))
)");
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->unknown.empty()) << b->unknown.front();
  // Barrier(1, 2) for the copies in and Barrier(num_compute_wgs=1, 2)
  // consumed: one key, counted twice.
  EXPECT_EQ(b->total, 2 * 128 * 64 * 4 + 128 * 64 * 4 + 2 * 2 * 8)
      << "2 default stages of the input, one buffer of the output";
}

// A grid_spec the evaluator cannot read leaves the budget a lower bound.
TEST_F(TmemBudget, AnUnreadableGridSpecIsUnknown) {
  check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def launch(x, spec):
  return pl.pallas_call(kernel, grid_spec=spec,
                        out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32))(x)
)");
  auto b = budget();
  ASSERT_TRUE(b);
  ASSERT_FALSE(b->unknown.empty());
  EXPECT_EQ(b->unknown[0].rfind("grid_spec (", 0), 0u) << b->unknown[0];
}

} // namespace
