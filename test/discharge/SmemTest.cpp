// Unit tests of the SMEM budget (PLS005) and the launch-configuration checks
// (PLS009) through the Project facade: the evaluator's value flow, the limit,
// unknown sizes, the fix, the paths that allocate no shared memory.
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

const char* kHeader = R"(import functools
import math
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
)";

class Smem : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-smem-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<Finding> check(const std::string& body, ProjectOptions options = {}) {
    project_ = std::make_unique<Project>(std::move(options));
    path_ = (dir_ / "k.py").string();
    project_->setDocument(path_, kHeader + body);
    return project_->findings(path_);
  }
  std::optional<LaunchSmem> budget() {
    auto launches = project_->launchPaths(path_);
    if (launches.size() != 1)
      return std::nullopt;
    return launches[0].smem;
  }
  static std::vector<Finding> withCode(const std::vector<Finding>& fs, const std::string& code) {
    std::vector<Finding> out;
    for (const Finding& f : fs)
      if (f.code == code)
        out.push_back(f);
    return out;
  }

  fs::path dir_;
  std::string path_;
  std::unique_ptr<Project> project_;
};

// Constants, arithmetic, math.prod, a helper's return value, dtype itemsize
// and a caller's argument all reach the allocation sizes.
TEST_F(Smem, ValuesFlowThroughConstantsHelpersAndCallers) {
  auto fs = check(R"(
ROWS = 64 * 2
DT = jnp.bfloat16

def kernel(x_ref, o_ref, a, b, bar):
  pass

def launch(x, cols):
  width = cols // 2 + max(0, 16) - 16
  return plgpu.kernel(
      kernel, out_shape=jax.ShapeDtypeStruct((math.prod((2, 64)),), jnp.float32),
      scratch_shapes=[plgpu.SMEM((ROWS, width), jnp.dtype(DT)), plgpu.SMEM((ROWS, jnp.dtype(jnp.float32).itemsize), DT),
                      plgpu.Barrier(num_arrivals=2, num_barriers=3)])(x)

def main():
  launch(jnp.ones((128,)), 512)
)");
  EXPECT_TRUE(withCode(fs, "PLS005").empty());
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->unknown.empty()) << b->summary;
  // (128, 256) bf16 = 64 KiB; (128, 4) bf16 = 1 KiB aligned; 3 barriers x 8 B.
  EXPECT_EQ(b->total, 65536 + 1024 + 24) << b->summary;
  EXPECT_EQ(b->limit, 232448);
  EXPECT_NE(b->summary.find("SMEM 66,584 / 232,448 B: a (128, 256) bfloat16 64 KiB"),
            std::string::npos)
      << b->summary;
}

// plgpu.RefUnion costs its largest group, members from 1 KiB boundaries; a
// plgpu.ClusterBarrier is 8 B per barrier after the buffers (JAX 0.10.2's
// smem_bytes for the same kernel: oracle compiled_smem_ref_union_ok.py).
TEST_F(Smem, RefUnionAndClusterBarriers) {
  auto fs = check(R"(
def kernel(x_ref, o_ref, union, extra, bar, cbar):
  pass

def launch(x):
  return plgpu.kernel(
      kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
      scratch_shapes=[
          plgpu.RefUnion((plgpu.SMEM((100,), jnp.float32), plgpu.SMEM((300,), jnp.float16)),
                         plgpu.SMEM((2000,), jnp.float32)),
          plgpu.SMEM((1024,), jnp.float32),
          plgpu.Barrier(num_arrivals=1),
          plgpu.ClusterBarrier(collective_axes=("x",), num_barriers=2)])(x)
)");
  EXPECT_TRUE(withCode(fs, "PLS005").empty());
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->unknown.empty()) << b->summary;
  // union: max(1 KiB + 600 B, 8,000 B) -> 8 KiB; 4 KiB; 3 barriers x 8 B.
  EXPECT_EQ(b->total, 8192 + 4096 + 24) << b->summary;
  ASSERT_EQ(b->targetLimits.size(), 2u);
  EXPECT_EQ(b->targetLimits[0].second, 232448);
}

// A size the source does not determine: a lower bound, named, no finding.
TEST_F(Smem, UnknownSizeIsALowerBoundWithoutAFinding) {
  auto fs = check(R"(
def kernel(x_ref, o_ref, a, b):
  pass

def launch(x, rows):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
                      scratch_shapes=[plgpu.SMEM((rows, 128), jnp.float32),
                                      plgpu.SMEM((128, 128), jnp.float32)])(x)
)");
  EXPECT_TRUE(withCode(fs, "PLS005").empty());
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->total, 65536);
  EXPECT_NE(b->summary.find("SMEM at least 65,536 / 232,448 B"), std::string::npos) << b->summary;
  EXPECT_NE(b->summary.find("unknown: a (rows)"), std::string::npos) << b->summary;
}

const char* kPipelined = R"(
STAGES = 4

def kernel(x_gmem, o_gmem):
  def body(indices, x_smem, o_smem):
    o_smem[...] = x_smem[...]

  spec = pl.BlockSpec((128, 128), lambda i: (i, 0))
  plgpu.emit_pipeline(body, grid=(16,), in_specs=[spec], out_specs=[spec],
                      max_concurrent_steps=STAGES)(x_gmem, o_gmem)

