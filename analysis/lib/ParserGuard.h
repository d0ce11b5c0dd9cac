// What tree-sitter may be given. Its error recovery costs more than linear
// time in what is left open (70,000 unclosed brackets, `x = a = a = ...`,
// 70,000 `if x:` lines without bodies; Debian's 0.20.7 runtime even
// corrupted its heap there, hence the runtime compiled from npm), and
// Python's own line ends include a lone "\r", which the grammar treats as
// whitespace. The analysis therefore parses
// (and reads) a derived text of the same length, so every byte offset and
// row stays valid:
//  - a lone "\r" becomes "\n" (a "\r\n" pair is left as it is);
//  - from the start of a logical line whose nesting could approach the
//    runtime's limit, the rest of the file is blanked (spaces; line breaks
//    kept), and that place is reported as too deep to analyse.
// No MLIR, no tree-sitter here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::analysis::syntax {

// The most constructs that can stay open at once (brackets, operators and
// keywords awaiting an operand, and block headers without a body) that the
// guard lets through; far above any real program (CPython refuses more than
// 200 nested brackets).
inline constexpr size_t kMaxOpenConstructs = 50000;

// Offset of the start of the logical line (or of the run of body-less block
// headers) where the count of possibly-open constructs first exceeds
// `limit`, or nullopt. Strings and comments do not count. A cheap linear
// over-estimate: tree-sitter reduces most of what it counts long before.
std::optional<size_t> findParserOverload(std::string_view text, size_t limit = kMaxOpenConstructs);

// Replaces every lone "\r" by "\n". True when it changed something.
bool normaliseLoneCarriageReturns(std::string& text);

// Whether text[i] is a "\r" that is not followed by "\n".
inline bool isLoneCarriageReturn(std::string_view text, size_t i) {
  return i < text.size() && text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n');
}

// Blanks text[from, end): every byte but "\n" and "\r" becomes a space.
void blankFrom(std::string& text, size_t from);

} // namespace pallas::analysis::syntax
