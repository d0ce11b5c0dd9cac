// The snapshot store readers answer from: a late store of an older analysis
// never replaces a newer one, waiters wake on a store, didClose forgets; and
// the text-only extent that maps a hover position to its inline_mgpu region.
#include "DocumentSnapshot.h"

#include <gtest/gtest.h>
#include <thread>

using pallas::analysis::SourcePos;
using pallas::server::DocumentSnapshot;
using pallas::server::HoverFacts;
using pallas::server::inlineRegionExtent;
using pallas::server::InlineRegionSpots;
using pallas::server::inlineRegionSpots;
namespace support = pallas::support;
using pallas::server::SnapshotPtr;
using pallas::server::SnapshotStore;

namespace {

SnapshotPtr snapshot(const std::string& path, uint64_t analysis, int64_t version) {
  auto s = std::make_shared<DocumentSnapshot>();
  s->path = path;
  s->analysis = analysis;
  s->version = version;
  return s;
}

} // namespace

TEST(SnapshotStore, AnOlderAnalysisNeverReplacesANewerOne) {
  SnapshotStore store;
  store.put(snapshot("/a.py", 2, 5));
  store.put(snapshot("/a.py", 1, 4)); // a stopped run that stored late
  ASSERT_NE(store.get("/a.py"), nullptr);
  EXPECT_EQ(store.get("/a.py")->version, 5);
  store.put(snapshot("/a.py", 3, 6));
  EXPECT_EQ(store.get("/a.py")->version, 6);
  EXPECT_EQ(store.get("/b.py"), nullptr);
}

TEST(SnapshotStore, AReaderKeepsItsSnapshotWhileANewerOneIsStored) {
  SnapshotStore store;
  store.put(snapshot("/a.py", 1, 1));
  SnapshotPtr held = store.get("/a.py");
  store.put(snapshot("/a.py", 2, 2));
  EXPECT_EQ(held->version, 1); // immutable: the reader's copy did not change
  EXPECT_EQ(store.get("/a.py")->version, 2);
}

TEST(SnapshotStore, ForgetReleasesTheDocument) {
  SnapshotStore store;
  store.put(snapshot("/a.py", 1, 1));
  store.put(snapshot("/b.py", 2, 1));
  EXPECT_EQ(store.size(), 2U);
  store.forget("/a.py");
  EXPECT_EQ(store.size(), 1U);
  EXPECT_EQ(store.get("/a.py"), nullptr);
  store.forget("/a.py"); // twice: harmless
  EXPECT_EQ(store.size(), 1U);
}

TEST(SnapshotStore, AWaiterWakesWhenTheSnapshotChanges) {
  SnapshotStore store;
  SnapshotPtr seen = store.get("/a.py");
  std::thread writer([&] { store.put(snapshot("/a.py", 1, 1)); });
  // Bounded only so a broken wake-up fails instead of hanging; no timing is
  // asserted: the loop ends when the store changed.
  for (int i = 0; i < 1000 && store.get("/a.py") == seen; ++i)
    store.waitForChange("/a.py", seen, std::chrono::milliseconds(10));
  writer.join();
  ASSERT_NE(store.get("/a.py"), nullptr);
}

TEST(InlineRegionExtent, CoversAMultiLineDecoratorAndTheBody) {
  std::string text = "def kernel(x_ref):\n"         // 0
                     "  @plgpu.inline_mgpu(\n"      // 1
                     "      arg_types=(a, b),\n"    // 2
                     "  )\n"                        // 3
                     "  def foo(\n"                 // 4
                     "      ctx, r\n"               // 5
                     "  ):\n"                       // 6
                     "    x = r\n"                  // 7
                     "\n"                           // 8
                     "    # a comment\n"            // 9
                     "    return x\n"               // 10
                     "\n"                           // 11
                     "  o_ref[...] = foo(x_ref)\n"; // 12
  auto r = inlineRegionExtent(text, SourcePos{1, 2});
  EXPECT_EQ(r.start.line, 1U);
  EXPECT_EQ(r.end.line, 10U);
  EXPECT_EQ(r.end.column, 12U);
}

