// Bounded output (Endpoint::FlowLimits): over a transport whose peer does not
// read, the endpoint stops dispatching input and pauses reading once the
// queued output or the unanswered requests reach their limit, and resumes,
// in order, once output was sent. Real Asio I/O thread and pool; bounded
// waits, no timing asserted.
#include "pallas/protocol/Endpoint.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <gtest/gtest.h>
#include <thread>

using namespace pallas::protocol;
namespace asio = boost::asio;

namespace {

// Everything written stays queued (the peer reads nothing) until drain().
class StuckTransport : public Transport {
public:
  explicit StuckTransport(asio::io_context& io) : io_(io) {}
  void start(DataHandler onData, CloseHandler onClose) override {
    onData_ = std::move(onData);
    onClose_ = std::move(onClose);
  }
  void write(std::string bytes) override {
    std::lock_guard lock(mutex_);
    queued_ += bytes.size();
    reader_.feed(bytes);
    while (auto ev = reader_.next())
      out_.push_back(json::parse(ev->body));
  }
  void close() override {}
  std::string describe() const override { return "stuck"; }
  size_t queuedBytes() const override {
    std::lock_guard lock(mutex_);
    return queued_;
  }
  void setReadPaused(bool paused) override { paused_ = paused; }

  // The peer reads everything written so far.
  void drain() {
    asio::post(io_, [this] {
      {
        std::lock_guard lock(mutex_);
        queued_ = 0;
      }
      if (outputSent_)
        outputSent_();
    });
  }
  std::vector<json> written() {
    std::lock_guard lock(mutex_);
    return out_;
  }

