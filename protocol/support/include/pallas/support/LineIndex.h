// Where lines start in a text, for everyone who turns (line, column) into a
// byte offset or back: the server's diagnostics, `check`'s columns and fixes,
// the runner's exception frames, the LSP position functions.
//
// Lines end at "\n", "\r\n" or a lone "\r": LSP's three line ends, and
// Python's (the analysis reads a lone "\r" as "\n", so its rows agree).
// Columns are UTF-8 byte columns; protocol/Text.h converts them to the
// client's encoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace pallas::support {

// The first line break at or after `from`: its offset and (in `length`, when
// given) its length, 2 for "\r\n" and 1 otherwise; npos when there is none.
size_t findLineBreak(std::string_view text, size_t from, size_t* length = nullptr);

class LineIndex {
public:
  // Indexes `text`, which must outlive the index.
  explicit LineIndex(std::string_view text);

  std::string_view text() const { return text_; }
  // At least 1: an empty text has one empty line.
  size_t lineCount() const { return starts_.size(); }
  // Byte offset of the first byte of `line`; nullopt past the last line.
  std::optional<size_t> lineStart(uint32_t line) const;
  // Byte range [begin, end) of the content of `line`, without its line end.
  std::optional<std::pair<size_t, size_t>> lineBounds(uint32_t line) const;
  // The content of `line` without its line end; empty past the last line.
  std::string_view lineText(uint32_t line) const;
  // Byte offset of (line, byte column); nullopt when the line does not exist
  // or the column runs past the line (a stale or bogus position). A column
  // may reach the last byte of the line's end, so the "\r" of a "\r\n"
  // counts as part of the line here.
  std::optional<size_t> offset(uint32_t line, uint32_t column) const;
  // 1-based column of (line, byte column) counted in Unicode code points
  // (ruff's convention and SARIF's "unicodeCodePoints"). Columns past the
  // end of the line, and positions on missing lines, fall back to byte
  // column + 1; invalid UTF-8 counts one column per stray byte.
  uint32_t codePointColumn(uint32_t line, uint32_t column) const;

private:
  std::string_view text_;
  std::vector<size_t> starts_; // byte offset of each line's first byte
};

} // namespace pallas::support
