#include "EditableText.h"

namespace pallas::server {

using protocol::PositionEncoding;

namespace {

// As protocol/Text.cpp measures characters (the text is valid UTF-8).
size_t sequenceLength(unsigned char lead) {
  if (lead < 0xC0)
    return 1;
  if (lead < 0xE0)
    return 2;
  if (lead < 0xF0)
    return 3;
  return 4;
}

uint32_t unitsOf(size_t length, PositionEncoding enc) {
  switch (enc) {
  case PositionEncoding::UTF8:
    return static_cast<uint32_t>(length);
  case PositionEncoding::UTF16:
    return length == 4 ? 2 : 1;
  case PositionEncoding::UTF32:
    return 1;
  }
  return 1;
}

bool continuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

} // namespace

void EditableText::Chunk::measure() {
  breaks = units16 = units32 = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
      ++breaks;
    if ((c & 0xC0) != 0x80) {
      ++units32;
      units16 += c >= 0xF0 ? 2 : 1;
    }
  }
}

size_t EditableText::Chunk::units(PositionEncoding enc) const {
  switch (enc) {
  case PositionEncoding::UTF8:
    return text.size();
  case PositionEncoding::UTF16:
    return units16;
  case PositionEncoding::UTF32:
    return units32;
  }
  return text.size();
}

std::vector<EditableText::Chunk> EditableText::cut(std::string_view text) {
  std::vector<Chunk> out;
  if (text.empty())
    return out;
  // Even pieces, so that none is much smaller than the others.
  size_t pieces = (text.size() + kChunkBytes - 1) / kChunkBytes;
  size_t target = (text.size() + pieces - 1) / pieces;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.size(), pos + target);
    while (end < text.size() &&
           (continuationByte(text[end]) || (text[end - 1] == '\r' && text[end] == '\n')))
      ++end;
    Chunk chunk;
    chunk.text.assign(text.substr(pos, end - pos));
    chunk.measure();
    out.push_back(std::move(chunk));
    pos = end;
  }
  return out;
}

EditableText::EditableText(std::string_view text) : chunks_(cut(text)), size_(text.size()) {
  for (const Chunk& c : chunks_)
    breaks_ += c.breaks;
}

std::pair<size_t, size_t> EditableText::locate(size_t offset) const {
  size_t start = 0;
  for (size_t k = 0; k < chunks_.size(); ++k) {
    if (start + chunks_[k].text.size() >= offset)
      return {k, offset - start};
    start += chunks_[k].text.size();
  }
  return {chunks_.size(), 0};
}

void EditableText::joinLineBreak(size_t k) {
  if (k == 0 || k >= chunks_.size())
    return;
  Chunk& before = chunks_[k - 1];
  Chunk& after = chunks_[k];
  if (before.text.empty() || after.text.empty() || before.text.back() != '\r' ||
      after.text.front() != '\n')
    return;
  breaks_ -= before.breaks + after.breaks;
  before.text += '\n';
  after.text.erase(0, 1);
  before.measure();
  after.measure();
  breaks_ += before.breaks + after.breaks;
  if (after.text.empty())
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(k));
}

void EditableText::replace(size_t start, size_t end, std::string_view text) {
  if (chunks_.empty()) {
    chunks_ = cut(text);
    size_ = text.size();
    breaks_ = 0;
    for (const Chunk& c : chunks_)
      breaks_ += c.breaks;
    return;
  }
  auto [i, inFirst] = locate(start);
  auto [j, inLast] = locate(end);
  std::string merged;
  merged.reserve(inFirst + text.size() + (chunks_[j].text.size() - inLast));
  merged.append(chunks_[i].text, 0, inFirst);
  merged.append(text);
  merged.append(chunks_[j].text, inLast);
  size_t from = i, to = j + 1;
  // A small remainder takes a neighbour in, so chunks stay at least half
  // full and their number stays proportional to the size.
  if (merged.size() < kChunkBytes / 2) {
    if (to < chunks_.size()) {
      merged += chunks_[to].text;
      ++to;
    } else if (from > 0) {
      --from;
      merged.insert(0, chunks_[from].text);
    }
  }
  for (size_t k = from; k < to; ++k) {
    size_ -= chunks_[k].text.size();
    breaks_ -= chunks_[k].breaks;
  }
  std::vector<Chunk> pieces = cut(merged);
  for (const Chunk& c : pieces) {
    size_ += c.text.size();
    breaks_ += c.breaks;
  }
  size_t count = pieces.size();
  chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(from),
                chunks_.begin() + static_cast<std::ptrdiff_t>(to));
  chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(from),
                 std::make_move_iterator(pieces.begin()), std::make_move_iterator(pieces.end()));
  // The later junction first: joining may remove the chunk after it.
  joinLineBreak(from + count);
  joinLineBreak(from);
}

protocol::OffsetResult EditableText::offsetOf(protocol::Position pos, PositionEncoding enc) const {
  if (pos.line > breaks_)
    return {0, "line " + std::to_string(pos.line) + " is outside the document (it has " +
                   std::to_string(breaks_ + 1) + " lines)"};
  // The start of the line: whole chunks by their break counts, then the
  // chunk that holds the break before it.
  size_t c = 0, chunkStart = 0, local = 0;
  if (pos.line > 0) {
    size_t seen = 0;
    while (seen + chunks_[c].breaks < pos.line) {
      seen += chunks_[c].breaks;
      chunkStart += chunks_[c].text.size();
      ++c;
    }
    const std::string& t = chunks_[c].text;
    for (size_t want = pos.line - seen; want > 0;) {
      char ch = t[local++];
      if (ch == '\n' || (ch == '\r' && (local == t.size() || t[local] != '\n')))
        --want;
    }
  }
  // The column: whole chunks without a break by their unit counts, then
  // character by character, stopping at the line's end.
  uint32_t remaining = pos.character;
  for (; c < chunks_.size(); ++c, local = 0) {
    const Chunk& chunk = chunks_[c];
    if (local == 0 && chunk.breaks == 0 && chunk.units(enc) <= remaining) {
      remaining -= static_cast<uint32_t>(chunk.units(enc));
      chunkStart += chunk.text.size();
      continue;
    }
    const std::string& t = chunk.text;
    for (size_t i = local; i < t.size();) {
      if (t[i] == '\r' || t[i] == '\n' || remaining == 0)
        return {chunkStart + i, {}};
      size_t length = sequenceLength(static_cast<unsigned char>(t[i]));
      uint32_t units = unitsOf(length, enc);
      if (units > remaining) {
        if (enc == PositionEncoding::UTF8)
          return {chunkStart + i, {}}; // inside a character: its start
        return {0, "position " + std::to_string(pos.line) + ":" + std::to_string(pos.character) +
                       " falls inside a UTF-16 surrogate pair"};
      }
      remaining -= units;
      i += length;
    }
    chunkStart += t.size();
  }
  return {size_, {}};
}

std::string EditableText::str() const {
  std::string out;
  out.reserve(size_);
  for (const Chunk& c : chunks_)
    out += c.text;
  return out;
}

} // namespace pallas::server
