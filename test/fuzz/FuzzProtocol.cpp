// libFuzzer target over the wire path: Content-Length framing (input fed in
// two chunks at a fuzzer-chosen split) and JSON-RPC/LSP dispatch through a
// real Endpoint + LspServer (initialized once per session, sessions renewed
// when the input shut them down). Output is framed and discarded.
#include "LspServer.h"
#include "pallas/protocol/Endpoint.h"
#include "pallas/protocol/Framing.h"

#include <boost/asio/post.hpp>
#include <cstdint>
#include <future>

using namespace pallas;
namespace asio = boost::asio;

namespace {

class NullTransport : public protocol::Transport {
public:
  void start(DataHandler, CloseHandler) override {}
  void write(std::string) override {}
  void close() override {}
  std::string describe() const override { return "null"; }
};

struct Harness {
  asio::io_context io;
  asio::thread_pool pool{1}; // one thread: FIFO, so "drained" is observable
  protocol::Logger log;
  std::shared_ptr<protocol::Endpoint> endpoint;
  std::shared_ptr<server::LspServer> server;
  bool exited = false;
  unsigned inputs = 0;

  Harness() {
    log.setLevel(protocol::LogLevel::Error);
    log.openFile("/dev/null");
  }

  void newSession() {
    if (endpoint) {
      endpoint->close();
      drain();
    }
    exited = false;
    endpoint = std::make_shared<protocol::Endpoint>(io, pool, std::make_shared<NullTransport>(),
                                                    log, 1 << 20);
    server::LspServer::Options options;
    options.debounce = std::chrono::milliseconds(0);
    server = std::make_shared<server::LspServer>(endpoint, log, options);
    server->start([this](int) { exited = true; });
    endpoint->receive(protocol::frameMessage(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})"));
    endpoint->receive(protocol::frameMessage(R"({"jsonrpc":"2.0","method":"initialized"})"));
    drain();
  }

  // Waits until every message received so far was handled.
  // The io_context (the server's timers: debounced analyses) is polled while
  // waiting, as the server's io thread runs it: a request that waits for an
  // analysis scheduled on a timer never finished when only the wait ran.
  void drain() {
    std::promise<void> ordered, pooled;
    asio::post(endpoint->orderedQueue(), [&] { ordered.set_value(); });
    waitPolling(ordered.get_future());
    asio::post(pool, [&] { pooled.set_value(); });
    waitPolling(pooled.get_future());
    io.restart();
    io.poll();
  }
  void waitPolling(std::future<void> done) {
    while (done.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
      io.restart();
      io.poll();
    }
  }
};

Harness& harness() {
  static Harness* h = new Harness(); // never destroyed: threads outlive main
  return *h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // 1. Framing alone, split at a point chosen by the input.
  {
    protocol::FrameReader reader(4096);
    size_t split = size ? data[0] % (size + 1) : 0;
    reader.feed(input.substr(0, split));
    while (reader.next()) {
    }
    reader.feed(input.substr(split));
    while (auto ev = reader.next()) {
      if (ev->kind == protocol::FrameEvent::Kind::Message && ev->body.size() > 4096)
        __builtin_trap();
    }
    reader.finish();
  }

  // 2. Dispatch through the real server.
  Harness& h = harness();
  if (!h.endpoint || h.exited || h.endpoint->closed() || ++h.inputs % 500 == 0)
    h.newSession();
  h.endpoint->receive(input);
  h.drain();
  return 0;
}
