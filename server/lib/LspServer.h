// The language server: speaks LSP (lifecycle, capabilities, documents,
// diagnostics) on a JSON-RPC Endpoint and does language work through the
// analysis Project. One LspServer per client connection.
//
// Extending it (GPU runner, code lenses, code actions, ...): write a file in
// server/features/ that registers a ServerFeature; its install() runs on every new
// LspServer before the connection starts, and uses the hooks below.
//
//   static pallas::server::ServerFeatureRegistration reg{{"gpu-runner", [](LspServer& s) {
//     s.addCommand("pallas.runOnGpu", [&s](const json& args, const RequestContext& ctx) {
//       auto progress = s.beginProgress("Running kernel on GPU");
//       ...; progress->report("compiling", 30); ...; progress->end("done");
//       return json{{"ok", true}};
//     });
//     s.addCodeLensProvider([](LspServer& s, const OpenDocument& doc) { return json::array(); });
//   }}};
#pragma once

#include "Diagnostics.h"
#include "DiagnosticsText.h"
#include "DocumentScheduler.h"
#include "DocumentSnapshot.h"
#include "DocumentStore.h"
#include "FindingsPipeline.h"
#include "MemoryRelease.h"
#include "WorkspaceCallers.h"
#include "pallas/analysis/Project.h"
#include "pallas/protocol/Endpoint.h"

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pallas::server {

using protocol::json;
using protocol::RequestContext;

// What the client said it can do (from initialize).
struct ClientInfo {
  protocol::PositionEncoding encoding = protocol::PositionEncoding::UTF16;
  bool pullDiagnostics = false;        // textDocument.diagnostic
  bool diagnosticRefresh = false;      // workspace.diagnostics.refreshSupport
  bool relatedInformation = true;      // publishDiagnostics.relatedInformation
  bool workspaceConfiguration = false; // workspace.configuration
  bool watchedFilesRegistration = false;
  bool workDoneProgress = false; // window.workDoneProgress
  bool codeLensRefresh = false;  // workspace.codeLens.refreshSupport
  std::string name;              // clientInfo.name
  json initializationOptions;    // initialize's initializationOptions (null if none)
  json capabilities;             // everything, for features to inspect
};

enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };

// A work-done progress shown by the client ($/progress). Created with
// window/workDoneProgress/create; reports made before the client accepted the
// token are queued, and all are dropped if it refused or lacks support.
class Progress {
public:
  void report(const std::string& message, std::optional<unsigned> percentage = std::nullopt);
  void end(const std::string& message = {});
  bool cancelled() const { return cancelled_.load(); } // window/workDoneProgress/cancel
  const std::string& token() const { return token_; }

private:
  friend class LspServer;
  void send(json value);
  std::shared_ptr<protocol::Endpoint> endpoint_;
  std::string token_;
  std::mutex mutex_;
  enum class State { Pending, Ready, Dropped, Ended } state_ = State::Pending;
  std::vector<json> queued_;
  std::atomic<bool> cancelled_{false};
  json wireToken_; // the token as sent: a client's own workDoneToken may be a number
};

class LspServer : public std::enable_shared_from_this<LspServer> {
public:
  struct Options {
    // Delay between the last edit and the analysis run while the document
    // is busy (edits inside it restart it; a newer edit also cancels a run
    // in progress). An idle document's first edit, and an open, run at once.
    std::chrono::milliseconds debounce{50};
    // Registers the pallas/test/* methods the transcript tests use.
    bool testMethods = false;
    analysis::ProjectOptions project;
  };

  using RequestHandler = protocol::Endpoint::RequestHandler;
  using NotificationHandler = protocol::Endpoint::NotificationHandler;
  using Mode = protocol::Endpoint::Mode;
  using CommandHandler = std::function<json(const json& arguments, const RequestContext& ctx)>;
  using CodeLensProvider = std::function<json(LspServer& server, const OpenDocument& doc)>;
  // Extra LSP diagnostics for a document, published with (after) the
  // analysis diagnostics, e.g. a GPU run's exception frames.
  using DiagnosticsProvider = std::function<json(const OpenDocument& doc)>;
  // Client settings: initializationOptions, each workspace/configuration
  // answer (section pallas-lsp) and didChangeConfiguration's `settings`.
  using ConfigurationListener = std::function<void(const json& settings)>;
  // Sees every request before its handler (registered with addRequest) and
  // calls `next` itself, e.g. to translate notebook cell URIs to the notebook.
  using RequestMiddleware =
      std::function<json(const std::string& method, const json& params, const RequestContext& ctx,
                         const std::function<json(const json&)>& next)>;
  // Sees a textDocument/publishDiagnostics before it is sent; returns true
  // when it published the diagnostics itself (e.g. split over notebook cells).
  // `diagnostics()` builds the JSON on first call: ask only for a document
  // you publish (the others' are sent from cached text, never built).
  using PublishInterceptor =
      std::function<bool(const std::string& path, const std::function<const json&()>& diagnostics,
                         std::optional<int64_t> version)>;

