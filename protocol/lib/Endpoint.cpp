#include "pallas/protocol/Endpoint.h"

#include <boost/asio/post.hpp>
#include <chrono>

namespace pallas::protocol {

namespace asio = boost::asio;

void RequestCancellation::check() const {
  if (cancelled())
    throw RpcError(ErrorCode::RequestCancelled, "request cancelled");
}

Endpoint::Endpoint(asio::io_context& io, asio::thread_pool& pool,
                   std::shared_ptr<Transport> transport, Logger& logger, size_t maxContentLength)
    : io_(io), pool_(pool), ordered_(asio::make_strand(pool.get_executor())),
      transport_(std::move(transport)), log_(logger), reader_(maxContentLength) {}

Endpoint::~Endpoint() = default;

void Endpoint::onRequest(const std::string& method, RequestHandler handler, Mode mode) {
  requests_[method] = RequestEntry{std::move(handler), mode};
}

void Endpoint::onNotification(const std::string& method, NotificationHandler handler) {
  notifications_[method] = std::move(handler);
}

bool Endpoint::hasRequestHandler(const std::string& method) const {
  return requests_.count(method) != 0;
}

void Endpoint::start(std::function<void(const std::string&)> onClosed) {
  onClosed_ = std::move(onClosed);
  if (!token_.empty())
    startAuthDeadline();
  std::weak_ptr<Endpoint> weak = weak_from_this();
  transport_->onOutputSent([weak] {
    if (auto self = weak.lock(); self && self->inputPaused_)
      self->drainInput();
  });
  transport_->start(
      [weak](std::string_view bytes) {
        if (auto self = weak.lock())
          self->receive(bytes);
      },
      [weak](const std::string& reason) {
        if (auto self = weak.lock())
          self->endOfInput(reason);
      });
}

void Endpoint::close() {
  if (closed_.exchange(true))
    return;
  {
    std::lock_guard lock(inflightMutex_);
    for (auto& [id, token] : inflight_)
      token.cancel();
  }
  std::map<std::string, ResponseCallback> pending;
  {
    std::lock_guard lock(pendingMutex_);
    pending.swap(pending_);
  }
  for (auto& [id, cb] : pending) {
    asio::post(pool_, [cb] {
      cb(false, json{{"code", static_cast<int>(ErrorCode::InternalError)},
                     {"message", "the connection closed before the response arrived"}});
    });
  }
  transport_->close();
}

void Endpoint::receive(std::string_view bytes) {
  if (token_.empty() || authenticated_) {
    feed(bytes);
    return;
  }
  if (closed_)
    return; // a refused peer: nothing more is read
  // Before the token: only the first kMaxUnauthenticatedBytes of the
  // connection are read; they must hold the initialize that carries it.
  size_t room =
      kMaxUnauthenticatedBytes - std::min(unauthenticatedBytes_, kMaxUnauthenticatedBytes);
  std::string_view head = bytes.substr(0, room);
  unauthenticatedBytes_ += head.size();
  feed(head);
  if (authenticated_) {
    feed(bytes.substr(head.size()));
    return;
  }
  if (!closed_ && bytes.size() > head.size())
    refusePeer(nullptr,
               "authentication required: more than " +
                   std::to_string(kMaxUnauthenticatedBytes / 1024) +
                   " KiB arrived before an initialize with initializationOptions.authToken "
                   "(see docs/security.md)");
}

void Endpoint::feed(std::string_view bytes) {
  if (bytes.empty())
    return;
  reader_.feed(bytes);
  drainInput();
}

void Endpoint::startAuthDeadline() {
  authTimer_ = std::make_shared<asio::steady_timer>(io_, authDeadline_);
  std::weak_ptr<Endpoint> weak = weak_from_this();
  authTimer_->async_wait([weak](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (ec || !self || self->authenticated_ || self->closed_)
      return;
    auto ms = self->authDeadline_.count();
    self->refusePeer(nullptr, "authentication required: no initialize with "
                              "initializationOptions.authToken within " +
                                  (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s"
                                                  : std::to_string(ms) + " ms") +
                                  " of connecting (see docs/security.md)");
  });
}

void Endpoint::refusePeer(const json& id, const std::string& why) {
  log_.warn("refused an unauthenticated client (" + transport_->describe() + "): " + why);
  send(makeErrorResponse(id, ErrorCode::RequestFailed, why));
  close();
}

std::shared_ptr<void> Endpoint::queuedInput(size_t bytes, bool notification) {
  queuedInputBytes_ += bytes;
  if (notification)
    ++queuedNotifications_;
  std::weak_ptr<Endpoint> weak = weak_from_this();
  struct Release {
    Release(std::weak_ptr<Endpoint> e, size_t b, bool n)
        : endpoint(std::move(e)), bytes(b), notification(n) {}
    Release(const Release&) = delete; // only the one shared_ptr releases
    Release& operator=(const Release&) = delete;
    std::weak_ptr<Endpoint> endpoint;
    size_t bytes;
    bool notification;
    ~Release() {
      if (auto self = endpoint.lock()) {
        self->queuedInputBytes_ -= bytes;
        if (notification)
          --self->queuedNotifications_;
        self->resumeInputSoon();
      }
    }
  };
  return std::make_shared<Release>(weak, bytes, notification);
}

bool Endpoint::overLimits() {
  if (transport_->queuedBytes() > limits_.maxQueuedOutputBytes)
    return true;
  if (queuedInputBytes_.load() > limits_.maxQueuedInputBytes ||
      queuedNotifications_.load() >= limits_.maxQueuedNotifications)
    return true;
  std::lock_guard lock(inflightMutex_);
  return inflight_.size() >= limits_.maxRequestsInFlight;
}

void Endpoint::drainInput() {
  for (;;) {
    if (overLimits()) {
      if (!inputPaused_) {
        inputPaused_ = true;
        transport_->setReadPaused(true);
        log_.debug("output queue full or too many requests in flight: input paused");
      }
      return;
    }
    auto ev = reader_.next();
    if (!ev)
      break;
    if (ev->kind == FrameEvent::Kind::Error) {
      log_.warn("framing error: " + ev->error);
      send(makeErrorResponse(nullptr, ErrorCode::ParseError, "framing error: " + ev->error));
      continue;
    }
    handleBody(ev->body);
  }
  if (inputPaused_) {
    inputPaused_ = false;
    transport_->setReadPaused(false);
    log_.debug("input resumed");
  }
  if (inputEnded_) {
    std::string reason = std::move(*inputEnded_);
    inputEnded_.reset();
    endOfInput(reason);
  }
}

// A reply went out: let held-back input through (on the I/O thread).
void Endpoint::resumeInputSoon() {
  if (resumePosted_.exchange(true))
    return;
  std::weak_ptr<Endpoint> weak = weak_from_this();
  asio::post(io_, [weak] {
    if (auto self = weak.lock()) {
      self->resumePosted_ = false;
      if (self->inputPaused_)
        self->drainInput();
    }
  });
}

void Endpoint::endOfInput(const std::string& reason) {
  if (inputPaused_) {
    // Messages are still held back: the end comes after them.
    inputEnded_ = reason;
    return;
  }
  if (auto ev = reader_.finish())
    log_.warn("framing error: " + ev->error);
  // Behind every message already received (e.g. a final shutdown + exit).
  auto self = shared_from_this();
  asio::post(ordered_, [self, reason] {
    if (self->onClosed_)
      self->onClosed_(reason);
  });
}

void Endpoint::handleBody(const std::string& body) {
  if (!token_.empty() && closed_)
    return; // a refused peer: nothing more is read
  currentBodyBytes_ = body.size();
  if (auto at = findExcessNesting(body)) {
    // Refused before parsing (see kMaxJsonDepth); a request still gets its
    // answer, so the client does not wait for it.
    std::string why = "message nests arrays/objects deeper than " + std::to_string(kMaxJsonDepth) +
                      " levels (at byte " + std::to_string(*at) + "); refused";
    log_.warn(why);
    send(makeErrorResponse(idOfDeepMessage(body), ErrorCode::InvalidRequest, why));
    return;
  }
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    // parse_error, but also out_of_range for numbers like 1E999 (found by
    // fuzz_protocol: it used to escape and terminate the server).
    // If the next message's header is inside this body, the body was shorter
    // than its Content-Length said: resume reading at that header.
    size_t next = findContentLengthHeader(body);
    if (next != std::string::npos) {
      reader_.unread(std::string_view(body).substr(next));
      std::string why = "message body shorter than its Content-Length (truncated); "
                        "resynchronised on the next header";
      log_.warn(why);
      send(makeErrorResponse(nullptr, ErrorCode::ParseError, why));
      return;
    }
    std::string why = std::string("invalid JSON: ") + e.what();
    log_.warn(why);
    send(makeErrorResponse(nullptr, ErrorCode::ParseError, why));
    return;
  }
  Message m = classifyMessage(std::move(j));
  if (!token_.empty() && !authenticated_ && !admit(m))
    return;
  if (auto* invalid = std::get_if<InvalidMessage>(&m)) {
    log_.warn("invalid JSON-RPC message: " + invalid->reason);
    send(makeErrorResponse(invalid->id, ErrorCode::InvalidRequest,
                           "invalid JSON-RPC message: " + invalid->reason));
  } else if (auto* req = std::get_if<Request>(&m)) {
    dispatchRequest(std::move(*req));
  } else if (auto* note = std::get_if<Notification>(&m)) {
    dispatchNotification(std::move(*note));
  } else if (auto* resp = std::get_if<Response>(&m)) {
    handleResponse(std::move(*resp));
  }
}

