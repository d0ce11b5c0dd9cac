// textDocument/codeAction for pallas-lsp findings (issue 5): turns the
// `Fix`es findings carry into LSP CodeAction objects. Kinds: `quickfix` (one
// action per fix of each finding in the requested range) and
// `source.fixAll.pallas-lsp` (every *safe* fix of the document in one edit,
// as ruff does: unsafe and display-only fixes are never part of fix-all).
// No LSP library types: plain nlohmann::json, and the caller's converters
// for positions (the negotiated encoding) and URIs.
#pragma once

#include "pallas/analysis/Finding.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pallas::server::features {

inline constexpr const char* kFixAllKind = "source.fixAll.pallas-lsp";

struct CodeActionConverters {
  // A 0-based UTF-8 position of `path` -> LSP {"line", "character"} in the
  // session's position encoding.
  std::function<nlohmann::json(const std::string& path, analysis::SourcePos)> position;
  // An absolute path -> the URI the client knows the document by.
  std::function<std::string(const std::string& path)> uri;
  // The diagnostic the server published for a finding (so `diagnostics`
  // of the action matches what the client shows); may be empty: then a
  // minimal {range, code, source, message} is built.
  std::function<nlohmann::json(const analysis::Finding&)> diagnostic;
  // The hint the server published where the finding's path is decided
  // (Finding::selectedAt); may be empty.
  std::function<nlohmann::json(const analysis::Finding&)> hint;
};

// `params`: the CodeActionParams of the request ({textDocument, range,
// context: {diagnostics, only?}}). `findings`: the document's findings.
// A finding's fixes are offered where it is; its path fixes
// (Fix::decidesPath) also where its path is decided (Finding::selectedAt).
// Returns a JSON array of CodeAction objects (possibly empty).
nlohmann::json codeActions(const std::vector<analysis::Finding>& findings,
                           const nlohmann::json& params, const CodeActionConverters& conv);

// The fix-all edit alone (also what `codeActions` returns for the fix-all
// kind): every safe fix, in document order, skipping fixes whose edits
// overlap an earlier one. Empty `changes` when there is nothing to do.
nlohmann::json fixAllEdit(const std::vector<analysis::Finding>& findings,
                          const CodeActionConverters& conv);

} // namespace pallas::server::features
