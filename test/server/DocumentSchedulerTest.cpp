// The per-document scheduler (server/lib/DocumentScheduler.h) on a real Asio
// I/O thread and pool: latest wins, a newer schedule stops the stale run,
// runs of one document never overlap and start in order, documents do not
// wait for each other, and nothing is kept for a document once it is idle
// or forgotten. Waits are bounded; no timing is asserted.
#include "DocumentScheduler.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <condition_variable>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

namespace pallas::server {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

class DocumentSchedulerTest : public ::testing::Test {
protected:
  DocumentSchedulerTest() : work_(asio::make_work_guard(io_)), ioThread_([this] { io_.run(); }) {}
  ~DocumentSchedulerTest() override {
    scheduler_.reset();
    pool_.join();
    work_.reset();
    io_.stop();
    ioThread_.join();
  }

  // Polls `done` until true or about 10 s passed.
  static bool eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 2000; ++i) {
      if (done())
        return true;
      std::this_thread::sleep_for(5ms);
    }
    return done();
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread ioThread_;
  asio::thread_pool pool_{4};
  std::unique_ptr<DocumentScheduler> scheduler_ = std::make_unique<DocumentScheduler>(io_, pool_);
};

TEST_F(DocumentSchedulerTest, ABurstOfSchedulesRunsOnlyTheLatest) {
  std::mutex m;
  std::vector<int> ran;
  for (int i = 0; i < 20; ++i)
    scheduler_->schedule(
        "a.py",
        [&, i](const StopToken&) {
          std::lock_guard lock(m);
          ran.push_back(i);
        },
        100ms);
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  std::lock_guard lock(m);
  EXPECT_EQ(ran, std::vector<int>{19});
  EXPECT_EQ(scheduler_->runsStarted(), 1u);
}

TEST_F(DocumentSchedulerTest, ANewerScheduleStopsTheRunningOneAndRunsAfterIt) {
  std::atomic<bool> firstStarted{false}, firstSawStop{false}, firstEnded{false};
  std::atomic<bool> secondRan{false}, secondStartedAfterFirstEnded{false};
  std::atomic<int> concurrent{0}, maxConcurrent{0};
  auto enter = [&] {
    int now = ++concurrent;
    int seen = maxConcurrent.load();
    while (now > seen && !maxConcurrent.compare_exchange_weak(seen, now)) {
    }
  };
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    enter();
    firstStarted = true;
    // Stale work checks its token between units; give up after 10 s.
    for (int i = 0; i < 2000 && !stop.stopRequested(); ++i)
      std::this_thread::sleep_for(5ms);
    firstSawStop = stop.stopRequested();
    --concurrent;
    firstEnded = true;
  });
  ASSERT_TRUE(eventually([&] { return firstStarted.load(); }));
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    enter();
    secondStartedAfterFirstEnded = firstEnded.load();
    secondRan = !stop.stopRequested();
    --concurrent;
  });
  ASSERT_TRUE(eventually([&] { return secondRan.load(); }));
  EXPECT_TRUE(firstSawStop);
  EXPECT_TRUE(secondStartedAfterFirstEnded);
  EXPECT_EQ(maxConcurrent.load(), 1);
}

TEST_F(DocumentSchedulerTest, RunsOfOneDocumentStartInScheduleOrderAndTheLastOneRuns) {
  std::mutex m;
  std::vector<int> ran;
  std::atomic<int> concurrent{0};
  std::atomic<bool> overlapped{false};
  for (int i = 0; i < 200; ++i)
    scheduler_->schedule("a.py", [&, i](const StopToken&) {
      overlapped = overlapped || ++concurrent > 1;
      {
        std::lock_guard lock(m);
        ran.push_back(i);
      }
      std::this_thread::sleep_for(1ms);
      --concurrent;
    });
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  std::lock_guard lock(m);
  ASSERT_FALSE(ran.empty());
  for (size_t k = 1; k < ran.size(); ++k)
    EXPECT_LT(ran[k - 1], ran[k]);
  EXPECT_EQ(ran.back(), 199);
  EXPECT_FALSE(overlapped);
}

TEST_F(DocumentSchedulerTest, OneDocumentsSlowRunDoesNotHoldUpAnother) {
  std::atomic<bool> release{false}, slowSawOther{false}, otherRan{false};
  scheduler_->schedule("slow.py", [&](const StopToken&) {
    for (int i = 0; i < 2000 && !release; ++i)
      std::this_thread::sleep_for(5ms);
    slowSawOther = otherRan.load();
  });
  scheduler_->schedule("other.py", [&](const StopToken&) { otherRan = true; });
  ASSERT_TRUE(eventually([&] { return otherRan.load(); }));
  release = true;
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  EXPECT_TRUE(slowSawOther);
}

TEST_F(DocumentSchedulerTest, ForgetStopsTheRunDropsTheWaitingTaskAndKeepsNothing) {
  std::atomic<bool> started{false}, sawStop{false}, waitingRan{false};
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    started = true;
    for (int i = 0; i < 2000 && !stop.stopRequested(); ++i)
      std::this_thread::sleep_for(5ms);
    sawStop = stop.stopRequested();
  });
  ASSERT_TRUE(eventually([&] { return started.load(); }));
  scheduler_->schedule("b.py", [&](const StopToken&) { waitingRan = true; }, 60s);
  scheduler_->forget("a.py");
  scheduler_->forget("b.py");
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  EXPECT_TRUE(sawStop);
  EXPECT_FALSE(waitingRan);
}

