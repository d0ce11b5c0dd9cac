// Text document synchronisation: didOpen / didChange / didClose / didSave,
// watched files changed on disk, and the text of a file (draft, Project
// copy, then disk) for position conversion.
#include "LspServer.h"
#include "pallas/support/FileReading.h"
#include "pallas/support/Uri.h"

#include <boost/asio/post.hpp>

namespace pallas::server {

namespace asio = boost::asio;
using V = json::value_t;

// Reads a regular file of bounded size (never a device, FIFO or huge file
// named by a client URI).
static std::optional<std::string> readFileBounded(const std::string& path, std::string* why) {
  return support::readSourceFile(path, why, protocol::kDefaultMaxContentLength);
}

void LspServer::didOpen(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  const json& text = protocol::requireField(td, "text", V::string, "params.textDocument");
  const json* version =
      protocol::optionalField(td, "version", V::number_integer, "params.textDocument");
  OpenDocument doc{uri.get<std::string>(), support::uriToPath(uri.get<std::string>()),
                   version ? version->get<int64_t>() : 0, text.get<std::string>()};
  if (auto bad = protocol::findInvalidUtf8(doc.text)) {
    log_.error("didOpen " + doc.uri + " rejected: the text is not valid UTF-8 (byte " +
               std::to_string(*bad) + ")");
    return;
  }
  std::string path = doc.path;
  // The drafts of all open documents together are capped: a client cannot
  // make the server hold text without bound.
  if (std::string refused = documents_.wouldExceedCap(path, doc.text.size()); !refused.empty()) {
    log_.error("didOpen " + doc.uri + " rejected: " + refused);
    showMessage(MessageType::Error, "pallas-lsp: " + doc.uri + " is not analysed: " + refused);
    return;
  }
  // The editor's text is the caller index's from now on (its dependencies
  // are analysed again by afterUpdate below).
  callerFileChanged(path, doc.text, false);
  // Over the analysis budget: the Project holds nothing of it and its
  // finding is PLS010 alone (FindingsPipeline::noteDocumentText).
  bool tooLarge = pipeline_->noteDocumentText(path, doc.text);
  auto stats = project_->setDocument(path, tooLarge ? std::string() : doc.text);
  documents_.open(std::move(doc));
  afterUpdate(path, stats);
}

void LspServer::didChange(const json& params) {
  const json& td = protocol::requireField(params, "textDocument", V::object);
  const json& uri = protocol::requireField(td, "uri", V::string, "params.textDocument");
  const json* version =
      protocol::optionalField(td, "version", V::number_integer, "params.textDocument");
  const json& changes = protocol::requireField(params, "contentChanges", V::array);
  std::string path = support::uriToPath(uri.get<std::string>());
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
  // The analysis of the version this edit replaces would hold the Project
  // until it ends: stop it first (it publishes nothing; the new version's
  // run is scheduled below).
  scheduler_->interrupt(path);
  analysis::UpdateStats stats;
  // A document over the analysis budget, before or after this change, is
  // given to the Project whole (empty while it is over): the Project's text
  // is then not the previous draft, so edits would not apply to it.
  if (result.tooLargeBefore || result.tooLargeAfter) {
    std::optional<OpenDocument> doc = documents_.get(path);
    std::string text = doc ? doc->text : std::string();
    bool tooLarge = pipeline_->noteDocumentText(path, text);
    stats = project_->setDocument(path, tooLarge ? std::string() : std::move(text));
    afterUpdate(path, stats);
    return;
  }
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
  std::optional<size_t> closedBytes = documents_.close(path);
  if (!closedBytes) {
    log_.warn("didClose for a document that is not open: " + path);
    return;
  }
  // Stop a run of the closed document first, as didChange does: it holds
  // the Project's lock, which closeDocument waits for, and its work is for a
  // document that is gone (it returns at its next stop check).
  scheduler_->interrupt(path);
  project_->closeDocument(path);
  // The Project reads the disk's text back: so does the caller index, and
  // what the editor's text chose is chosen again from the disk.
  callerFileChanged(path, readFileBounded(path, nullptr), true);
  pipeline_->forget(path);
  // Forget the document's schedule and stats: kept, 20,000 open/close
  // cycles of distinct documents grew memory for good. A run in progress is
  // stopped and publishes nothing.
  scheduler_->forget(path);
  {
    std::lock_guard lock(scheduleMutex_);
    stats_.erase(path);
    published_.erase(path);
    wantedAnalysis_.erase(path);
    memoryRelease_.documentClosed(*closedBytes);
  }
  // Its findings, text and hover facts (a run that stores one after this
  // sees the draft closed and forgets it again).
  snapshots_.forget(path);
  if (!client_.pullDiagnostics)
    publish(path, json::array(), std::nullopt);
}

void LspServer::didSave(const json& params) {
  std::string path = documentPath(params);
  log_.debug("saved " + path);
  // Its imports as saved: the caller index is updated per save, not per
  // keystroke (the edits themselves re-analysed what it imports).
  if (auto doc = documents_.get(path))
    callerFileChanged(path, doc->text, false);
}

void LspServer::didChangeWatchedFiles(const json& params) {
  const json& changes = protocol::requireField(params, "changes", V::array);
  for (const json& change : changes) {
    if (!change.is_object() || !change.contains("uri") || !change["uri"].is_string() ||
        !change.contains("type") || !change["type"].is_number_integer()) {
      log_.warn("didChangeWatchedFiles: skipping a malformed FileEvent " + change.dump());
      continue;
    }
    // Created, changed or deleted alike: the Project reads the disk (an open
    // document keeps the editor's text).
    std::string path = support::uriToPath(change["uri"].get<std::string>());
    fileChangedOnDisk(path);
    // A caller in a file never opened: the launches it may choose are
    // analysed again with its new text (an open document keeps its own).
    if (!documents_.isOpen(path) && path.ends_with(".py"))
      callerFileChanged(path, readFileBounded(path, nullptr), true);
  }
}

void LspServer::fileChangedOnDisk(const std::string& path) {
  std::string why;
  switch (project_->fileChanged(path, &why)) {
  case analysis::Project::DiskChange::OpenDocumentOwnsIt:
    return; // the editor's draft wins
  case analysis::Project::DiskChange::Forgotten:
    if (!why.empty() && why.find("No such file") == std::string::npos)
      log_.warn("didChangeWatchedFiles: cannot read " + path + " (" + why + ")");
    break;
  case analysis::Project::DiskChange::Reread:
    if (auto bad = protocol::findInvalidUtf8(project_->documentText(path))) {
      log_.warn("didChangeWatchedFiles: " + path + " is not valid UTF-8 (byte " +
                std::to_string(*bad) + "); not analysed");
      project_->releaseDocument(path);
    }
    break;
  }
  // Open documents that import from it see the new text.
  for (const std::string& dep : project_->dependents(path))
    if (dep != path && documents_.isOpen(dep))
      scheduleDiagnostics(dep);
}

std::optional<std::string> LspServer::textOf(const std::string& path) {
  if (auto doc = documents_.get(path))
    return doc->text;
  // A file the index read from disk: the text its findings were located in.
  if (project_ && project_->isIndexed(path))
    return project_->documentText(path);
  return readFileBounded(path, nullptr);
}

} // namespace pallas::server
