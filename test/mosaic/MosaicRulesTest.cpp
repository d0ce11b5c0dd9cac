// Unit tests of the Mosaic GPU rule checks (PLS006 WGMMA, PLS007 transforms,
// PLS008 copies) through the Project facade: small kernels, the finding each
// gets (code, line, JAX's predicted error, first-error marker), the near
// misses that get none, and the cases where a value is unknown.
#include "pallas/analysis/Project.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
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
constexpr unsigned kHeaderLines = 4;
const char* kFirst = "This is the first error JAX raises for this launch.";

class MosaicRules : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-mosaic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The PLS006-PLS008 findings of `body` (after the import header).
  std::vector<Finding> check(const std::string& body, ProjectOptions options = {}) {
    project_ = std::make_unique<Project>(std::move(options));
    path_ = (dir_ / "k.py").string();
    project_->setDocument(path_, kHeader + body);
    std::vector<Finding> out;
    for (Finding& f : project_->findings(path_))
      if (f.code == "PLS006" || f.code == "PLS007" || f.code == "PLS008")
        out.push_back(std::move(f));
    return out;
  }
  static unsigned line(const Finding& f) { return f.location.range.start.line + 1 - kHeaderLines; }

  fs::path dir_;
  std::string path_;
  std::unique_ptr<Project> project_;
};

// A WGMMA matmul; {M}, {N}, {DT}, {ACC}, {RHS} are replaced.
std::string matmul(const std::string& m, const std::string& n, const std::string& dt,
                   const std::string& acc, bool transposeRhs = false) {
  std::string s = R"(
M, N, K = {M}, {N}, 128
DT = {DT}

def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    plgpu.wgmma(acc_ref, a_ref, {RHS})
    return acc_ref[...]
  o_ref[...] = pl.run_scoped(scope, plgpu.ACC((M, N), {ACC}))

def mm(a, b):
  tr = (plgpu.TilingTransform((8, 128 // jnp.dtype(a.dtype).itemsize)), plgpu.SwizzleTransform(128))
  return pl.pallas_call(
      kernel,
      in_specs=[plgpu.BlockSpec((M, K), lambda: (0, 0), transforms=tr),
                plgpu.BlockSpec(b.shape, lambda: (0, 0), transforms=tr)],
      out_specs=plgpu.BlockSpec((M, N), lambda: (0, 0)),
      out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
  )(a, b)

def main():
  return mm(jnp.ones((M, K), DT), jnp.ones({BSHAPE}, DT))
)";
  auto put = [&](const std::string& key, const std::string& value) {
    for (size_t at; (at = s.find(key)) != std::string::npos;)
      s.replace(at, key.size(), value);
  };
  put("{M}", m);
  put("{N}", n);
  put("{DT}", dt);
  put("{ACC}", acc);
  put("{RHS}", transposeRhs ? "plgpu.transpose_ref(b_ref, (1, 0))" : "b_ref");
  put("{BSHAPE}", transposeRhs ? "(N, K)" : "(K, N)");
  return s;
}

TEST_F(MosaicRules, AccumulatorRowsNotAMultipleOf64IsPLS006AtTheRunScoped) {
  auto fs = check(matmul("96", "128", "jnp.float16", "jnp.float32"));
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "PLS006");
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(line(f), 9u);
  EXPECT_EQ(f.executionPath, "compiled (Mosaic GPU)");
  EXPECT_EQ(f.jaxException, "ValueError");
  EXPECT_EQ(f.jaxErrorFirstLine,
            "WGMMA requires m and n to be multiples of 64 and 8, got 96 and 128");
  EXPECT_NE(f.message.find("will raise ValueError: " + f.jaxErrorFirstLine), std::string::npos);
  EXPECT_NE(f.message.find(kFirst), std::string::npos) << f.message;
  ASSERT_TRUE(f.launch.has_value());
  EXPECT_EQ(f.launch->range.start.line + 1 - kHeaderLines, 13u);
  EXPECT_EQ(f.jaxVersion, "0.10.2");
}

TEST_F(MosaicRules, AWellFormedMatmulHasNoFinding) {
  EXPECT_TRUE(check(matmul("128", "256", "jnp.float16", "jnp.float16")).empty());
  EXPECT_TRUE(check(matmul("64", "128", "jnp.float32", "jnp.float32", true)).empty());
  EXPECT_TRUE(check(matmul("64", "128", "jnp.int8", "jnp.int32", true)).empty());
}

TEST_F(MosaicRules, MoreThan256ColumnsIsPLS006AtTheWgmma) {
  auto fs = check(matmul("64", "5 * 64", "jnp.float16", "jnp.float32"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 7u);
  EXPECT_EQ(fs[0].jaxErrorFirstLine, "N must be a multiple of 8 and <= 256, got: 320");
}

TEST_F(MosaicRules, AccumulatorDtypeFollowsTheOperandDtypeFromTheCaller) {
  auto fs = check(matmul("64", "128", "jnp.bfloat16", "jnp.float16"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].jaxErrorFirstLine,
            "WGMMA with element type bf16 only supports accumulators of type f32, but got: f16");
  fs = check(matmul("64", "128", "jnp.int8", "jnp.float32", true));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].jaxErrorFirstLine,
            "WGMMA with element type i8 only supports accumulators of type s32, but got: f32");
}

