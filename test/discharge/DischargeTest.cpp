// Unit tests of the discharge-feasibility passes through the Project facade:
// small kernels, the findings they get, and every field of those findings.
#include "pallas/analysis/Project.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

const char* kHeader = R"(import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams
)";
constexpr unsigned kHeaderLines = 6;

class Discharge : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-discharge-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Analyse `body` (after the import header) as k.py; lines are 1-based
  // counting from the first line of `body`.
  std::vector<Finding> check(const std::string& body, ProjectOptions options = {}) {
    project_ = std::make_unique<Project>(std::move(options));
    path_ = (dir_ / "k.py").string();
    project_->setDocument(path_, kHeader + body);
    return project_->findings(path_);
  }
  static unsigned line(const Finding& f) { return f.location.range.start.line + 1 - kHeaderLines; }

  fs::path dir_;
  std::string path_;
  std::unique_ptr<Project> project_;
};

const char* kInlineRefInterpret = R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)
  o_ref[...] = x_ref[...]

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)";

TEST_F(Discharge, InlineMgpuWithRefOnInterpretTrueIsPLS001WithEveryField) {
  auto fs = check(kInlineRefInterpret);
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.code, "PLS001");
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(line(f), 7u);
  EXPECT_EQ(f.location.path, path_);
  EXPECT_EQ(f.executionPath, "interpret=True (HLO interpreter)");
  EXPECT_NE(f.message.find("NotImplementedError: inline_mgpu_p does not support discharge."),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("a kernel input/output Ref"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("compiled on a GPU"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("first error JAX raises"), std::string::npos) << f.message;
  ASSERT_TRUE(f.launch.has_value());
  EXPECT_EQ(f.launch->range.start.line + 1 - kHeaderLines, 11u);
  ASSERT_GE(f.related.size(), 2u);
  EXPECT_EQ(f.related[0].message, "selects interpret=True (HLO interpreter) here");
  EXPECT_EQ(f.related[0].location.range.start.line + 1 - kHeaderLines, 11u);
  ASSERT_EQ(f.callChain.size(), 1u);
  EXPECT_EQ(f.callChain[0], "kernel (k.py:" + std::to_string(2 + kHeaderLines) + ")");
  EXPECT_EQ(f.jaxVersion, "0.10.2");
}

TEST_F(Discharge, RefFreeInlineMgpuFailsAtLoweringInstead) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(return_type=plgpu.ShapeDtypeStruct((), jnp.float32, plgpu.Layout.WG_SPLAT))
  def one(ctx):
    return None

  o_ref[...] = x_ref[...] + one()

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS001");
  EXPECT_EQ(line(fs[0]), 7u);
  EXPECT_NE(fs[0].message.find(
                "MLIR translation rule for primitive 'inline_mgpu_p' not found for platform cpu"),
            std::string::npos)
      << fs[0].message;
}

TEST_F(Discharge, DischargeErrorsComeBeforeLoweringErrors) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(return_type=plgpu.ShapeDtypeStruct((), jnp.float32, plgpu.Layout.WG_SPLAT))
  def one(ctx):
    return None

  o_ref[...] = x_ref[...] + one()

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def publish(ctx, r):
    del ctx, r

  publish(o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 2u);
  for (const Finding& f : fs) {
    bool first = f.message.find("first error JAX raises") != std::string::npos;
    EXPECT_EQ(first, line(f) == 13u) << line(f) << ": " << f.message;
  }
}

TEST_F(Discharge, CompiledKernelWithPlainRefsHasNoFinding) {
  EXPECT_TRUE(check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)

def run(x):
  return plgpu.kernel(kernel, out_shape=x)(x)
)")
                  .empty());
}

// A pl.core_map written in a kernel runs where its kernel runs: its own
// compiled-path failures (commit_smem has no rule under the Warp semantics a
// plgpu.WarpMesh gives) are reported only when an enclosing launch compiles;
// interpreted, the outer launch is judged on its own terms.
TEST_F(Discharge, ANestedCoreMapRunsOnlyOnItsKernelsPaths) {
  auto kernelLaunchedWith = [](const std::string& interpret) {
    return R"(
def kernel(x_ref, o_ref):
  @pl.core_map(plgpu.WarpMesh(axis_name="warp"))
  def _():
    plgpu.commit_smem()

  o_ref[...] = x_ref[...]

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=)" +
           interpret + ")(x)\n";
  };
  auto atCommit = [&](const std::vector<Finding>& fs) {
    return std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return line(f) == 5; });
  };
  EXPECT_EQ(atCommit(check(kernelLaunchedWith("False"))), 1);
  EXPECT_EQ(atCommit(check(kernelLaunchedWith("True"))), 0);
  EXPECT_EQ(atCommit(check(kernelLaunchedWith("InterpretGPUParams()"))), 0);
  // A kernel no launch of this file encloses keeps its own (compiled) path.
  std::string alone = kernelLaunchedWith("True");
  alone = alone.substr(0, alone.find("def run"));
  EXPECT_EQ(atCommit(check(alone)), 1);
}

