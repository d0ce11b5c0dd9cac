// Diagnostics: after each update the open documents it affects are analysed
// again (debounced, newest edit wins) and published to push clients; pull
// clients ask with textDocument/diagnostic and workspace/diagnostic.
#include "LspServer.h"
#include "pallas/support/Uri.h"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace pallas::server {

namespace asio = boost::asio;
using V = json::value_t;

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
  // Asked before scheduling: the analysis scheduled below takes the
  // Project's lock at once, and this runs on the ordered queue, which every
  // later message (and request) waits for.
  // Both directions: the documents that import from it call what it
  // defines, and the documents it imports from have launches whose path its
  // calls may choose (a caller passing `interpret=True` to a function that
  // launches, opened or edited after that function's file).
  std::vector<std::string> affected = project_->dependents(path);
  for (std::string& dep : project_->dependencies(path))
    affected.push_back(std::move(dep));
  std::sort(affected.begin(), affected.end());
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  if (documents_.isOpen(path))
    scheduleDiagnostics(path);
  for (const std::string& dep : affected) {
    if (dep != path && documents_.isOpen(dep))
      scheduleDiagnostics(dep);
  }
}

void LspServer::scheduleDiagnostics(const std::string& path) {
  scheduleAnalysis(path);
  // Pull clients re-pull the document they edit; other documents whose
  // results changed need a refresh request (their pulls wait for the
  // analysis just scheduled, see snapshotFor).
  if (client_.pullDiagnostics && client_.diagnosticRefresh)
    endpoint_->call("workspace/diagnostic/refresh", nullptr, [](bool, const json&) {});
}

uint64_t LspServer::scheduleAnalysis(const std::string& path) {
  if (!documents_.isOpen(path))
    return 0; // only open documents are analysed (and keep a snapshot)
  uint64_t analysis = 0;
  {
    std::lock_guard lock(scheduleMutex_);
    analysis = wantedAnalysis_[path] = ++analysisCounter_;
  }
  // The document's worker runs it at once when the document is idle (an
  // opened file, a lone keystroke: the debounce was 50 ms of the first
  // diagnostics), else after the debounce (a burst of typing gives one run);
  // a newer edit replaces it, or stops it if it is already running.
  std::weak_ptr<LspServer> weak = weak_from_this();
  return scheduler_->schedule(
      path,
      [weak, path, analysis](const StopToken& stop) {
        if (auto self = weak.lock())
          self->runAnalysis(path, analysis, stop);
      },
      options_.debounce, DocumentScheduler::Delay::OnlyWhileBusy);
}

void LspServer::runAnalysis(const std::string& path, uint64_t analysis, const StopToken& stop) {
  // Checked between the steps: a newer edit's run publishes instead.
  auto stale = [&] { return stop.stopRequested() || endpoint_->closed(); };
  if (stale())
    return;
  if (testHold_)
    holdForTest(path, stale);
  if (stale())
    return;
  auto doc = documents_.get(path);
  if (!doc)
    return;
  std::shared_ptr<DiagnosticsTextCache> cache;
  analysis::UpdateStats updateStats;
  bool firstRun = false;
  {
    std::lock_guard lock(scheduleMutex_);
    auto& slot = published_[path];
    firstRun = !slot;
    if (!slot)
      slot = std::make_shared<DiagnosticsTextCache>();
    cache = slot;
    if (auto it = stats_.find(path); it != stats_.end())
      updateStats = it->second;
  }
  auto snapshot = std::make_shared<DocumentSnapshot>();
  snapshot->path = path;
  snapshot->version = doc->version;
  snapshot->analysis = analysis;
  snapshot->text = doc->text;
  snapshot->stats = std::move(updateStats);
  // Stored, then released again if the document closed meanwhile (didClose
  // forgets the snapshot after closing the draft: one of the two sees it).
  auto store = [&](const std::shared_ptr<DocumentSnapshot>& s) {
    snapshots_.put(std::make_shared<const DocumentSnapshot>(*s));
    if (!documents_.isOpen(path))
      snapshots_.forget(path);
  };
  bool push = !client_.pullDiagnostics;
  try {
    bringCallersIn(path);
    // A newer edit stops the analysis between its passes and launches.
    const bool first = firstRun && push;
    if (first) {
      // A document's first diagnostics do not wait for its fixes (the
      // rewrite of every finding's region, a third of opening a large
      // file) nor for the keys of the launch results kept for edits (a
      // quarter of the passes): they go out without them, then again with
      // the fixes for the same version. In between, a Keep run keys the
      // first run's launch results and adopts them (LaunchCache::Mode::
      // Record), so an edit typed once the fixes show re-evaluates only
      // what it touched. Later runs reuse the fixes of unchanged code
      // (FixCache) and publish once. Code actions wait for the fixes.
      auto early = pipeline_->firstFindings(path, stale);
      if (!early || stale())
        return;
      snapshot->findings =
          std::make_shared<const std::vector<analysis::Finding>>(std::move(early->shown));
      publishFindings(path, *doc, *snapshot->findings, *cache, stale);
      store(snapshot);
      pipeline_->keepLaunchResults(path, stale);
      if (stale())
        return;
      if (!snapshot->findings->empty())
        snapshot->findings = std::make_shared<const std::vector<analysis::Finding>>(
            pipeline_->withFixes(path, std::move(early->analysed)));
      if (stale())
        return;
    } else {
      auto analysed = pipeline_->findingsUnlessStopped(path, stale);
      if (!analysed || stale())
        return;
      snapshot->findings =
          std::make_shared<const std::vector<analysis::Finding>>(std::move(*analysed));
    }
    snapshot->withFixes = true;
    store(snapshot);
    if (push && !(firstRun && snapshot->findings->empty()))
      publishFindings(path, *doc, *snapshot->findings, *cache, stale);
    // After the diagnostics: what the hover reads, so it never takes the
    // Project's lock.
    auto hover = hoverFacts(path, doc->text, stale);
    if (!hover || stale())
      return;
    snapshot->hover = std::move(hover);
    store(snapshot);
  } catch (const std::exception& e) {
    log_.error("analysis of " + path + " failed: " + e.what());
    // Readers waiting for this version get what there is, not a hang.
    if (!stale()) {
      snapshot->withFixes = true;
      if (!snapshot->hover)
        snapshot->hover = std::make_shared<const HoverFacts>();
      store(snapshot);
    }
  }
}

