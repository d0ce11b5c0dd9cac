// Callers in files the editor never opened (WorkspaceCallers.h): the index
// is built in the background, kept current per saved / opened / changed
// file, and read before each analysis (docs/analysis.md 8.34).
#include "LspServer.h"

#include <boost/asio/post.hpp>

namespace pallas::server {

void LspServer::startCallerIndex() {
  if (!callers_)
    return;
  std::weak_ptr<LspServer> weak = weak_from_this();
  // Off the message queue: a large workspace takes a while to read, and the
  // first diagnostics of an open document must not wait for it.
  boost::asio::post(analysisPool(), [weak, index = callers_, stop = stopIndexing_] {
    size_t callers = index->build(*stop);
    auto self = weak.lock();
    if (!self || stop->load())
      return;
    // Once per session (the transcript tests wait for it).
    self->log_.info("caller index built: " + std::to_string(callers) +
                    " workspace files may choose the path of a launch they call");
    // Documents analysed before the index was ready: again, with their callers.
    for (const OpenDocument& doc : self->documents_.all())
      if (!index->callersOf(doc.path).empty())
        self->scheduleDiagnostics(doc.path);
  });
}

void LspServer::callerFileChanged(const std::string& path, std::optional<std::string_view> text,
                                  bool reanalyse) {
  if (!callers_)
    return;
  std::vector<std::string> touched = callers_->update(path, text);
  if (!reanalyse)
    return;
  for (const std::string& imported : touched)
    if (imported != path && documents_.isOpen(imported))
      scheduleDiagnostics(imported);
}

void LspServer::bringCallersIn(const std::string& path) {
  if (!callers_)
    return;
  // Read from disk, never opened: nothing is published for them, and an
  // open caller is in the Project with the editor's text already.
  for (const std::string& caller : callers_->callersOf(path))
    if (!documents_.isOpen(caller) && project_->indexFile(caller))
      log_.debug("read caller " + caller + " of " + path + " from disk");
}

} // namespace pallas::server