TEST(InlineRegionExtent, TheInnermostRegionAnswers) {
  std::string text = "@plgpu.inline_mgpu()\n"   // 0
                     "def outer(ctx):\n"        // 1
                     "  @plgpu.inline_mgpu()\n" // 2
                     "  def inner(ctx):\n"      // 3
                     "    pass\n"               // 4
                     "  y = 1\n";               // 5
  HoverFacts facts;
  facts.regions.push_back({inlineRegionExtent(text, SourcePos{0, 0}), SourcePos{0, 0}, {}});
  facts.regions.push_back({inlineRegionExtent(text, SourcePos{2, 2}), SourcePos{2, 2}, {}});
  EXPECT_EQ(facts.regions[0].extent.end.line, 5U);
  EXPECT_EQ(facts.regions[1].extent.end.line, 4U);
  EXPECT_EQ(facts.regionAt(SourcePos{4, 5}), &facts.regions[1]);
  EXPECT_EQ(facts.regionAt(SourcePos{5, 3}), &facts.regions[0]);
  EXPECT_EQ(facts.regionAt(SourcePos{7, 0}), nullptr);
}

// Issue 35: the region's hover answers on its decorator, its name and its
// calls, not inside its body (other servers' hovers stay there).
TEST(InlineRegionSpots, DecoratorNameAndCallsOnly) {
  std::string text = "def kernel(x_ref, o_ref):\n"                                  // 0
                     "  @plgpu.inline_mgpu(\n"                                      // 1
                     "      arg_types=(plgpu.RefType(),))\n"                        // 2
                     "  def double(ctx, o):\n"                                      // 3
                     "    v = mgpu.FragmentedArray.load_strided(o)  # double(no)\n" // 4
                     "  double(o_ref)  # double(x) in a comment\n"                  // 5
                     "  obj.double(o_ref)\n"                                        // 6
                     "  y = doubled(o_ref)\n"                                       // 7
                     "x = double(1)\n";                                             // 8
  support::LineIndex lines(text);
  SourcePos decorator{1, 2};
  InlineRegionSpots spots =
      inlineRegionSpots(lines, decorator, inlineRegionExtent(lines, decorator));
  EXPECT_EQ(spots.name, "double");
  EXPECT_EQ(spots.nameRange.start, (SourcePos{3, 6}));
  ASSERT_EQ(spots.calls.size(), 1U); // not obj.double, doubled, a comment, or outside the def
  EXPECT_EQ(spots.calls[0].start, (SourcePos{5, 2}));
  EXPECT_TRUE(spots.answersAt(SourcePos{1, 5}));   // the decorator
  EXPECT_TRUE(spots.answersAt(SourcePos{2, 10}));  // its arguments' line
  EXPECT_TRUE(spots.answersAt(SourcePos{3, 8}));   // the name
  EXPECT_TRUE(spots.answersAt(SourcePos{5, 4}));   // the call
  EXPECT_FALSE(spots.answersAt(SourcePos{4, 30})); // the body
  EXPECT_FALSE(spots.answersAt(SourcePos{3, 14})); // the parameters
}

TEST(HoverFacts, TheMemoComputesOncePerVersion) {
  HoverFacts facts;
  int computed = 0;
  auto compute = [&] {
    ++computed;
    return std::vector<pallas::analysis::LaunchPaths>(2);
  };
  EXPECT_EQ(facts.memo->launches(compute).size(), 2U);
  EXPECT_EQ(facts.memo->launches(compute).size(), 2U);
  EXPECT_EQ(computed, 1);
  int rewrites = 0;
  auto rewrite = [&] {
    ++rewrites;
    pallas::analysis::RewriteResult r;
    r.blocker = "x";
    return r;
  };
  EXPECT_EQ(facts.memo->rewrite(SourcePos{1, 2}, rewrite).blocker, "x");
  EXPECT_EQ(facts.memo->rewrite(SourcePos{1, 2}, rewrite).blocker, "x");
  facts.memo->rewrite(SourcePos{3, 2}, rewrite);
  EXPECT_EQ(rewrites, 2);
}
