// PLS011 (syntax-error): where tree-sitter could not parse a document. Built
// on the syntax tree alone (ERROR and MISSING nodes), apart from the lowering:
// the rest of the document is still analysed as tree-sitter recovers it, and
// this module only says where the text is broken, so the user knows why
// findings there are missing (an editor showed nothing at all while a line
// was half typed, and `check` said "All checks passed!").
#pragma once

#include "pallas/analysis/Finding.h"

#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <vector>

namespace pallas::analysis {

// At most this many syntax errors per document: after the first few,
// tree-sitter's recovery reports consequences of the first ones.
inline constexpr size_t kMaxSyntaxErrors = 10;

// One finding per outermost ERROR node and per MISSING node under `root`,
// in document order (at most kMaxSyntaxErrors). `text` is the text the tree
// was parsed from; `path` goes into the findings' locations.
std::vector<Finding> syntaxErrorFindings(TSNode root, std::string_view text,
                                         const std::string& path);

// Whether pallas-lsp reports syntax errors for a document with this text:
// only where it can name JAX (the documents pallas-lsp is about; other
// files' syntax is the business of the user's other linters).
bool reportsSyntaxErrors(std::string_view text);

} // namespace pallas::analysis