void LspServer::publishFindings(const std::string& path, const OpenDocument& doc,
                                const std::vector<analysis::Finding>& findings,
                                DiagnosticsTextCache& cache, const std::function<bool()>& stale) {
  DiagnosticConverter conv = converter();
  // A document an interceptor publishes itself (a notebook's cells) gets
  // the diagnostics as JSON, built only when it asks for them.
  std::optional<json> built;
  auto asJson = [&]() -> const json& {
    if (!built)
      built = withExtraDiagnostics(path, conv.diagnostics(findings));
    return *built;
  };
  for (auto& intercept : publishInterceptors_)
    if (intercept(path, asJson, doc.version))
      return;
  std::string items = cache.arrayText(conv, findings, withExtraDiagnostics(path, json::array()));
  if (stale())
    return;
  // In pieces: the items (megabytes at 1,600 diagnostics) are copied once,
  // into the framed message.
  std::string uri = jsonText(doc.uri), version = std::to_string(doc.version);
  endpoint_->notifyText(
      "textDocument/publishDiagnostics",
      {R"({"uri":)", uri, R"(,"version":)", version, R"(,"diagnostics":)", items, "}"});
}

void LspServer::publish(const std::string& path, json diagnostics, std::optional<int64_t> version) {
  for (auto& intercept : publishInterceptors_)
    if (intercept(path, [&]() -> const json& { return diagnostics; }, version))
      return;
  auto doc = documents_.get(path);
  json params{{"uri", doc ? doc->uri : support::pathToUri(path)}};
  params["diagnostics"] = std::move(diagnostics); // moved: 1,600 diagnostics were copied here
  if (version)
    params["version"] = *version;
  endpoint_->notify("textDocument/publishDiagnostics", std::move(params));
}

DiagnosticConverter LspServer::converter() {
  return DiagnosticConverter(client_.encoding,
                             [this](const std::string& path) { return textOf(path); });
}

json LspServer::pullDiagnostics(const json& params, const RequestContext& ctx) {
  std::string path = documentPath(params);
  json items = json::array();
  int64_t version = 0;
  if (SnapshotPtr snap = snapshotFor(path, SnapshotNeed::Findings, ctx)) {
    items = withExtraDiagnostics(path, converter().diagnostics(*snap->findings));
    version = snap->version;
  } else if (project_->hasDocument(path)) {
    items = withExtraDiagnostics(path, converter().diagnostics(findings(path)));
  }
  ctx.cancel.check();
  // The result id is derived from the document's version and the diagnostics
  // themselves: a new edit or a change in what is known without an edit (the
  // knowledge table, a helper file, a GPU run) gives a new id, and nothing
  // else does (a global counter made ids change under unrelated activity).
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
  for (const OpenDocument& doc : documents_.all()) {
    ctx.cancel.check();
    SnapshotPtr snap = snapshotFor(doc.path, SnapshotNeed::Findings, ctx);
    if (!snap)
      continue; // closed meanwhile
    items.push_back(
        {{"kind", "full"},
         {"uri", doc.uri},
         {"version", snap->version},
         {"items", withExtraDiagnostics(doc.path, converter().diagnostics(*snap->findings))}});
  }
  return json{{"items", items}};
}

} // namespace pallas::server
