// KnowledgeService (the one loader), the typed hardware facts and
// explain(primitive, path), against the real bundled table.
#include "pallas/knowledge/KnowledgeService.h"

#include "pallas/knowledge/HardwareFacts.h"
#include "pallas/knowledge/PathFacts.h"

#include <gtest/gtest.h>

using namespace pallas::knowledge;

namespace {

const KnowledgeBase& bundled() {
  auto kb = KnowledgeService::shared().table();
  EXPECT_NE(kb, nullptr);
  return *kb;
}

TEST(KnowledgeService, LoadsEachTableOnceAndFallsBackToTheBundledOne) {
  auto a = KnowledgeService::shared().table();
  auto b = KnowledgeService::shared().table("");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a.get(), b.get()) << "one table per path per process";
  auto missing = KnowledgeService::shared().table("/nonexistent/knowledge.json");
  EXPECT_EQ(missing.get(), a.get()) << "a table that does not load: the bundled one answers";
  EXPECT_EQ(KnowledgeService::shared().jaxVersion("/nonexistent/knowledge.json"), a->jaxVersion());
  auto configured = KnowledgeService::shared().table(KnowledgeBase::bundledPath());
  ASSERT_NE(configured, nullptr);
  EXPECT_EQ(configured->jaxVersion(), a->jaxVersion());
}

TEST(HardwareFacts, ParsesCapabilities) {
  EXPECT_EQ(ComputeCapability::parse("9.0"), (ComputeCapability{9, 0}));
  EXPECT_EQ(ComputeCapability::parse(" 10 "), (ComputeCapability{10, 0}));
  EXPECT_FALSE(ComputeCapability::parse("sm_90"));
  EXPECT_FALSE(ComputeCapability::parse("9."));
  EXPECT_FALSE(ComputeCapability::parse(""));
}

TEST(HardwareFacts, TheTableGatesTcgen05AndWgmmaByGeneration) {
  const PrimitiveFacts* tc = bundled().primitive("tcgen05_mma");
  ASSERT_TRUE(tc && tc->hardware);
  EXPECT_TRUE(tc->hardware->allows({10, 0}));
  EXPECT_TRUE(tc->hardware->allows({11, 0}));
  EXPECT_FALSE(tc->hardware->allows({9, 0}));
  EXPECT_FALSE(tc->hardware->allows({12, 0})) << "GeForce Blackwell has no tcgen05";
  EXPECT_EQ(tc->hardware->constraint(), "10.x or 11.x");
  EXPECT_EQ(tc->hardware->gate, "skip_unless_tcgen05");
  EXPECT_NE(tc->hardware->needs().find("(compute capability 10.x or 11.x)"), std::string::npos);
  const PrimitiveFacts* wg = bundled().primitive("wgmma");
  ASSERT_TRUE(wg && wg->hardware);
  EXPECT_TRUE(wg->hardware->allows({9, 0}));
  EXPECT_FALSE(wg->hardware->allows({10, 0}));
  const PrimitiveFacts* get = bundled().primitive("get");
  ASSERT_NE(get, nullptr);
  EXPECT_FALSE(get->hardware) << "a plain Ref read needs no particular GPU";
}

TEST(HardwareFacts, NoConstraintAllowsEveryGpu) {
  HardwareRequirement none;
  EXPECT_TRUE(none.allows({7, 0}));
  HardwareRequirement atLeast;
  atLeast.atLeast = {{9, 0}};
  EXPECT_TRUE(atLeast.allows({10, 3}));
  EXPECT_FALSE(atLeast.allows({8, 9}));
  EXPECT_EQ(atLeast.needs(), "compute capability >= 9.0");
}

TEST(Explain, InlineMgpuOnEachPath) {
  const PrimitiveFacts* p = bundled().primitive("inline_mgpu_p");
  ASSERT_NE(p, nullptr);
  PathExplanation hlo = explain(*p, ExecutionPath::InterpretHlo);
  EXPECT_EQ(hlo.withDischargedRefs, Outcome::Fails) << "its discharge rule raises";
  EXPECT_EQ(hlo.onValues, Outcome::Fails) << "no CPU lowering rule";
  EXPECT_NE(hlo.text.find("does not support discharge"), std::string::npos) << hlo.text;
  PathExplanation gpu = explain(*p, ExecutionPath::InterpretGpu);
  EXPECT_EQ(gpu.onValues, Outcome::Fails) << "re-bound without a CPU lowering";
  EXPECT_EQ(gpu.text, "no: no rule and no CPU lowering");
  PathExplanation compiled = explain(*p, ExecutionPath::Compiled);
  EXPECT_NE(compiled.text.find("yes ("), std::string::npos) << compiled.text;
}

TEST(Explain, ResolvedAtBindAndArmsRun) {
  const PrimitiveFacts* pid = bundled().primitive("program_id");
  ASSERT_NE(pid, nullptr);
  EXPECT_TRUE(resolvedAtBind(*pid));
  EXPECT_EQ(explain(*pid, ExecutionPath::InterpretHlo).onValues, Outcome::Runs);
  EXPECT_EQ(explain(*pid, ExecutionPath::Compiled).onValues, Outcome::Runs);
  const PrimitiveFacts* copy = bundled().primitive("copy_gmem_to_smem");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(explain(*copy, ExecutionPath::InterpretGpu).onValues, Outcome::Runs);
  EXPECT_EQ(explain(*copy, ExecutionPath::InterpretHlo).withDischargedRefs, Outcome::Fails)
      << "no state discharge rule";
}

TEST(Explain, SemanticsInWords) {
  EXPECT_EQ(semanticsInWords({"LanexWarpgroup", "LanexWarp", "WarpgroupxWarpgroup"}),
            "default (Lane) lowering, in warpgroup code and per-warp code; Warpgroup lowering, in "
            "warpgroup code");
}

} // namespace