  LspServer(std::shared_ptr<protocol::Endpoint> endpoint, protocol::Logger& logger,
            Options options);
  ~LspServer();

  // Installs the built-in handlers and every registered ServerFeature, then starts
  // reading. `onExit` runs once with the process exit code (0 after shutdown,
  // 1 otherwise) when the client sends exit or the connection ends.
  void start(std::function<void(int exitCode)> onExit);

  // ---- hooks for features (call from Feature::install, before start) ----
  // Requests are refused with -32002 before initialize and -32600 after
  // shutdown. Concurrent requests run on the pool after all earlier messages
  // were handled; Sequential ones run in order with notifications.
  void addRequest(const std::string& method, RequestHandler handler, Mode mode = Mode::Concurrent);
  void addNotification(const std::string& method, NotificationHandler handler);
  // workspace/executeCommand; advertised in executeCommandProvider.commands.
  void addCommand(const std::string& command, CommandHandler handler);
  // textDocument/codeLens: lenses of all providers, concatenated;
  // codeLensProvider is advertised when at least one is added.
  void addCodeLensProvider(CodeLensProvider provider);
  // Merged (JSON merge patch) into the capabilities initialize returns.
  void addCapabilities(const json& capabilities);
  // Called after `initialized` (client capabilities and Project are known).
  void onInitialized(std::function<void()> callback);
  void addDiagnosticsProvider(DiagnosticsProvider provider);
  void onConfiguration(ConfigurationListener listener);
  void addRequestMiddleware(RequestMiddleware middleware);
  void addPublishInterceptor(PublishInterceptor interceptor);

  // ---- services (thread-safe; valid after initialize) ----
  analysis::Project& project() { return *project_; }
  // The workspace folders the client named at initialize (absolute paths).
  const std::vector<std::string>& workspaceRoots() const { return workspaceRoots_; }
  // The findings the user sees (analysis -> fixes -> policy, see
  // FindingsPipeline.h): what the diagnostics show and code actions act on.
  std::vector<analysis::Finding> findings(const std::string& path) {
    return pipeline_->findings(path);
  }
  FindingsPipeline& findingsPipeline() { return *pipeline_; }
  DocumentStore& documents() { return documents_; }
  const ClientInfo& client() const { return client_; }
  protocol::Logger& log() { return log_; }
  protocol::Endpoint& endpoint() { return *endpoint_; }
  void showMessage(MessageType type, const std::string& message);
  void logMessage(MessageType type, const std::string& message);
  // `workDoneToken`: the request's own token (WorkDoneProgressParams), when
  // the client sent one: reports go there and no progress is created.
  std::shared_ptr<Progress> beginProgress(const std::string& title, bool cancellable = false,
                                          const json& workDoneToken = nullptr);
  // Re-runs analysis for a document and re-publishes (or asks pull clients to
  // refresh), e.g. after a GPU run changed what is known.
  void scheduleDiagnostics(const std::string& path);
  // The same without asking pull clients to refresh: the document's worker
  // analyses it and stores its snapshot. 0 when the server stopped.
  uint64_t scheduleAnalysis(const std::string& path);
  // What a reader needs from a document's snapshot (DocumentReaders.cpp):
  //  - Findings: the findings with fixes of the newest analysis scheduled
  //    when the request came (the version and settings it sees);
  //  - Hover: the hover's facts of the document's current version (or a
  //    later one), whatever was rescheduled since.
  // Waits only for the analysis of the version the request refers to, never
  // for the Project's lock. nullptr when the document is not open.
  // Findings: with their fixes; Hover: with the hover facts; Analysed: any
  // snapshot the wanted analysis stored (the document's current version).
  enum class SnapshotNeed { Findings, Hover, Analysed };
  SnapshotPtr snapshotFor(const std::string& path, SnapshotNeed need, const RequestContext& ctx);
  const SnapshotStore& snapshots() const { return snapshots_; }
  void refreshCodeLenses();
  // A converter to client positions for findings and fixes.
  DiagnosticConverter converter();
  // Text of a file for position conversion: draft, Project copy, then disk.
  std::optional<std::string> textOf(const std::string& path);
  // Path for a URI in `params.textDocument.uri` (throws InvalidParams).
  static std::string documentPath(const json& params);

  // Text document synchronisation, also fed by notebook sync (NotebookSync.cpp)
  // with the notebook's cells as one module.
  void didOpen(const json& params);
  void didChange(const json& params);
  void didClose(const json& params);

private:
  enum class State { Uninitialized, Initialized, ShutDown };

