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

TEST(Hardware, HopperHasWgmmaNotTcgen05) {
  EXPECT_TRUE(supports({9, 0}, Feature::Wgmma));
  EXPECT_FALSE(supports({9, 0}, Feature::Tcgen05));
  EXPECT_TRUE(supports({9, 0}, Feature::MosaicGpu));
}

TEST(Hardware, DatacenterBlackwellHasTcgen05NotWgmma) {
  for (ComputeCapability cc : {ComputeCapability{10, 0}, {10, 3}, {11, 0}}) {
    EXPECT_TRUE(supports(cc, Feature::Tcgen05)) << cc.smName();
    EXPECT_FALSE(supports(cc, Feature::Wgmma)) << cc.smName();
    EXPECT_TRUE(supports(cc, Feature::MosaicGpu)) << cc.smName();
  }
}

TEST(Hardware, GeForceBlackwellHasNeither) {
  EXPECT_FALSE(supports({12, 0}, Feature::Tcgen05));
  EXPECT_FALSE(supports({12, 0}, Feature::Wgmma));
  EXPECT_TRUE(supports({12, 0}, Feature::MosaicGpu));
}

TEST(Hardware, AmpereIsTooOldForMosaicGpu) {
  EXPECT_FALSE(supports({8, 0}, Feature::MosaicGpu));
  EXPECT_FALSE(supports({8, 9}, Feature::Tma));
  EXPECT_FALSE(supports({8, 0}, Feature::Wgmma));
}

TEST(Hardware, Names) {
  EXPECT_EQ((ComputeCapability{10, 3}).smName(), "sm_103");
  EXPECT_EQ((ComputeCapability{9, 0}).str(), "9.0");
  EXPECT_STREQ(generationName(Generation::Hopper), "Hopper");
}
