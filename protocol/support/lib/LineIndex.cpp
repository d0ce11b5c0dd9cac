#include "pallas/support/LineIndex.h"

namespace pallas::support {

size_t findLineBreak(std::string_view text, size_t from, size_t* length) {
  size_t at = text.find_first_of("\r\n", from);
  if (at != std::string_view::npos && length)
    *length = text[at] == '\r' && at + 1 < text.size() && text[at + 1] == '\n' ? 2 : 1;
  return at;
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  size_t length = 0;
  for (size_t at = 0; (at = findLineBreak(text, at, &length)) != std::string_view::npos;) {
    at += length;
    starts_.push_back(at);
  }
}

std::optional<size_t> LineIndex::lineStart(uint32_t line) const {
  if (line >= starts_.size())
    return std::nullopt;
  return starts_[line];
}

std::optional<std::pair<size_t, size_t>> LineIndex::lineBounds(uint32_t line) const {
  if (line >= starts_.size())
    return std::nullopt;
  size_t start = starts_[line];
  size_t end = findLineBreak(text_, start); // this line's own end
  if (end == std::string_view::npos)
    end = text_.size();
  return std::make_pair(start, end);
}

std::string_view LineIndex::lineText(uint32_t line) const {
  auto bounds = lineBounds(line);
  return bounds ? text_.substr(bounds->first, bounds->second - bounds->first) : std::string_view();
}

std::optional<size_t> LineIndex::offset(uint32_t line, uint32_t column) const {
  if (line >= starts_.size())
    return std::nullopt;
  size_t start = starts_[line];
  size_t end = line + 1 < starts_.size() ? starts_[line + 1] - 1 : text_.size();
  if (column > end - start)
    return std::nullopt;
  return start + column;
}

uint32_t LineIndex::codePointColumn(uint32_t line, uint32_t column) const {
  auto off = offset(line, column);
  if (!off)
    return column + 1;
  uint32_t result = 1;
  for (size_t i = starts_[line]; i < *off; ++i) {
    // Count every byte that is not a UTF-8 continuation byte (10xxxxxx).
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80)
      ++result;
  }
  return result;
}

} // namespace pallas::support