TEST_F(Discharge, CompiledAccumulatorGivenToInlineMgpuIsPLS001) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  def scope(acc_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def region(ctx, r):
      del ctx, r

    region(acc_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))

def run(x):
  return plgpu.kernel(kernel, out_shape=x)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS001");
  EXPECT_EQ(line(fs[0]), 8u);
  EXPECT_EQ(fs[0].executionPath, "compiled (Mosaic GPU)");
  EXPECT_NE(fs[0].message.find("plgpu.ACC accumulator"), std::string::npos) << fs[0].message;
  ASSERT_EQ(fs[0].callChain.size(), 2u);
  EXPECT_EQ(fs[0].callChain[1].rfind("scope (k.py:", 0), 0u) << fs[0].callChain[1];
}

TEST_F(Discharge, GpuInterpretRunsCopiesButNotInlineMgpu) {
  auto fs = check(R"(
def kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  plgpu.barrier_wait(barrier)

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)

def run(x):
  return plgpu.kernel(kernel, out_shape=x, interpret=InterpretGPUParams(),
                      scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()])(x)
)");
  // plgpu.kernel allocates the barrier itself (a pallas_call's scratch
  // barrier fails first in GPU interpret mode: gpu_pc_barrier_scratch).
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS001");
  EXPECT_EQ(line(fs[0]), 10u);
  EXPECT_EQ(fs[0].executionPath, "GPU interpret mode (InterpretGPUParams)");
  EXPECT_NE(fs[0].message.find("not found for platform cpu"), std::string::npos);
}

TEST_F(Discharge, InterpretTrueCopyHasNoDischargeRule) {
  auto fs = check(R"(
def kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
  plgpu.barrier_wait(barrier)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True,
                        scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()])(x)
)");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].code, "PLS002");
  EXPECT_EQ(line(fs[0]), 3u);
  EXPECT_NE(
      fs[0].message.find("No state discharge rule implemented for primitive: copy_gmem_to_smem"),
      std::string::npos)
      << fs[0].message;
  EXPECT_NE(fs[0].message.find("InterpretGPUParams"), std::string::npos)
      << "suggests GPU interpret mode";
  EXPECT_EQ(line(fs[1]), 4u);
}

TEST_F(Discharge, RangesCoverTheNamesWritten) {
  // Editors underline ranges: the callee of the failing call, the launch's
  // callee, the kernel's name at its def (not `def`), the called helper.
  auto fs = check(R"(
def stage(x_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)

def kernel(x_ref, o_ref, smem, barrier):
  stage(x_ref, smem, barrier)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True,
                        scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()])(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  const std::string text = project_->documentText(path_);
  auto written = [&](const SourceRange& r) {
    EXPECT_EQ(r.start.line, r.end.line);
    size_t at = 0;
    for (uint32_t l = 0; l < r.start.line; ++l)
      at = text.find('\n', at) + 1;
    return text.substr(at + r.start.column, r.end.column - r.start.column);
  };
  EXPECT_EQ(written(fs[0].location.range), "plgpu.copy_gmem_to_smem");
  ASSERT_TRUE(fs[0].launch);
  EXPECT_EQ(written(fs[0].launch->range), "pl.pallas_call");
  std::vector<std::string> related;
  for (const RelatedInfo& r : fs[0].related)
    related.push_back(written(r.location.range));
  // The path is selected where the user wrote it: the interpret= argument
  // (issue 35), which selectedAt carries for the editors' hint and fixes.
  EXPECT_EQ(related, (std::vector<std::string>{"interpret=True", "kernel", "stage"}));
  ASSERT_TRUE(fs[0].selectedAt);
  EXPECT_EQ(written(fs[0].selectedAt->range), "interpret=True");
}

TEST_F(Discharge, RunTimeInterpretIsAWarning) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)

