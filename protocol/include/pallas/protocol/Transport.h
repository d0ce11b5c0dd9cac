// Byte transports on Boost.Asio: the client's stdin/stdout, or a TCP socket.
// Reading happens on the I/O thread (the one running the io_context) and
// never waits for request handlers; writes may come from any thread and go
// out whole and in call order.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace pallas::protocol {

class Transport {
public:
  using DataHandler = std::function<void(std::string_view)>;
  // Called once, on the I/O thread, when the input ends or fails.
  using CloseHandler = std::function<void(const std::string& reason)>;

  virtual ~Transport() = default;
  virtual void start(DataHandler onData, CloseHandler onClose) = 0;
  // Thread-safe. Dropped once the transport is closed.
  virtual void write(std::string bytes) = 0;
  // Stops reading; pending writes are still flushed.
  virtual void close() = 0;
  virtual std::string describe() const = 0;

  // ---- backpressure (the Endpoint bounds its output with these) ----
  // Bytes given to write() and not sent yet (thread-safe; 0 if unknown).
  virtual size_t queuedBytes() const { return 0; }
  // Stops / resumes reading input; I/O thread only. Bytes already read are
  // still delivered; no new read starts while paused.
  virtual void setReadPaused(bool) {}
  // Runs on the I/O thread each time queued output was sent. Before start().
  void onOutputSent(std::function<void()> handler) { outputSent_ = std::move(handler); }

protected:
  std::function<void()> outputSent_;
};

// stdin/stdout (or any pair of descriptors). Pipes, sockets and terminals go
// through Asio's reactor; a regular file (`< file`) is read by a helper
// thread, since epoll cannot watch it.
std::shared_ptr<Transport> makeStdioTransport(boost::asio::io_context& io, int inFd = 0,
                                              int outFd = 1);
std::shared_ptr<Transport> makeSocketTransport(boost::asio::ip::tcp::socket socket);

} // namespace pallas::protocol
