// Value flow through JAX's higher-order functions (docs/analysis.md 8.23):
// transforms applied to a launching function and then called, lax.cond /
// lax.switch branches given the operands, containers of kernels filled by
// module statements and decorators. Each test is one small module analysed
// through the Project facade; the oracle fixtures flow_hof_* run the same
// constructs with real JAX.
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <gtest/gtest.h>
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


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref

)";
constexpr unsigned kHeaderLines = 11;

class HigherOrderFlow : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-hof-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The PLS001/PLS002 findings of `body` (after the header) as k.py.
  std::vector<Finding> check(const std::string& body) {
    project_ = std::make_unique<Project>();
    std::string path = (dir_ / "k.py").string();
    project_->setDocument(path, kHeader + body);
    std::vector<Finding> out;
    for (Finding& f : project_->findings(path))
      if (f.code == "PLS001" || f.code == "PLS002")
        out.push_back(std::move(f));
    return out;
  }
  // 1-based, counting from the first line of the body.
  static unsigned line(const Finding& f) { return f.location.range.start.line + 1 - kHeaderLines; }

  fs::path dir_;
  std::unique_ptr<Project> project_;
};

const char* kLaunching = R"(
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)

def add(x, interpret=False):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)
)";

TEST_F(HigherOrderFlow, VmapOfAPartialPassesItsKeywordsToTheLaunchingFunction) {
  auto fs = check(std::string(kLaunching) + R"(
def run(xs):
  return jax.vmap(functools.partial(add, interpret=True))(xs)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[0]), 4u);
  EXPECT_NE(fs[0].message.find("does not support discharge"), std::string::npos) << fs[0].message;
}

TEST_F(HigherOrderFlow, TransformsAndPartialsStackAndPassPositionalArguments) {
  // jit of checkpoint of a partial; the flag passed positionally by the call.
  auto fs = check(std::string(kLaunching) + R"(
def run(x):
  f = jax.jit(jax.checkpoint(functools.partial(add)), static_argnums=1)
  return f(x, True)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
}

TEST_F(HigherOrderFlow, ATransformedFunctionHeldInAModuleLevelName) {
  auto fs = check(std::string(kLaunching) + R"(
ADD_INTERPRETED = functools.partial(add, interpret=True)

def run(xs):
  return jax.vmap(ADD_INTERPRETED)(xs), ADD_INTERPRETED(xs[0])
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[0]), 4u);
}

TEST_F(HigherOrderFlow, APartialBindingFalseUnderVmapStaysCompiled) {
  auto fs = check(std::string(kLaunching) + R"(
def run(xs):
  return jax.vmap(functools.partial(add, interpret=False))(xs)
)");
  EXPECT_TRUE(fs.empty());
}

TEST_F(HigherOrderFlow, GradOfAPartialIsNotACallOfTheLaunchingFunction) {
  // jax.grad traces the kernel's JVP, which JAX 0.10.2 rejects first
  // ("Differentiation rule for 'inline_mgpu_p' not implemented"): not the
  // interpret path's error, so the partial's keyword is not its argument.
  auto fs = check(std::string(kLaunching) + R"(
def run(x):
  return jax.grad(functools.partial(add, interpret=True))(x)
)");
  EXPECT_TRUE(fs.empty());
}

const char* kBranches = R"(
def plain(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def fenced(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)
)";

