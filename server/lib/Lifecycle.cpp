// The LSP lifecycle: `initialize` (client capabilities, workspace folders,
// the Project, the capabilities we answer), `initialized` (file watchers,
// configuration, feature callbacks) and workspace/configuration.
#include "LspServer.h"
#include "pallas/support/Uri.h"

#ifndef PALLAS_LSP_VERSION
#define PALLAS_LSP_VERSION "0.0.0"
#endif

namespace pallas::server {

using protocol::ErrorCode;
using protocol::RpcError;
using V = json::value_t;

json LspServer::initialize(const json& params) {
  protocol::requireObject(params);
  const json* caps = protocol::optionalField(params, "capabilities", V::object);
  client_.capabilities = caps ? *caps : json::object();
  const json& c = client_.capabilities;
  // The capability at `path`, or null when a step of it is missing.
  auto capability = [&](std::initializer_list<const char*> path) -> const json* {
    const json* at = &c;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key))
        return nullptr;
      at = &(*at)[key];
    }
    return at;
  };
  auto flag = [&](std::initializer_list<const char*> path) {
    const json* at = capability(path);
    return at != nullptr && at->is_boolean() && at->get<bool>();
  };
  auto has = [&](std::initializer_list<const char*> path) {
    const json* at = capability(path);
    return at != nullptr && at->is_object();
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
        projectOptions.workspaceRoots.push_back(support::uriToPath(f["uri"].get<std::string>()));
  } else if (const json* root = protocol::optionalField(params, "rootUri", V::string)) {
    projectOptions.workspaceRoots.push_back(support::uriToPath(root->get<std::string>()));
  } else if (const json* rootPath = protocol::optionalField(params, "rootPath", V::string)) {
    projectOptions.workspaceRoots.push_back(rootPath->get<std::string>());
  }
  workspaceRoots_ = projectOptions.workspaceRoots;
  // Made here, before any document arrives; built after `initialized`.
  if (!workspaceRoots_.empty())
    callers_ = std::make_shared<WorkspaceCallers>(workspaceRoots_);
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
  // The notification is sent once; a client (or a peer over TCP) that sends
  // it again gets a warning, not a second set of watchers, indexes and
  // feature workers (a second worker thread aborted the process: issue 34).
  if (initializedSeen_.exchange(true)) {
    log_.warn("'initialized' was sent again; ignored");
    return;
  }
  registerFileWatchers();
  startCallerIndex();
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

} // namespace pallas::server
