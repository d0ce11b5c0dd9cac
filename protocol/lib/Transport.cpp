#include "pallas/protocol/Transport.h"

#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <deque>
#include <optional>
#include <thread>
#include <unistd.h>

namespace pallas::protocol {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

using Descriptor = asio::posix::stream_descriptor;

// Blocking fallbacks for descriptors epoll cannot watch (regular files).
struct BlockingFd {
  int fd;
  asio::io_context* io;
  // Asio's AsyncReadStream requirement spells the name.
  template <class Buffer, class Handler>
  void async_read_some(Buffer b, Handler h) { // NOLINT(readability-identifier-naming)
    // One helper thread per read; reads only happen one at a time.
    // The work guard keeps io.run() going while the thread waits in read().
    std::thread([fd = fd, io = io, b, h = std::move(h),
                 work = asio::make_work_guard(*io)]() mutable {
      ssize_t n = ::read(fd, b.data(), b.size());
      error_code ec;
      if (n == 0)
        ec = asio::error::eof;
      if (n < 0)
        ec = error_code(errno, boost::system::system_category());
      asio::post(
          *io, [h = std::move(h), ec, n]() mutable { h(ec, n > 0 ? static_cast<size_t>(n) : 0); });
    }).detach();
  }
};

struct BlockingOut {
  int fd;
  asio::io_context* io;
};

template <class Stream, class Handler>
void writeAll(Stream& out, const std::string& bytes, Handler&& h) {
  asio::async_write(out, asio::buffer(bytes), std::forward<Handler>(h));
}

template <class Handler> void writeAll(BlockingOut& out, const std::string& bytes, Handler&& h) {
  size_t done = 0;
  error_code ec;
  while (done < bytes.size()) {
    ssize_t n = ::write(out.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ec = error_code(errno, boost::system::system_category());
      break;
    }
    done += static_cast<size_t>(n);
  }
  asio::post(*out.io, [h = std::forward<Handler>(h), ec, done]() mutable { h(ec, done); });
}

// The shared part: an ordered write queue drained on the I/O thread.
// Out must support async_write_some; In must support async_read_some.
template <class In, class Out>
class StreamTransport : public Transport,
                        public std::enable_shared_from_this<StreamTransport<In, Out>> {
public:
  StreamTransport(asio::io_context& io, In* in, Out* out, std::string name)
      : io_(io), in_(in), out_(out), name_(std::move(name)) {}

  void start(DataHandler onData, CloseHandler onClose) override {
    onData_ = std::move(onData);
    onClose_ = std::move(onClose);
    readMore();
  }

  void write(std::string bytes) override {
    queuedBytes_ += bytes.size();
    asio::post(io_, [self = this->shared_from_this(), bytes = std::move(bytes)]() mutable {
      if (self->outClosed_) {
        self->queuedBytes_ -= bytes.size();
        return;
      }
      self->queue_.push_back(std::move(bytes));
      if (!self->writing_)
        self->writeNext();
    });
  }

  void close() override {
    asio::post(io_, [self = this->shared_from_this()] {
      self->reading_ = false;
      self->closing_ = true;
      self->cancelRead();
      if (!self->writing_)
        self->finishOutput();
    });
  }

  std::string describe() const override { return name_; }

  size_t queuedBytes() const override { return queuedBytes_.load(); }
  void setReadPaused(bool paused) override {
    readPaused_ = paused;
    if (!paused && !readInFlight_)
      readMore();
  }

protected:
  virtual void cancelRead() = 0;
  virtual void finishOutput() { outClosed_ = true; }

  void readMore() {
    if (!reading_ || readPaused_)
      return;
    readInFlight_ = true;
    in_->async_read_some(asio::buffer(buf_),
                         [self = this->shared_from_this()](error_code ec, size_t n) {
                           self->readInFlight_ = false;
                           if (n > 0 && self->reading_)
                             self->onData_({self->buf_.data(), n});
                           if (ec) {
                             self->endInput(ec == asio::error::eof ? "end of input" : ec.message());
                             return;
                           }
                           self->readMore();
                         });
  }

  void endInput(const std::string& reason) {
    bool wasReading = reading_;
    reading_ = false;
    if (!closeReported_) {
      closeReported_ = true;
      if (onClose_)
        onClose_(wasReading ? reason : "closed");
    }
  }

  void writeNext() {
    if (queue_.empty()) {
      writing_ = false;
      // Only close() ends the output: the end of input does not (a client
      // that sends its whole session at once, e.g. `serve < file`, still
      // gets every reply written after its input ended).
      if (closing_)
        finishOutput();
      return;
    }
    writing_ = true;
    writeAll(*out_, queue_.front(), [self = this->shared_from_this()](error_code ec, size_t) {
      self->queuedBytes_ -= self->queue_.front().size();
      self->queue_.pop_front();
      if (ec) {
        // The peer went away: nothing more can be written.
        for (const std::string& left : self->queue_)
          self->queuedBytes_ -= left.size();
        self->queue_.clear();
        self->writing_ = false;
        self->outClosed_ = true;
        if (self->outputSent_)
          self->outputSent_();
        return;
      }
      if (self->outputSent_)
        self->outputSent_();
      self->writeNext();
    });
  }

  asio::io_context& io_;
  In* in_;
  Out* out_;
  std::string name_;
  DataHandler onData_;
  CloseHandler onClose_;
  std::array<char, 64 * 1024> buf_{};
  std::deque<std::string> queue_;
  std::atomic<size_t> queuedBytes_{0}; // in queue_ or posted to it
  bool readPaused_ = false;            // backpressure: no new read
  bool readInFlight_ = false;
  bool writing_ = false;
  bool reading_ = true;
  bool closing_ = false; // close() was called: finish output once drained
  bool outClosed_ = false;
  bool closeReported_ = false;
};

class SocketTransport final : public StreamTransport<asio::ip::tcp::socket, asio::ip::tcp::socket> {
public:
  SocketTransport(asio::io_context& io, asio::ip::tcp::socket socket, std::string name)
      : StreamTransport(io, &socket_, &socket_, std::move(name)), socket_(std::move(socket)) {
    socket_.set_option(asio::ip::tcp::no_delay(true));
  }

private:
  void cancelRead() override {
    error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
  }
  void finishOutput() override {
    StreamTransport::finishOutput();
    error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
  asio::ip::tcp::socket socket_;
};

// stdin/stdout. Each side is an Asio descriptor when the reactor accepts it,
// else the blocking fallback above.
class StdioTransport final : public Transport, public std::enable_shared_from_this<StdioTransport> {
public:
  StdioTransport(asio::io_context& io, int inFd, int outFd) : io_(io) {
    error_code ec;
    auto in = std::make_unique<Descriptor>(io);
    in->assign(inFd, ec);
    if (!ec) {
      // Probe: a regular file registers fine on some kernels but fails reads.
      inDesc_ = std::move(in);
    } else {
      in->release();
      inBlock_ = BlockingFd{inFd, &io};
    }
    auto out = std::make_unique<Descriptor>(io);
    out->assign(outFd, ec);
    if (!ec) {
      outDesc_ = std::move(out);
    } else {
      out->release();
      outBlock_ = BlockingOut{outFd, &io};
    }
  }
  ~StdioTransport() override {
    // Never close the process's stdin/stdout from here.
    if (inDesc_)
      inDesc_->release();
    if (outDesc_)
      outDesc_->release();
  }

