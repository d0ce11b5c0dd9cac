// Findings kept across edits (LaunchCache.h: PLS001/PLS002 path findings,
// PLS004, PLS005-PLS009 per launch) are the findings a fresh analysis of the
// same text gives: one document is edited many ways through
// Project::editDocument (typing in one kernel, a shared helper, a caller's
// interpret= argument, lines inserted and removed above launches, a launch
// deleted and restored, a module-level constant) and after every edit each
// finding, with every field, is compared with a Project that never saw the
// document before.
#include "pallas/analysis/Project.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

// Kernels reaching inline_mgpu helpers: one under interpret=True (PLS001),
// one whose interpret= comes from its callers (True in one, a run-time value
// in another), one compiled; a helper whose region declares one argument
// and gets two (PLS004), reached from two launches; a pipelined launch over
// the SMEM limit (PLS005); a module-level constant the kernels read.
const char* kSource = R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

SCALE = 2.0


def fence(ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(ref)


def mismatched(ref, other):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, a, b):
    del ctx, a, b

  region(ref, other)


def kernel_0(x_ref, o_ref):
  o_ref[...] = x_ref[...] * SCALE
  fence(o_ref)


def launch_0(x):
  return pl.pallas_call(
      kernel_0,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=True,
  )(x)


def kernel_1(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0
  fence(o_ref)
  mismatched(x_ref, o_ref)


def launch_1(x, interpret):
  return pl.pallas_call(
      kernel_1,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=interpret,
  )(x)


def run_1(x):
  return launch_1(x, interpret=True)


def run_1_later(x, flag):
  return launch_1(x, interpret=flag)


def kernel_2(x_ref, o_ref):
  mismatched(x_ref, o_ref)
  o_ref[...] = x_ref[...]


def launch_2(x):
  return pl.pallas_call(
      kernel_2,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=False,
  )(x)


def kernel_4(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


KERNEL_4 = kernel_4


def launch_4(x):
  return pl.pallas_call(
      KERNEL_4,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=True,
  )(x)


def kernel_3(a_ref, b_ref, o_ref, acc_ref):
  acc_ref[...] += jnp.dot(a_ref[...], b_ref[...])
  o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def launch_3(a, b):
  return pl.pallas_call(
      kernel_3,
      grid=(8, 4, 64),
      in_specs=[pl.BlockSpec((128, 64), lambda i, j, k: (i, k)),
                pl.BlockSpec((64, 256), lambda i, j, k: (k, j))],
      out_specs=pl.BlockSpec((128, 256), lambda i, j, k: (i, j)),
      out_shape=jax.ShapeDtypeStruct((1024, 1024), a.dtype),
      scratch_shapes=[plgpu.SMEM((128, 256), jnp.float32)],
      compiler_params=plgpu.CompilerParams(max_concurrent_steps=4),
  )(a, b)


def run_3():
  return launch_3(jnp.ones((1024, 4096), jnp.float16), jnp.ones((4096, 1024), jnp.float16))
)";

std::string where(const SourceLocation& l) {
  return l.path + ":" + std::to_string(l.range.start.line) + ":" +
         std::to_string(l.range.start.column) + "-" + std::to_string(l.range.end.line) + ":" +
         std::to_string(l.range.end.column);
}

// Every field of a finding, one line each.
std::string describe(const Finding& f) {
  std::string s = f.code + " " + severityName(f.severity) + " " + where(f.location) + "\n  " +
                  f.message + "\n  subject: " + f.subject +
                  "\n  selected at: " + (f.selectedAt ? where(*f.selectedAt) : "-") +
                  "\n  path: " + f.executionPath +
                  "\n  launch: " + (f.launch ? where(*f.launch) : "-") +
                  "\n  jax: " + f.jaxVersion + " " + f.jaxException + " " + f.jaxErrorFirstLine +
                  "\n  gpu interpret runs it: " + (f.gpuInterpretRunsLaunch ? "yes" : "no");
  for (const RelatedInfo& r : f.related)
    s += "\n  related " + where(r.location) + " " + r.message;
  for (const std::string& hop : f.callChain)
    s += "\n  via " + hop;
  return s;
}

std::vector<std::string> describeAll(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs)
    out.push_back(describe(f));
  return out;
}

