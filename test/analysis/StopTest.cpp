// Cooperative cancellation inside the analysis: Project::findingsUnlessStopped
// asks its stop callback between passes and between launches, ends early
// when it says so, returns nothing partial and keeps nothing partial.
#include "pallas/analysis/Project.h"

#include <gtest/gtest.h>
#include <string>

using namespace pallas::analysis;

namespace {

// `n` launches under interpret=True, each reading a plgpu.ACC accumulator
// (wgmma_accumulator_deref_p, which interpret=True cannot discharge).
std::string kernels(int n) {
  std::string s = R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
)";
  for (int i = 0; i < n; ++i) {
    std::string k = std::to_string(i);
    s += "\n\ndef kernel" + k + R"((x_ref, o_ref):
  def scope(acc_ref):
    return acc_ref[...]
  o_ref[...] = x_ref[...] + pl.run_scoped(scope, plgpu.ACC((64, 64), jnp.float32))


def run)" +
         k + R"(():
  x = jnp.ones((64, 64), jnp.float32)
  return pl.pallas_call(kernel)" +
         k + R"(, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
)";
  }
  return s;
}

const std::string kPath = "/virtual/stop.py";

TEST(Stop, NeverStoppedGivesTheFindings) {
  Project p;
  p.setDocument(kPath, kernels(3));
  std::vector<Finding> all = p.findings(kPath);
  ASSERT_EQ(all.size(), 3u);
  Project q;
  q.setDocument(kPath, kernels(3));
  unsigned asked = 0;
  auto out = q.findingsUnlessStopped(kPath, [&] {
    ++asked;
    return false;
  });
  ASSERT_TRUE(out);
  EXPECT_EQ(out->size(), all.size());
  // Asked before every pass and before each of the three launches.
  EXPECT_GT(asked, 3u);
}

TEST(Stop, StoppedBeforeTheEndReturnsNothingAndKeepsNothing) {
  Project p;
  p.setDocument(kPath, kernels(3));
  unsigned asked = 0, asksInFullRun = 0;
  {
    Project q;
    q.setDocument(kPath, kernels(3));
    (void)q.findingsUnlessStopped(kPath, [&] { return ++asksInFullRun, false; });
  }
  // Stop half way through: after half of the asks a full run makes.
  auto out = p.findingsUnlessStopped(kPath, [&] { return ++asked > asksInFullRun / 2; });
  EXPECT_FALSE(out);
  EXPECT_LT(asked, asksInFullRun); // it ended early
  // Nothing partial was cached: the next run has every finding.
  EXPECT_EQ(p.findings(kPath).size(), 3u);
}

TEST(Stop, StoppedAtOnceRunsNoLaunch) {
  Project p;
  p.setDocument(kPath, kernels(3));
  unsigned asked = 0;
  auto out = p.findingsUnlessStopped(kPath, [&] { return ++asked, true; });
  EXPECT_FALSE(out);
  EXPECT_EQ(p.findings(kPath).size(), 3u);
}

} // namespace