namespace {

// Equal secrets, in time that depends on the given length only (not on
// where the two differ).
bool sameSecret(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() != expected.size() ? 1 : 0;
  for (size_t i = 0; i < given.size(); ++i)
    diff |= static_cast<unsigned char>(given[i] ^ (i < expected.size() ? expected[i] : 0));
  return diff == 0 && !expected.empty();
}

} // namespace

bool Endpoint::admit(Message& m) {
  auto* request = std::get_if<Request>(&m);
  std::string why = "authentication required: the first message must be initialize with "
                    "initializationOptions.authToken (see docs/security.md)";
  if (request && request->method == "initialize" && request->params.is_object()) {
    auto options = request->params.find("initializationOptions");
    if (options != request->params.end() && options->is_object()) {
      auto token = options->find("authToken");
      if (token != options->end() && token->is_string()) {
        bool ok = sameSecret(token->get_ref<const std::string&>(), token_);
        options->erase("authToken"); // no handler or log sees it
        if (ok) {
          authenticated_ = true;
          if (authTimer_)
            authTimer_->cancel();
          return true;
        }
        why = "authentication failed: wrong initializationOptions.authToken";
      }
    }
  }
  refusePeer(request ? json(request->id) : json(nullptr), why);
  return false;
}

void Endpoint::dispatchRequest(Request request) {
  if (closed_)
    return;
  log_.debug("<-- " + request.method + "(" + request.id.dump() + ")");
  std::string key = request.id.dump();
  RequestCancellation token;
  {
    std::lock_guard lock(inflightMutex_);
    if (!inflight_.emplace(key, token).second) {
      send(makeErrorResponse(request.id, ErrorCode::InvalidRequest,
                             "request id " + key + " is already in use by a request in flight"));
      return;
    }
  }
  auto self = shared_from_this();
  // Counted as queued input until it is answered (the closures hold it).
  auto held = queuedInput(currentBodyBytes_, false);
  asio::post(ordered_, [self, request = std::move(request), token, held]() mutable {
    if (self->gate_) {
      if (auto refusal = self->gate_(request.method, true)) {
        self->reply(makeErrorResponse(request.id, refusal->code, refusal->what(), refusal->data),
                    request.id);
        return;
      }
    }
    auto it = self->requests_.find(request.method);
    if (it == self->requests_.end()) {
      self->reply(makeErrorResponse(request.id, ErrorCode::MethodNotFound,
                                    "method not found: " + request.method),
                  request.id);
      return;
    }
    if (it->second.mode == Mode::Sequential) {
      self->runRequest(it->second.handler, request, token);
    } else {
      asio::post(self->pool_, [self, handler = &it->second.handler, request = std::move(request),
                               token, held]() { self->runRequest(*handler, request, token); });
    }
  });
}

