// Readers of a document's snapshot (DocumentSnapshot.h): how a request finds
// the answer of its version without the Project's lock, and what the
// document's worker computes for the hover once the diagnostics are out.
#include "LspServer.h"

namespace pallas::server {

SnapshotPtr LspServer::snapshotFor(const std::string& path, SnapshotNeed need,
                                   const RequestContext& ctx) {
  // What the request refers to, as of its arrival: requests run after every
  // earlier message was handled, so the edits it follows are in the draft
  // and their analysis is scheduled.
  auto doc = documents_.get(path);
  if (!doc)
    return nullptr;
  uint64_t wanted = 0;
  {
    std::lock_guard lock(scheduleMutex_);
    if (auto it = wantedAnalysis_.find(path); it != wantedAnalysis_.end())
      wanted = it->second;
  }
  auto ready = [&](const SnapshotPtr& s) {
    if (!s)
      return false;
    if (need == SnapshotNeed::Findings)
      return s->analysis >= wanted && s->withFixes;
    if (need == SnapshotNeed::Analysed)
      return s->analysis >= wanted;
    // The hover reads positions in the text it was asked about: any analysis
    // of that version (or, when the client moved on, of a later one) will do.
    return s->hover && (s->version >= doc->version || s->analysis >= wanted);
  };
  for (;;) {
    SnapshotPtr s = snapshots_.get(path);
    if (ready(s))
      return s;
    if (!documents_.isOpen(path))
      return nullptr;
    ctx.cancel.check();
    // Nothing under way will answer (the analysis was never scheduled, or
    // it failed before storing): ask the worker for one.
    if (!scheduler_->busy(path)) {
      uint64_t scheduled = scheduleAnalysis(path);
      if (scheduled == 0)
        return s; // the server stops: what there is
      std::lock_guard lock(scheduleMutex_);
      wanted = std::max(wanted, wantedAnalysis_[path]);
    }
    // Woken by a store; the timeout only bounds how late a cancellation or
    // a close is noticed.
    snapshots_.waitForChange(path, s, std::chrono::milliseconds(50));
  }
}

std::shared_ptr<const HoverFacts> LspServer::hoverFacts(const std::string& path,
                                                        const std::string& text,
                                                        const std::function<bool()>& stale) {
  auto facts = std::make_shared<HoverFacts>();
  facts->knowledgePath = project_->knowledgePath();
  facts->apis = project_->apiSites(path);
  if (stale())
    return nullptr;
  std::optional<support::LineIndex> lines; // made once, if any region needs it
  for (const analysis::ApiAt& site : facts->apis)
    if (site.api == "plgpu.inline_mgpu") {
      if (!lines)
        lines.emplace(text);
      analysis::SourceRange extent = inlineRegionExtent(*lines, site.range.start);
      facts->regions.push_back(HoverFacts::Region{
          extent, site.range.start, inlineRegionSpots(*lines, site.range.start, extent)});
    }
  return facts;
}

} // namespace pallas::server
