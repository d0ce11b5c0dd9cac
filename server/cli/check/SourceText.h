// Line index over a file's bytes, for converting the analysis's positions
// (0-based line, UTF-8 byte column) into what each output wants: byte
// offsets for applying edits, 1-based code-point columns for people (ruff's
// convention, and what SARIF's "unicodeCodePoints" column kind means).
// Lines end at '\n' or at a lone '\r' (as the analysis counts rows); the
// '\r' of a "\r\n" belongs to the line's text.
#pragma once

#include "pallas/analysis/Finding.h"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace pallas::check {

class LineIndex {
public:
  explicit LineIndex(std::string_view text);
  size_t lineCount() const { return starts_.size(); }
  // Byte offset of a position; nullopt when the line does not exist or the
  // column runs past the end of the line (a stale or bogus position).
  std::optional<size_t> offset(analysis::SourcePos pos) const;
  // 1-based column counted in Unicode code points. Columns past the end of
  // the line, and positions on missing lines, fall back to byte column + 1.
  uint32_t codePointColumn(analysis::SourcePos pos) const;

private:
  std::string_view text_;
  std::vector<size_t> starts_; // byte offset of each line's first byte
};

} // namespace pallas::check
