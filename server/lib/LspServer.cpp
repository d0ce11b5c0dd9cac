#include "LspServer.h"

#include "pallas/analysis/SourceFile.h"
#include "pallas/protocol/Uri.h"

#include <boost/asio/post.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#ifndef PALLAS_LSP_VERSION
#define PALLAS_LSP_VERSION "0.0.0"
#endif

namespace pallas::server {

namespace asio = boost::asio;
using protocol::ErrorCode;
using protocol::RpcError;
using V = json::value_t;

// Reads a regular file of bounded size (never a device, FIFO or huge file
// named by a client URI).
static std::optional<std::string> readFileBounded(const std::string& path, std::string* why) {
  return analysis::readSourceFile(path, why, protocol::kDefaultMaxContentLength);
}

// ---- feature registry ----------------------------------------------------

static std::vector<Feature>& featureRegistry() {
  static std::vector<Feature> features; // function-local: static init order safe
  return features;
}
void registerFeature(Feature feature) {
  featureRegistry().push_back(std::move(feature));
}
const std::vector<Feature>& registeredFeatures() {
  return featureRegistry();
}

// ---- Progress --------------------------------------------------------------

void Progress::send(json value) {
  std::lock_guard lock(mutex_);
  if (state_ == State::Dropped || state_ == State::Ended)
    return;
  if (value["kind"] == "end")
    state_ = state_ == State::Ready ? State::Ended : state_;
  if (state_ == State::Pending) {
    queued_.push_back(std::move(value));
    return;
  }
  endpoint_->notify("$/progress", json{{"token", token_}, {"value", std::move(value)}});
}

void Progress::report(const std::string& message, std::optional<unsigned> percentage) {
  json v{{"kind", "report"}, {"message", message}};
  if (percentage)
    v["percentage"] = std::min(*percentage, 100u);
  send(std::move(v));
}

void Progress::end(const std::string& message) {
  json v{{"kind", "end"}};
  if (!message.empty())
    v["message"] = message;
  send(std::move(v));
}

// ---- LspServer -------------------------------------------------------------

LspServer::LspServer(std::shared_ptr<protocol::Endpoint> endpoint, protocol::Logger& logger,
                     Options options)
    : endpoint_(std::move(endpoint)), log_(logger), options_(std::move(options)) {}

LspServer::~LspServer() = default;

std::string LspServer::documentPath(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  return protocol::uriToPath(uri.get<std::string>());
}

// Handlers hold the server alive while they run (so they may capture `this`
// or LspServer&), but do not keep a finished session alive.
void LspServer::addRequest(const std::string& method, RequestHandler handler, Mode mode) {
  endpoint_->onRequest(
      method,
      [weak = weak_from_this(), handler = std::move(handler)](const json& p,
                                                              const RequestContext& ctx) {
        auto keep = weak.lock();
        if (!keep)
          throw RpcError(ErrorCode::InternalError, "the session has ended");
        return handler(p, ctx);
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

void LspServer::notifyConfiguration(const json& settings) {
  for (auto& listener : configurationListeners_) {
    try {
      listener(settings);
    } catch (const std::exception& e) {
      log_.error(std::string("a configuration listener failed: ") + e.what());
    }
  }
}

json LspServer::withExtraDiagnostics(const std::string& path, json diagnostics) {
  if (diagnosticsProviders_.empty())
    return diagnostics;
  auto doc = documents_.get(path);
  if (!doc)
    return diagnostics;
  for (auto& provider : diagnosticsProviders_) {
    json more = provider(*doc);
    if (more.is_array())
      for (auto& d : more)
        diagnostics.push_back(std::move(d));
  }
  return diagnostics;
}

void LspServer::start(std::function<void(int)> onExit) {
  onExit_ = std::move(onExit);
  scheduler_ = std::make_unique<DocumentScheduler>(endpoint_->io(), endpoint_->pool());
  installBuiltins();
  for (const Feature& f : registeredFeatures()) {
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
  addRequest("pallas/mlir", [self](const json& p, const RequestContext&) { return self->mlir(p); });
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
    // Test-only: the draft and the Project's copy of a document, so that
    // transcripts can check how edits were applied.
    addRequest("pallas/test/documentText", [self](const json& p, const RequestContext&) {
      std::string path = documentPath(p);
      auto doc = self->documents_.get(path);
      json out{{"open", doc.has_value()}, {"known", self->project_->hasDocument(path)}};
      if (doc)
        out["draft"] = doc->text, out["version"] = doc->version;
      if (self->project_->hasDocument(path))
        out["project"] = self->project_->documentText(path);
      return out;
    });
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

json LspServer::initialize(const json& params) {
  protocol::requireObject(params);
  const json* caps = protocol::optionalField(params, "capabilities", V::object);
  client_.capabilities = caps ? *caps : json::object();
  const json& c = client_.capabilities;
  auto flag = [&](std::initializer_list<const char*> path) {
    const json* at = &c;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key))
        return false;
      at = &(*at)[key];
    }
    return at->is_boolean() && at->get<bool>();
  };
  auto has = [&](std::initializer_list<const char*> path) {
    const json* at = &c;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key))
        return false;
      at = &(*at)[key];
    }
    return at->is_object();
  };
  client_.encoding = protocol::PositionEncoding::UTF16;
  if (c.contains("general") && c["general"].is_object() &&
      c["general"].contains("positionEncodings")) {
    const json& offered = c["general"]["positionEncodings"];
    if (!offered.is_array())
      throw RpcError(ErrorCode::InvalidParams,
                     "capabilities.general.positionEncodings must be an array");
    for (const json& e : offered)
      if (e == "utf-8")
        client_.encoding = protocol::PositionEncoding::UTF8;
  }
  client_.pullDiagnostics = has({"textDocument", "diagnostic"});
  client_.diagnosticRefresh = flag({"workspace", "diagnostics", "refreshSupport"});
  client_.workspaceConfiguration = flag({"workspace", "configuration"});
  client_.watchedFilesRegistration =
      flag({"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  client_.workDoneProgress = flag({"window", "workDoneProgress"});
  client_.codeLensRefresh = flag({"workspace", "codeLens", "refreshSupport"});
  if (const json* info = protocol::optionalField(params, "clientInfo", V::object))
    if (info->contains("name") && (*info)["name"].is_string())
      client_.name = (*info)["name"].get<std::string>();
  if (params.contains("initializationOptions"))
    client_.initializationOptions = params["initializationOptions"];

  analysis::ProjectOptions projectOptions = options_.project;
  if (const json* folders = protocol::optionalField(params, "workspaceFolders", V::array)) {
    for (const json& f : *folders)
      if (f.is_object() && f.contains("uri") && f["uri"].is_string())
        projectOptions.workspaceRoots.push_back(protocol::uriToPath(f["uri"].get<std::string>()));
  } else if (const json* root = protocol::optionalField(params, "rootUri", V::string)) {
    projectOptions.workspaceRoots.push_back(protocol::uriToPath(root->get<std::string>()));
  } else if (const json* rootPath = protocol::optionalField(params, "rootPath", V::string)) {
    projectOptions.workspaceRoots.push_back(rootPath->get<std::string>());
  }
  workspaceRoots_ = projectOptions.workspaceRoots;
  project_ = std::make_unique<analysis::Project>(projectOptions);
  pipeline_ = std::make_unique<FindingsPipeline>(
      *project_, [this](const std::string& path) { return textOf(path); },
      [this](const std::string& message) { logMessage(MessageType::Warning, message); });

  json capabilities{
      {"positionEncoding", protocol::encodingName(client_.encoding)},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2 /* incremental */}, {"save", {{"includeText", false}}}}},
      {"experimental", {{"pallasMlirProvider", true}}},
  };
  if (client_.pullDiagnostics)
    capabilities["diagnosticProvider"] = {{"identifier", "pallas-lsp"},
                                          {"interFileDependencies", true},
                                          {"workspaceDiagnostics", true}};
  if (!commands_.empty()) {
    json names = json::array();
    for (const auto& [name, h] : commands_)
      names.push_back(name);
    capabilities["executeCommandProvider"] = {{"commands", names}};
  }
  if (!codeLensProviders_.empty())
    capabilities["codeLensProvider"] = {{"resolveProvider", false}};
  capabilities.merge_patch(extraCapabilities_);

  state_ = State::Initialized;
  log_.info("initialized for " + (client_.name.empty() ? std::string("a client") : client_.name) +
            ", position encoding " + protocol::encodingName(client_.encoding) +
            (client_.pullDiagnostics ? ", pull diagnostics" : ", push diagnostics"));
  return json{{"capabilities", capabilities},
              {"serverInfo", {{"name", "pallas-lsp"}, {"version", PALLAS_LSP_VERSION}}}};
}

