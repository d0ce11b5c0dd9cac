// The drafts of the documents the editor has open, as the client sees them.
// Incoming LSP content changes are converted here, against the draft text, to
// UTF-8 byte edits that the analysis Project applies (clangd's DraftStore).
#pragma once

#include "pallas/analysis/Project.h"
#include "pallas/protocol/JsonRpc.h"
#include "pallas/protocol/Text.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pallas::server {

struct OpenDocument {
  std::string uri;
  std::string path; // key shared with the Project
  int64_t version = 0;
  std::string text;
};

class DocumentStore {
public:
  // Replaces any existing draft.
  void open(OpenDocument doc);
  // The closed draft's size in bytes; nullopt when it was not open.
  std::optional<size_t> close(const std::string& path);
  bool isOpen(const std::string& path) const;
  std::optional<OpenDocument> get(const std::string& path) const;
  std::vector<OpenDocument> all() const;

  // Applies `contentChanges` (TextDocumentContentChangeEvent[]) to the draft,
  // each against the text left by the ones before it. On success, returns the
  // byte edits (same order) and updates text and version; on failure the
  // draft is unchanged and `error` says why (document not open, range outside
  // the document, invalid UTF-8, malformed change, a `version` lower than the
  // draft's: versions only increase). A negative `version` means the client
  // sent none: the draft keeps its version.
  struct ChangeResult {
    std::vector<analysis::ByteEdit> edits;
    std::string error;
  };
  ChangeResult change(const std::string& path, int64_t version,
                      const protocol::json& contentChanges, protocol::PositionEncoding enc);

private:
  mutable std::mutex mutex_;
  std::map<std::string, OpenDocument> docs_;
};

} // namespace pallas::server