def build(interpret):
  return pl.pallas_call(kernel, out_shape=x, interpret=interpret)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Warning);
  EXPECT_NE(fs[0].related[0].message.find("may select"), std::string::npos);
}

// interpret= an expression over a parameter is evaluated with each caller's
// argument (8.30): the caller passing "debug" selects the interpret path (an
// error naming it), the one left to the default "fast" the compiled path,
// and a run-time argument stays a "may" that adds no second finding.
TEST_F(Discharge, ExpressionOverAParameterIsJudgedPerCaller) {
  const char* body = R"(
import os

def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)

def apply(x, mode="fast"):
  return pl.pallas_call(kernel, out_shape=x, interpret=(mode == "debug"))(x)

def debug_run(x):
  return apply(x, mode="debug")

def fast_run(x):
  return apply(x)

def env_run(x):
  return apply(x, mode=os.environ["MODE"])
)";
  auto fs = check(body);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_NE(fs[0].message.find("when `debug_run` calls `apply`"), std::string::npos)
      << fs[0].message;
  // Every caller leaves the default: compiled only, nothing to report.
  std::string fast = body;
  fast.replace(fast.find("mode=\"debug\""), 12, "mode=\"fast\"");
  // (23 characters: replacing 24 ate the call's `)`, a syntax error that
  // PLS011 now reports.)
  const std::string fromEnv = "mode=os.environ[\"MODE\"]";
  fast.replace(fast.find(fromEnv), fromEnv.size(), "mode=\"check\"");
  EXPECT_TRUE(check(fast).empty());
}

TEST_F(Discharge, MultiThreadedKernelOnInterpretTrueFailsAtTheLaunch) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0

def run(x):
  return plgpu.kernel(kernel, out_shape=x, num_threads=2, thread_name="wg", interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS002");
  EXPECT_EQ(line(fs[0]), 6u);
  EXPECT_NE(fs[0].message.find("run_scoped interpret rule does not support collective axes"),
            std::string::npos);
}

TEST_F(Discharge, HelperCallsCarryTheChainAndDischargedParameters) {
  auto fs = check(R"(
def touch(ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(ref)

def kernel(x_ref, o_ref):
  touch(o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 7u);
  ASSERT_EQ(fs[0].callChain.size(), 2u);
  EXPECT_EQ(fs[0].callChain[0].rfind("kernel (k.py:", 0), 0u);
  EXPECT_EQ(fs[0].callChain[1].rfind("touch (k.py:", 0), 0u);
  bool callsTouch = false;
  for (const RelatedInfo& r : fs[0].related)
    if (r.message == "calls `touch`")
      callsTouch = r.location.range.start.line + 1 - kHeaderLines == 10u;
  EXPECT_TRUE(callsTouch);
}

TEST_F(Discharge, ValuesPassedToHelpersAreNotRefs) {
  // The helper gets an array: its inline_mgpu has no ref operand and fails
  // at lowering, not discharge.
  auto fs = check(R"(
def show(v):
  @plgpu.inline_mgpu(arg_types=(plgpu.Layout.WG_SPLAT,))
  def region(ctx, a):
    del ctx, a

  region(v)

def kernel(x_ref, o_ref):
  show(x_ref[...])

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].message.find("not found for platform cpu"), std::string::npos) << fs[0].message;
}

TEST_F(Discharge, DeadCodeAndCodeAfterReturnAreSkipped) {
  EXPECT_TRUE(check(R"(
USE_RAW = False

def raw(ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(ref)

def kernel(x_ref, o_ref):
  if USE_RAW:
    raw(o_ref)
  return
  raw(o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)")
                  .empty());
}

TEST_F(Discharge, SkipFloatingPointOpsSkipsFloatRegionsOnly) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(return_type=plgpu.ShapeDtypeStruct((), jnp.float32, plgpu.Layout.WG_SPLAT))
  def one(ctx):
    return None

  @plgpu.inline_mgpu(return_type=plgpu.ShapeDtypeStruct((), jnp.int32, plgpu.Layout.WG_SPLAT))
  def idx(ctx):
    return None

  o_ref[...] = x_ref[...] + one() + idx()

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=InterpretGPUParams(skip_floating_point_ops=True))(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 11u);
}

TEST_F(Discharge, ProgramIdRunsOnInterpretTrue) {
  EXPECT_TRUE(check(R"(
def kernel(x_ref, o_ref):
  i = pl.program_id(0)
  o_ref[...] = x_ref[...] + i

def run(x):
  return pl.pallas_call(kernel, out_shape=x, grid=(2,), interpret=True)(x)
)")
                  .empty());
}

TEST_F(Discharge, InlineMgpuArgumentCountMismatchIsPLS004) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, a, b):
    del ctx, a, b

  region(x_ref, o_ref)