void LspServer::initialized() {
  registerFileWatchers();
  if (client_.initializationOptions.is_object())
    notifyConfiguration(client_.initializationOptions);
  requestConfiguration();
  for (auto& cb : initializedCallbacks_)
    cb();
}

void LspServer::registerFileWatchers() {
  if (!client_.watchedFilesRegistration)
    return;
  json watchers =
      json::array({json{{"globPattern", "**/*.py"}}, json{{"globPattern", "**/pyproject.toml"}}});
  json params{
      {"registrations", json::array({json{{"id", "pallas-lsp-watched-files"},
                                          {"method", "workspace/didChangeWatchedFiles"},
                                          {"registerOptions", {{"watchers", watchers}}}}})}};
  protocol::Logger* log = &log_;
  endpoint_->call("client/registerCapability", params, [log](bool ok, const json& value) {
    if (!ok)
      log->warn("the client refused file watching: " + value.dump());
  });
}

void LspServer::requestConfiguration() {
  if (!client_.workspaceConfiguration)
    return;
  auto self = shared_from_this();
  endpoint_->call(
      "workspace/configuration", json{{"items", json::array({json{{"section", "pallas-lsp"}}})}},
      [self](bool ok, const json& value) {
        if (!ok || !value.is_array() || value.empty()) {
          self->log_.warn("workspace/configuration failed: " + value.dump());
          return;
        }
        const json& cfg = value[0];
        std::string applied;
        if (cfg.is_object() && cfg.contains("logLevel") && cfg["logLevel"].is_string()) {
          if (auto level = protocol::parseLogLevel(cfg["logLevel"].get<std::string>())) {
            self->log_.setLevel(*level);
            applied = "logLevel=" + cfg["logLevel"].get<std::string>();
          }
        }
        if (cfg.is_object())
          self->notifyConfiguration(cfg);
        self->log_.info("configuration received" + (applied.empty()
                                                        ? std::string(" (no pallas-lsp settings)")
                                                        : ": " + applied));
      });
}