  void installBuiltins();
  std::optional<protocol::RpcError> gate(const std::string& method, bool isRequest);
  json initialize(const json& params);
  void initialized();
  void requestConfiguration();
  void registerFileWatchers();
  void didSave(const json& params);
  void didChangeWatchedFiles(const json& params);
  // Callers in files never opened (WorkspaceCallerFiles.cpp, docs/analysis.md
  // 8.34): the index is built once in the background after `initialized`,
  // told of each file saved, opened or changed on disk, and asked before
  // each analysis, which then reads the document's callers from disk.
  void startCallerIndex();
  void callerFileChanged(const std::string& path, std::optional<std::string_view> text,
                         bool reanalyse);
  void bringCallersIn(const std::string& path);
  // A file changed on disk: the index re-reads it, its open dependents are
  // analysed again.
  void fileChangedOnDisk(const std::string& path);
  json pullDiagnostics(const json& params, const RequestContext& ctx);
  json workspaceDiagnostics(const json& params, const RequestContext& ctx);
  json mlir(const json& params, const RequestContext& ctx);
  json executeCommand(const json& params, const RequestContext& ctx);
  json codeLens(const json& params);
  void afterUpdate(const std::string& path, const analysis::UpdateStats& stats);
  // One scheduled analysis: findings (published to push clients), then the
  // hover's facts, each stored as the document's snapshot.
  void runAnalysis(const std::string& path, uint64_t analysis, const StopToken& stop);
  std::shared_ptr<const HoverFacts> hoverFacts(const std::string& path, const std::string& text,
                                               const std::function<bool()>& stale);
  // Test-only (--test-methods, AnalysisTestHooks.cpp): pallas/test/holdAnalysis
  // makes the next analysis of a document wait inside the Project's lock (a
  // long analysis, on demand) until pallas/test/releaseAnalysis or a newer
  // edit stops it; pallas/test/snapshots says what the server keeps.
  void installAnalysisTestMethods();
  void holdForTest(const std::string& path, const std::function<bool()>& stale);
  struct TestHold;
  std::shared_ptr<TestHold> testHold_;
  void publishFindings(const std::string& path, const OpenDocument& doc,
                       const std::vector<analysis::Finding>& findings, DiagnosticsTextCache& cache,
                       const std::function<bool()>& stale);
  void publish(const std::string& path, json diagnostics, std::optional<int64_t> version);
  json withExtraDiagnostics(const std::string& path, json diagnostics);
  void notifyConfiguration(const json& settings);
  void finish(int exitCode);

  std::shared_ptr<protocol::Endpoint> endpoint_;
  protocol::Logger& log_;
  Options options_;
  std::atomic<State> state_{State::Uninitialized};
  std::atomic<bool> initializedSeen_{false}; // `initialized` was handled
  ClientInfo client_;
  std::unique_ptr<analysis::Project> project_;
  std::vector<std::string> workspaceRoots_;
  std::unique_ptr<FindingsPipeline> pipeline_;
  DocumentStore documents_;
  std::shared_ptr<WorkspaceCallers> callers_; // null without workspace folders
  std::shared_ptr<std::atomic<bool>> stopIndexing_ = std::make_shared<std::atomic<bool>>(false);
  json extraCapabilities_ = json::object();
  std::map<std::string, CommandHandler> commands_;
  std::vector<CodeLensProvider> codeLensProviders_;
  std::vector<std::function<void()>> initializedCallbacks_;
  std::vector<DiagnosticsProvider> diagnosticsProviders_;
  std::vector<ConfigurationListener> configurationListeners_;
  std::vector<RequestMiddleware> requestMiddleware_;
  std::vector<PublishInterceptor> publishInterceptors_;
  std::function<void(int)> onExit_;
  std::atomic<bool> finished_{false};
  std::atomic<uint64_t> nextProgress_{1};

  // Analyses run per document off the ordered queue (DocumentScheduler.h):
  // a newer edit stops the stale run, a closed document keeps nothing.
  std::unique_ptr<DocumentScheduler> scheduler_;
  MemoryRelease memoryRelease_; // under scheduleMutex_
  std::mutex scheduleMutex_;
  std::map<std::string, analysis::UpdateStats> stats_; // last update of each open document
  // The text of each open document's last published diagnostics, reused
  // piece by piece (only its document's worker uses one).
  std::map<std::string, std::shared_ptr<DiagnosticsTextCache>> published_;
  // The newest analysis scheduled for each open document (under
  // scheduleMutex_), and the snapshots analyses left (DocumentSnapshot.h).
  std::map<std::string, uint64_t> wantedAnalysis_;
  uint64_t analysisCounter_ = 0;
  SnapshotStore snapshots_;
  std::mutex progressMutex_;
  std::map<std::string, std::weak_ptr<Progress>> progress_;
};

// The process's pool for analyses and background work (LspServer.cpp).
boost::asio::thread_pool& analysisPool();

// ---- feature modules ----
struct ServerFeature {
  std::string name;
  std::function<void(LspServer&)> install;
};
void registerFeature(ServerFeature feature);
const std::vector<ServerFeature>& registeredFeatures();
struct ServerFeatureRegistration {
  explicit ServerFeatureRegistration(ServerFeature feature) { registerFeature(std::move(feature)); }
};

} // namespace pallas::server