def run(x):
  return plgpu.kernel(kernel, out_shape=x)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS004");
  EXPECT_EQ(line(fs[0]), 7u);
  EXPECT_NE(fs[0].message.find("Mismatched type shape: PyTreeDef((*, *)) != PyTreeDef((*,))"),
            std::string::npos)
      << fs[0].message;
}

TEST_F(Discharge, DecisionsComeFromTheKnowledgeTable) {
  // The same kernel, judged with a table in which copy_gmem_to_smem has a
  // discharge rule (as a future JAX might): no finding.
  const char* kernel = R"(
def kernel(x_ref, o_ref, smem, barrier):
  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True,
                        scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()])(x)
)";
  ASSERT_EQ(check(kernel).size(), 1u);
  std::ifstream in(std::string(PALLAS_DISCHARGE_FIXTURES) +
                   "/../../../analysis/knowledge/jax-0.10.2.json");
  auto table = nlohmann::json::parse(in);
  table["primitives"]["copy_gmem_to_smem"]["discharge"] = {{"status", "exists"}, {"kind", "full"}};
  table["jax_version"] = "9.9.9";
  std::string path = (dir_ / "table.json").string();
  std::ofstream(path) << table.dump();
  ProjectOptions options;
  options.knowledgePath = path;
  EXPECT_TRUE(check(kernel, options).empty());
}

const char* kMma = R"(
def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    plgpu.wgmma(acc_ref, a_ref, b_ref)
    plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))

def run(a, b):
  return plgpu.kernel(kernel, out_shape=a)(a, b)
)";

// The method a kernel calls is found up a class hierarchy as deep as the
// walk follows (depth first, one level per base): a tcgen05 MMA in a method
// defined six classes up is still a Blackwell requirement.
TEST_F(Discharge, HardwareRequirementsFollowMethodsUpADeepHierarchy) {
  const char* deep = R"(
class Level0:
  @staticmethod
  def mma(acc_ref, a_ref, b_ref):
    plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)

class Level1(Level0):
  pass

class Level2(Level1):
  pass

class Level3(Level2):
  pass

class Level4(Level3):
  pass

class Level5(Level4):
  pass

class Level6(Level5):
  pass

def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    Level6.mma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))

def run(a, b):
  return plgpu.kernel(kernel, out_shape=a)(a, b)
)";
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  auto fs = check(deep, hopper);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS003");
  EXPECT_EQ(line(fs[0]), 5u) << "tcgen05_mma in Level0.mma";
}

// A helper's parameter the call leaves out holds its default, and the
// branch it decides is the only one the kernel runs; one the call passes
// holds what is passed.
TEST_F(Discharge, HardwareRequirementsFollowTheBranchAParameterDefaultTakes) {
  const char* src = R"(
def mma(acc_ref, a_ref, b_ref, blackwell=False):
  if blackwell:
    plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
  else:
    plgpu.wgmma(acc_ref, a_ref, b_ref)

def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    mma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))

def run(a, b):
  return plgpu.kernel(kernel, out_shape=a)(a, b)
)";
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  EXPECT_TRUE(check(src, hopper).empty()) << "the default takes the wgmma branch";
  std::string passed = src;
  passed.replace(passed.find("mma(acc_ref, a_ref, b_ref)\n    return"), 26,
                 "mma(acc_ref, a_ref, b_ref, blackwell=True)");
  auto fs = check(passed, hopper);
  ASSERT_EQ(fs.size(), 1u) << passed;
  EXPECT_EQ(fs[0].code, "PLS003");
  EXPECT_EQ(line(fs[0]), 4u) << "tcgen05_mma: the call passes blackwell=True";
}

// A kernel a classmethod builds (`Kernels.build(True)`): the call's own
// arguments follow the bound class, and the closure sees them.
TEST_F(Discharge, HardwareRequirementsOfAKernelAClassmethodBuilds) {
  const char* src = R"(
class Kernels:
  @classmethod
  def build(cls, blackwell=False):
    def kernel(a_ref, b_ref, o_ref):
      def scope(acc_ref):
        if blackwell:
          plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
        else:
          plgpu.wgmma(acc_ref, a_ref, b_ref)
        return acc_ref[...]

      o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))
    return kernel