void LspServer::didOpen(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  const json& text = protocol::requireField(td, "text", V::string, "params.textDocument");
  const json* version =
      protocol::optionalField(td, "version", V::number_integer, "params.textDocument");
  Document doc{uri.get<std::string>(), protocol::uriToPath(uri.get<std::string>()),
               version ? version->get<int64_t>() : 0, text.get<std::string>()};
  if (auto bad = protocol::findInvalidUtf8(doc.text)) {
    log_.error("didOpen " + doc.uri + " rejected: the text is not valid UTF-8 (byte " +
               std::to_string(*bad) + ")");
    return;
  }
  std::string path = doc.path;
  auto stats = project_->setDocument(path, doc.text);
  documents_.open(std::move(doc));
  afterUpdate(path, stats);
}

void LspServer::didChange(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  const json* version =
      protocol::optionalField(td, "version", V::number_integer, "params.textDocument");
  const json& changes = protocol::requireField(params, "contentChanges", V::array);
  std::string path = protocol::uriToPath(uri.get<std::string>());
  if (!documents_.isOpen(path)) {
    log_.error("didChange for " + uri.get<std::string>() +
               " ignored: the document was never opened (send didOpen first)");
    return;
  }
  auto result =
      documents_.change(path, version ? version->get<int64_t>() : -1, changes, client_.encoding);
  if (!result.error.empty()) {
    log_.error("didChange for " + uri.get<std::string>() + " rejected: " + result.error +
               "; the document keeps its previous text");
    return;
  }
  analysis::UpdateStats stats;
  try {
    stats = project_->editDocument(path, result.edits);
  } catch (const std::exception& e) {
    // The draft is authoritative: resynchronise the Project from it.
    log_.error("applying edits to " + path + " failed (" + e.what() + "); reloading it");
    if (auto doc = documents_.get(path))
      stats = project_->setDocument(path, doc->text);
  }
  afterUpdate(path, stats);
}

void LspServer::didClose(const json& params) {
  std::string path = documentPath(params);
  if (!documents_.close(path)) {
    log_.warn("didClose for a document that is not open: " + path);
    return;
  }
  project_->closeDocument(path);
  pipeline_->forget(path);
  // Forget the document's schedule and stats: kept, 20,000 open/close
  // cycles of distinct documents grew memory for good. A run in progress is
  // stopped and publishes nothing.
  scheduler_->forget(path);
  {
    std::lock_guard lock(scheduleMutex_);
    stats_.erase(path);
    published_.erase(path);
  }
  if (!client_.pullDiagnostics)
    publish(path, json::array(), std::nullopt);
}

void LspServer::didSave(const json& params) {
  log_.debug("saved " + documentPath(params));
}