class EditReuse : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-edit-reuse-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "kernels.py").string();
    ProjectOptions options;
    options.debugLog = [this](const std::string& line) {
      static const std::regex counts(
          "launch checks of .*: (\\d+) evaluated, (\\d+) reused, (\\d+) adopted");
      if (std::smatch m; std::regex_search(line, m, counts)) {
        evaluated_ = std::stol(m[1]);
        reused_ = std::stol(m[2]);
        adopted_ = std::stol(m[3]);
      }
    };
    project_ = std::make_unique<Project>(std::move(options));
    text_ = kSource;
    project_->setDocument(path_, text_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Replaces the first occurrence of `from` (after `after`, when given) with
  // `to` as an editor would (one byte edit), then compares the findings.
  void edit(const std::string& from, const std::string& to, const std::string& after = "") {
    size_t start = after.empty() ? 0 : text_.find(after);
    ASSERT_NE(start, std::string::npos) << after;
    size_t at = text_.find(from, start);
    ASSERT_NE(at, std::string::npos) << from;
    ByteEdit e{at, at + from.size(), to};
    text_.replace(at, from.size(), to);
    project_->editDocument(path_, {e});
    ASSERT_EQ(project_->documentText(path_), text_);
    expectSameAsFresh(from + " -> " + to);
  }
  void expectSameAsFresh(const std::string& what) {
    std::vector<Finding> kept = project_->findings(path_);
    Project fresh{ProjectOptions{}};
    fresh.setDocument(path_, text_);
    std::vector<Finding> expected = fresh.findings(path_);
    EXPECT_EQ(describeAll(kept), describeAll(expected)) << "after " << what;
    last_ = kept;
  }
  size_t count(const std::string& code) const {
    size_t n = 0;
    for (const Finding& f : last_)
      n += f.code == code;
    return n;
  }

  fs::path dir_;
  std::string path_, text_;
  std::unique_ptr<Project> project_;
  std::vector<Finding> last_;
  long evaluated_ = -1, reused_ = -1, adopted_ = -1;
};

TEST_F(EditReuse, FindingsAfterEveryKindOfEditEqualAFreshAnalysis) {
  expectSameAsFresh("open");
  // What the module holds, so a change below is seen to change something.
  ASSERT_GT(count("PLS001"), 0u);
  ASSERT_GT(count("PLS004"), 0u);
  ASSERT_GT(count("PLS005"), 0u);
  const long all = evaluated_;
  ASSERT_GT(all, 0);

  // Typing in one kernel and deleting it again: that launch only.
  edit("x_ref[...] + 1.0", "x_ref[...] + 1.05");
  EXPECT_GT(reused_, 0);
  EXPECT_LT(evaluated_, all);
  edit("x_ref[...] + 1.05", "x_ref[...] + 1.0");

  // The helper two kernels share (launches 0 and 1).
  edit("del ctx, r", "del ctx, r  # fenced");
  edit("del ctx, r  # fenced", "del ctx, r");
  // The callers that choose launch 1's path.
  edit("launch_1(x, interpret=True)", "launch_1(x, interpret=False)");
  edit("launch_1(x, interpret=False)", "launch_1(x, interpret=True)");
  edit("return launch_1(x, interpret=flag)", "return None", "def run_1_later");
  edit("return None", "return launch_1(x, interpret=flag)", "def run_1_later");
  // The PLS004 helper's region takes one argument now, then two again.
  edit("def region(ctx, a, b):\n    del ctx, a, b", "def region(ctx, a):\n    del ctx, a");
  edit("def region(ctx, a):\n    del ctx, a", "def region(ctx, a, b):\n    del ctx, a, b");
  // Launch 2, first to reach the PLS004 call once launch 1 is gone.
  edit("      kernel_1,\n", "      kernel_2,\n");
  edit("      kernel_2,\n", "      kernel_1,\n", "def launch_1");
  // Lines inserted and removed above every launch: every place moves.
  edit("SCALE = 2.0\n", "SCALE = 2.0\n\n\n# spacer\n");
  edit("\n\n# spacer\n", "");
  // A module-level constant the budget reads.
  edit("max_concurrent_steps=4", "max_concurrent_steps=1");
  edit("max_concurrent_steps=1", "max_concurrent_steps=4");
  // A launch's interpret= itself.
  edit("interpret=True,\n  )(x)", "interpret=False,\n  )(x)");
  edit("interpret=False,\n  )(x)", "interpret=True,\n  )(x)", "def launch_0");
  // A launch deleted (its kernel stays) and written again.
  edit("def launch_0(x):", "def unused_0(x):");
  edit("def unused_0(x):", "def launch_0(x):");
  // A kernel a launch reaches only through a module-level name.
  edit("  o_ref[...] = x_ref[...]\n  fence(o_ref)\n", "  o_ref[...] = x_ref[...]\n",
       "def kernel_4");
  edit("  o_ref[...] = x_ref[...]\n", "  o_ref[...] = x_ref[...]\n  fence(o_ref)\n",
       "def kernel_4");
  // Half a statement (the parse recovers) and back.
  edit("fence(o_ref)\n  mismatched", "fence(o_ref\n  mismatched");
  edit("fence(o_ref\n  mismatched", "fence(o_ref)\n  mismatched");
  EXPECT_EQ(text_, kSource); // back where it started
}

