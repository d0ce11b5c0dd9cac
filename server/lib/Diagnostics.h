// Findings (analysis, UTF-8 byte columns) -> LSP Diagnostics (client
// position encoding). The same fields as `pallas-lsp check --format json`:
// code, severity, range, message (+ execution path and call chain),
// relatedInformation (launch + related), and `data` carrying the fixes so a
// code action can apply them without recomputing anything.
#pragma once

#include "RunCommand.h"
#include "pallas/analysis/Finding.h"
#include "pallas/protocol/JsonRpc.h"
#include "pallas/protocol/Text.h"
#include "pallas/support/LineIndex.h"

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pallas::server {

inline constexpr const char* kDiagnosticSource = "pallas-lsp";

// The text of a file (open draft, Project copy or disk), to convert columns;
// nullopt when unknown (columns are then passed through unchanged).
using TextLookup = std::function<std::optional<std::string>(const std::string& path)>;

class DiagnosticConverter {
public:
  DiagnosticConverter(protocol::PositionEncoding enc, TextLookup lookup)
      : enc_(enc), lookup_(std::move(lookup)) {}

  protocol::json range(const std::string& path, const analysis::SourceRange& r);
  protocol::json location(const analysis::SourceLocation& loc);
  protocol::json diagnostic(const analysis::Finding& f);
  // One diagnostic per site (findings of several launches at one site are
  // merged), plus a hint at each line that selects a failing path.
  protocol::json diagnostics(const std::vector<analysis::Finding>& findings);
  protocol::json mergedDiagnostic(const std::vector<const analysis::Finding*>& group);
  protocol::json selectionHint(const analysis::Finding& f);

  // What diagnostics() is made of, in its order: a diagnostic per site (the
  // findings of several launches at one site together), each followed by
  // the hints of the lines that select its failing paths.
  struct Item {
    std::vector<const analysis::Finding*> group; // a diagnostic, or
    const analysis::Finding* hint = nullptr;     // a selection hint
  };
  std::vector<Item> plan(const std::vector<analysis::Finding>& findings);
  protocol::json convert(const Item& item);
  // The column of `p` in the client's encoding (what the JSON will say).
  uint32_t character(const std::string& path, const analysis::SourcePos& p);

private:
  protocol::json position(const std::string& path, const analysis::SourcePos& p);

  protocol::PositionEncoding enc_;
  TextLookup lookup_;
  // Texts fetched during one conversion (a finding set refers to few files),
  // with where each line starts: found per position by scanning from the
  // start of the text, it made a conversion findings x file size. A deque,
  // so a text never moves under its index.
  struct Cached {
    std::string path;
    std::optional<std::string> text;
    std::optional<support::LineIndex> lines; // over *text
  };
  const Cached& cached(const std::string& path);
  std::deque<Cached> cache_;
};

// The message shown in the editor: the one-line headline, the finding's
// message, then the execution path and the call chain on their own lines.
std::string diagnosticMessage(const analysis::Finding& f);

} // namespace pallas::server
