#include "pallas/protocol/Text.h"

#include "pallas/support/LineIndex.h"

#include <cstring>

namespace pallas::protocol {

using support::findLineBreak;

namespace {

// Length of the UTF-8 sequence that starts with `lead` (1 for stray bytes, so
// that measuring never loops on invalid input).
size_t sequenceLength(unsigned char lead) {
  if (lead < 0xC0)
    return 1;
  if (lead < 0xE0)
    return 2;
  if (lead < 0xF0)
    return 3;
  if (lead < 0xF8)
    return 4;
  return 1;
}

uint32_t unitsOf(size_t seqLen, PositionEncoding enc) {
  switch (enc) {
  case PositionEncoding::UTF8:
    return static_cast<uint32_t>(seqLen);
  case PositionEncoding::UTF16:
    return seqLen == 4 ? 2 : 1;
  case PositionEncoding::UTF32:
    return 1;
  }
  return 1;
}

} // namespace

const char* encodingName(PositionEncoding e) {
  switch (e) {
  case PositionEncoding::UTF8:
    return "utf-8";
  case PositionEncoding::UTF16:
    return "utf-16";
  case PositionEncoding::UTF32:
    return "utf-32";
  }
  return "utf-16";
}

std::optional<PositionEncoding> parseEncoding(std::string_view name) {
  if (name == "utf-8")
    return PositionEncoding::UTF8;
  if (name == "utf-16")
    return PositionEncoding::UTF16;
  if (name == "utf-32")
    return PositionEncoding::UTF32;
  return std::nullopt;
}

std::optional<size_t> findInvalidUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size(), i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n)
      return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80)
        return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += len;
  }
  return std::nullopt;
}

std::optional<std::pair<size_t, size_t>> lineBounds(std::string_view text, uint32_t line) {
  size_t start = 0;
  for (uint32_t l = 0; l < line; ++l) {
    size_t length = 0;
    size_t at = findLineBreak(text, start, &length);
    if (at == std::string_view::npos)
      return std::nullopt;
    start = at + length;
  }
  size_t end = findLineBreak(text, start, nullptr);
  if (end == std::string_view::npos)
    end = text.size();
  return std::make_pair(start, end);
}

uint32_t byteColumnToUnits(std::string_view lineText, size_t byteColumn, PositionEncoding enc) {
  if (byteColumn > lineText.size())
    byteColumn = lineText.size();
  if (enc == PositionEncoding::UTF8)
    return static_cast<uint32_t>(byteColumn);
  uint32_t units = 0;
  size_t i = 0;
  while (i < byteColumn) {
    size_t len = sequenceLength(static_cast<unsigned char>(lineText[i]));
    if (i + len > byteColumn)
      break; // inside a character: count its start
    units += unitsOf(len, enc);
    i += len;
  }
  return units;
}

size_t unitsToByteColumn(std::string_view lineText, uint32_t units, PositionEncoding enc,
                         bool* splitSurrogate) {
  if (splitSurrogate)
    *splitSurrogate = false;
  if (enc == PositionEncoding::UTF8) {
    size_t col = units < lineText.size() ? units : lineText.size();
    // Never land inside a multi-byte sequence: move back to its start.
    while (col > 0 && col < lineText.size() &&
           (static_cast<unsigned char>(lineText[col]) & 0xC0) == 0x80)
      --col;
    return col;
  }
  uint32_t seen = 0;
  size_t i = 0;
  while (i < lineText.size() && seen < units) {
    size_t len = sequenceLength(static_cast<unsigned char>(lineText[i]));
    uint32_t u = unitsOf(len, enc);
    if (seen + u > units) {
      // The position points between the two halves of a surrogate pair.
      if (splitSurrogate)
        *splitSurrogate = true;
      return i;
    }
    seen += u;
    i += len;
  }
  return i < lineText.size() ? i : lineText.size();
}

OffsetResult positionToOffset(std::string_view text, Position pos, PositionEncoding enc) {
  auto bounds = lineBounds(text, pos.line);
  if (!bounds) {
    size_t lines = 1;
    for (size_t at = 0, length = 0;
         (at = findLineBreak(text, at, &length)) != std::string_view::npos; at += length)
      ++lines;
    return {0, "line " + std::to_string(pos.line) + " is outside the document (it has " +
                   std::to_string(lines) + " lines)"};
  }
  std::string_view lineText = text.substr(bounds->first, bounds->second - bounds->first);
  bool split = false;
  size_t col = unitsToByteColumn(lineText, pos.character, enc, &split);
  if (split)
    return {0, "position " + std::to_string(pos.line) + ":" + std::to_string(pos.character) +
                   " falls inside a UTF-16 surrogate pair"};
  return {bounds->first + col, {}};
}

Position offsetToPosition(std::string_view text, size_t offset, PositionEncoding enc) {
  if (offset > text.size())
    offset = text.size();
  uint32_t line = 0;
  size_t lineStart = 0;
  // Line ends wholly before the offset ("\r\n" is one, so an offset between
  // its two bytes stays on the line before).
  for (size_t at = 0, length = 0;
       (at = findLineBreak(text, lineStart, &length)) != std::string_view::npos &&
       at + length <= offset;) {
    ++line;
    lineStart = at + length;
  }
  size_t lineEnd = findLineBreak(text, lineStart, nullptr);
  if (lineEnd == std::string_view::npos)
    lineEnd = text.size();
  if (offset > lineEnd)
    offset = lineEnd; // between the '\r' and '\n' of a pair
  std::string_view lineText = text.substr(lineStart, lineEnd - lineStart);
  return {line, byteColumnToUnits(lineText, offset - lineStart, enc)};
}

} // namespace pallas::protocol
