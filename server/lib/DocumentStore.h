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

// The text of all open documents together: past it a didOpen or a
// didChange is refused (logged and shown; the draft keeps its text), so a
// client cannot make the server hold text without bound.
inline constexpr size_t kMaxOpenDocumentBytes = size_t{256} << 20;

class DocumentStore {
public:
  // Why opening `path` with `bytes` of text would pass the cap, or "".
  std::string wouldExceedCap(const std::string& path, size_t bytes) const;
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
    // What the Project applies: the changes as byte edits, or one edit
    // spanning them all when there are many (DocumentStore.cpp).
    std::vector<analysis::ByteEdit> edits;
    std::string error;
    // The text was / is over the analysis budget (AnalysisBudget.h).
    bool tooLargeBefore = false, tooLargeAfter = false;
  };
  ChangeResult change(const std::string& path, int64_t version,
                      const protocol::json& contentChanges, protocol::PositionEncoding enc);

private:
  mutable std::mutex mutex_;
  std::map<std::string, OpenDocument> docs_;
  size_t totalBytes_ = 0; // of every draft in docs_
};

} // namespace pallas::server
