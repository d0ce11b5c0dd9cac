// The endpoint over an in-memory transport: dispatch, ordering, errors,
// cancellation and requests to the peer, without processes or sockets.
#include "pallas/protocol/Endpoint.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <condition_variable>
#include <future>
#include <gtest/gtest.h>
#include <thread>

using namespace pallas::protocol;
namespace asio = boost::asio;

namespace {

class MemoryTransport : public Transport {
public:
  void start(DataHandler onData, CloseHandler onClose) override {
    onData_ = std::move(onData);
    onClose_ = std::move(onClose);
  }
  void write(std::string bytes) override {
    std::lock_guard lock(mutex_);
    reader_.feed(bytes);
    while (auto ev = reader_.next())
      out_.push_back(json::parse(ev->body));
    cv_.notify_all();
  }
  void close() override {}
  std::string describe() const override { return "memory"; }

  // Waits for the n-th message written (0-based).
  json waitFor(size_t n) {
    std::unique_lock lock(mutex_);
    EXPECT_TRUE(cv_.wait_for(lock, std::chrono::seconds(10), [&] { return out_.size() > n; }))
        << "timed out waiting for message " << n;
    return out_.size() > n ? out_[n] : json();
  }
  size_t count() {
    std::lock_guard lock(mutex_);
    return out_.size();
  }

  DataHandler onData_;
  CloseHandler onClose_;

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  FrameReader reader_;
  std::vector<json> out_;
};

class EndpointTest : public ::testing::Test {
protected:
  void SetUp() override {
    log.setLevel(LogLevel::Error);
    transport = std::make_shared<MemoryTransport>();
    endpoint = std::make_shared<Endpoint>(io, pool, transport, log);
  }
  void TearDown() override {
    endpoint->close();
    pool.join();
  }
  void start() {
    endpoint->start([](const std::string&) {});
  }
  // Feeds bytes on the I/O thread, as the real transport does.
  void send(const std::string& bytes) {
    asio::post(io, [this, bytes] { transport->onData_(bytes); });
    io.restart();
    io.run();
  }
  void sendJson(const json& j) { send(frameMessage(j.dump())); }

