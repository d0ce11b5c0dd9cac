#include "Serve.h"

#include "pallas/protocol/Endpoint.h"
#include "pallas/protocol/Transport.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <thread>

namespace pallas::server {

namespace asio = boost::asio;

namespace {

// A request that needs its version's analysis (LspServer::snapshotFor)
// waits for it on its pool thread, and analyses run on a pool of their own:
// with a thread for every request the flow limits let in, plus one for the
// ordered queue and one spare, waiting requests never hold back the edits,
// the other requests or the replies behind them.
unsigned poolSize(unsigned requested) {
  unsigned threads = requested ? requested : std::max(2U, std::thread::hardware_concurrency());
  auto waiting = static_cast<unsigned>(protocol::Endpoint::FlowLimits{}.maxRequestsInFlight);
  return std::max(threads, waiting + 2);
}

// The io_context and the pool are deliberately never destroyed. When serving
// ends, handlers still queued on each own objects whose destructors need the
// *other* executor's services (a debounce timer on the io_context holds an
// LspServer whose Endpoint owns a strand on the pool; a close notification
// queued on the pool holds an Endpoint whose transport is registered with the
// io_context's reactor), so no destruction order is safe (ASan found both).
// serve() runs once per process and the process exits right after, so they
// are parked where they stay reachable instead of being torn down.
struct Executors {
  explicit Executors(unsigned threads) : pool(threads) {}
  asio::thread_pool pool;
  asio::io_context io;
};

Executors& executors(unsigned threads) {
  static Executors* parked = new Executors(threads);
  return *parked;
}

int serveStdio(const ServeOptions& options, protocol::Logger& log) {
  Executors& ex = executors(poolSize(options.threads));
  asio::thread_pool& pool = ex.pool;
  asio::io_context& io = ex.io;
  auto transport = protocol::makeStdioTransport(io);
  auto endpoint = std::make_shared<protocol::Endpoint>(io, pool, transport, log);
  auto server = std::make_shared<LspServer>(endpoint, log, options.server);
  int exitCode = 1;
  // io.run() must not return before the session ends: input may be fully
  // read (and the reader gone) while queued messages still wait for the pool.
  auto work = std::make_shared<asio::executor_work_guard<asio::io_context::executor_type>>(
      io.get_executor());
  server->start([&exitCode, &io, work](int code) {
    exitCode = code;
    asio::post(io, [work] { work->reset(); });
  });
  io.run();
  // The client is gone: stop queued work; running handlers see cancellation.
  pool.stop();
  pool.join();
  log.info("exiting with code " + std::to_string(exitCode));
  return exitCode;
}

// One client connection on the TCP listener.
struct Session {
  std::shared_ptr<protocol::Logger> log = std::make_shared<protocol::Logger>();
  std::shared_ptr<protocol::Endpoint> endpoint;
  std::shared_ptr<LspServer> server;
};

class Listener : public std::enable_shared_from_this<Listener> {
public:
  Listener(asio::io_context& io, asio::thread_pool& pool, const ServeOptions& options,
           protocol::Logger& log)
      : io_(io), pool_(pool), options_(options), log_(log), acceptor_(io) {}

  void listen() {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec)
      throw std::runtime_error("invalid listen address '" + options_.host + "'");
    asio::ip::tcp::endpoint at(address, options_.port);
    acceptor_.open(at.protocol());
    acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
    acceptor_.bind(at, ec);
    if (ec)
      throw std::runtime_error("cannot listen on " + options_.host + ":" +
                               std::to_string(options_.port) + ": " + ec.message());
    acceptor_.listen();
    auto local = acceptor_.local_endpoint();
    // Tests and editors started with port 0 read the port from this line.
    std::fprintf(stderr, "pallas-lsp: listening on %s:%u\n", local.address().to_string().c_str(),
                 static_cast<unsigned>(local.port()));
    if (!options_.token.empty())
      std::fprintf(stderr, "pallas-lsp: every connection must present the token "
                           "(initializationOptions.authToken)\n");
    else
      log_.info("TCP on a loopback address: any local user can connect (docs/security.md)");
    std::fflush(stderr);
    accept();
  }