def run(a, b):
  return plgpu.kernel(Kernels.build(True), out_shape=a)(a, b)
)";
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  auto fs = check(src, hopper);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS003");
  EXPECT_EQ(line(fs[0]), 8u) << "tcgen05_mma: build(True)";
}

// A module constant decides which MMA the kernel runs: on Blackwell the
// tcgen05 branch it selects is fine, and the Hopper-only wgmma branch it
// does not select is no requirement.
TEST_F(Discharge, HardwareRequirementsFollowAModuleConstantBranch) {
  const char* src = R"(
USE_TCGEN05 = True

def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    if USE_TCGEN05:
      plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
    else:
      plgpu.wgmma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))

def run(a, b):
  return plgpu.kernel(kernel, out_shape=a)(a, b)
)";
  ProjectOptions blackwell;
  blackwell.gpuComputeCapability = "10.0";
  EXPECT_TRUE(check(src, blackwell).empty()) << "wgmma's branch is not taken";
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  auto fs = check(src, hopper);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 7u) << "tcgen05_mma needs Blackwell";
}

// The same with the constant imported from a settings module of the
// workspace: the walk reads its value there.
TEST_F(Discharge, HardwareRequirementsFollowAnImportedConstantBranch) {
  std::ofstream(dir_ / "settings.py") << "USE_TCGEN05 = True\n";
  const char* src = R"(
from settings import USE_TCGEN05

def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    if USE_TCGEN05:
      plgpu.tcgen05_mma(acc_ref, a_ref, b_ref)
    else:
      plgpu.wgmma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.SMEM((64, 64), jnp.float32))

def run(a, b):
  return plgpu.kernel(kernel, out_shape=a)(a, b)
)";
  ProjectOptions blackwell;
  blackwell.gpuComputeCapability = "10.0";
  blackwell.workspaceRoots.push_back(dir_.string());
  EXPECT_TRUE(check(src, blackwell).empty()) << "wgmma's branch is not taken";
}

TEST_F(Discharge, HardwareRequirementsNeedTheLocalCapability) {
  EXPECT_TRUE(check(kMma).empty()) << "no capability: no PLS003";
  ProjectOptions hopper;
  hopper.gpuComputeCapability = "9.0";
  auto fs = check(kMma, hopper);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS003");
  EXPECT_EQ(fs[0].severity, Severity::Warning);
  EXPECT_EQ(line(fs[0]), 5u) << "tcgen05_mma needs Blackwell";
  EXPECT_NE(fs[0].message.find("Blackwell"), std::string::npos) << fs[0].message;
  ProjectOptions blackwell;
  blackwell.gpuComputeCapability = "10.0";
  fs = check(kMma, blackwell);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 4u) << "wgmma is sm_90a only";
}

TEST_F(Discharge, ModuleLevelSetGpuInterpretModeSelectsGpuInterpret) {
  auto fs = check(R"(
from jax._src.pallas.mosaic_gpu.interpret.params import set_gpu_interpret_mode
set_gpu_interpret_mode(InterpretGPUParams())

def kernel(x_ref, o_ref):
  o_ref[...] = plgpu.layout_cast(x_ref[...], plgpu.Layout.WGMMA)

def run(x):
  return plgpu.kernel(kernel, out_shape=x)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].executionPath, "GPU interpret mode (InterpretGPUParams)");
  EXPECT_EQ(fs[0].related[0].location.range.start.line + 1 - kHeaderLines, 3u)
      << "the call selects the path";
}

TEST_F(Discharge, IndexingAnArrayInAHelperIsNotARefAccess) {
  EXPECT_TRUE(check(R"(
def first(v):
  return v[0]

def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + first(x_ref[...])

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)")
                  .empty());
}

// Oracle compiled_pc_reciprocal / compiled_kernel_reciprocal_warpgroup /
// interp_pc_reciprocal_ok: reciprocal_p has a CPU lowering but no Mosaic GPU
// rule under any semantics.
const char* kReciprocal = R"(
def kernel(x_ref, o_ref):
  o_ref[...] = pl.reciprocal(x_ref[...])

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=%s)(x)
)";

std::string withInterpret(const char* text, const std::string& interpret) {
  std::string s = text;
  s.replace(s.find("%s"), 2, interpret);
  return s;
}

