#include "SourceText.h"

namespace pallas::check {

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  // Python's and LSP's line ends: "\n", "\r\n" and a lone "\r" (the
  // analysis counts rows the same way).
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
      starts_.push_back(i + 1);
}

std::optional<size_t> LineIndex::offset(analysis::SourcePos pos) const {
  if (pos.line >= starts_.size())
    return std::nullopt;
  size_t start = starts_[pos.line];
  size_t end = pos.line + 1 < starts_.size() ? starts_[pos.line + 1] - 1 : text_.size();
  if (pos.column > end - start)
    return std::nullopt;
  return start + pos.column;
}

uint32_t LineIndex::codePointColumn(analysis::SourcePos pos) const {
  auto off = offset(pos);
  if (!off)
    return pos.column + 1;
  uint32_t column = 1;
  for (size_t i = starts_[pos.line]; i < *off; ++i) {
    // Count every byte that is not a UTF-8 continuation byte (10xxxxxx);
    // invalid UTF-8 thus counts one column per stray byte.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80)
      ++column;
  }
  return column;
}

} // namespace pallas::check