void Endpoint::runRequest(const RequestHandler& handler, const Request& request,
                          const RequestCancellation& token) {
  auto started = std::chrono::steady_clock::now();
  json message;
  try {
    token.check();
    RequestContext ctx{request.id, request.method, token};
    json result = handler(request.params, ctx);
    // A cancelled request gets the cancellation error even if the handler
    // finished: the client has already dropped it.
    token.check();
    message = makeResponse(request.id, std::move(result));
  } catch (const RpcError& e) {
    message = makeErrorResponse(request.id, e.code, e.what(), e.data);
  } catch (const std::exception& e) {
    log_.error(request.method + " failed: " + e.what());
    message = makeErrorResponse(request.id, ErrorCode::InternalError,
                                request.method + " failed: " + e.what());
  }
  if (log_.enabled(LogLevel::Debug)) {
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count();
    log_.debug("--> reply " + request.method + "(" + request.id.dump() + ") " + std::to_string(ms) +
               " ms" + (message.contains("error") ? " [error]" : ""));
  }
  reply(message, request.id);
}

void Endpoint::reply(const json& message, const RequestId& id) {
  {
    std::lock_guard lock(inflightMutex_);
    inflight_.erase(id.dump());
  }
  send(message);
  resumeInputSoon();
}

void Endpoint::dispatchNotification(Notification notification) {
  if (notification.method == "$/cancelRequest") {
    // Handled on the I/O thread, ahead of the queue: it must reach work that
    // is queued or running.
    const json* id = notification.params.is_object() && notification.params.contains("id")
                         ? &notification.params["id"]
                         : nullptr;
    if (!id || !(id->is_string() || id->is_number_integer())) {
      log_.warn("$/cancelRequest without a valid id");
      return;
    }
    std::lock_guard lock(inflightMutex_);
    auto it = inflight_.find(id->dump());
    if (it != inflight_.end()) {
      it->second.cancel();
      log_.debug("cancelled request " + id->dump());
    }
    return;
  }
  if (closed_)
    return;
  log_.debug("<-- " + notification.method);
  auto self = shared_from_this();
  // Counted as queued input until its handler has run (issue 34: without
  // it, full-text didChanges piled up on the ordered queue without bound).
  auto held = queuedInput(currentBodyBytes_, true);
  asio::post(ordered_, [self, notification = std::move(notification), held] {
    if (self->gate_) {
      if (auto refusal = self->gate_(notification.method, false)) {
        self->log_.debug("dropped notification " + notification.method + ": " + refusal->what());
        return;
      }
    }
    auto it = self->notifications_.find(notification.method);
    if (it == self->notifications_.end()) {
      // "$/" notifications are optional by spec; others are worth a note.
      if (notification.method.rfind("$/", 0) != 0)
        self->log_.info("unhandled notification " + notification.method);
      return;
    }
    try {
      it->second(notification.params);
    } catch (const RpcError& e) {
      self->log_.error(notification.method + ": " + e.what());
    } catch (const std::exception& e) {
      self->log_.error(notification.method + " failed: " + e.what());
    }
  });
}

