// Test-only requests (registered with --test-methods) that let transcript
// tests see the scheduler's ordering without timing anything:
//   pallas/test/holdAnalysis {textDocument}: the next analysis of the
//     document waits inside the Project's lock (Project::withSyntax) until
//     released or stopped by a newer edit: an analysis that is "still
//     running" for as long as the test needs.
//   pallas/test/heldAnalysis: {held: path or null} (the hold has begun).
//   pallas/test/releaseAnalysis: lets a held analysis go on.
//   pallas/test/snapshots: {snapshots, scheduled} kept by the server.
#include "LspServer.h"

#include <condition_variable>
#include <optional>
#include <set>
#include <tree_sitter/api.h>

namespace pallas::server {

struct LspServer::TestHold {
  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::string> armed; // documents whose next analysis holds
  std::optional<std::string> held;
  bool release = false;
};

void LspServer::holdForTest(const std::string& path, const std::function<bool()>& stale) {
  TestHold& hold = *testHold_;
  {
    std::lock_guard lock(hold.mutex);
    if (hold.armed.erase(path) == 0)
      return;
    hold.release = false;
  }
  // withSyntax calls back under the Project's lock, like every analysis.
  project_->withSyntax(path, [&](TSTree* copy, std::string_view) {
    ts_tree_delete(copy);
    std::unique_lock lock(hold.mutex);
    hold.held = path;
    // Polled: the StopToken has no way to wake a condition variable.
    while (!hold.release && !stale())
      hold.changed.wait_for(lock, std::chrono::milliseconds(10));
    hold.held.reset();
  });
}

void LspServer::installAnalysisTestMethods() {
  testHold_ = std::make_shared<TestHold>();
  auto hold = testHold_;
  auto self = this; // handlers never outlive the server: the endpoint holds them
  addRequest(
      "pallas/test/holdAnalysis",
      [hold](const json& p, const RequestContext&) {
        std::lock_guard lock(hold->mutex);
        hold->armed.insert(documentPath(p));
        return json(nullptr);
      },
      Mode::Sequential); // ordered with the didOpen / didChange it precedes
  addRequest("pallas/test/heldAnalysis", [hold](const json&, const RequestContext&) {
    std::lock_guard lock(hold->mutex);
    return json{{"held", hold->held ? json(*hold->held) : json(nullptr)}};
  });
  addRequest("pallas/test/releaseAnalysis", [hold](const json&, const RequestContext&) {
    {
      std::lock_guard lock(hold->mutex);
      hold->release = true;
    }
    hold->changed.notify_all();
    return json(nullptr);
  });
  addRequest("pallas/test/snapshots", [self](const json&, const RequestContext&) {
    return json{{"snapshots", self->snapshots_.size()},
                {"scheduled", self->scheduler_->trackedDocuments()}};
  });
}

} // namespace pallas::server
