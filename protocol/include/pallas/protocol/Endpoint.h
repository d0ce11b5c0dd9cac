// A JSON-RPC 2.0 endpoint over a Transport: framing, dispatch to registered
// handlers, replies, cancellation, and requests of our own to the peer.
//
// Threading. Bytes are read and parsed on the I/O thread, which only queues
// work and so never waits for a handler. Every request and notification is
// first queued on the session's *ordered queue* (an Asio strand over the
// pool), in arrival order:
//  - Sequential handlers (all notifications, lifecycle requests) run right
//    there, so document edits are applied one after the other, in order.
//  - Concurrent handlers leave the ordered queue at their turn and run on the
//    pool, so they see every edit sent before them and a slow one blocks
//    nothing behind it.
// The gate (the LSP lifecycle) is asked at each message's turn.
#pragma once

#include "pallas/protocol/Framing.h"
#include "pallas/protocol/JsonRpc.h"
#include "pallas/protocol/Logger.h"
#include "pallas/protocol/Transport.h"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pallas::protocol {

// What a peer that must authenticate (Endpoint::requireToken) may send
// before its token is accepted: an initialize with every capability a
// client has fits several times over.
inline constexpr size_t kMaxUnauthenticatedBytes = 16 * 1024;

// Set by $/cancelRequest (or when the session ends); handlers poll it.
class RequestCancellation {
public:
  RequestCancellation() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return flag_->load(std::memory_order_relaxed); }
  // Throws RpcError(RequestCancelled) when cancelled.
  void check() const;

private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

struct RequestContext {
  RequestId id;
  std::string method;
  RequestCancellation cancel;
};

class Endpoint : public std::enable_shared_from_this<Endpoint> {
public:
  using RequestHandler = std::function<json(const json& params, const RequestContext& ctx)>;
  using NotificationHandler = std::function<void(const json& params)>;
  // ok: `value` is the result; else it is the error object {code, message}.
  using ResponseCallback = std::function<void(bool ok, const json& value)>;
  // Returns an error to refuse a message (requests get it as the reply;
  // refused notifications are dropped) or nullopt to let it through.
  using Gate = std::function<std::optional<RpcError>(const std::string& method, bool isRequest)>;
  enum class Mode { Sequential, Concurrent };

  Endpoint(boost::asio::io_context& io, boost::asio::thread_pool& pool,
           std::shared_ptr<Transport> transport, Logger& logger,
           size_t maxContentLength = kDefaultMaxContentLength);
  ~Endpoint();

  // Registration: before start().
  void onRequest(const std::string& method, RequestHandler handler, Mode mode = Mode::Concurrent);
  void onNotification(const std::string& method, NotificationHandler handler);
  void setGate(Gate gate) { gate_ = std::move(gate); }
  // Every message before an accepted `initialize` is refused unless that
  // initialize carries `initializationOptions.authToken` equal to `token`
  // (compared in constant time, then removed from the params so no handler
  // or log sees it). A refused peer gets one error reply and is
  // disconnected. For TCP connections from other machines (`serve
  // --allow-remote`). Before start().
  // Until the token is accepted the peer gets little: at most
  // kMaxUnauthenticatedBytes of input (a request larger than that, or junk,
  // is refused and the connection closed, so unauthenticated peers cannot
  // make the server buffer 64 MiB each), and `authDeadline` to present it (a
  // peer that sends nothing, or a byte a second, is closed then).
  void requireToken(std::string token) { token_ = std::move(token); }
  void setAuthDeadline(std::chrono::milliseconds deadline) { authDeadline_ = deadline; }
  bool hasRequestHandler(const std::string& method) const;
  // Backpressure: while more than `maxQueuedOutputBytes` of output wait to
  // be sent (a client that does not read), `maxRequestsInFlight` requests
  // are unanswered, or the messages read and not handled yet (notifications
  // waiting on the ordered queue, requests until answered) hold more than
  // `maxQueuedInputBytes` or number `maxQueuedNotifications`, no further
  // message is dispatched and the transport stops reading; reading resumes
  // once output was sent / work was done. So memory stays bounded whatever
  // the peer does (3,000 didChanges of 200 KB each queued 550 MB before the
  // input limits, issue 34). Before start().
  struct FlowLimits {
    size_t maxQueuedOutputBytes = size_t(32) << 20;
    size_t maxRequestsInFlight = 16;
    size_t maxQueuedInputBytes = size_t(32) << 20;
    size_t maxQueuedNotifications = 1024;
  };
  void setFlowLimits(FlowLimits limits) { limits_ = limits; }
  // For tests: whether input is held back now (I/O thread).
  bool inputPaused() const { return inputPaused_; }
  // For tests: messages read and not handled yet, and their bytes.
  size_t queuedInputMessages() const { return queuedNotifications_.load(); }
  size_t queuedInputBytes() const { return queuedInputBytes_.load(); }

