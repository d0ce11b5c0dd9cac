// The chunked text didChange applies its changes to (EditableText.h, issue
// 34) against the plain string and protocol::positionToOffset it replaces:
// random texts of several chunks with every line end and multi-byte and
// astral characters, random edits (line ends made and split at chunk
// boundaries included), random positions in every encoding.
#include "EditableText.h"

#include <gtest/gtest.h>
#include <random>

using namespace pallas;
using protocol::PositionEncoding;

namespace {

const char* const kPieces[] = {
    "a",     "bc", " ", "\n", "\r", "\r\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
    "x = 1", "\t"};

std::string randomText(std::mt19937& rng, size_t pieces) {
  std::string out;
  std::uniform_int_distribution<size_t> pick(0, std::size(kPieces) - 1);
  for (size_t i = 0; i < pieces; ++i)
    out += kPieces[pick(rng)];
  return out;
}

// A random character boundary of `text`.
size_t boundary(std::mt19937& rng, const std::string& text) {
  size_t at = std::uniform_int_distribution<size_t>(0, text.size())(rng);
  while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
    ++at;
  return at;
}

void expectSamePositions(std::mt19937& rng, const server::EditableText& t, const std::string& plain,
                         int probes) {
  size_t lines = 1;
  for (size_t i = 0; i < plain.size(); ++i)
    lines +=
        plain[i] == '\n' || (plain[i] == '\r' && (i + 1 == plain.size() || plain[i + 1] != '\n'));
  for (int k = 0; k < probes; ++k) {
    protocol::Position pos{
        static_cast<uint32_t>(std::uniform_int_distribution<size_t>(0, lines)(rng)),
        static_cast<uint32_t>(std::uniform_int_distribution<int>(0, 12)(rng))};
    for (auto enc : {PositionEncoding::UTF8, PositionEncoding::UTF16, PositionEncoding::UTF32}) {
      auto want = protocol::positionToOffset(plain, pos, enc);
      auto got = t.offsetOf(pos, enc);
      ASSERT_EQ(got.error, want.error) << pos.line << ":" << pos.character;
      if (want)
        ASSERT_EQ(got.offset, want.offset) << pos.line << ":" << pos.character;
    }
  }
}

} // namespace

TEST(EditableText, AgreesWithThePlainStringUnderRandomEdits) {
  std::mt19937 rng(34);
  for (int round = 0; round < 40; ++round) {
    std::string plain = randomText(rng, round % 4 == 0 ? 30 : 20000);
    server::EditableText text(plain);
    ASSERT_EQ(text.str(), plain);
    expectSamePositions(rng, text, plain, 50);
    for (int e = 0; e < 300; ++e) {
      size_t a = boundary(rng, plain), b = boundary(rng, plain);
      if (a > b)
        std::swap(a, b);
      if (e % 7 == 0)
        b = std::min(plain.size(), a + std::uniform_int_distribution<size_t>(0, 40000)(rng));
      while (b < plain.size() && (static_cast<unsigned char>(plain[b]) & 0xC0) == 0x80)
        ++b;
      std::string insert =
          randomText(rng, std::uniform_int_distribution<size_t>(0, e % 11 == 0 ? 6000 : 4)(rng));
      plain.replace(a, b - a, insert);
      text.replace(a, b, insert);
      ASSERT_EQ(text.size(), plain.size());
      if (e % 50 == 0) {
        ASSERT_EQ(text.str(), plain);
        expectSamePositions(rng, text, plain, 20);
      }
    }
    ASSERT_EQ(text.str(), plain);
    expectSamePositions(rng, text, plain, 50);
  }
}

TEST(EditableText, EmptyAndWholeReplacements) {
  server::EditableText text("");
  EXPECT_EQ(text.offsetOf({0, 5}, PositionEncoding::UTF16).offset, 0u);
  EXPECT_EQ(text.offsetOf({1, 0}, PositionEncoding::UTF16).error,
            "line 1 is outside the document (it has 1 lines)");
  text.replace(0, 0, "a\r");
  text.replace(2, 2, "\nb");
  EXPECT_EQ(text.str(), "a\r\nb");
  EXPECT_EQ(text.offsetOf({1, 0}, PositionEncoding::UTF16).offset, 3u);
  EXPECT_EQ(text.offsetOf({2, 0}, PositionEncoding::UTF16).error,
            "line 2 is outside the document (it has 2 lines)");
  text.replace(0, text.size(), "");
  EXPECT_EQ(text.str(), "");
  EXPECT_EQ(text.offsetOf({0, 0}, PositionEncoding::UTF8).offset, 0u);
  text.replace(0, 0, "\xf0\x9f\x98\x80");
  EXPECT_EQ(text.offsetOf({0, 1}, PositionEncoding::UTF16).error,
            "position 0:1 falls inside a UTF-16 surrogate pair");
  EXPECT_EQ(text.offsetOf({0, 2}, PositionEncoding::UTF16).offset, 4u);
  EXPECT_EQ(text.offsetOf({0, 1}, PositionEncoding::UTF8).offset, 0u);
}