// The server's first diagnostics of a document come from a run that keeps
// no launch results (LaunchResults::Skip); a Keep run records them after.
TEST_F(EditReuse, AKernelPassedToALaunchHelperFollowsEditsOfTheKernelAndTheCaller) {
  // The launch's body is a parameter: its kept result depends on the
  // caller's statement and the kernel it names, which the launch's own
  // function does not reach by name.
  text_ = R"py(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref


def fenced_copy(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


def plain_copy(x_ref, o_ref):
  o_ref[...] = x_ref[...]


def launch(x, body):
  return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def run():
  return launch(jnp.ones((128,), jnp.float32), fenced_copy)
)py";
  project_->setDocument(path_, text_);
  expectSameAsFresh("open");
  ASSERT_EQ(count("PLS001"), 1u);
  edit("  fence(o_ref)\n", "  pass\n"); // the kernel no longer fences
  EXPECT_EQ(count("PLS001"), 0u);
  edit("  pass\n", "  fence(o_ref)\n");
  EXPECT_EQ(count("PLS001"), 1u);
  edit("fenced_copy)", "plain_copy)", "def run"); // the caller passes another kernel
  EXPECT_EQ(count("PLS001"), 0u);
}

TEST_F(EditReuse, ACallOfAForwardingFunctionFollowsEditsOfItsBody) {
  // `call_kernel(...)` is the launch written at the call (8.47): an edit of
  // the forwarding def (the keyword its body adds to **kwargs, 8.42) must
  // reach the caller's launch, which names the def only by its call.
  text_ = R"py(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


def call_kernel(*args, **kwargs):
  kwargs.setdefault("interpret", True)
  return pl.pallas_call(*args, **kwargs)


def run():
  x = jnp.ones((128,), jnp.float32)
  return call_kernel(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
)py";
  project_->setDocument(path_, text_);
  expectSameAsFresh("open");
  ASSERT_EQ(count("PLS001"), 1u);
  edit("\"interpret\", True)", "\"interpret\", False)"); // the wrapper's default: compiled
  EXPECT_EQ(count("PLS001"), 0u);
  edit("\"interpret\", False)", "\"interpret\", True)");
  EXPECT_EQ(count("PLS001"), 1u);
  edit("return pl.pallas_call(*args, **kwargs)", "return pl.pallas_call(*args)"); // no forward
  EXPECT_EQ(count("PLS001"), 0u);
}

