// A real Endpoint + LspServer over a transport that discards output, for the
// wire-level fuzzers: sessions are initialized once and renewed when the
// input shut them down (or every 500 inputs, so state does not pile up).
#pragma once

#include "LspServer.h"
#include "pallas/protocol/Endpoint.h"
#include "pallas/protocol/Framing.h"

#include <boost/asio/post.hpp>
#include <future>

namespace pallas::fuzz {

class NullTransport : public protocol::Transport {
public:
  void start(DataHandler, CloseHandler) override {}
  void write(std::string) override {}
  void close() override {}
  std::string describe() const override { return "null"; }
};

struct LspHarness {
  boost::asio::io_context io;
  boost::asio::thread_pool pool{1}; // one thread: FIFO, so "drained" is observable
  protocol::Logger log;
  std::shared_ptr<protocol::Endpoint> endpoint;
  std::shared_ptr<server::LspServer> server;
  bool exited = false;
  unsigned inputs = 0;

  LspHarness() {
    log.setLevel(protocol::LogLevel::Error);
    log.openFile("/dev/null");
  }

  void ensureSession() {
    if (!endpoint || exited || endpoint->closed() || ++inputs % 500 == 0)
      newSession();
  }

  void newSession() {
    if (endpoint) {
      endpoint->close();
      drain();
    }
    exited = false;
    endpoint = std::make_shared<protocol::Endpoint>(io, pool, std::make_shared<NullTransport>(),
                                                    log, 4 << 20);
    server::LspServer::Options options;
    options.debounce = std::chrono::milliseconds(0);
    server = std::make_shared<server::LspServer>(endpoint, log, options);
    server->start([this](int) { exited = true; });
    endpoint->receive(protocol::frameMessage(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})"));
    endpoint->receive(protocol::frameMessage(R"({"jsonrpc":"2.0","method":"initialized"})"));
    drain();
  }

  // Waits until every message received so far was handled. The I/O context
  // runs while it waits, as the server's I/O thread always does: a request
  // on the pool may wait for an analysis whose start is posted there (the
  // scheduler's timers), and would otherwise wait for ever.
  void drain() {
    std::promise<void> ordered, pooled;
    boost::asio::post(endpoint->orderedQueue(), [&] { ordered.set_value(); });
    runIoUntil(ordered.get_future());
    boost::asio::post(pool, [&] { pooled.set_value(); });
    runIoUntil(pooled.get_future());
    io.restart();
    io.poll();
  }

  void runIoUntil(std::future<void> done) {
    while (done.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
      io.restart();
      io.poll();
    }
  }
};

} // namespace pallas::fuzz
