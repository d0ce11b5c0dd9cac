// The GPU runner in the editor (issue 6): `pallas.run` and `pallas.doctor`
// (workspace/executeCommand), code lenses above runnable functions, a run's
// exception frames as diagnostics, and, at `initialized`, the two facts about
// the user's machine the analysis needs: the knowledge table of the user's
// own JAX and the local GPU (PLS003).
//
// A run only ever starts on a user request. It executes on a thread of its
// own; the request waits for it and turns $/cancelRequest or a cancel of the
// work-done progress into gpu::CancelToken::cancel(), which kills the run's
// whole process group.
#include "Environment.h"
#include "GpuPresence.h"
#include "LspServer.h"
#include "ProbeReport.h"
#include "ProjectPython.h"
#include "RunnerEntries.h"
#include "RunsReadiness.h"
#include "config/Numbers.h"
#include "pallas/gpu/DeviceProbe.h"
#include "pallas/gpu/Runner.h"
#include "pallas/knowledge/KnowledgeBase.h"
#include "pallas/knowledge/KnowledgeService.h"
#include "pallas/support/LineIndex.h"
#include "pallas/support/Uri.h"

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace pallas::server {
namespace {

using protocol::ErrorCode;
using protocol::RpcError;
namespace environment = server::environment;

// Settings of section pallas-lsp (editors/vscode/src/protocol.ts ServerSettings).
struct RunnerSettings {
  std::string python; // empty: env PALLAS_LSP_PYTHON, else python3
  // The user named `python` (a setting); false when the client found it
  // (`pythonSource` other than "setting": the Python extension's selection,
  // the project's .venv): then `[tool.pallas-lsp] python` comes first.
  bool pythonNamed = true;
  std::string launchTemplate; // empty: env PALLAS_LSP_LAUNCH_TEMPLATE, else the default
  double timeoutSeconds = 300;
  bool workspaceTrusted = true;
  // The client shows a run's result itself (the Neovim plugin's run buffer):
  // no window/showMessage repeating it.
  bool clientShowsResults = false;
};

// How much of a run's output is sent live (pallas/runOutput).
constexpr size_t kLiveOutputCap = size_t{64} * 1024;

// Accepts the settings object itself or one wrapped as {pallasLsp: {...}} /
// {"pallas-lsp": {...}} (didChangeConfiguration sends the wrapped form).
json unwrapSettings(const json& settings) {
  for (const char* key : {"pallasLsp", "pallas-lsp"})
    if (settings.is_object() && settings.contains(key) && settings[key].is_object())
      return settings[key];
  return settings;
}

// Diagnostics of the last run for one document, valid while it keeps the
// version it had when the run ended (an edit clears them).
struct RunDiagnostics {
  std::optional<int64_t> version;
  json diagnostics = json::array();
};

// Shared by every handler of one LspServer; background work holds it.
struct RunnerState {
  std::mutex mutex;
  RunnerSettings settings;
  bool settingsSeen = false;
  std::map<std::string, RunDiagnostics> runDiagnostics; // by path
  bool running = false;

  // Background environment work (probe, knowledge): one thread, latest wins.
  std::condition_variable wake;
  // Knowledge to (re)load for this (configured python, trusted) pair, and
  // the pair the current table was loaded for.
  std::optional<std::pair<std::string, bool>> knowledgeFor;
  std::optional<std::pair<std::string, bool>> knowledgeUsedFor;
  std::vector<std::string> workspaceRoots;
  // The project's own interpreter (a workspace virtual environment), used
  // when none is configured: for runs and for the knowledge of its JAX.
  std::string detectedPython;
  bool stop = false;
  std::thread worker;
  std::optional<gpu::ProbeResult> probe;
  json knowledge = json::object(); // {jax_version, source, fallback}
  // Table the Project uses; starts as the bundled one (ProjectOptions default).
  std::string knowledgePath = knowledge::KnowledgeBase::bundledPath();
  // What runs will use (pallas/status, the doctor): computed by the worker
  // for the interpreter and template it was asked for.
  json runs = json::object();

  ~RunnerState() {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    wake.notify_all();
    // The worker may drop the last reference itself (the server is gone).
    if (worker.joinable()) {
      if (worker.get_id() == std::this_thread::get_id())
        worker.detach();
      else
        worker.join();
    }
  }
};

// Can a compiled run happen from here? A local GPU, or a launch template that
// sends runs to one. Unknown until the probe has run. Call with the lock held.
GpuPresence presenceLocked(const RunnerState& state) {
  if (!state.probe)
    return GpuPresence::Unknown;
  bool remote = !environment::launchTemplate(state.settings.launchTemplate).empty();
  return remote || !state.probe->devices.empty() ? GpuPresence::Present : GpuPresence::None;
}

// The range of a line's text without its indentation (a run's exception
// frame as a diagnostic).
json lineRange(const std::string& text, unsigned line, protocol::PositionEncoding encoding) {
  std::string_view l = support::LineIndex(text).lineText(line);
  size_t indent = l.find_first_not_of(" \t");
  if (indent == std::string_view::npos)
    indent = l.size();
  return {
      {"start", {{"line", line}, {"character", protocol::byteColumnToUnits(l, indent, encoding)}}},
      {"end", {{"line", line}, {"character", protocol::byteColumnToUnits(l, l.size(), encoding)}}}};
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

// ---- the feature ---------------------------------------------------------

class GpuRunner {
public:
  GpuRunner(LspServer& server, std::shared_ptr<RunnerState> state)
      : server_(server), state_(std::move(state)) {}

  void install() {
    auto state = state_;
    LspServer* s = &server_;
    server_.addCommand(kRunCommand, [this](const json& args, const RequestContext& ctx) {
      return run(args, ctx);
    });
    // A client that shows its own progress for a run (the VS Code extension:
    // one notification with a cancel button) sends the request's
    // workDoneToken; the run reports into it instead of creating a second one.
    server_.addRequestMiddleware([](const std::string& method, const json& params,
                                    const RequestContext&, const auto& next) {
      if (method != "workspace/executeCommand" || !params.is_object() ||
          !params.contains("workDoneToken") || params.value("command", json()) != "pallas.run" ||
          !params.contains("arguments") || !params["arguments"].is_array() ||
          params["arguments"].empty() || !params["arguments"][0].is_object())
        return next(params);
      json withToken = params;
      withToken["arguments"][0]["workDoneToken"] = params["workDoneToken"];
      return next(withToken);
    });
    server_.addCommand("pallas.doctor",
                       [this](const json& args, const RequestContext&) { return doctor(args); });
    server_.addCodeLensProvider(
        [](LspServer& s, const OpenDocument& doc) { return lenses(doc, gpuPresence(s)); });
    server_.addDiagnosticsProvider([state](const OpenDocument& doc) {
      std::lock_guard lock(state->mutex);
      auto it = state->runDiagnostics.find(doc.path);
      if (it == state->runDiagnostics.end())
        return json::array();
      if (it->second.version && *it->second.version != doc.version) {
        state->runDiagnostics.erase(it); // edited since the run
        return json::array();
      }
      return it->second.diagnostics;
    });
    server_.onConfiguration([this](const json& settings) { configure(settings); });
    server_.onInitialized([this, s] {
      {
        std::lock_guard lock(state_->mutex);
        // Found by its layout (bin/python exists); not started here.
        state_->detectedPython = gpu::detectProjectPython(s->workspaceRoots());
        state_->workspaceRoots = s->workspaceRoots();
        // Now that the folders are known, their `[tool.pallas-lsp] python` too.
        state_->knowledgeFor = std::pair(namedPythonLocked(*state_, firstRootLocked(*state_)),
                                         state_->settings.workspaceTrusted);
        std::weak_ptr<LspServer> weak = s->weak_from_this();
        // One worker per session. (The server ignores a repeated
        // `initialized`; assigning over a running std::thread would
        // terminate the process: issue 34.)
        if (!state_->worker.joinable())
          state_->worker = std::thread([state = state_, weak] { environmentWorker(state, weak); });
      }
      state_->wake.notify_all();
    });
  }

private:
  // The interpreter the user or the project names for files at `near`: the
  // python setting the user named, else `[tool.pallas-lsp] python` of the
  // nearest pyproject.toml (a project's file: only in a trusted workspace),
  // else the interpreter the client found.
  static std::string namedPythonLocked(const RunnerState& state, const std::string& near) {
    const RunnerSettings& st = state.settings;
    if (!st.python.empty() && st.pythonNamed)
      return st.python;
    if (st.workspaceTrusted)
      if (auto project = environment::projectPython(near))
        return *project;
    return st.python;
  }

  // Where the project's configuration is looked for when no file is given.
  static std::string firstRootLocked(const RunnerState& state) {
    return state.workspaceRoots.empty() ? std::string() : state.workspaceRoots.front();
  }

  // The trust rule's inputs (server/environment/ExecutionTrust.h), under the
  // mutex, for files at `near` (default: the first workspace folder).
  static ExecutionContext contextLocked(const RunnerState& state, const std::string& near = {}) {
    ExecutionContext ctx;
    ctx.workspaceTrusted = state.settings.workspaceTrusted;
    ctx.configuredPython = namedPythonLocked(state, near.empty() ? firstRootLocked(state) : near);
    ctx.detectedPython = state.detectedPython;
    ctx.workspaceEnvMayRun = true;
    ctx.workspaceRoots = state.workspaceRoots;
    return ctx;
  }

  void configure(const json& raw) {
    const json cfg = unwrapSettings(raw);
    if (!cfg.is_object())
      return;
    std::lock_guard lock(state_->mutex);
    RunnerSettings& st = state_->settings;
    if (cfg.contains("python"))
      st.python = cfg["python"].is_string() ? cfg["python"].get<std::string>() : std::string();
    if (cfg.contains("pythonSource"))
      st.pythonNamed = !cfg["pythonSource"].is_string() || cfg["pythonSource"] == "setting";
    const std::string templateBefore = st.launchTemplate;
    if (cfg.contains("runner") && cfg["runner"].is_object()) {
      const json& r = cfg["runner"];
      if (r.contains("launchTemplate"))
        st.launchTemplate =
            r["launchTemplate"].is_string() ? r["launchTemplate"].get<std::string>() : "";
      if (r.contains("clientShowsResults") && r["clientShowsResults"].is_boolean())
        st.clientShowsResults = r["clientShowsResults"].get<bool>();
      if (r.contains("timeoutSeconds") && !r["timeoutSeconds"].is_null()) {
        // The same range as `run --timeout` (config/Numbers.h): 1e10 used to
        // overflow into a timeout of a fraction of a second.
        const json& t = r["timeoutSeconds"];
        std::optional<std::string> problem =
            t.is_number() ? check::timeoutProblem(t.get<double>(), /*zeroMeansNone=*/false)
                          : std::optional<std::string>("not a number");
        if (problem)
          server_.logMessage(MessageType::Warning,
                             "pallasLsp.runner.timeoutSeconds must be a number of seconds from "
                             "0.001 to 604800; got " +
                                 t.dump() + " (" + *problem + "); keeping " +
                                 std::to_string(st.timeoutSeconds) + " s");
        else
          st.timeoutSeconds = t.get<double>();
      }
    }
    if (cfg.contains("workspaceTrusted") && cfg["workspaceTrusted"].is_boolean())
      st.workspaceTrusted = cfg["workspaceTrusted"].get<bool>();
    state_->settingsSeen = true;
    setGpuPresence(server_, presenceLocked(*state_));
    // A different interpreter may have a different JAX, and trust decides
    // what may be executed for it: load again (the worker starts at
    // `initialized`; before that it picks this up).
    std::pair<std::string, bool> want(namedPythonLocked(*state_, firstRootLocked(*state_)),
                                      st.workspaceTrusted);
    // A new template changes what runs use (pallas/status says it again).
    if ((want != state_->knowledgeUsedFor || st.launchTemplate != templateBefore) &&
        (!state_->knowledgeFor || *state_->knowledgeFor != want)) {
      state_->knowledgeFor = want;
      state_->wake.notify_all();
    }
  }

  // Probe once, then load the knowledge for each interpreter asked for.
  static void environmentWorker(const std::shared_ptr<RunnerState>& state,
                                const std::weak_ptr<LspServer>& weak) {
    const gpu::ProbeResult& probe = environment::gpuProbe();
    std::string capability = environment::bestCapability(probe);
    {
      std::lock_guard lock(state->mutex);
      state->probe = probe;
      if (auto server = weak.lock())
        setGpuPresence(*server, presenceLocked(*state));
    }
    if (auto server = weak.lock()) {
      if (!capability.empty())
        server->project().setGpuComputeCapability(capability);
      if (!probe.devices.empty()) // JAX's SMEM limit is jax.local_devices()[0]'s
        server->project().setGpuSharedMemoryPerBlockOptin(
            probe.devices.front().sharedMemoryPerBlockOptin);
      // Through the Logger: it honours the configured log level.
      server->log().info("GPU for hardware checks (PLS003): " +
                         (capability.empty()
                              ? "none (" + probe.summary() + ")"
                              : "compute capability " + capability + "; " + probe.summary()));
      // Findings change only when there is a GPU to check against.
      if (!capability.empty())
        reanalyse(*server);
    }
    for (;;) {
      ExecutionContext ctx;
      std::pair<std::string, bool> asked;
      {
        std::unique_lock lock(state->mutex);
        // Wakes now and then to notice a server that went away.
        while (!state->stop && !state->knowledgeFor) {
          state->wake.wait_for(lock, std::chrono::milliseconds(500));
          if (weak.expired())
            return;
        }
        if (state->stop)
          return;
        asked = *state->knowledgeFor;
        state->knowledgeFor.reset();
        ctx = contextLocked(*state);
        ctx.configuredPython = asked.first;
        ctx.workspaceTrusted = asked.second;
      }
      // A failure is a message (the bundled table), never an exception out
      // of this thread.
      const std::string python = interpreterFor(ctx).python;
      knowledge::KnowledgeBase::Loaded loaded = environment::loadKnowledge(ctx);
      auto server = weak.lock();
      if (!server)
        return;
      json info;
      bool changed = false;
      if (loaded) {
        info = {{"python", python},
                {"jax_version", loaded.base->jaxVersion()},
                {"source", loaded.base->source()},
                {"how", loaded.how},
                {"notes", loaded.notes},
                {"workspaceTrusted", ctx.workspaceTrusted},
                {"fallback", loaded.fallbackReason}};
        changed = loaded.base->source() != state->knowledgePath;
        state->knowledgePath = loaded.base->source();
        server->project().setKnowledgePath(loaded.base->source());
      } else {
        info = {{"python", python},
                {"jax_version", "unknown"},
                {"source", ""},
                {"how", "none"},
                {"notes", loaded.notes},
                {"workspaceTrusted", ctx.workspaceTrusted},
                {"fallback", loaded.error}};
      }
      // What runs will use, apart from what the analysis reads (the
      // interpreter may be started to ask for its JAX: runInterpreterFor
      // allows it only where the trust rule does).
      std::string launchTemplate;
      {
        std::lock_guard lock(state->mutex);
        launchTemplate = environment::launchTemplate(state->settings.launchTemplate);
      }
      const json runs = environment::runsReadiness(runInterpreterFor(ctx), launchTemplate).toJson();
      {
        if (!ctx.workspaceTrusted)
          info["python"] = std::string("(none executed: ") + kUntrustedRefusal + ")";
        else if (python.empty())
          info["python"] = "(none configured)";
        else if (asked.first.empty())
          info["python"] = python + ", the workspace's virtual environment";
        std::lock_guard lock(state->mutex);
        state->knowledge = info;
        state->knowledgeUsedFor = asked;
        state->runs = runs;
      }
      std::string text = "JAX knowledge: JAX " + info["jax_version"].get<std::string>() + ", " +
                         info["how"].get<std::string>() + " (" + info["source"].get<std::string>() +
                         "; python " + info["python"].get<std::string>() + ")";
      if (!info["fallback"].get<std::string>().empty())
        text += "; bundled table used because: " + info["fallback"].get<std::string>();
      for (const std::string& note : loaded.notes)
        text += "; " + note;
      server->log().info(text);
      json gpus = json::array();
      for (const auto& d : probe.devices)
        gpus.push_back({{"name", d.name},
                        {"computeCapability", std::to_string(d.capability.major) + "." +
                                                  std::to_string(d.capability.minor)}});
      server->endpoint().notify("pallas/status",
                                {{"jaxVersion", info["jax_version"]},
                                 {"python", python.empty() ? json(nullptr) : json(python)},
                                 {"knowledgeHow", info["how"]},
                                 {"knowledge", info["source"]},
                                 {"gpus", gpus},
                                 // Short for status lines; the probe's own words
                                 // (a dlopen error) are for :PallasDoctor.
                                 {"gpu", capability.empty() ? json("no GPU") : gpus[0]["name"]},
                                 {"gpuDetail", probe.summary()},
                                 // What the analysis reads and what runs use,
                                 // apart (editors/*: "runs: no JAX").
                                 {"analysis",
                                  {{"jaxVersion", info["jax_version"]},
                                   {"how", info["how"]},
                                   {"source", info["source"]}}},
                                 {"runs", runs}});
      if (changed)
        reanalyse(*server);
    }
  }

  static void reanalyse(LspServer& server) {
    for (const OpenDocument& doc : server.documents().all())
      server.scheduleDiagnostics(doc.path);
  }

  // ---- code lenses ----
  // Where the probe found no GPU (and no launch template sends runs to one),
  // the lenses that run compiled say so: a compare run compares compiled
  // with interpreted, so it needs one too.
  static json lenses(const OpenDocument& doc, GpuPresence gpu) {
    json out = json::array();
    static const std::pair<const char*, const char*> kinds[] = {
        {"Run on GPU", "compiled"}, {"Run interpreted", "interpret"}, {"Compare", "compare"}};
    for (const runner::RunTarget& t : runner::findRunTargets(doc.text)) {
      for (const auto& [title, mode] : kinds) {
        std::string label = title;
        if (t.entry != t.function)
          label += " (via " + t.entry + ")";
        if (gpu == GpuPresence::None && std::string_view(mode) != "interpret")
          label += " (needs a GPU)";
        out.push_back(
            {{"range",
              {{"start", {{"line", t.line}, {"character", 0}}},
               {"end", {{"line", t.line}, {"character", 0}}}}},
             {"command",
              {{"title", label},
               {"command", kRunCommand},
               {"arguments",
                json::array({json{{"uri", doc.uri}, {"entry", t.entry}, {"mode", mode}}})}}}});
      }
    }
    return out;
  }

  // ---- pallas.run ----
  json run(const json& args, const RequestContext& ctx) {
    if (!args.is_array() || args.empty() || !args[0].is_object())
      throw RpcError(
          ErrorCode::InvalidParams,
          "pallas.run takes one argument {uri, entry, mode: compiled|interpret|compare}");
    const json& a = args[0];
    if (!a.contains("uri") || !a["uri"].is_string())
      throw RpcError(ErrorCode::InvalidParams, "pallas.run: `uri` (a string) is required");
    gpu::RunRequest request;
    request.file = support::uriToPath(a["uri"].get<std::string>());
    if (a.contains("entry") && !a["entry"].is_null()) {
      if (!a["entry"].is_string())
        throw RpcError(ErrorCode::InvalidParams, "pallas.run: `entry` must be a string");
      request.entry = a["entry"].get<std::string>();
    }
    std::string modeName = a.contains("mode") && a["mode"].is_string()
                               ? a["mode"].get<std::string>()
                               : std::string("interpret");
    auto mode = gpu::parseRunMode(modeName);
    if (!mode)
      throw RpcError(ErrorCode::InvalidParams,
                     "pallas.run: unknown mode '" + modeName +
                         "' (compiled, interpret, gpu-interpret, compare)");
    request.mode = *mode;
    {
      std::lock_guard lock(state_->mutex);
      const RunnerSettings& st = state_->settings;
      // The file's own project configuration counts ([tool.pallas-lsp] python).
      ExecutionDecision decision = runInterpreterFor(contextLocked(*state_, request.file));
      if (decision.python.empty())
        throw RpcError(ErrorCode::RequestFailed,
                       "pallas.run refused: " + decision.refusal +
                           (st.workspaceTrusted ? std::string()
                                                : " (trust the workspace in your editor to run "
                                                  "kernels)"));
      if (state_->running)
        throw RpcError(ErrorCode::RequestFailed,
                       "pallas.run refused: a run is already in progress (cancel it first)");
      state_->running = true;
      // The interpreter the analysis uses (setting, else the workspace's
      // environment), not python3 from PATH.
      request.python = decision.python;
      request.launchTemplate = environment::launchTemplate(st.launchTemplate);
      // ssh and srun forward only the standard streams: the result comes on
      // stdout through a template (fd 3 arrives closed).
      request.resultChannel = gpu::resultChannelFor(request.launchTemplate);
      request.timeout = check::timeoutMilliseconds(st.timeoutSeconds);
      // Diagnostics of the previous run go away when a new one starts.
      state_->runDiagnostics.clear();
    }
    struct Release {
      RunnerState& s;
      ~Release() {
        std::lock_guard lock(s.mutex);
        s.running = false;
      }
    } release{*state_};
    reanalyse(server_);

    std::string title = "Pallas: " + modeName + " run of " +
                        (request.entry.empty() ? std::string("the marked entry") : request.entry);
    auto progress = server_.beginProgress(
        title, /*cancellable=*/true, a.contains("workDoneToken") ? a["workDoneToken"] : json());
    gpu::CancelToken cancel;
    // What the program prints, as it prints it (pallas/runOutput), up to a
    // cap: the whole of it is in the result.
    LspServer* server = &server_; // the request waits for the task
    json about{{"entry", request.entry}, {"mode", modeName}};
    auto task = std::async(std::launch::async, [request, progress, cancel, server, about] {
      size_t live = 0;
      return gpu::runKernel(
          request,
          [&](const gpu::Progress& p) {
            if (p.phase == gpu::Phase::Output) {
              if (live >= kLiveOutputCap)
                return;
              std::string text = p.message.substr(0, kLiveOutputCap - live);
              live += text.size();
              if (live >= kLiveOutputCap)
                text += "\n[pallas-lsp: the rest of the output is in the run's result]\n";
              json params = about;
              params["text"] = std::move(text);
              server->endpoint().notify("pallas/runOutput", params);
              return;
            }
            if (p.phase == gpu::Phase::Finished)
              return;
            progress->report(p.message.empty() ? gpu::phaseName(p.phase) : p.message,
                             p.percent ? std::optional<unsigned>(static_cast<unsigned>(*p.percent))
                                       : std::nullopt);
          },
          &cancel);
    });
    while (task.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
      if (ctx.cancel.cancelled() || progress->cancelled())
        cancel.cancel();
    }
    gpu::RunResult result = task.get();
    std::string summary = summarise(result);
    progress->end(gpu::runStatusName(result.status));
    publishFrames(result);
    bool clientShows;
    {
      std::lock_guard lock(state_->mutex);
      clientShows = state_->settings.clientShowsResults;
    }
    if (!clientShows)
      server_.showMessage(result.ok() ? MessageType::Info
                          : result.status == gpu::RunResult::Status::Cancelled
                              ? MessageType::Warning
                              : MessageType::Error,
                          summary);
    ctx.cancel.check(); // $/cancelRequest: the reply is RequestCancelled
    json out = result.toJson();
    out["summary"] = summary;
    out["status"] = gpu::runStatusName(result.status);
    return out;
  }

  static std::string fmt(double v) {
    std::ostringstream os;
    os.precision(4);
    os << v;
    return os.str();
  }

  static std::string summarise(const gpu::RunResult& r) {
    std::string entry = r.entry.empty() ? "the entry" : r.entry;
    std::string out =
        "pallas-lsp run " + entry + " (" + r.mode + "): " + gpu::runStatusName(r.status);
    if (!r.ok())
      out += ". " + r.message;
    for (const gpu::ModeResult& m : r.modes) {
      out += "\n[" + m.mode + "]";
      if (m.error)
        out += " " + m.error->type + ": " + m.error->message.substr(0, 300);
      if (m.compileSeconds)
        out += " first call (with compiling) " + fmt(*m.compileSeconds) + " s";
      if (m.runSecondsMedian)
        out += ", run " + fmt(*m.runSecondsMedian * 1000) + " ms (median of " +
               std::to_string(m.runs) + ")";
      for (const gpu::OutputSummary& o : m.outputs) {
        out += "\n  out" + o.path + ": " + o.dtype + "[";
        for (size_t i = 0; i < o.shape.size(); ++i)
          out += (i ? "," : "") + std::to_string(o.shape[i]);
        out += "] sha256 " + o.checksum;
        if (o.sum)
          out += " sum " + fmt(*o.sum);
      }
    }
    for (const gpu::Comparison& c : r.comparisons) {
      out += "\ncompare out" + c.path + ": ";
      if (c.comparable && c.maxAbsDiff && c.maxRelDiff)
        out += "max |a-b| " + fmt(*c.maxAbsDiff) + ", max rel " + fmt(*c.maxRelDiff);
      else
        out += "not comparable";
      if (!c.note.empty())
        out += " (" + c.note + ")";
    }
    return out;
  }

  // The user's frames of each exception, as diagnostics at those lines.
  void publishFrames(const gpu::RunResult& result) {
    std::map<std::string, json> byPath; // canonical path -> diagnostics
    auto add = [&](const gpu::PythonError& error, const std::string& prefix) {
      const gpu::Frame* innermost = error.innermostUserFrame();
      std::string headline =
          prefix + error.type + (error.message.empty() ? "" : ": " + error.message);
      for (const gpu::Frame& f : error.frames) {
        if (!f.user || f.line <= 0)
          continue;
        bool inner = &f == innermost;
        json d{
            {"severity", inner ? 1 : 3},
            {"source", "pallas-lsp run"},
            {"code", "run"},
            {"message",
             inner ? headline : "called from here (" + f.function + ") on the way to: " + headline},
            {"line0", f.line - 1}};
        byPath[canonical(f.file)].push_back(std::move(d));
      }
    };
    if (result.setupError)
      add(*result.setupError, "");
    for (const gpu::ModeResult& m : result.modes)
      if (m.error)
        add(*m.error, "[" + m.mode + "] ");

    auto encoding = server_.client().encoding;
    std::vector<std::string> touched;
    {
      std::lock_guard lock(state_->mutex);
      for (const OpenDocument& doc : server_.documents().all()) {
        auto it = byPath.find(canonical(doc.path));
        if (it == byPath.end())
          continue;
        json diagnostics = json::array();
        for (json d : it->second) {
          unsigned line = d["line0"].get<unsigned>();
          d.erase("line0");
          d["range"] = lineRange(doc.text, line, encoding);
          diagnostics.push_back(std::move(d));
        }
        state_->runDiagnostics[doc.path] = RunDiagnostics{doc.version, std::move(diagnostics)};
        touched.push_back(doc.path);
      }
    }
    for (const std::string& path : touched)
      server_.scheduleDiagnostics(path);
  }

  // ---- pallas.doctor ----
  json doctor(const json& args) {
    bool asJson = args.is_array() && !args.empty() && args[0].is_object() &&
                  args[0].value("format", std::string()) == "json";
    std::string python, launchTemplate;
    std::optional<gpu::ProbeResult> probe;
    json knowledgeInfo, runs;
    std::string knowledgePath;
    ExecutionDecision decision;
    {
      std::lock_guard lock(state_->mutex);
      // The interpreter a run would use; inspecting it runs it, so only
      // where the trust rule allows.
      decision = runInterpreterFor(contextLocked(*state_));
      python = decision.python.empty() ? std::string("(not executed)") : decision.python;
      launchTemplate = environment::launchTemplate(state_->settings.launchTemplate);
      probe = state_->probe;
      knowledgeInfo = state_->knowledge;
      knowledgePath = state_->knowledgePath;
      runs = state_->runs;
    }
    if (!probe)
      probe = environment::gpuProbe(); // before the worker got to it
    json environment = decision.python.empty()
                           ? json{{"error", "not inspected: " + decision.refusal}}
                           : gpu::inspectPythonEnvironment(python, launchTemplate);
    json report{
        {"python", {{"interpreter", python}, {"environment", environment}}},
        {"gpu", environment::probeJson(
                    *probe, knowledge::KnowledgeService::shared().table(knowledgePath).get())},
        {"gpu_for_hardware_checks", environment::bestCapability(*probe)},
        {"knowledge", knowledgeInfo},
        {"runs", runs},
        {"launch_template", environment::launchTemplateText(launchTemplate)}};
    if (asJson)
      return report;
    // A field that is missing or null (no JAX in that interpreter, nothing
    // configured) reads as "?": json::value() throws on null.
    auto str = [](const json& o, const char* key, const std::string& fallback = "?") {
      return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>()
                                                                    : fallback;
    };
    // What runs use and what the analysis reads, apart: they may differ (a
    // python3 without JAX runs nothing while the bundled table still serves
    // the analysis).
    std::string text =
        "pallas-lsp doctor\n\nRuns (what a kernel run uses):\n  Python: " + python + "\n";
    if (environment.contains("error"))
      text += "  JAX: unknown (cannot inspect the interpreter: " +
              str(environment, "error", environment["error"].dump()) + ")\n";
    else if (!environment.contains("jax") || !environment["jax"].is_string())
      text += "  JAX: not installed" +
              (str(environment, "jax_error", "").empty()
                   ? std::string()
                   : " (" + str(environment, "jax_error", "") + ")") +
              ": runs fail until this interpreter has JAX (set the python setting or "
              "[tool.pallas-lsp] python)\n";
    else
      text += "  JAX " + str(environment, "jax") + ", jaxlib " +
              str(environment, "jaxlib", "not installed") + "\n";
    text += "  launch template: " + report["launch_template"].get<std::string>() + "\n";
    text += "\nAnalysis (what the findings are decided from):\n  ";
    if (knowledgeInfo.empty())
      text += "knowledge being loaded\n";
    else
      text += "knowledge of JAX " + str(knowledgeInfo, "jax_version") + ", " +
              str(knowledgeInfo, "how") + "\n  table: " + str(knowledgeInfo, "source") + "\n" +
              (str(knowledgeInfo, "fallback", "").empty()
                   ? std::string()
                   : "  (bundled table because: " + str(knowledgeInfo, "fallback", "") + ")\n");
    text += "\nGPU (CUDA driver API):\n  " + probe->summary() + "\n";
    std::string cap = environment::bestCapability(*probe);
    text += "  hardware checks (PLS003) for: " +
            (cap.empty() ? std::string("no GPU (off)") : "sm " + cap) + "\n";
    return text;
  }

  LspServer& server_;
  std::shared_ptr<RunnerState> state_;
};

const ServerFeatureRegistration registration{
    {"gpu-runner", [](LspServer& server) {
       // The feature lives as long as the handlers that capture it.
       auto runner = std::make_shared<GpuRunner>(server, std::make_shared<RunnerState>());
       runner->install();
       server.onInitialized([runner] {}); // keeps it alive with the server's callbacks
     }}};

} // namespace
} // namespace pallas::server