TEST_F(Discharge, CompiledPrimitiveWithoutMosaicGpuRuleIsPLS002) {
  auto fs = check(withInterpret(kReciprocal, "False"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS002");
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[0]), 3u);
  EXPECT_EQ(fs[0].executionPath, "compiled (Mosaic GPU)");
  EXPECT_NE(fs[0].message.find("NotImplementedError: Unimplemented primitive in Pallas Mosaic GPU "
                               "lowering: reciprocal for lowering semantics "
                               "LoweringSemantics.Lane and user thread semantics "
                               "PrimitiveSemantics.Warpgroup"),
            std::string::npos)
      << fs[0].message;
  EXPECT_TRUE(check(withInterpret(kReciprocal, "True")).empty()) << "it has a CPU lowering";
  EXPECT_TRUE(check(withInterpret(kReciprocal, "InterpretGPUParams()")).empty());
}

// Oracle compiled_kernel_reciprocal_warpgroup: compiler parameters passed
// through a variable are not visible, so the predicted message names the
// semantics as a `<...>` placeholder instead of guessing Lane.
TEST_F(Discharge, CompilerParamsThroughAVariableArePlaceholdersInTheMessage) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = pl.reciprocal(x_ref[...])

def run(x, params):
  return plgpu.kernel(kernel, out_shape=x, compiler_params=params)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].jaxException, "NotImplementedError");
  EXPECT_NE(
      fs[0].jaxErrorFirstLine.find("lowering semantics LoweringSemantics.<Lane or Warpgroup> "),
      std::string::npos)
      << fs[0].jaxErrorFirstLine;
}

// Oracle compiled_broadcast_to_scalar_literal / compiled_broadcast_to: a
// Python number (shape ()) broadcast to a literal shape always binds
// broadcast_to_p (knowledge: returnsBeforeBindIf); an operand whose shape is
// not in the source may match and bind nothing.
TEST_F(Discharge, BroadcastOfANumberToALiteralShapeIsCertain) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] + pl.broadcast_to(1.0, (128,))
  o_ref[...] = pl.broadcast_to(x_ref[0], (128,))

def run(x):
  return pl.pallas_call(kernel, out_shape=x)(x)
)");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(line(fs[0]), 3u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[1]), 4u);
  EXPECT_EQ(fs[1].severity, Severity::Warning);
}

TEST_F(Discharge, CompilerParamsSelectTheLoweringSemanticsInTheMessage) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = pl.reciprocal(x_ref[...])

def run(x):
  unused = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)
  return plgpu.kernel(kernel, out_shape=x,
                      compiler_params=plgpu.CompilerParams(
                          lowering_semantics=plgpu.LoweringSemantics.Warpgroup))(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].message.find("lowering semantics LoweringSemantics.Warpgroup"), std::string::npos)
      << fs[0].message;
}

TEST_F(Discharge, CompiledTrapsNumProgramsAndConditionalBinds) {
  // num_programs has no Mosaic GPU rule but is answered at bind time;
  // pl.broadcast_to binds only when the shape differs: a warning.
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] * pl.num_programs(0) + pl.program_id(0)
  o_ref[...] = pl.broadcast_to(x_ref[0], (128,))

def run(x):
  return pl.pallas_call(kernel, out_shape=x, grid=(2,))(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 4u);
  EXPECT_EQ(fs[0].severity, Severity::Warning);
  EXPECT_NE(fs[0].message.find("broadcast_to"), std::string::npos) << fs[0].message;
}

TEST_F(Discharge, WarpOnlyPrimitiveInAWarpgroupKernelBody) {
  auto fs = check(R"(
def kernel(x_ref, o_ref, barrier):
  done = plgpu.barrier_test(barrier)
  o_ref[...] = jnp.where(done, x_ref[...], 0.0)

def run(x):
  return plgpu.kernel(kernel, out_shape=x, scratch_shapes=[plgpu.Barrier()])(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 3u);
  EXPECT_NE(fs[0].message.find("(it has: LanexWarp, WarpgroupxWarp)"), std::string::npos)
      << fs[0].message;
  // Oracle compiled_warp_mesh_barrier_test_ok: a WarpMesh core_map's body
  // has Warp user thread semantics.
  EXPECT_TRUE(check(R"(
def kernel(x_ref, o_ref, barrier):
  @pl.core_map(plgpu.WarpMesh(axis_name="warp"))
  def _():
    plgpu.barrier_test(barrier)

  o_ref[...] = x_ref[...]

def run(x):
  return plgpu.kernel(kernel, out_shape=x, scratch_shapes=[plgpu.Barrier()])(x)
)")
                  .empty());
}

// Oracle interp_wgmma_kernel_operands / interp_wgmma_functional_form / gpu_wgmma_ok.
TEST_F(Discharge, InterpretTrueWgmmaDischargesIntoItsFunctionalForm) {
  const char* kernelOperands = R"(
def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref):
    plgpu.wgmma(acc_ref, a_ref, b_ref)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))