  void start(DataHandler onData, CloseHandler onClose) override {
    impl_ = makeImpl();
    impl_->onOutputSent(outputSent_);
    impl_->start(std::move(onData), std::move(onClose));
  }
  void write(std::string bytes) override {
    if (impl_)
      impl_->write(std::move(bytes));
  }
  void close() override {
    if (impl_)
      impl_->close();
  }
  std::string describe() const override { return "stdio"; }
  size_t queuedBytes() const override { return impl_ ? impl_->queuedBytes() : 0; }
  void setReadPaused(bool paused) override {
    if (impl_)
      impl_->setReadPaused(paused);
  }

private:
  template <class In, class Out> class Impl final : public StreamTransport<In, Out> {
  public:
    using StreamTransport<In, Out>::StreamTransport;
    void cancelRead() override {
      if constexpr (std::is_same_v<In, Descriptor>) {
        error_code ec;
        this->in_->cancel(ec);
      }
    }
  };

  std::shared_ptr<Transport> makeImpl() {
    if (inDesc_ && outDesc_)
      return std::make_shared<Impl<Descriptor, Descriptor>>(io_, inDesc_.get(), outDesc_.get(),
                                                            "stdio");
    if (inDesc_)
      return std::make_shared<Impl<Descriptor, BlockingOut>>(io_, inDesc_.get(), &*outBlock_,
                                                             "stdio");
    if (outDesc_)
      return std::make_shared<Impl<BlockingFd, Descriptor>>(io_, &*inBlock_, outDesc_.get(),
                                                            "stdio");
    return std::make_shared<Impl<BlockingFd, BlockingOut>>(io_, &*inBlock_, &*outBlock_, "stdio");
  }

  asio::io_context& io_;
  std::unique_ptr<Descriptor> inDesc_, outDesc_;
  std::optional<BlockingFd> inBlock_;
  std::optional<BlockingOut> outBlock_;
  std::shared_ptr<Transport> impl_;
};

} // namespace

std::shared_ptr<Transport> makeStdioTransport(asio::io_context& io, int inFd, int outFd) {
  return std::make_shared<StdioTransport>(io, inFd, outFd);
}

std::shared_ptr<Transport> makeSocketTransport(asio::ip::tcp::socket socket) {
  error_code ec;
  auto remote = socket.remote_endpoint(ec);
  std::string name =
      ec ? "tcp" : "tcp " + remote.address().to_string() + ":" + std::to_string(remote.port());
  auto& io = static_cast<asio::io_context&>(socket.get_executor().context());
  return std::make_shared<SocketTransport>(io, std::move(socket), std::move(name));
}

} // namespace pallas::protocol
