// A document's text while one didChange's content changes are applied to
// it, each at an LSP position of the text the changes before it left.
//
// A multi-cursor edit is one didChange with a change per cursor. Applied to
// a plain string, each change found its position by scanning the text from
// the start and moved the rest of the text over: changes x size, so 16,000
// cursors in a 16,000-line file held the ordered queue (and every message
// behind it) for 5-6 s (issue 34). Here the text is kept in chunks of about
// 16 KiB that know their byte, line break and code unit counts: a position
// is found by adding chunk counts and reading one or two chunks, and a
// change rewrites the chunks it touches. Each change costs the number of
// chunks plus a chunk, whatever the order of the changes.
//
// Positions follow protocol::positionToOffset exactly: lines end at "\n",
// "\r\n" or a lone "\r"; a character past the end of its line clamps to it;
// a line past the end and a UTF-16 position inside a surrogate pair are
// errors. The text must be valid UTF-8 (drafts are checked first).
#pragma once

#include "pallas/protocol/Text.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::server {

class EditableText {
public:
  explicit EditableText(std::string_view text);

  protocol::OffsetResult offsetOf(protocol::Position pos, protocol::PositionEncoding enc) const;
  // Replaces bytes [start, end) (start <= end <= size(); both on character
  // boundaries) with `text`.
  void replace(size_t start, size_t end, std::string_view text);
  size_t size() const { return size_; }
  std::string str() const;

private:
  struct Chunk {
    std::string text;
    size_t breaks = 0; // line breaks ("\r\n" counts once; never split between chunks)
    size_t units16 = 0, units32 = 0;
    void measure();
    size_t units(protocol::PositionEncoding enc) const;
  };
  // `text` in chunks of about kChunkBytes, cut between characters and never
  // inside a "\r\n".
  static std::vector<Chunk> cut(std::string_view text);
  // The chunk holding byte `offset` (at a chunk boundary: the earlier chunk,
  // at its end) and the offset within it.
  std::pair<size_t, size_t> locate(size_t offset) const;
  // A "\r" ending chunk k-1 and a "\n" starting chunk k become one chunk's.
  void joinLineBreak(size_t k);

  static constexpr size_t kChunkBytes = 16 * 1024;
  std::vector<Chunk> chunks_; // empty for the empty text
  size_t size_ = 0;
  size_t breaks_ = 0;
};

} // namespace pallas::server
