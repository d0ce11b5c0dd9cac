// Positions in text: LSP positions (line + character in the negotiated
// encoding: UTF-16 code units by default, UTF-8 bytes or UTF-32 code points
// when negotiated) <-> UTF-8 byte offsets, and UTF-8 validation.
//
// Lines end at "\n", "\r\n" or a lone "\r" (LSP's three line ends, and
// Python's); the line end is not part of the line's content (so positions
// past the content of a CRLF line clamp before "\r").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::protocol {

enum class PositionEncoding { UTF8, UTF16, UTF32 };

const char* encodingName(PositionEncoding e); // "utf-8", "utf-16", "utf-32"
std::optional<PositionEncoding> parseEncoding(std::string_view name);

struct Position {
  uint32_t line = 0;
  uint32_t character = 0; // in the negotiated encoding
  friend bool operator==(const Position&, const Position&) = default;
};

struct Range {
  Position start, end;
  friend bool operator==(const Range&, const Range&) = default;
};

// A byte offset or, for a position that does not denote a place in the text,
// an error saying why.
struct OffsetResult {
  size_t offset = 0;
  std::string error; // empty on success
  explicit operator bool() const { return error.empty(); }
};

// Offset of the first byte that is not part of valid UTF-8 (overlongs,
// surrogates and code points above U+10FFFF are invalid), or nullopt.
std::optional<size_t> findInvalidUtf8(std::string_view text);

// Byte offset of a position. A line past the end of the text is an error; a
// character past the end of its line clamps to the line end (LSP 3.17); a
// character that falls inside a UTF-16 surrogate pair is an error.
OffsetResult positionToOffset(std::string_view text, Position pos, PositionEncoding enc);

// Position of a byte offset (clamped to the text; an offset inside a
// multi-byte character counts as that character's start).
Position offsetToPosition(std::string_view text, size_t offset, PositionEncoding enc);

// Byte range [begin, end) of the content of line `line` (without "\r\n"), or
// nullopt if the text has no such line.
std::optional<std::pair<size_t, size_t>> lineBounds(std::string_view text, uint32_t line);

// Within one line's text: a UTF-8 byte column in the given encoding's units
// (clamped to the line), and the inverse (clamped; rounds into a split pair).
uint32_t byteColumnToUnits(std::string_view lineText, size_t byteColumn, PositionEncoding enc);
size_t unitsToByteColumn(std::string_view lineText, uint32_t units, PositionEncoding enc,
                         bool* splitSurrogate = nullptr);

} // namespace pallas::protocol