  asio::io_context& io_;
  DataHandler onData_;
  CloseHandler onClose_;
  std::atomic<bool> paused_{false};

private:
  mutable std::mutex mutex_;
  size_t queued_ = 0;
  FrameReader reader_;
  std::vector<json> out_;
};

class BackpressureTest : public ::testing::Test {
protected:
  BackpressureTest() : work_(asio::make_work_guard(io_)), ioThread_([this] { io_.run(); }) {
    log_.setLevel(LogLevel::Error);
    transport_ = std::make_shared<StuckTransport>(io_);
    endpoint_ = std::make_shared<Endpoint>(io_, pool_, transport_, log_);
  }
  ~BackpressureTest() override {
    endpoint_->close();
    pool_.join();
    work_.reset();
    io_.stop();
    ioThread_.join();
  }
  void send(const std::string& bytes) {
    asio::post(io_, [this, bytes] { transport_->onData_(bytes); });
  }
  static bool eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 2000; ++i) {
      if (done())
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return done();
  }
  // A question to the I/O thread, answered there.
  bool inputPaused() {
    std::promise<bool> p;
    asio::post(io_, [&] { p.set_value(endpoint_->inputPaused()); });
    return p.get_future().get();
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread ioThread_;
  asio::thread_pool pool_{4};
  Logger log_;
  std::shared_ptr<StuckTransport> transport_;
  std::shared_ptr<Endpoint> endpoint_;
};

TEST_F(BackpressureTest, FullOutputStopsDispatchAndReadingUntilThePeerReads) {
  std::atomic<int> handled{0};
  endpoint_->onRequest(
      "big",
      [&](const json&, const RequestContext&) {
        ++handled;
        return json(std::string(4000, 'x'));
      },
      Endpoint::Mode::Sequential); // one at a time: each reply is queued before the next
  endpoint_->setFlowLimits({/*maxQueuedOutputBytes=*/10000, /*maxRequestsInFlight=*/64});
  endpoint_->start([](const std::string&) {});
  auto batch = [](int from, int to) {
    std::string bytes;
    for (int i = from; i < to; ++i)
      bytes += frameMessage(makeRequest(i, "big", nullptr).dump());
    return bytes;
  };
  // Three replies of 4 KB go out one by one, each answered before the next
  // request arrives: 12 KB wait unread, over the 10 KB limit. (Sent as one
  // batch, how many the endpoint reads before the first reply is queued
  // depends on thread timing.)
  for (int i = 0; i < 3; ++i) {
    send(batch(i, i + 1));
    ASSERT_TRUE(eventually([&] { return transport_->written().size() == size_t(i + 1); }));
  }
  // What arrives now waits, and reading stops.
  send(batch(3, 20));
  ASSERT_TRUE(eventually([&] { return transport_->paused_.load(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(handled.load(), 3);
  EXPECT_EQ(transport_->written().size(), 3u);
  EXPECT_TRUE(inputPaused());
  // The peer reads: everything else is answered, in order, a few at a time.
  for (int round = 0; round < 40 && transport_->written().size() < 20; ++round) {
    transport_->drain();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  transport_->drain();
  ASSERT_TRUE(eventually([&] { return transport_->written().size() == 20; }));
  std::vector<json> out = transport_->written();
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(out[i]["id"], i);
  ASSERT_TRUE(eventually([&] { return !transport_->paused_.load(); }));
  EXPECT_FALSE(inputPaused());
}

TEST_F(BackpressureTest, UnansweredRequestsAreBoundedAndTheEndOfInputWaitsForThem) {
  std::atomic<int> entered{0};
  std::atomic<bool> release{false};
  endpoint_->onRequest("wait", [&](const json&, const RequestContext&) {
    ++entered;
    for (int i = 0; i < 2000 && !release; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return json(1);
  });
  std::atomic<bool> closed{false};
  endpoint_->setFlowLimits({/*maxQueuedOutputBytes=*/size_t(1) << 20, /*maxRequestsInFlight=*/3});
  endpoint_->start([&](const std::string&) { closed = true; });
  std::string batch;
  for (int i = 0; i < 10; ++i)
    batch += frameMessage(makeRequest(i, "wait", nullptr).dump());
  send(batch);
  asio::post(io_, [this] { endpoint_->endOfInput("end of input"); });
  ASSERT_TRUE(eventually([&] { return entered.load() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(entered.load(), 3);
  EXPECT_TRUE(transport_->paused_.load());
  EXPECT_FALSE(closed.load()); // 7 requests are still held back
  release = true;
  ASSERT_TRUE(eventually([&] { return transport_->written().size() == 10; }));
  EXPECT_EQ(entered.load(), 10);
  EXPECT_TRUE(eventually([&] { return closed.load(); }));
}

// Issue 34: notifications had no flow control. While the ordered queue is
// busy (a handler that takes long), notifications read behind it are held
// in memory; past maxQueuedInputBytes the endpoint stops dispatching and
// reading, and goes on, in order, once the queue moves.
TEST_F(BackpressureTest, QueuedNotificationsAreBoundedByTheirBytes) {
  std::atomic<bool> release{false};
  std::atomic<int> handled{0};
  endpoint_->onNotification("edit", [&](const json&) {
    for (int i = 0; i < 4000 && !release; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++handled;
  });
  Endpoint::FlowLimits limits;
  limits.maxQueuedInputBytes = 1 << 20;
  endpoint_->setFlowLimits(limits);
  endpoint_->start([](const std::string&) {});
  const std::string text(100 * 1024, 'x');
  std::string batch;
  for (int i = 0; i < 60; ++i)
    batch += frameMessage(makeNotification("edit", json{{"n", i}, {"text", text}}).dump());
  send(batch);
  ASSERT_TRUE(eventually([&] { return transport_->paused_.load(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // About 1 MiB of them wait (the limit, plus the one that passed it); the
  // other 5 MB are still unread bytes, not parsed messages.
  size_t queued = 0;
  {
    std::promise<size_t> p;
    asio::post(io_, [&] { p.set_value(endpoint_->queuedInputBytes()); });
    queued = p.get_future().get();
  }
  EXPECT_LE(queued, (size_t(1) << 20) + 2 * text.size());
  EXPECT_GT(queued, size_t(1) << 19);
  EXPECT_EQ(handled.load(), 0);
  release = true;
  ASSERT_TRUE(eventually([&] { return handled.load() == 60; }));
  ASSERT_TRUE(eventually([&] { return !transport_->paused_.load(); }));
  EXPECT_EQ(endpoint_->queuedInputBytes(), 0u);
}

} // namespace