TEST_F(MosaicRules, ThirtyTwoBitRightHandSideMustBeTransposedRef) {
  auto fs = check(matmul("64", "128", "jnp.float32", "jnp.float32"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS006");
  EXPECT_EQ(fs[0].jaxErrorFirstLine, "Only f16 WGMMA supports transposes");
}

TEST_F(MosaicRules, UnknownOperandsGiveNoDtypeFinding) {
  // No caller: the operands' dtype is unknown, so nothing is said about it.
  std::string src = matmul("64", "128", "jnp.bfloat16", "jnp.float16");
  src = src.substr(0, src.find("def main():"));
  EXPECT_TRUE(check(src).empty());
}

TEST_F(MosaicRules, SwizzleJaxDoesNotAcceptIsPLS007WhereItIsBuilt) {
  const char* src = R"(
SWIZZLE = 16

def transforms():
  return (plgpu.TilingTransform((8, 8)), plgpu.SwizzleTransform(SWIZZLE))

def f(x):
  return pl.pallas_call(
      lambda x_ref, o_ref: None,
      in_specs=[plgpu.BlockSpec((64, 8), lambda: (0, 0), transforms=transforms())],
      out_shape=jax.ShapeDtypeStruct((64, 8), jnp.float16))(x)
)";
  auto fs = check(src);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS007");
  EXPECT_EQ(line(fs[0]), 5u);
  EXPECT_EQ(fs[0].location.range.start.column, 41u); // plgpu.SwizzleTransform(
  EXPECT_EQ(fs[0].jaxErrorFirstLine,
            "Swizzle 16 is not supported. Only 32, 64 and 128 are accepted.");
}

TEST_F(MosaicRules, SwizzleMinorTileAndTilingThatDoesNotDivide) {
  const char* src = R"(
TILE = (8, 64)

def scale(x):
  return pl.pallas_call(
      lambda x_ref, o_ref: None,
      in_specs=[plgpu.BlockSpec((64, 128), lambda: (0, 0),
                                transforms=(plgpu.TilingTransform(TILE), plgpu.SwizzleTransform(128)))],
      out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32))(x)

def main():
  return scale(jnp.ones((64, 128), jnp.float32))

def copy(x):
  return plgpu.kernel(
      lambda x_gmem, o_gmem, smem: None,
      out_shape=jax.ShapeDtypeStruct((64, 96), jnp.float16),
      scratch_shapes=[plgpu.SMEM((64, 96), jnp.float16, transforms=(plgpu.TilingTransform((8, 64)),))],
  )(x)
)";
  auto fs = check(src);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(line(fs[0]), 5u);
  EXPECT_EQ(
      fs[0].jaxErrorFirstLine,
      "Swizzle 128 requires the trailing dimension to be of size 32, but got shape: (8, 2, 8, 64)");
  EXPECT_EQ(line(fs[1]), 15u);
  EXPECT_EQ(fs[1].jaxException, "AssertionError");
  EXPECT_EQ(fs[1].jaxErrorFirstLine, "");
  EXPECT_NE(fs[1].message.find("will raise AssertionError while it traces"), std::string::npos)
      << fs[1].message;
}

TEST_F(MosaicRules, AMinorTileWrittenInTheLaunchGetsAnUnsafeFix) {
  const char* src = R"(
def scale(x):
  return pl.pallas_call(
      lambda x_ref, o_ref: None,
      in_specs=[plgpu.BlockSpec((64, 128), lambda: (0, 0),
                                transforms=(plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128)))],
      out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32))(x)

def main():
  return scale(jnp.ones((64, 128), jnp.float32))
)";
  auto fs = check(src);
  ASSERT_EQ(fs.size(), 1u);
  ASSERT_EQ(fs[0].fixes.size(), 1u);
  const Fix& fix = fs[0].fixes[0];
  EXPECT_EQ(fix.safety, FixSafety::Unsafe);
  ASSERT_EQ(fix.edits.size(), 1u);
  EXPECT_EQ(fix.edits[0].newText, "32");
  EXPECT_EQ(fix.edits[0].range.start.line + 1 - kHeaderLines, 6u);
  EXPECT_EQ(fix.edits[0].range.end.column - fix.edits[0].range.start.column, 2u); // "64"
  // Through a named constant (maybe used elsewhere): no fix.
  std::string named = src;
  named.replace(named.find("TilingTransform((8, 64))"), 24, "TilingTransform(TILE)");
  named = "TILE = (8, 64)\n" + named;
  fs = check(named);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(fs[0].fixes.empty());
}