TEST_F(EditReuse, AFirstRunKeepingNoLaunchResultsGivesTheSameFindings) {
  auto skipped = project_->findingsUnlessStopped(path_, nullptr, Project::LaunchResults::Skip);
  ASSERT_TRUE(skipped);
  const long all = evaluated_;
  EXPECT_GT(all, 0);
  EXPECT_EQ(reused_, 0) << "a Skip run reads no launch results";
  auto kept = project_->findingsUnlessStopped(path_, nullptr, Project::LaunchResults::Keep);
  ASSERT_TRUE(kept);
  EXPECT_EQ(describeAll(*skipped), describeAll(*kept));
  // Nothing changed between the two runs: the Keep run keys and adopts what
  // the Skip run computed instead of evaluating any launch again.
  EXPECT_EQ(evaluated_, 0);
  EXPECT_EQ(reused_, 0);
  EXPECT_EQ(adopted_, all);
  // What the Keep run kept is what the next edit reuses.
  edit("x_ref[...] + 1.0", "x_ref[...] + 1.05");
  EXPECT_GT(reused_, 0);
}

TEST_F(EditReuse, AnEditAfterTheFirstRunMakesItsResultsUnadoptable) {
  auto skipped = project_->findingsUnlessStopped(path_, nullptr, Project::LaunchResults::Skip);
  ASSERT_TRUE(skipped);
  const long all = evaluated_;
  // An edit before the Keep run (a user typing at once): the Skip run's
  // results were computed for other inputs and none is adopted, the edited
  // launch's above all; the findings are a fresh analysis's (edit()).
  edit("x_ref[...] + 1.0", "x_ref[...] + 1.05");
  EXPECT_EQ(adopted_, 0);
  EXPECT_EQ(evaluated_, all);
}

// A launch's kept results were found by a hash of the check's kind, line,
// column and api that collided for small integers: the SMEM budget of a
// launch at line 10 and the Mosaic rule candidates of one at line 4099 (same
// column and api) shared a key, and the path matrix after a Skip run
// adopted the other launch's candidates as its budget. The cache now
// compares the whole key (LaunchCache::SlotId).
TEST(LaunchCacheKeys, LaunchesWhoseOldKeysCollidedKeepTheirOwnResults) {
  auto launch = [](int scratch) {
    return "  return pl.pallas_call(\n"
           "      kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),\n"
           "      scratch_shapes=[plgpu.SMEM((" +
           std::to_string(scratch) +
           ",), jnp.float32)],\n"
           "      compiler_params=plgpu.CompilerParams())(x)\n";
  };
  std::string text =
      "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
      "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
      "def kernel(x_ref, o_ref, s_ref):\n  o_ref[...] = x_ref[...]\n"
      "\n\ndef first(x):\n"; // line 9: the launch is on line 10, column 10
  text += launch(256);
  size_t lines = std::count(text.begin(), text.end(), '\n');
  for (; lines < 4097; ++lines)
    text += "\n";
  text += "def second(x):\n"; // line 4098: the launch on line 4099, column 10
  text += launch(1024);
  const std::string path = "/reuse/collide.py";
  Project project;
  project.setDocument(path, text);
  ASSERT_TRUE(project.findingsUnlessStopped(path, nullptr, Project::LaunchResults::Skip));
  std::vector<LaunchPaths> after = project.launchPaths(path);
  Project fresh;
  fresh.setDocument(path, text);
  std::vector<LaunchPaths> expected = fresh.launchPaths(path);
  ASSERT_EQ(after.size(), 2u);
  ASSERT_EQ(expected.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(expected[i].smem) << i;
    ASSERT_TRUE(after[i].smem) << i;
    EXPECT_EQ(after[i].smem->total, expected[i].smem->total) << i;
    EXPECT_EQ(after[i].smem->summary, expected[i].smem->summary) << i;
  }
  EXPECT_EQ(after[0].launch.range.start.line, 9u); // 0-based: line 10
  EXPECT_EQ(after[1].launch.range.start.line, 4098u);
}

} // namespace