void Endpoint::handleResponse(Response response) {
  ResponseCallback cb;
  {
    std::lock_guard lock(pendingMutex_);
    auto it = pending_.find(response.id.dump());
    if (it != pending_.end()) {
      cb = std::move(it->second);
      pending_.erase(it);
    }
  }
  if (!cb) {
    log_.warn("response to unknown request id " + response.id.dump());
    return;
  }
  asio::post(pool_, [cb = std::move(cb), response = std::move(response)] {
    cb(response.ok, response.ok ? response.result : response.error);
  });
}

void Endpoint::notify(const std::string& method, json params) {
  send(makeNotification(method, std::move(params)));
}

void Endpoint::notifyText(const std::string& method, std::string_view paramsJson) {
  notifyText(method, std::initializer_list<std::string_view>{paramsJson});
}

void Endpoint::notifyText(const std::string& method,
                          std::initializer_list<std::string_view> paramsParts) {
  std::string name = json(method).dump();
  std::vector<std::string_view> parts{R"({"jsonrpc":"2.0","method":)", name, R"(,"params":)"};
  parts.insert(parts.end(), paramsParts.begin(), paramsParts.end());
  parts.push_back("}");
  transport_->write(frameMessageParts(parts));
}

void Endpoint::call(const std::string& method, json params, ResponseCallback callback) {
  int64_t id = nextId_++;
  {
    std::lock_guard lock(pendingMutex_);
    pending_[json(id).dump()] = std::move(callback);
  }
  send(makeRequest(id, method, std::move(params)));
}

void Endpoint::send(const json& message) {
  // Invalid UTF-8 in a string (e.g. from a file on disk) is replaced rather
  // than failing the whole message.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  transport_->write(frameMessage(body));
}

} // namespace pallas::protocol