  asio::io_context io;
  asio::thread_pool pool{4};
  Logger log;
  std::shared_ptr<MemoryTransport> transport;
  std::shared_ptr<Endpoint> endpoint;
};

TEST_F(EndpointTest, RepliesToRequest) {
  endpoint->onRequest("add", [](const json& p, const RequestContext&) {
    return json(p["a"].get<int>() + p["b"].get<int>());
  });
  start();
  sendJson(makeRequest(1, "add", {{"a", 2}, {"b", 3}}));
  json r = transport->waitFor(0);
  EXPECT_EQ(r["id"], 1);
  EXPECT_EQ(r["result"], 5);
}

TEST_F(EndpointTest, ErrorsForBadInput) {
  endpoint->onRequest("typed", [](const json& p, const RequestContext&) {
    return requireField(p, "n", json::value_t::number_integer);
  });
  endpoint->onRequest("throws", [](const json&, const RequestContext&) -> json {
    throw std::runtime_error("boom");
  });
  start();
  send("Content-Length: 5\r\n\r\n{oops");
  EXPECT_EQ(transport->waitFor(0)["error"]["code"], -32700);
  sendJson(json{{"id", 1}, {"method", "x"}});
  EXPECT_EQ(transport->waitFor(1)["error"]["code"], -32600);
  EXPECT_EQ(transport->waitFor(1)["id"], 1);
  sendJson(makeRequest(2, "nope", nullptr));
  EXPECT_EQ(transport->waitFor(2)["error"]["code"], -32601);
  sendJson(makeRequest(3, "typed", {{"n", "x"}}));
  EXPECT_EQ(transport->waitFor(3)["error"]["code"], -32602);
  sendJson(makeRequest(4, "throws", nullptr));
  EXPECT_EQ(transport->waitFor(4)["error"]["code"], -32603);
  send("garbage\r\n\r\n");
  EXPECT_EQ(transport->waitFor(5)["error"]["code"], -32700);
}

TEST_F(EndpointTest, NotificationsRunInOrderBeforeLaterRequests) {
  std::vector<int> seen;
  std::mutex m;
  endpoint->onNotification("note", [&](const json& p) {
    // Make earlier ones slow: order must still hold.
    std::this_thread::sleep_for(std::chrono::milliseconds(p["i"].get<int>() % 3));
    std::lock_guard lock(m);
    seen.push_back(p["i"].get<int>());
  });
  endpoint->onRequest("count", [&](const json&, const RequestContext&) {
    std::lock_guard lock(m);
    return json(seen.size());
  });
  start();
  std::string batch;
  for (int i = 0; i < 50; ++i)
    batch += frameMessage(makeNotification("note", {{"i", i}}).dump());
  batch += frameMessage(makeRequest(1, "count", nullptr).dump());
  send(batch);
  EXPECT_EQ(transport->waitFor(0)["result"], 50);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(seen[i], i);
}

TEST_F(EndpointTest, CancelRequestInFlight) {
  std::atomic<bool> started{false};
  endpoint->onRequest("slow", [&](const json&, const RequestContext& ctx) {
    started = true;
    for (int i = 0; i < 5000; ++i) {
      ctx.cancel.check();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return json("finished");
  });
  endpoint->onRequest("fast", [](const json&, const RequestContext&) { return json("fast"); });
  start();
  sendJson(makeRequest("s1", "slow", nullptr));
  while (!started)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // A slow request blocks nothing behind it.
  sendJson(makeRequest(2, "fast", nullptr));
  EXPECT_EQ(transport->waitFor(0)["result"], "fast");
  sendJson(makeNotification("$/cancelRequest", {{"id", "s1"}}));
  json r = transport->waitFor(1);
  EXPECT_EQ(r["id"], "s1");
  EXPECT_EQ(r["error"]["code"], -32800);
}

TEST_F(EndpointTest, GateRefusesRequests) {
  endpoint->onRequest("m", [](const json&, const RequestContext&) { return json(1); });
  endpoint->setGate([](const std::string& method, bool) -> std::optional<RpcError> {
    if (method == "m")
      return RpcError(ErrorCode::ServerNotInitialized, "not yet");
    return std::nullopt;
  });
  start();
  sendJson(makeRequest(1, "m", nullptr));
  EXPECT_EQ(transport->waitFor(0)["error"]["code"], -32002);
}

TEST_F(EndpointTest, CallMatchesResponseById) {
  start();
  std::promise<json> got;
  endpoint->call("workspace/configuration", {{"items", json::array()}},
                 [&](bool ok, const json& v) { got.set_value(json{{"ok", ok}, {"v", v}}); });
  json req = transport->waitFor(0);
  EXPECT_EQ(req["method"], "workspace/configuration");
  // An unknown id is ignored; the right one completes the call.
  sendJson(makeResponse(12345, "wrong"));
  sendJson(makeResponse(req["id"], json::array({42})));
  json v = got.get_future().get();
  EXPECT_EQ(v["ok"], true);
  EXPECT_EQ(v["v"][0], 42);
}

TEST_F(EndpointTest, DuplicateIdInFlightIsRefused) {
  std::atomic<bool> release{false};
  endpoint->onRequest("wait", [&](const json&, const RequestContext&) {
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return json(1);
  });
  start();
  sendJson(makeRequest(5, "wait", nullptr));
  sendJson(makeRequest(5, "wait", nullptr));
  json r = transport->waitFor(0);
  EXPECT_EQ(r["error"]["code"], -32600);
  release = true;
  EXPECT_EQ(transport->waitFor(1)["result"], 1);
}

// ---- a peer that must authenticate (serve --token-file), issue 34 ----------

constexpr const char* kToken = "s3cret-token-0123456789";

class AuthTest : public EndpointTest {
protected:
  // Feeds bytes and lets the I/O thread run a while (the deadline timer is
  // pending, so io.run() would not return on its own).
  void sendFor(const std::string& bytes, std::chrono::milliseconds ms) {
    asio::post(io, [this, bytes] { transport->onData_(bytes); });
    io.restart();
    io.run_for(ms);
  }
  std::string initialize(const std::string& token) {
    return frameMessage(makeRequest(1, "initialize",
                                    {{"capabilities", json::object()},
                                     {"initializationOptions", {{"authToken", token}}}})
                            .dump());
  }
};

TEST_F(AuthTest, MoreThan16KiBBeforeTheTokenIsRefused) {
  endpoint->onRequest("initialize", [](const json&, const RequestContext&) { return json(1); });
  endpoint->requireToken(kToken);
  start();
  // A header announcing 60 MB, then junk: the server used to buffer 64 MiB
  // for each such peer.
  sendFor("Content-Length: 60000000\r\n\r\n" + std::string(20 * 1024, 'x'),
          std::chrono::milliseconds(200));
  json r = transport->waitFor(0);
  EXPECT_EQ(r["error"]["code"], -32803);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("more than 16 KiB"), std::string::npos);
  EXPECT_TRUE(endpoint->closed());
  EXPECT_EQ(transport->count(), 1u);
}

TEST_F(AuthTest, AfterTheTokenLargeMessagesAreRead) {
  std::atomic<int> notes{0};
  endpoint->onRequest("initialize", [](const json&, const RequestContext&) { return json(1); });
  endpoint->onNotification("big", [&](const json&) { ++notes; });
  endpoint->requireToken(kToken);
  start();
  // In one chunk: the initialize, then 100 KB that arrive before the reply.
  sendFor(
      initialize(kToken) +
          frameMessage(makeNotification("big", {{"text", std::string(100 * 1024, 'y')}}).dump()),
      std::chrono::milliseconds(200));
  EXPECT_EQ(transport->waitFor(0)["result"], 1);
  for (int i = 0; i < 400 && notes.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(notes.load(), 1);
  EXPECT_FALSE(endpoint->closed());
}

TEST_F(AuthTest, APeerThatSendsNothingIsClosedAtTheDeadline) {
  endpoint->requireToken(kToken);
  endpoint->setAuthDeadline(std::chrono::milliseconds(100));
  start();
  sendFor("Content-Le", std::chrono::milliseconds(500)); // a byte now and then
  json r = transport->waitFor(0);
  EXPECT_EQ(r["error"]["code"], -32803);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("within 100 ms"), std::string::npos);
  EXPECT_TRUE(endpoint->closed());
}

TEST_F(AuthTest, TheDeadlineDoesNotTouchAnAuthenticatedPeer) {
  endpoint->onRequest("initialize", [](const json&, const RequestContext&) { return json(1); });
  endpoint->requireToken(kToken);
  endpoint->setAuthDeadline(std::chrono::milliseconds(100));
  start();
  sendFor(initialize(kToken), std::chrono::milliseconds(400));
  EXPECT_EQ(transport->waitFor(0)["result"], 1);
  EXPECT_EQ(transport->count(), 1u);
  EXPECT_FALSE(endpoint->closed());
}

} // namespace