def launch(x):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

def main():
  launch(jnp.ones((2048, 128), jnp.float32))
)";

// Over the limit: an error on the compiled path with JAX's exact message, the
// three largest parts, and the fix to the largest stage count that fits.
TEST_F(Smem, OverTheLimitIsPLS005WithJaxMessageAndStagesFix) {
  auto fs = withCode(check(kPipelined), "PLS005");
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(f.executionPath, "compiled (Mosaic GPU)");
  EXPECT_EQ(f.jaxException, "ValueError");
  EXPECT_EQ(f.jaxErrorFirstLine,
            "Mosaic GPU kernel exceeds available shared memory: smem_bytes=524320 > "
            "max_smem_bytes=232448");
  EXPECT_NE(f.message.find("x_smem 4 x (128, 128) float32 (262,144 B)"), std::string::npos)
      << f.message;
  // How far over, and the knobs the largest parts answer to (issue 33).
  EXPECT_NE(f.message.find("(291,872 B over)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("Lower max_concurrent_steps (now 4"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("smaller block shapes in the BlockSpecs"), std::string::npos)
      << f.message;
  ASSERT_FALSE(f.fixes.empty());
  const Fix& fix = f.fixes[0];
  EXPECT_NE(fix.title.find("Reduce max_concurrent_steps to 1"), std::string::npos) << fix.title;
  ASSERT_EQ(fix.edits.size(), 1u);
  EXPECT_EQ(fix.edits[0].newText, "1");
  EXPECT_EQ(fix.edits[0].range.start.line + 1, 10u + 6u); // `STAGES` at the call (header: 6 lines)
}

// The local GPU's limit replaces JAX's default.
TEST_F(Smem, TheProbedGpuLimitIsUsed) {
  ProjectOptions o;
  o.gpuSharedMemoryPerBlockOptin = 1 << 20;
  EXPECT_TRUE(withCode(check(kPipelined, o), "PLS005").empty());
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->limit, 1 << 20);
  EXPECT_NE(b->limitSource.find("local GPU"), std::string::npos);
}

// Findings are kept between calls (the server asks twice per edit); a GPU
// probed later, an edit and a reopened text each give fresh ones.
TEST_F(Smem, KeptFindingsFollowTheGpuLimitAndEdits) {
  ASSERT_EQ(withCode(check(kPipelined), "PLS005").size(), 1u);
  ASSERT_EQ(withCode(project_->findings(path_), "PLS005").size(), 1u); // asked again
  project_->setGpuSharedMemoryPerBlockOptin(1 << 20);
  EXPECT_TRUE(withCode(project_->findings(path_), "PLS005").empty());
  project_->setGpuSharedMemoryPerBlockOptin(232448);
  ASSERT_EQ(withCode(project_->findings(path_), "PLS005").size(), 1u);
  std::string interpreted = kPipelined;
  interpreted.replace(interpreted.find("x.dtype))(x)"), 12, "x.dtype), interpret=True)(x)");
  project_->setDocument(path_, kHeader + interpreted);
  EXPECT_TRUE(withCode(project_->findings(path_), "PLS005").empty());
  project_->setDocument(path_, std::string(kHeader) + kPipelined);
  EXPECT_EQ(withCode(project_->findings(path_), "PLS005").size(), 1u);
}

// The interpreters allocate no shared memory.
TEST_F(Smem, InterpretedLaunchHasNoPLS005) {
  std::string body = kPipelined;
  body.replace(body.find("x.dtype))(x)"), 12, "x.dtype), interpret=True)(x)");
  EXPECT_TRUE(withCode(check(body), "PLS005").empty());
}

// Nested scopes add up, sibling scopes share.
TEST_F(Smem, NestedScopesAddSiblingScopesShare) {
  const char* nested = R"(
def kernel(x_ref, o_ref):
  def outer(a):
    def inner(b):
      pass
    pl.run_scoped(inner, plgpu.SMEM((256, 128), jnp.float32))
  pl.run_scoped(outer, plgpu.SMEM((256, 128), jnp.float32))
  pl.run_scoped(lambda c: None, plgpu.SMEM((64, 128), jnp.float32))

def launch(x):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))(x)
)";
  auto fs = withCode(check(nested), "PLS005");
  auto b = budget();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->total, 262144) << b->summary;
  EXPECT_EQ(fs.size(), 1u);
}

// PLS009: the warpgroup count through a module constant.
TEST_F(Smem, TooManyWarpgroupsIsPLS009) {
  auto fs = withCode(check(R"(
WARPGROUPS = 4 * 5

def kernel(x_ref, o_ref):
  pass

def launch(x):
  return plgpu.kernel(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                      num_threads=WARPGROUPS, thread_name="wg")(x)
)"),
                     "PLS009");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(fs[0].jaxErrorFirstLine.rfind("Requested too many CUDA threads per block.", 0), 0u);
  EXPECT_NE(fs[0].jaxErrorFirstLine.find("At most 16 are supported"), std::string::npos);
}

} // namespace
