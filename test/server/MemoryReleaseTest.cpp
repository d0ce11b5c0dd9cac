// Closed documents hand memory back in batches: after many closes or one
// large document, never per close.
#include "MemoryRelease.h"

#include <gtest/gtest.h>

using pallas::server::MemoryRelease;

TEST(MemoryRelease, TrimsAfterABatchOfSmallDocuments) {
  MemoryRelease release;
  for (int i = 0; i < 255; ++i)
    release.documentClosed(100);
  EXPECT_EQ(release.trims(), 0u);
  release.documentClosed(100);
  EXPECT_EQ(release.trims(), 1u);
  for (int i = 0; i < 255; ++i)
    release.documentClosed(100);
  EXPECT_EQ(release.trims(), 1u); // the count starts again after a trim
}

TEST(MemoryRelease, TrimsAfterOneLargeDocument) {
  MemoryRelease release;
  release.documentClosed(size_t(16) << 20);
  EXPECT_EQ(release.trims(), 1u);
  release.documentClosed(10);
  EXPECT_EQ(release.trims(), 1u);
}