def run(a):
  return pl.pallas_call(kernel, out_shape=a, interpret=%s)(a, a)
)";
  auto fs = check(withInterpret(kernelOperands, "True"));
  ASSERT_GE(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS002");
  EXPECT_EQ(line(fs[0]), 4u);
  EXPECT_NE(fs[0].message.find("ValueError: Did not ask for inval to be discharged but it was."),
            std::string::npos)
      << fs[0].message;
  EXPECT_NE(fs[0].message.find("first error JAX raises"), std::string::npos) << fs[0].message;
  EXPECT_TRUE(check(withInterpret(kernelOperands, "InterpretGPUParams()")).empty());
  EXPECT_TRUE(check(withInterpret(kernelOperands, "False")).empty())
      << "compiled: Mosaic GPU lowers wgmma (the accumulator alone is discharged)";

  fs = check(R"(
def kernel(a_ref, b_ref, o_ref):
  def scope(acc_ref, a_smem, b_smem):
    a_smem[...] = a_ref[...]
    b_smem[...] = b_ref[...]
    plgpu.wgmma(acc_ref, a_smem, b_smem)
    return acc_ref[...]

  o_ref[...] = pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32),
                             plgpu.SMEM((64, 64), jnp.float16), plgpu.SMEM((64, 64), jnp.float16))

def run(a):
  return plgpu.kernel(kernel, out_shape=a, interpret=True)(a, a)
)");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(line(fs[0]), 6u);
  EXPECT_NE(fs[0].message.find("MLIR translation rule for primitive 'wgmma' not found for "
                               "platform cpu"),
            std::string::npos)
      << fs[0].message;
  EXPECT_NE(fs[0].message.find("binds wgmma on the values"), std::string::npos) << fs[0].message;
  EXPECT_NE(fs[0].message.find("first error JAX raises"), std::string::npos) << fs[0].message;
  EXPECT_EQ(line(fs[1]), 7u) << "reading the accumulator fails too";
}

// Oracle interp_acc_read / gpu_wgmma_ok / compiled_acc_smem_ok: acc[...] on
// a plgpu.ACC binds wgmma_accumulator_deref_p (the table's refIndexing),
// whose discharge rule re-binds it on the value.
TEST_F(Discharge, ReadingAnAccumulatorBindsItsDeref) {
  const char* kernel = R"(
def kernel(x_ref, o_ref):
  def scope(acc_ref):
    return acc_ref[...]

  o_ref[...] = x_ref[...] + pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=%s)(x)
)";
  auto fs = check(withInterpret(kernel, "True"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 4u);
  EXPECT_NE(fs[0].message.find("'wgmma_accumulator_deref_p' not found for platform cpu"),
            std::string::npos)
      << fs[0].message;
  EXPECT_TRUE(check(withInterpret(kernel, "False")).empty());
  EXPECT_TRUE(check(withInterpret(kernel, "InterpretGPUParams()")).empty());
}

} // namespace

namespace {

// A copy of the bundled 0.10.2 table, edited by `edit`, as a table file.
std::string editedTable(const fs::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(std::string(PALLAS_DISCHARGE_FIXTURES) +
                   "/../../../analysis/knowledge/jax-0.10.2.json");
  auto table = nlohmann::json::parse(in);
  edit(table);
  table["jax_version"] = "9.9.9";
  std::string path = (dir / "table.json").string();
  std::ofstream(path) << table.dump();
  return path;
}

const char* kCheckpointCompiled = R"(
def double(v):
  return v * 2.0

def kernel(x_ref, o_ref):
  o_ref[...] = jax.checkpoint(double)(x_ref[...])

def run(x):
  return plgpu.kernel(kernel, out_shape=x)(x)
)";

} // namespace