TEST_F(DocumentSchedulerTest, AFailingTaskDoesNotStopTheDocumentsWorker) {
  std::atomic<bool> afterRan{false}, threw{false};
  scheduler_->schedule("a.py", [&](const StopToken&) {
    threw = true;
    throw std::runtime_error("analysis failed");
  });
  ASSERT_TRUE(eventually([&] { return threw.load(); }));
  scheduler_->schedule("a.py", [&](const StopToken&) { afterRan = true; });
  EXPECT_TRUE(eventually([&] { return afterRan.load(); }));
}

TEST_F(DocumentSchedulerTest, StopAllStopsRunsAndRefusesNewWork) {
  std::atomic<bool> started{false}, sawStop{false}, lateRan{false};
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    started = true;
    for (int i = 0; i < 2000 && !stop.stopRequested(); ++i)
      std::this_thread::sleep_for(5ms);
    sawStop = stop.stopRequested();
  });
  ASSERT_TRUE(eventually([&] { return started.load(); }));
  scheduler_->stopAll();
  EXPECT_EQ(scheduler_->schedule("b.py", [&](const StopToken&) { lateRan = true; }), 0u);
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  EXPECT_TRUE(sawStop);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(lateRan);
}

TEST_F(DocumentSchedulerTest, OnAnIdleDocumentOnlyWhileBusyRunsWithoutTheDelay) {
  // A 60 s delay that applied would outlast the 10 s wait.
  std::atomic<bool> ran{false};
  scheduler_->schedule(
      "a.py", [&](const StopToken&) { ran = true; }, 60s, DocumentScheduler::Delay::OnlyWhileBusy);
  EXPECT_TRUE(eventually([&] { return ran.load(); }));
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
}

TEST_F(DocumentSchedulerTest, WhileTheDocumentIsBusyOnlyWhileBusyKeepsTheDelay) {
  std::atomic<bool> firstStarted{false}, release{false}, firstEnded{false}, secondRan{false};
  scheduler_->schedule("a.py", [&](const StopToken&) {
    firstStarted = true;
    for (int i = 0; i < 2000 && !release; ++i)
      std::this_thread::sleep_for(5ms);
    firstEnded = true;
  });
  ASSERT_TRUE(eventually([&] { return firstStarted.load(); }));
  // A burst: the document is running, so this one waits its 60 s.
  scheduler_->schedule(
      "a.py", [&](const StopToken&) { secondRan = true; }, 60s,
      DocumentScheduler::Delay::OnlyWhileBusy);
  release = true;
  ASSERT_TRUE(eventually([&] { return firstEnded.load(); }));
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(secondRan);
  EXPECT_EQ(scheduler_->runsStarted(), 1u);
  EXPECT_EQ(scheduler_->trackedDocuments(), 1u); // the waiting task is kept
  scheduler_->forget("a.py");
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
}

TEST_F(DocumentSchedulerTest, InterruptStopsTheRunningTaskAndKeepsWhatWaits) {
  std::atomic<bool> firstStarted{false}, firstSawStop{false}, secondRan{false};
  std::atomic<bool> secondSawStop{false};
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    firstStarted = true;
    for (int i = 0; i < 2000 && !stop.stopRequested(); ++i)
      std::this_thread::sleep_for(5ms);
    firstSawStop = stop.stopRequested();
  });
  ASSERT_TRUE(eventually([&] { return firstStarted.load(); }));
  scheduler_->interrupt("a.py");
  ASSERT_TRUE(eventually([&] { return firstSawStop.load(); }));
  // Interrupting an idle document or one never seen does nothing.
  ASSERT_TRUE(eventually([&] { return scheduler_->trackedDocuments() == 0; }));
  scheduler_->interrupt("a.py");
  scheduler_->interrupt("never.py");
  EXPECT_EQ(scheduler_->trackedDocuments(), 0u);
  // A task scheduled after the interrupt runs with a fresh token.
  scheduler_->schedule("a.py", [&](const StopToken& stop) {
    secondSawStop = stop.stopRequested();
    secondRan = true;
  });
  ASSERT_TRUE(eventually([&] { return secondRan.load(); }));
  EXPECT_FALSE(secondSawStop);
  EXPECT_EQ(scheduler_->runsStarted(), 2u);
}

// A reader waiting for a document's analysis (LspServer::snapshotFor) asks
// busy(): true from the schedule until the task returned, with nothing
// after it.
TEST_F(DocumentSchedulerTest, BusyFromTheScheduleUntilTheTaskReturned) {
  std::atomic<bool> started{false}, release{false};
  EXPECT_FALSE(scheduler_->busy("a.py"));
  scheduler_->schedule("a.py", [&](const StopToken&) {
    started = true;
    for (int i = 0; i < 2000 && !release; ++i)
      std::this_thread::sleep_for(5ms);
  });
  EXPECT_TRUE(scheduler_->busy("a.py")); // waiting for its turn, or running
  ASSERT_TRUE(eventually([&] { return started.load(); }));
  EXPECT_TRUE(scheduler_->busy("a.py"));
  EXPECT_FALSE(scheduler_->busy("b.py"));
  release = true;
  ASSERT_TRUE(eventually([&] { return !scheduler_->busy("a.py"); }));
  scheduler_->schedule("a.py", [](const StopToken&) {});
  scheduler_->stopAll();
  EXPECT_FALSE(scheduler_->busy("a.py")); // stopped: nothing will come
}

} // namespace
} // namespace pallas::server