const char* kElementwise = R"(
def add_one(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0

def f(x):
  return pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype){PARAMS})(x)

def main():
  return f(jnp.ones({SHAPE}, {DT}))
)";

std::string elementwise(const std::string& shape, const std::string& dt,
                        const std::string& params = "") {
  std::string s = kElementwise;
  s.replace(s.find("{PARAMS}"), 8, params);
  s.replace(s.find("{SHAPE}"), 7, shape);
  s.replace(s.find("{DT}"), 4, dt);
  return s;
}

TEST_F(MosaicRules, LanePathCopiesMultiplesOf128Bytes) {
  auto fs = check(elementwise("(100,)", "jnp.float32"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS008");
  EXPECT_EQ(line(fs[0]), 6u);
  EXPECT_EQ(fs[0].jaxException, "NotImplementedError");
  EXPECT_EQ(fs[0].jaxErrorFirstLine, "Only copies transferring a number of bytes divisible by the "
                                     "warpgroup size are supported. Got bytes=400 but warpgroup "
                                     "size is 128");
  EXPECT_TRUE(check(elementwise("(128,)", "jnp.float32")).empty());
  // The Warpgroup lowering does not split the copy over the warpgroup.
  EXPECT_TRUE(check(elementwise("(100,)", "jnp.float32",
                                ", compiler_params=plgpu.CompilerParams(lowering_semantics="
                                "plgpu.LoweringSemantics.Warpgroup)"))
                  .empty());
}

TEST_F(MosaicRules, TmaStridesLastDimensionAndBox) {
  auto fs = check(elementwise("(64, 100)", "jnp.float16"));
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(
      fs[0].jaxErrorFirstLine,
      "async_copy requires all GMEM strides except the last one to be a multiple of 16 bytes");
  EXPECT_NE(fs[0].message.find(kFirst), std::string::npos);
  fs = check(elementwise("(8, 1024)", "jnp.float32"));
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].jaxErrorFirstLine,
            "Async copies only support copying <=256 elements along each dimension, got (8, 1024)");
  // One finding per code and line: the input's, marked first.
  EXPECT_EQ(fs.size(), 1u);
  EXPECT_TRUE(check(elementwise("(64, 104)", "jnp.float16")).empty());
}

TEST_F(MosaicRules, ExplicitCopiesAreCheckedAtTheCopy) {
  const char* src = R"(
def kernel(x_gmem, o_gmem, smem, barrier):
  plgpu.copy_gmem_to_smem(x_gmem.at[:, pl.ds(0, 60)], smem, barrier)
  plgpu.barrier_wait(barrier)

def head(x):
  return plgpu.kernel(
      kernel,
      out_shape=jax.ShapeDtypeStruct((64, 64), x.dtype),
      scratch_shapes=[plgpu.SMEM((64, 60), jnp.float16), plgpu.Barrier()],
  )(x)
)";
  auto fs = check(src);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 3u);
  EXPECT_EQ(fs[0].jaxErrorFirstLine,
            "Async copies require the number of bits copied along the last "
            "dimension to be divisible by 128, but got 960");
}

TEST_F(MosaicRules, InterpretedLaunchesAreNotChecked) {
  std::string src = elementwise("(100,)", "jnp.float32", ", interpret=True");
  EXPECT_TRUE(check(src).empty());
}

TEST_F(MosaicRules, ACopyErrorComesBeforeTheKernelBodysError) {
  // The pipeline copies the inputs before the body (and its accumulator)
  // is lowered: the copy is JAX's first error, the accumulator the second.
  const char* src = R"(
def kernel(x_ref, o_ref):
  def scope(acc_ref):
    o_ref[...] = x_ref[...]
  pl.run_scoped(scope, plgpu.ACC((96, 128)))

def f(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)

def main():
  return f(jnp.ones((8, 1024), jnp.float32))
)";
  auto fs = check(src);
  ASSERT_EQ(fs.size(), 2u);
  size_t first = 0;
  for (const Finding& f : fs) {
    bool isFirst = f.message.find(kFirst) != std::string::npos;
    first += isFirst;
    EXPECT_EQ(isFirst, f.code == "PLS008") << f.code << ": " << f.message;
  }
  EXPECT_EQ(first, 1u);
}

TEST_F(MosaicRules, ATableWithoutTheRulesSaysNothing) {
  auto bundled = pallas::knowledge::KnowledgeBase::bundledPath();
  std::ifstream in(bundled);
  nlohmann::json table = nlohmann::json::parse(in);
  table.erase("mosaicGpuRules");
  std::string path = (dir_ / "old-jax.json").string();
  std::ofstream(path) << table.dump();
  ProjectOptions options;
  options.knowledgePath = path;
  EXPECT_TRUE(check(matmul("96", "128", "jnp.float16", "jnp.float32"), options).empty());
  EXPECT_FALSE(check(matmul("96", "128", "jnp.float16", "jnp.float32")).empty());
}

} // namespace