  void stop() {
    boost::system::error_code ec;
    stopped_ = true;
    acceptor_.close(ec);
    retry_.cancel();
    for (auto& s : sessions_)
      s->endpoint->close();
  }

private:
  // The listener never stops on its own: after a failed accept (EMFILE when
  // a burst of connections used every descriptor, ENOBUFS, ...) it tries
  // again after a pause that doubles up to a second (one EMFILE used to end
  // accepting for good: new clients connected and waited forever, issue 34).
  // The pause matters: the pending connection keeps the socket readable, so
  // retrying at once would spin.
  void accept() {
    acceptor_.async_accept(
        [self = shared_from_this()](boost::system::error_code ec, asio::ip::tcp::socket socket) {
          if (self->stopped_ || ec == asio::error::operation_aborted)
            return; // closed
          if (ec == asio::error::connection_aborted) {
            self->accept(); // the peer gave up before we accepted: nothing wrong here
            return;
          }
          if (ec) {
            self->backoff_ = std::min(std::max(self->backoff_ * 2, kFirstBackoff), kMaxBackoff);
            self->log_.warn("accepting a connection failed (" + ec.message() + "); retrying in " +
                            std::to_string(self->backoff_.count()) + " ms");
            self->retry_.expires_after(self->backoff_);
            self->retry_.async_wait([self](boost::system::error_code waitEc) {
              if (!waitEc && !self->stopped_)
                self->accept();
            });
            return;
          }
          self->backoff_ = std::chrono::milliseconds(0);
          if (self->sessions_.size() >= self->options_.maxConnections)
            self->refuse(std::move(socket));
          else
            self->startSession(std::move(socket));
          self->accept();
        });
  }

  // Over the connection limit: one error message, then the socket closes.
  void refuse(asio::ip::tcp::socket socket) {
    boost::system::error_code ec;
    auto peer = socket.remote_endpoint(ec);
    log_.warn("refused a connection from " +
              (ec ? std::string("a client") : peer.address().to_string()) + ": " +
              std::to_string(options_.maxConnections) +
              " connections are open (--max-connections)");
    std::string body = protocol::makeErrorResponse(
                           nullptr, protocol::ErrorCode::RequestFailed,
                           "too many connections: the server already serves " +
                               std::to_string(options_.maxConnections) + " (--max-connections)")
                           .dump();
    std::string message = protocol::frameMessage(body);
    socket.non_blocking(true, ec);
    asio::write(socket, asio::buffer(message), ec); // best effort: never waits for the peer
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  void startSession(asio::ip::tcp::socket socket) {
    auto session = std::make_shared<Session>();
    session->log->setParent(&log_);
    session->log->setLevel(log_.level());
    auto transport = protocol::makeSocketTransport(std::move(socket));
    std::string name = transport->describe();
    session->endpoint = std::make_shared<protocol::Endpoint>(io_, pool_, transport, *session->log);
    session->endpoint->keepAlive(session->log);
    if (!options_.token.empty())
      session->endpoint->requireToken(options_.token);
    session->server =
        std::make_shared<LspServer>(session->endpoint, *session->log, options_.server);
    sessions_.insert(session);
    log_.info("client connected: " + name);
    std::weak_ptr<Listener> weak = shared_from_this();
    std::weak_ptr<Session> weakSession = session;
    session->server->start([weak, weakSession, name](int code) {
      auto self = weak.lock();
      if (!self)
        return;
      // Drop the session on the I/O thread, where its timers live.
      asio::post(self->io_, [self, weakSession, name, code] {
        if (auto s = weakSession.lock())
          self->sessions_.erase(s);
        self->log_.info("client " + name + " ended (exit code " + std::to_string(code) + ")");
      });
    });
  }

  asio::io_context& io_;
  asio::thread_pool& pool_;
  const ServeOptions& options_;
  protocol::Logger& log_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer retry_{io_};
  static constexpr std::chrono::milliseconds kFirstBackoff{10};
  static constexpr std::chrono::milliseconds kMaxBackoff{1000};
  std::chrono::milliseconds backoff_{0};
  bool stopped_ = false;
  std::set<std::shared_ptr<Session>> sessions_;
};

int serveTcp(const ServeOptions& options, protocol::Logger& log) {
  Executors& ex = executors(poolSize(options.threads)); // never destroyed: see Executors
  asio::thread_pool& pool = ex.pool;
  asio::io_context& io = ex.io;
  auto listener = std::make_shared<Listener>(io, pool, options, log);
  listener->listen();
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int sig) {
    if (ec)
      return;
    log.info("signal " + std::to_string(sig) + ": stopping");
    listener->stop();
    io.stop();
  });
  io.run();
  pool.stop();
  pool.join();
  return 0;
}

} // namespace

int serve(const ServeOptions& options) {
  // A client that disappears must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  // Parked like the executors: detached workers (the knowledge extraction a
  // session starts at `initialized`) may still log while the process exits.
  static protocol::Logger* parkedLog = new protocol::Logger();
  protocol::Logger& log = *parkedLog;
  log.setLevel(options.logLevel);
  if (!options.logFile.empty() && !log.openFile(options.logFile))
    throw std::runtime_error("cannot open log file " + options.logFile);
  return options.tcp ? serveTcp(options, log) : serveStdio(options, log);
}

} // namespace pallas::server
