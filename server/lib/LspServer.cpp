#include "LspServer.h"

#include "pallas/support/Uri.h"

#include <thread>

namespace pallas::server {

using protocol::ErrorCode;
using protocol::RpcError;
using V = json::value_t;

// ---- feature registry ----------------------------------------------------

// ---- Progress --------------------------------------------------------------

// ---- LspServer -------------------------------------------------------------

LspServer::LspServer(std::shared_ptr<protocol::Endpoint> endpoint, protocol::Logger& logger,
                     Options options)
    : endpoint_(std::move(endpoint)), log_(logger), options_(std::move(options)) {}

LspServer::~LspServer() = default;

std::string LspServer::documentPath(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  return support::uriToPath(uri.get<std::string>());
}

// Handlers hold the server alive while they run (so they may capture `this`
// or LspServer&), but do not keep a finished session alive.
void LspServer::addRequest(const std::string& method, RequestHandler handler, Mode mode) {
  endpoint_->onRequest(
      method,
      [weak = weak_from_this(), method, handler = std::move(handler)](const json& p,
                                                                      const RequestContext& ctx) {
        auto keep = weak.lock();
        if (!keep)
          throw RpcError(ErrorCode::InternalError, "the session has ended");
        // Middleware is registered before start and never changes after it.
        std::function<json(size_t, const json&)> call = [&](size_t i, const json& params) {
          if (i == keep->requestMiddleware_.size())
            return handler(params, ctx);
          return keep->requestMiddleware_[i](
              method, params, ctx, [&, i](const json& next) { return call(i + 1, next); });
        };
        return call(0, p);
      },
      mode);
}
void LspServer::addNotification(const std::string& method, NotificationHandler handler) {
  endpoint_->onNotification(method,
                            [weak = weak_from_this(), handler = std::move(handler)](const json& p) {
                              if (auto keep = weak.lock())
                                handler(p);
                            });
}
void LspServer::addCommand(const std::string& command, CommandHandler handler) {
  commands_[command] = std::move(handler);
}
void LspServer::addCodeLensProvider(CodeLensProvider provider) {
  codeLensProviders_.push_back(std::move(provider));
}
void LspServer::addCapabilities(const json& capabilities) {
  extraCapabilities_.merge_patch(capabilities);
}
void LspServer::onInitialized(std::function<void()> callback) {
  initializedCallbacks_.push_back(std::move(callback));
}
void LspServer::addDiagnosticsProvider(DiagnosticsProvider provider) {
  diagnosticsProviders_.push_back(std::move(provider));
}
void LspServer::onConfiguration(ConfigurationListener listener) {
  configurationListeners_.push_back(std::move(listener));
}
void LspServer::addRequestMiddleware(RequestMiddleware middleware) {
  requestMiddleware_.push_back(std::move(middleware));
}
void LspServer::addPublishInterceptor(PublishInterceptor interceptor) {
  publishInterceptors_.push_back(std::move(interceptor));
}

void LspServer::notifyConfiguration(const json& settings) {
  for (auto& listener : configurationListeners_) {
    try {
      listener(settings);
    } catch (const std::exception& e) {
      log_.error(std::string("a configuration listener failed: ") + e.what());
    }
  }
}

// Analyses run on threads of their own, not on the request pool: requests
// that wait for their version's snapshot (snapshotFor) must never hold every
// thread the analysis they wait for needs. One pool for the process (TCP
// sessions share it), never destroyed: its last task may be the one that
// drops the last reference to a server.
boost::asio::thread_pool& analysisPool() {
  static auto* pool =
      new boost::asio::thread_pool(std::max(2U, std::thread::hardware_concurrency()));
  return *pool;
}

void LspServer::start(std::function<void(int)> onExit) {
  onExit_ = std::move(onExit);
  scheduler_ = std::make_unique<DocumentScheduler>(endpoint_->io(), analysisPool());
  installBuiltins();
  for (const ServerFeature& f : registeredFeatures()) {
    log_.debug("installing feature " + f.name);
    f.install(*this);
  }
  // Log records reach the client as window/logMessage (info and above).
  std::weak_ptr<protocol::Endpoint> weak = endpoint_;
  log_.setSink(
      [weak](protocol::LogLevel level, const std::string& message) {
        if (auto ep = weak.lock(); ep && !ep->closed())
          ep->notify("window/logMessage",
                     json{{"type", static_cast<int>(level)}, {"message", message}});
      },
      protocol::LogLevel::Info);
  endpoint_->setGate(
      [this](const std::string& method, bool isRequest) { return gate(method, isRequest); });
  // Weak: whoever runs the session owns the server (no cycle through the
  // endpoint's callbacks).
  std::weak_ptr<LspServer> weakSelf = weak_from_this();
  endpoint_->start([weakSelf](const std::string& reason) {
    auto self = weakSelf.lock();
    if (!self)
      return;
    self->log_.info("connection closed (" + reason + ")");
    self->finish(self->state_ == State::ShutDown ? 0 : 1);
  });
}

std::optional<RpcError> LspServer::gate(const std::string& method, bool isRequest) {
  if (method == "exit")
    return std::nullopt;
  switch (state_.load()) {
  case State::Uninitialized:
    if (method == "initialize")
      return std::nullopt;
    return RpcError(ErrorCode::ServerNotInitialized,
                    "server not initialized: '" + method + "' was sent before initialize");
  case State::ShutDown:
    return RpcError(ErrorCode::InvalidRequest, "server is shut down: '" + method +
                                                   "' was sent after shutdown (only exit is "
                                                   "accepted)");
  case State::Initialized:
    if (method == "initialize")
      return RpcError(ErrorCode::InvalidRequest, "initialize may only be sent once");
    return std::nullopt;
  }
  return std::nullopt;
}

void LspServer::installBuiltins() {
  auto self = this; // handlers never outlive the server: the endpoint holds them
  addRequest(
      "initialize", [self](const json& p, const RequestContext&) { return self->initialize(p); },
      Mode::Sequential);
  addNotification("initialized", [self](const json&) { self->initialized(); });
  addRequest(
      "shutdown",
      [self](const json&, const RequestContext&) {
        self->state_ = State::ShutDown;
        self->scheduler_->stopAll(); // drop pending analysis, stop the running ones
        return json(nullptr);
      },
      Mode::Sequential);
  addNotification("exit",
                  [self](const json&) { self->finish(self->state_ == State::ShutDown ? 0 : 1); });
  addNotification("textDocument/didOpen", [self](const json& p) { self->didOpen(p); });
  addNotification("textDocument/didChange", [self](const json& p) { self->didChange(p); });
  addNotification("textDocument/didClose", [self](const json& p) { self->didClose(p); });
  addNotification("textDocument/didSave", [self](const json& p) { self->didSave(p); });
  addNotification("workspace/didChangeWatchedFiles",
                  [self](const json& p) { self->didChangeWatchedFiles(p); });
  addNotification("workspace/didChangeConfiguration", [self](const json& p) {
    if (p.is_object() && p.contains("settings") && p["settings"].is_object())
      self->notifyConfiguration(p["settings"]);
    self->requestConfiguration();
  });
  addNotification("window/workDoneProgress/cancel", [self](const json& p) {
    const json& token = protocol::requireField(p, "token", V::string);
    std::lock_guard lock(self->progressMutex_);
    if (auto it = self->progress_.find(token.get<std::string>()); it != self->progress_.end())
      if (auto progress = it->second.lock())
        progress->cancelled_ = true;
  });
  addRequest("textDocument/diagnostic", [self](const json& p, const RequestContext& ctx) {
    return self->pullDiagnostics(p, ctx);
  });
  addRequest("workspace/diagnostic", [self](const json& p, const RequestContext& ctx) {
    return self->workspaceDiagnostics(p, ctx);
  });
  addRequest("pallas/mlir",
             [self](const json& p, const RequestContext& ctx) { return self->mlir(p, ctx); });
  addRequest("workspace/executeCommand", [self](const json& p, const RequestContext& ctx) {
    return self->executeCommand(p, ctx);
  });
  addRequest("textDocument/codeLens",
             [self](const json& p, const RequestContext&) { return self->codeLens(p); });

  if (options_.testMethods) {
    // Test-only: a slow request that honours cancellation.
    addRequest("pallas/test/sleep", [](const json& p, const RequestContext& ctx) {
      auto ms = protocol::requireField(p, "ms", V::number_integer).get<int64_t>();
      auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      while (std::chrono::steady_clock::now() < until) {
        ctx.cancel.check();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      return json{{"slept", ms}};
    });
    // Test-only: holds the ordered queue (every message read after it
    // waits) for `ms`, as a slow edit would, so transcripts can see the
    // input limits at work.
    addRequest(
        "pallas/test/holdQueue",
        [](const json& p, const RequestContext&) {
          auto ms = protocol::requireField(p, "ms", V::number_integer).get<int64_t>();
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
          return json{{"held", ms}};
        },
        Mode::Sequential);
    // Test-only: the draft and the Project's copy of a document, so that
    // transcripts can check how edits were applied.
    addRequest("pallas/test/documentText", [self](const json& p, const RequestContext&) {
      std::string path = documentPath(p);
      auto doc = self->documents_.get(path);
      // known: the project keeps it (open or read from disk); projectOpen:
      // the project holds it as an open document.
      json out{{"open", doc.has_value()},
               {"known", self->project_->isIndexed(path)},
               {"projectOpen", self->project_->hasDocument(path)}};
      if (doc)
        out["draft"] = doc->text, out["version"] = doc->version;
      if (self->project_->isIndexed(path))
        out["project"] = self->project_->documentText(path);
      return out;
    });
    installAnalysisTestMethods();
    // Test-only: a work-done progress and a showMessage, as features use them.
    addRequest("pallas/test/progress", [self](const json& p, const RequestContext&) {
      auto progress = self->beginProgress("pallas test progress");
      progress->report("halfway", 50);
      progress->end("done");
      self->showMessage(MessageType::Info, "progress token " + progress->token());
      return json{{"token", progress->token()}};
    });
  }
}

json LspServer::mlir(const json& params, const RequestContext& ctx) {
  std::string path = documentPath(params);
  auto notOpen = [&] {
    return RpcError(ErrorCode::InvalidParams, "pallas/mlir: the document is not open: " + path);
  };
  if (!documents_.isOpen(path))
    throw notOpen();
  // The module of the version the request refers to, from that version's
  // snapshot: an analysis of another document (or a later edit's) holding
  // the Project's lock does not delay it once the version was printed.
  for (;;) {
    SnapshotPtr snap = snapshotFor(path, SnapshotNeed::Analysed, ctx);
    if (!snap)
      throw notOpen();
    std::shared_ptr<const std::string> text = snap->mlir->get();
    if (!text) {
      // The first request for this version prints it. The Project holds
      // the draft's version (edits reach it on the ordered queue before a
      // later request runs): the text is this snapshot's unless the draft
      // moved on meanwhile, and then the newer version's snapshot answers.
      auto current = [&] {
        auto doc = documents_.get(path);
        return doc && doc->version == snap->version;
      };
      if (!current())
        continue; // snapshotFor waits for the newer version's analysis
      auto printed = std::make_shared<const std::string>(project_->mlirText(path));
      ctx.cancel.check();
      if (!current())
        continue;
      text = snap->mlir->put(std::move(printed));
    }
    return json{{"mlir", *text},
                {"version", snap->version},
                {"functionsTotal", snap->stats.functionsTotal},
                {"functionsRelowered", snap->stats.functionsRelowered}};
  }
}

json LspServer::executeCommand(const json& params, const RequestContext& ctx) {
  const json& command = protocol::requireField(params, "command", V::string);
  const json* args = protocol::optionalField(params, "arguments", V::array);
  auto it = commands_.find(command.get<std::string>());
  if (it == commands_.end())
    throw RpcError(ErrorCode::InvalidParams, "unknown command: " + command.get<std::string>());
  return it->second(args ? *args : json::array(), ctx);
}

json LspServer::codeLens(const json& params) {
  std::string path = documentPath(params);
  json lenses = json::array();
  auto doc = documents_.get(path);
  if (!doc)
    return lenses;
  for (auto& provider : codeLensProviders_) {
    json more = provider(*this, *doc);
    if (more.is_array())
      for (auto& l : more)
        lenses.push_back(std::move(l));
  }
  return lenses;
}

void LspServer::refreshCodeLenses() {
  if (client_.codeLensRefresh)
    endpoint_->call("workspace/codeLens/refresh", nullptr, [](bool, const json&) {});
}

void LspServer::showMessage(MessageType type, const std::string& message) {
  endpoint_->notify("window/showMessage",
                    json{{"type", static_cast<int>(type)}, {"message", message}});
}

void LspServer::logMessage(MessageType type, const std::string& message) {
  endpoint_->notify("window/logMessage",
                    json{{"type", static_cast<int>(type)}, {"message", message}});
}

void LspServer::finish(int exitCode) {
  if (finished_.exchange(true))
    return;
  stopIndexing_->store(true);
  if (scheduler_)
    scheduler_->stopAll();
  log_.clearSink();
  endpoint_->close();
  if (onExit_)
    onExit_(exitCode);
}

} // namespace pallas::server