void LspServer::didChangeWatchedFiles(const json& params) {
  const json& changes = protocol::requireField(params, "changes", V::array);
  for (const json& change : changes) {
    if (!change.is_object() || !change.contains("uri") || !change["uri"].is_string() ||
        !change.contains("type") || !change["type"].is_number_integer()) {
      log_.warn("didChangeWatchedFiles: skipping a malformed FileEvent " + change.dump());
      continue;
    }
    std::string path = protocol::uriToPath(change["uri"].get<std::string>());
    if (documents_.isOpen(path))
      continue; // the editor's draft wins
    int type = change["type"].get<int>();
    if (type == 3) { // Deleted
      project_->closeDocument(path);
      afterUpdate(path, {});
      continue;
    }
    std::string why;
    auto read = readFileBounded(path, &why);
    if (!read) {
      log_.warn("didChangeWatchedFiles: cannot read " + path + " (" + why + ")");
      continue;
    }
    std::string text = std::move(*read);
    if (auto bad = protocol::findInvalidUtf8(text)) {
      log_.warn("didChangeWatchedFiles: " + path + " is not valid UTF-8 (byte " +
                std::to_string(*bad) + "); not analysed");
      continue;
    }
    afterUpdate(path, project_->setDocument(path, std::move(text)));
  }
}

void LspServer::afterUpdate(const std::string& path, const analysis::UpdateStats& stats) {
  bool newlyTooDeep = false;
  {
    std::lock_guard lock(scheduleMutex_);
    auto& previous = stats_[path].tooDeepAt;
    newlyTooDeep = stats.tooDeepAt && (!previous || previous->line != stats.tooDeepAt->line);
    stats_[path] = stats;
  }
  if (newlyTooDeep)
    // Said once per place, not on every keystroke.
    log_.warn(analysis::tooDeepText(path, *stats.tooDeepAt) + ", so findings there may be missing");
  log_.debug("updated " + path + ": " + std::to_string(stats.functionsRelowered) + "/" +
             std::to_string(stats.functionsTotal) + " functions relowered");
  if (documents_.isOpen(path))
    scheduleDiagnostics(path);
  for (const std::string& dep : project_->dependents(path)) {
    if (dep != path && documents_.isOpen(dep))
      scheduleDiagnostics(dep);
  }
}

void LspServer::scheduleDiagnostics(const std::string& path) {
  if (client_.pullDiagnostics) {
    // Pull clients re-pull the document they edit; other documents whose
    // results changed need a refresh request.
    if (client_.diagnosticRefresh)
      endpoint_->call("workspace/diagnostic/refresh", nullptr, [](bool, const json&) {});
    return;
  }
  // The document's worker runs it after the debounce; a newer edit replaces
  // it, or stops it if it is already running.
  std::weak_ptr<LspServer> weak = weak_from_this();
  scheduler_->schedule(
      path,
      [weak, path](const StopToken& stop) {
        if (auto self = weak.lock())
          self->runDiagnostics(path, stop);
      },
      options_.debounce);
}

void LspServer::runDiagnostics(const std::string& path, const StopToken& stop) {
  // Checked between the steps: a newer edit's run publishes instead.
  auto stale = [&] { return stop.stopRequested() || endpoint_->closed(); };
  if (stale())
    return;
  auto doc = documents_.get(path);
  if (!doc)
    return;
  std::vector<analysis::Finding> findings;
  try {
    findings = this->findings(path);
  } catch (const std::exception& e) {
    log_.error("analysis of " + path + " failed: " + e.what());
    return;
  }
  if (stale())
    return;
  std::shared_ptr<DiagnosticsTextCache> cache;
  {
    std::lock_guard lock(scheduleMutex_);
    auto& slot = published_[path];
    if (!slot)
      slot = std::make_shared<DiagnosticsTextCache>();
    cache = slot;
  }
  DiagnosticConverter conv = converter();
  std::string items = cache->arrayText(conv, findings, withExtraDiagnostics(path, json::array()));
  if (stale())
    return;
  std::string params = R"({"uri":)" + jsonText(doc->uri) + R"(,"version":)" +
                       std::to_string(doc->version) + R"(,"diagnostics":)" + items + "}";
  endpoint_->notifyText("textDocument/publishDiagnostics", params);
}

