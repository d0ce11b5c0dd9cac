// The per-launch cache of the resource and lowering checks (PLS005-PLS009,
// analysis/passes/LaunchCache.h) through the Project facade: an edit in one
// kernel evaluates only that kernel's launch again, an edit in a helper two
// kernels call evaluates both, and what is reused equals what a fresh
// Project computes. The counts come from the Project's debug log line
// "pallas: launch checks of PATH: N evaluated, M reused".
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

// Two pipelined matmuls over the SMEM limit (PLS005 each); each kernel has
// its own helper and both call `finish`.
std::string source(const std::string& scale0, const std::string& scale1, const std::string& finish,
                   const std::string& stages1 = "stages") {
  std::string s = R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

M, N, K = 1024, 1024, 4096
BLOCK_M, BLOCK_N, BLOCK_K = 128, 256, 64
STAGES = 4


def finish(acc):
  return jnp.maximum(acc, )" +
                  finish +
                  R"()
)";
  for (int i = 0; i < 2; ++i) {
    std::string n = std::to_string(i);
    s += R"(

def scale_)" +
         n +
         R"((x):
  return x * )" +
         (i == 0 ? scale0 : scale1) + R"(


def kernel_)" +
         n +
         R"((a_ref, b_ref, o_ref, acc_ref):
  acc_ref[...] += scale_)" +
         n + R"((acc_ref[...])
  o_ref[...] = finish(acc_ref[...]).astype(o_ref.dtype)


def matmul_)" +
         n +
         R"((a, b, stages=STAGES):
  return pl.pallas_call(
      kernel_)" +
         n + R"(,
      grid=(M // BLOCK_M, N // BLOCK_N, K // BLOCK_K),
      in_specs=[pl.BlockSpec((BLOCK_M, BLOCK_K), lambda i, j, k: (i, k)),
                pl.BlockSpec((BLOCK_K, BLOCK_N), lambda i, j, k: (k, j))],
      out_specs=pl.BlockSpec((BLOCK_M, BLOCK_N), lambda i, j, k: (i, j)),
      out_shape=jax.ShapeDtypeStruct((M, N), a.dtype),
      scratch_shapes=[plgpu.SMEM((BLOCK_M, BLOCK_N), jnp.float32)],
      compiler_params=plgpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "sequential"),
          max_concurrent_steps=)" +
         (i == 1 ? stages1 : std::string("stages")) + R"()),
  )(a, b)


def run_)" +
         n +
         R"(():
  a = jnp.ones((M, K), jnp.float16)
  return matmul_)" +
         n + R"((a, jnp.ones((K, N), jnp.float16))
)";
  }
  return s;
}

struct Counts {
  long evaluated = -1, reused = -1;
};

class LaunchCache : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-launch-cache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "k.py").string();
    ProjectOptions options;
    options.debugLog = [this](const std::string& line) { log_.push_back(line); };
    project_ = std::make_unique<Project>(std::move(options));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Findings of `text` (set as the document's new text), and the counts of
  // that run.
  std::vector<Finding> findings(const std::string& text, Counts& counts) {
    project_->setDocument(path_, text);
    log_.clear();
    std::vector<Finding> out = project_->findings(path_);
    static const std::regex line("launch checks of .*: (\\d+) evaluated, (\\d+) reused");
    for (const std::string& l : log_)
      if (std::smatch m; std::regex_search(l, m, line)) {
        counts.evaluated = std::stol(m[1]);
        counts.reused = std::stol(m[2]);
      }
    return out;
  }
  // What a Project that never saw the document says.
  std::vector<Finding> fresh(const std::string& text) {
    Project p{ProjectOptions{}};
    p.setDocument(path_, text);
    return p.findings(path_);
  }
  static std::vector<std::string> texts(const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const Finding& f : fs)
      out.push_back(f.code + " " + std::to_string(f.location.range.start.line) + " " + f.message);
    return out;
  }
  static size_t count(const std::vector<Finding>& fs, const std::string& code) {
    size_t n = 0;
    for (const Finding& f : fs)
      n += f.code == code;
    return n;
  }

  fs::path dir_;
  std::string path_;
  std::vector<std::string> log_;
  std::unique_ptr<Project> project_;
};

TEST_F(LaunchCache, AnEditInOneKernelEvaluatesOnlyItsLaunch) {
  Counts first, edited;
  std::string before = source("2.0", "3.0", "0.0");
  std::vector<Finding> a = findings(before, first);
  ASSERT_EQ(count(a, "PLS005"), 2u);
  ASSERT_GT(first.evaluated, 0);
  EXPECT_EQ(first.reused, 0);
  EXPECT_EQ(first.evaluated % 2, 0); // the same checks for both launches

  std::string after = source("2.5", "3.0", "0.0"); // kernel 0's helper only
  std::vector<Finding> b = findings(after, edited);
  EXPECT_EQ(edited.evaluated, first.evaluated / 2);
  EXPECT_EQ(edited.reused, first.evaluated / 2);
  EXPECT_EQ(texts(b), texts(fresh(after)));
}

TEST_F(LaunchCache, AnEditInASharedHelperEvaluatesEveryLaunchThatCallsIt) {
  Counts first, edited;
  findings(source("2.0", "3.0", "0.0"), first);
  ASSERT_GT(first.evaluated, 0);
  std::string after = source("2.0", "3.0", "1.0");
  std::vector<Finding> b = findings(after, edited);
  EXPECT_EQ(edited.evaluated, first.evaluated);
  EXPECT_EQ(edited.reused, 0);
  EXPECT_EQ(texts(b), texts(fresh(after)));
}

// A change of what the budget reads (the stages of launch 1) reaches the
// finding; launch 0's is reused; unchanged text reuses both.
TEST_F(LaunchCache, ReusedFindingsFollowTheCodeTheyRead) {
  Counts first, edited, again;
  findings(source("2.0", "3.0", "0.0"), first);
  std::string after = source("2.0", "3.0", "0.0", "1");
  std::vector<Finding> b = findings(after, edited);
  EXPECT_EQ(count(b, "PLS005"), 1u); // one stage fits
  EXPECT_EQ(edited.reused, first.evaluated / 2);
  EXPECT_EQ(texts(b), texts(fresh(after)));
  // Lines inserted above move every launch: evaluated again, at their new lines.
  std::string moved = "\n\n" + after;
  std::vector<Finding> c = findings(moved, again);
  EXPECT_EQ(again.reused, 0);
  EXPECT_EQ(texts(c), texts(fresh(moved)));
}

} // namespace
