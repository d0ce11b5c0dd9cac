#include "pallas/gpu/Hardware.h"

#include <gtest/gtest.h>

using namespace pallas::gpu;

TEST(Hardware, ClassifiesGenerations) {
  EXPECT_EQ(classify({8, 0}), Generation::PreHopper);
  EXPECT_EQ(classify({8, 9}), Generation::PreHopper);
  EXPECT_EQ(classify({9, 0}), Generation::Hopper);
  EXPECT_EQ(classify({10, 0}), Generation::Blackwell);
  EXPECT_EQ(classify({10, 3}), Generation::Blackwell);
  EXPECT_EQ(classify({11, 0}), Generation::Blackwell);
  EXPECT_EQ(classify({12, 0}), Generation::BlackwellGeForce);
  EXPECT_EQ(classify({13, 0}), Generation::Newer);
  EXPECT_EQ(classify({5, 0}), Generation::Unknown);
}

// Which generation has wgmma / tcgen05 is the knowledge table's (test/knowledge
// KnowledgeServiceTest: TheTableGatesTcgen05AndWgmmaByGeneration).
TEST(Hardware, HopperAndNewerRunMosaicGpu) {
  for (ComputeCapability cc : {ComputeCapability{9, 0}, {10, 0}, {10, 3}, {11, 0}, {12, 0}}) {
    EXPECT_TRUE(supports(cc, Feature::MosaicGpu)) << cc.smName();
    EXPECT_TRUE(supports(cc, Feature::Tma)) << cc.smName();
  }
}

TEST(Hardware, AmpereIsTooOldForMosaicGpu) {
  EXPECT_FALSE(supports({8, 0}, Feature::MosaicGpu));
  EXPECT_FALSE(supports({8, 9}, Feature::Tma));
}

TEST(Hardware, Names) {
  EXPECT_EQ((ComputeCapability{10, 3}).smName(), "sm_103");
  EXPECT_EQ((ComputeCapability{9, 0}).str(), "9.0");
  EXPECT_STREQ(generationName(Generation::Hopper), "Hopper");
}