TEST_F(Discharge, CheckpointInACompiledKernelFailsResourceEstimation) {
  auto found = check(kCheckpointCompiled);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "PLS002");
  EXPECT_EQ(line(found[0]), 6u);
  EXPECT_EQ(found[0].executionPath, "compiled (Mosaic GPU)");
  EXPECT_EQ(found[0].jaxException, "NotImplementedError");
  EXPECT_EQ(found[0].jaxErrorFirstLine, "Resource estimation does not support remat2");
  // A table in which remat2 has a resource estimator (as a future JAX might):
  // no finding. The decision is the table's.
  ProjectOptions options;
  options.knowledgePath = editedTable(
      dir_, [](nlohmann::json& t) { t["mosaicGpuResourceEstimators"].push_back("remat2"); });
  EXPECT_TRUE(check(kCheckpointCompiled, options).empty());
}

TEST_F(Discharge, PlgpuLoadUnderGpuInterpretIsABareAssertion) {
  const char* kernel = R"(
def kernel(x_ref, o_ref):
  o_ref[...] = plgpu.load(x_ref, ()) * 2.0

def run(x):
  return plgpu.kernel(kernel, out_shape=x, interpret=InterpretGPUParams())(x)
)";
  auto found = check(kernel);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(line(found[0]), 3u);
  EXPECT_EQ(found[0].jaxException, "AssertionError");
  EXPECT_EQ(found[0].jaxErrorFirstLine, "");
  EXPECT_NE(found[0].message.find("will raise AssertionError ("), std::string::npos)
      << found[0].message;
  // The table's older fact (missing CPU lowering) gives the old prediction.
  ProjectOptions options;
  options.knowledgePath = editedTable(dir_, [](nlohmann::json& t) {
    t["primitives"]["load"]["gpuInterpret"]["fallbackOutcome"] = "missing-lowering";
  });
  auto old = check(kernel, options);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].jaxException, "NotImplementedError");
}

// A failure the program catches (try/except around the call running the
// launch) is handled: a warning naming the except clause. A handler that
// raises again, or one for another exception, leaves it an error.
TEST_F(Discharge, ALaunchFailureTheProgramCatchesIsAWarning) {
  const char* source = R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    return None
  region(x_ref)

def run(x):
  k = pl.pallas_call(kernel, out_shape=x, interpret=True)
  try:
    return k(x)
  except %s:
    %s
)";
  auto with = [&](const char* handler, const char* body) {
    char text[1024];
    std::snprintf(text, sizeof text, source, handler, body);
    return check(text);
  };
  auto caught = with("NotImplementedError", "return x");
  ASSERT_EQ(caught.size(), 1u);
  EXPECT_EQ(caught[0].severity, Severity::Warning);
  EXPECT_NE(caught[0].message.find("The `except` at line"), std::string::npos) << caught[0].message;
  auto broad = with("Exception", "return x");
  ASSERT_EQ(broad.size(), 1u);
  EXPECT_EQ(broad[0].severity, Severity::Warning);
  auto other = with("ValueError", "return x");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].severity, Severity::Error);
  auto reraised = with("NotImplementedError", "raise");
  ASSERT_EQ(reraised.size(), 1u);
  EXPECT_EQ(reraised[0].severity, Severity::Error);
}

// A program (`if __name__ == "__main__":`) that never calls a launch one of
// its functions builds: JAX raises only if something else calls it.
TEST_F(Discharge, ALaunchTheProgramNeverCallsIsAMay) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    return None
  region(x_ref)

def warm(x):
  pl.pallas_call(kernel, out_shape=x, interpret=True)

def main():
  x = jnp.ones((8,))
  return x

if __name__ == "__main__":
  main()
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Warning);
  EXPECT_NE(fs[0].message.find("never calls this launch"), std::string::npos) << fs[0].message;
  // Called by the program: certain.
  auto called = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    return None
  region(x_ref)

def main():
  x = jnp.ones((8,))
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)

if __name__ == "__main__":
  main()
)");
  ASSERT_EQ(called.size(), 1u);
  EXPECT_EQ(called[0].severity, Severity::Error);
}

// lax.cond in a kernel: both branches are traced with the operands after the
// two branch functions, so a Ref given as an operand reaches the region.
TEST_F(Discharge, LaxCondPassesItsOperandsToBothBranches) {
  auto fs = check(R"(
def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    return None

  def use(ref):
    region(ref)

  def skip(ref):
    pass

  jax.lax.cond(x_ref[0] > 0, use, skip, o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "PLS001");
  EXPECT_EQ(line(fs[0]), 8u);
}