void LspServer::publish(const std::string& path, json diagnostics, std::optional<int64_t> version) {
  auto doc = documents_.get(path);
  json params{{"uri", doc ? doc->uri : protocol::pathToUri(path)}};
  params["diagnostics"] = std::move(diagnostics); // moved: 1,600 diagnostics were copied here
  if (version)
    params["version"] = *version;
  endpoint_->notify("textDocument/publishDiagnostics", std::move(params));
}

std::optional<std::string> LspServer::textOf(const std::string& path) {
  if (auto doc = documents_.get(path))
    return doc->text;
  if (project_ && project_->hasDocument(path))
    return project_->documentText(path);
  return readFileBounded(path, nullptr);
}

DiagnosticConverter LspServer::converter() {
  return DiagnosticConverter(client_.encoding,
                             [this](const std::string& path) { return textOf(path); });
}

json LspServer::pullDiagnostics(const json& params, const RequestContext& ctx) {
  std::string path = documentPath(params);
  json items = json::array();
  if (project_->hasDocument(path))
    items = withExtraDiagnostics(path, converter().diagnostics(findings(path)));
  ctx.cancel.check();
  // The result id is derived from the document's version and the diagnostics
  // themselves: a new edit or a change in what is known without an edit (the
  // knowledge table, a helper file, a GPU run) gives a new id, and nothing
  // else does (a global counter made ids change under unrelated activity).
  int64_t version = 0;
  if (auto doc = documents_.get(path))
    version = doc->version;
  std::string resultId = std::to_string(
      std::hash<std::string>{}(path + '\n' + std::to_string(version) + '\n' + items.dump()));
  if (const json* prev = protocol::optionalField(params, "previousResultId", V::string))
    if (*prev == resultId)
      return json{{"kind", "unchanged"}, {"resultId", resultId}};
  return json{{"kind", "full"}, {"resultId", resultId}, {"items", std::move(items)}};
}

json LspServer::workspaceDiagnostics(const json& params, const RequestContext& ctx) {
  protocol::requireObject(params);
  json items = json::array();
  for (const Document& doc : documents_.all()) {
    ctx.cancel.check();
    items.push_back(
        {{"kind", "full"},
         {"uri", doc.uri},
         {"version", doc.version},
         {"items", withExtraDiagnostics(doc.path, converter().diagnostics(findings(doc.path)))}});
  }
  return json{{"items", items}};
}

json LspServer::mlir(const json& params) {
  std::string path = documentPath(params);
  if (!project_->hasDocument(path))
    throw RpcError(ErrorCode::InvalidParams, "pallas/mlir: the document is not open: " + path);
  analysis::UpdateStats stats;
  {
    std::lock_guard lock(scheduleMutex_);
    if (auto it = stats_.find(path); it != stats_.end())
      stats = it->second;
    else
      stats = project_->lastUpdate(path);
  }
  return json{{"mlir", project_->mlirText(path)},
              {"functionsTotal", stats.functionsTotal},
              {"functionsRelowered", stats.functionsRelowered}};
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

std::shared_ptr<Progress> LspServer::beginProgress(const std::string& title, bool cancellable) {
  auto progress = std::make_shared<Progress>();
  progress->endpoint_ = endpoint_;
  progress->token_ = "pallas-lsp-" + std::to_string(nextProgress_++);
  progress->queued_.push_back(
      json{{"kind", "begin"}, {"title", title}, {"cancellable", cancellable}});
  if (!client_.workDoneProgress) {
    progress->state_ = Progress::State::Dropped;
    return progress;
  }
  {
    std::lock_guard lock(progressMutex_);
    progress_[progress->token_] = progress;
  }
  // The pending call holds the Progress: reports queued by a caller that has
  // already dropped it are still delivered once the client accepts.
  endpoint_->call("window/workDoneProgress/create", json{{"token", progress->token_}},
                  [p = progress](bool ok, const json&) {
                    std::lock_guard lock(p->mutex_);
                    if (!ok) {
                      p->state_ = Progress::State::Dropped;
                      return;
                    }
                    bool ended = false;
                    for (auto& v : p->queued_) {
                      ended = ended || v["kind"] == "end";
                      p->endpoint_->notify("$/progress",
                                           json{{"token", p->token_}, {"value", std::move(v)}});
                    }
                    p->queued_.clear();
                    p->state_ = ended ? Progress::State::Ended : Progress::State::Ready;
                  });
  return progress;
}

void LspServer::finish(int exitCode) {
  if (finished_.exchange(true))
    return;
  if (scheduler_)
    scheduler_->stopAll();
  log_.clearSink();
  endpoint_->close();
  if (onExit_)
    onExit_(exitCode);
}

} // namespace pallas::server