TEST_F(HigherOrderFlow, CondBranchesReceiveTheKernelsRefs) {
  auto fs = check(std::string(kBranches) + R"(
def kernel(x_ref, o_ref):
  jax.lax.cond(x_ref[0] > 0.0, plain, fenced, x_ref, o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(line(fs[0]), 7u);
  // The branch's o_ref is the kernel's output Ref, which interpret=True
  // discharges: JAX's message is "does not support discharge", not the
  // XLA translation error of a region given no Ref.
  EXPECT_NE(fs[0].message.find("inline_mgpu_p does not support discharge"), std::string::npos)
      << fs[0].message;
  EXPECT_EQ(fs[0].message.find("takes no Ref"), std::string::npos) << fs[0].message;
}

TEST_F(HigherOrderFlow, SwitchTracesEveryBranchOfAModuleLevelTuple) {
  auto fs = check(std::string(kBranches) + R"(
BRANCHES = (plain, fenced)

def kernel(x_ref, o_ref):
  jax.lax.switch(0, BRANCHES, x_ref, o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[0]), 7u);
}

TEST_F(HigherOrderFlow, SwitchOverALocalListWithoutAFencedBranchIsClean) {
  auto fs = check(std::string(kBranches) + R"(
def kernel(x_ref, o_ref):
  branches = [plain, lambda a, o: plain(a, o)]
  jax.lax.switch(1, branches, x_ref, o_ref)

def run(x):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  EXPECT_TRUE(fs.empty());
}

const char* kRegistry = R"(
KERNELS = {}

def register(name):
  def deco(fn):
    KERNELS[name] = fn
    return fn
  return deco

@register("plain")
def plain(x_ref, o_ref):
  o_ref[...] = x_ref[...]

@register("fenced")
def fenced(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)
)";

TEST_F(HigherOrderFlow, ARegistryFilledByADecoratorFactoryFindsTheKeysKernel) {
  auto fs = check(std::string(kRegistry) + R"(
def run(x):
  return pl.pallas_call(KERNELS["fenced"], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  EXPECT_EQ(line(fs[0]), 17u);
  fs = check(std::string(kRegistry) + R"(
def run(x):
  return pl.pallas_call(KERNELS['plain'], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  EXPECT_TRUE(fs.empty());
  // A key held in a module constant.
  fs = check(std::string(kRegistry) + R"(
KEY = "plain"

def run(x):
  return pl.pallas_call(KERNELS[KEY], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  EXPECT_TRUE(fs.empty());
}

TEST_F(HigherOrderFlow, ARegistrationWhenAFunctionRunsIsFollowedInOrder) {
  // run() calls setup() before the launch, which puts plain under "fenced":
  // the launch runs plain, as Python runs it.
  auto fs = check(std::string(kRegistry) + R"(
def setup():
  register("fenced")(plain)

def run(x):
  setup()
  return pl.pallas_call(KERNELS["fenced"], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)");
  EXPECT_TRUE(fs.empty());
  // Registered after the launch: the fenced kernel runs.
  fs = check(std::string(kRegistry) + R"(
def setup():
  register("fenced")(plain)

def run(x):
  out = pl.pallas_call(KERNELS["fenced"], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
  setup()
  return out
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
}

TEST_F(HigherOrderFlow, AKeyThroughAParameterIsWhatTheCallersAgreeOn) {
  const std::string launch = std::string(kRegistry) + R"(
def launch(name, x):
  return pl.pallas_call(KERNELS[name], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)";
  auto fs = check(launch + R"(
def run(x):
  return launch("fenced", x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  // Callers that disagree: the call that passes "fenced" certainly fails.
  fs = check(launch + R"(
def run(x):
  return launch("fenced", x), launch("plain", x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  // A key known only at run time: any registered kernel may run, a warning.
  fs = check(launch + R"(
def run(x, which):
  return launch(which, x)
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Warning);
}

const char* kStatements = R"(
def plain(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def fenced(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)

def run(x):
  return pl.pallas_call(KERNELS["k"], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)";

TEST_F(HigherOrderFlow, ModuleLevelItemAssignmentsApplyInOrder) {
  auto fs = check(std::string(kStatements) + R"(
KERNELS = {"k": plain}
KERNELS["k"] = fenced
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  fs = check(std::string(kStatements) + R"(
KERNELS = {"k": fenced}
KERNELS["k"] = plain
)");
  EXPECT_TRUE(fs.empty());
}

TEST_F(HigherOrderFlow, ItemStoresAreFollowedWhereTheyRun) {
  // Each entry point is judged in the state the module leaves after import:
  // `swap()`, which nothing in the workspace calls, does not run before
  // run() (docs/analysis.md §8, known gaps).
  auto fs = check(std::string(kStatements) + R"(
KERNELS = {"k": fenced}

def swap():
  KERNELS["k"] = plain
)");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::Error);
  // A change in place: dict.update with keywords.
  fs = check(std::string(kStatements) + R"(
KERNELS = {"k": fenced}
KERNELS.update(k=plain)
)");
  EXPECT_TRUE(fs.empty());
  // Called before the launch: followed.
  fs = check(std::string(kStatements) + R"(
KERNELS = {"k": fenced}

def swap():
  KERNELS["k"] = plain

swap()
)");
  EXPECT_TRUE(fs.empty());
}

} // namespace