  // Starts reading; `onClosed` runs when the input ends, after every message
  // received before the end was dispatched (on the ordered queue).
  void start(std::function<void(const std::string& reason)> onClosed);
  // Stops reading and cancels work in flight; queued output is still sent.
  void close();

  // Thread-safe sends.
  void notify(const std::string& method, json params);
  // A notification whose params are JSON text already (assembled from
  // pieces serialised earlier, e.g. a document's diagnostics).
  void notifyText(const std::string& method, std::string_view paramsJson);
  // The same, the params given as consecutive pieces of text (a large
  // diagnostics array is then copied once, into the framed message).
  void notifyText(const std::string& method, std::initializer_list<std::string_view> paramsParts);
  // A request to the peer; the callback runs on the pool when the matching
  // response arrives (or with an error when the session closes first).
  void call(const std::string& method, json params, ResponseCallback callback);

  // The ordered queue, for work that must run in order with the handlers.
  boost::asio::strand<boost::asio::thread_pool::executor_type>& orderedQueue() { return ordered_; }
  boost::asio::thread_pool& pool() { return pool_; }
  boost::asio::io_context& io() { return io_; }
  Logger& log() { return log_; }
  bool closed() const { return closed_.load(); }
  // Keeps an object (e.g. the session's Logger) alive as long as the endpoint,
  // which queued work holds until it has run.
  void keepAlive(std::shared_ptr<void> object) { keepAlive_.push_back(std::move(object)); }

  // Entry point for raw bytes (the transport calls it; tests and the fuzzer
  // may call it directly on the I/O thread).
  void receive(std::string_view bytes);
  // End of input: reports a truncated message, then `onClosed`.
  void endOfInput(const std::string& reason);

private:
  struct RequestEntry {
    RequestHandler handler;
    Mode mode;
  };

  void handleBody(const std::string& body);
  // Feeds bytes to the framing and dispatches what they complete.
  void feed(std::string_view bytes);
  // Refuses an unauthenticated peer: one error reply, then the connection
  // closes (I/O thread).
  void refusePeer(const json& id, const std::string& why);
  void startAuthDeadline();
  // Counts a message's bytes as queued input until the returned guard (held
  // by the work that handles it) is destroyed.
  std::shared_ptr<void> queuedInput(size_t bytes, bool notification);
  // Dispatches the messages read so far while the flow limits allow (I/O
  // thread); pauses or resumes the transport's reading accordingly.
  void drainInput();
  bool overLimits();
  void resumeInputSoon();
  void dispatchRequest(Request request);
  void dispatchNotification(Notification notification);
  void handleResponse(Response response);
  void runRequest(const RequestHandler& handler, const Request& request,
                  const RequestCancellation& token);
  void reply(const json& message, const RequestId& id);
  void send(const json& message);

  boost::asio::io_context& io_;
  boost::asio::thread_pool& pool_;
  boost::asio::strand<boost::asio::thread_pool::executor_type> ordered_;
  std::shared_ptr<Transport> transport_;
  Logger& log_;
  FrameReader reader_;
  std::function<void(const std::string&)> onClosed_;
  std::unordered_map<std::string, RequestEntry> requests_;
  std::unordered_map<std::string, NotificationHandler> notifications_;
  Gate gate_;
  std::atomic<bool> closed_{false};
  std::string token_;               // empty: no authentication
  bool authenticated_ = false;      // I/O thread only
  size_t unauthenticatedBytes_ = 0; // I/O thread only
  std::chrono::milliseconds authDeadline_{std::chrono::seconds(5)};
  std::shared_ptr<boost::asio::steady_timer> authTimer_;
  std::atomic<size_t> queuedInputBytes_{0};
  std::atomic<size_t> queuedNotifications_{0};
  size_t currentBodyBytes_ = 0; // of the message handleBody is dispatching
  // True when `m` may pass; otherwise the peer was answered and closed.
  bool admit(Message& m);
  std::vector<std::shared_ptr<void>> keepAlive_;
  FlowLimits limits_;
  bool inputPaused_ = false;              // I/O thread only
  std::optional<std::string> inputEnded_; // the end of input, once all is dispatched
  std::atomic<bool> resumePosted_{false};

  std::mutex inflightMutex_;
  std::map<std::string, RequestCancellation> inflight_; // key: id.dump()

  std::mutex pendingMutex_;
  std::map<std::string, ResponseCallback> pending_; // our requests, key: id.dump()
  std::atomic<int64_t> nextId_{1};
};

} // namespace pallas::protocol
