#include "pallas/protocol/Text.h"

#include <gtest/gtest.h>

using namespace pallas::protocol;

namespace {

constexpr auto U8 = PositionEncoding::UTF8;
constexpr auto U16 = PositionEncoding::UTF16;
constexpr auto U32 = PositionEncoding::UTF32;

// "é" is 2 bytes / 1 UTF-16 unit, "中" 3 bytes / 1 unit, "😀" 4 bytes /
// 2 units (a surrogate pair) / 1 code point.
const std::string kText = "aé中😀b\nx = 1\r\n\nlast";

size_t offset(Position p, PositionEncoding e) {
  auto r = positionToOffset(kText, p, e);
  EXPECT_TRUE(r) << r.error;
  return r.offset;
}

TEST(Text, Utf16Columns) {
  EXPECT_EQ(offset({0, 0}, U16), 0u);
  EXPECT_EQ(offset({0, 1}, U16), 1u);  // after a
  EXPECT_EQ(offset({0, 2}, U16), 3u);  // after é
  EXPECT_EQ(offset({0, 3}, U16), 6u);  // after 中
  EXPECT_EQ(offset({0, 5}, U16), 10u); // after 😀 (two units)
  EXPECT_EQ(offset({0, 6}, U16), 11u); // after b
}

TEST(Text, Utf8AndUtf32Columns) {
  EXPECT_EQ(offset({0, 3}, U8), 3u);
  EXPECT_EQ(offset({0, 10}, U8), 10u);
  EXPECT_EQ(offset({0, 4}, U32), 10u);
  // A UTF-8 column inside a character snaps to the character's start.
  EXPECT_EQ(offset({0, 2}, U8), 1u);
}

TEST(Text, SplitSurrogatePairIsAnError) {
  auto r = positionToOffset(kText, {0, 4}, U16);
  EXPECT_FALSE(r);
  EXPECT_NE(r.error.find("surrogate"), std::string::npos);
}

TEST(Text, ColumnPastLineEndClamps) {
  EXPECT_EQ(offset({0, 100}, U16), 11u);
  // CRLF line: clamps before the \r.
  EXPECT_EQ(offset({1, 100}, U16), 17u);
  EXPECT_EQ(offset({2, 5}, U16), 19u); // empty line
}

TEST(Text, LineOutsideDocumentIsAnError) {
  EXPECT_EQ(offset({3, 4}, U16), kText.size());
  auto r = positionToOffset(kText, {4, 0}, U16);
  EXPECT_FALSE(r);
  EXPECT_NE(r.error.find("outside the document"), std::string::npos);
  EXPECT_FALSE(positionToOffset("", {1, 0}, U16));
  EXPECT_TRUE(positionToOffset("", {0, 0}, U16));
}

TEST(Text, OffsetToPositionInverts) {
  for (auto enc : {U8, U16, U32}) {
    for (size_t off : {0u, 1u, 3u, 6u, 10u, 11u, 12u, 17u, 20u, 24u}) {
      Position p = offsetToPosition(kText, off, enc);
      EXPECT_EQ(offset(p, enc), off) << "offset " << off << " enc " << encodingName(enc);
    }
  }
  EXPECT_EQ(offsetToPosition(kText, 10, U16), (Position{0, 5}));
  EXPECT_EQ(offsetToPosition(kText, 8, U16), (Position{0, 3})); // inside 😀 -> its start
  EXPECT_EQ(offsetToPosition(kText, 999, U16), (Position{3, 4}));
}

TEST(Text, ByteColumnConversions) {
  std::string_view line = "x = \"日本語\"  # 🎉";
  EXPECT_EQ(byteColumnToUnits(line, 5, U16), 5u);
  EXPECT_EQ(byteColumnToUnits(line, 8, U16), 6u);
  EXPECT_EQ(byteColumnToUnits(line, line.size(), U16), 15u);
  EXPECT_EQ(byteColumnToUnits(line, line.size(), U32), 14u);
  EXPECT_EQ(byteColumnToUnits(line, 999, U8), line.size());
  EXPECT_EQ(unitsToByteColumn(line, 6, U16), 8u);
}

TEST(Text, Utf8Validation) {
  EXPECT_FALSE(findInvalidUtf8(kText));
  EXPECT_EQ(findInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(findInvalidUtf8("a\xc3"), 1u);            // truncated
  EXPECT_EQ(findInvalidUtf8("\xc0\xaf"), 0u);         // overlong
  EXPECT_EQ(findInvalidUtf8("x\xed\xa0\x80"), 1u);    // UTF-16 surrogate
  EXPECT_EQ(findInvalidUtf8("\xf4\x90\x80\x80"), 0u); // above U+10FFFF
  EXPECT_FALSE(findInvalidUtf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
}

TEST(Text, Encodings) {
  EXPECT_EQ(parseEncoding("utf-8"), U8);
  EXPECT_EQ(parseEncoding("utf-16"), U16);
  EXPECT_FALSE(parseEncoding("latin1"));
  EXPECT_STREQ(encodingName(U32), "utf-32");
}

} // namespace

// ---- issue 14, item 12: LSP's three line ends -----------------------------------

TEST(TextLineEnds, LoneCarriageReturnEndsALine) {
  std::string_view text = "a\rbc\r\nd\ne";
  EXPECT_EQ(lineBounds(text, 0), (std::pair<size_t, size_t>{0, 1}));
  EXPECT_EQ(lineBounds(text, 1), (std::pair<size_t, size_t>{2, 4}));
  EXPECT_EQ(lineBounds(text, 2), (std::pair<size_t, size_t>{6, 7}));
  EXPECT_EQ(lineBounds(text, 3), (std::pair<size_t, size_t>{8, 9}));
  EXPECT_FALSE(lineBounds(text, 4));
  EXPECT_EQ(positionToOffset(text, {1, 1}, PositionEncoding::UTF16).offset, 3u);
  EXPECT_EQ(positionToOffset(text, {1, 9}, PositionEncoding::UTF16).offset,
            4u); // clamps before "\r\n"
  EXPECT_EQ(offsetToPosition(text, 3, PositionEncoding::UTF16), (Position{1, 1}));
  EXPECT_EQ(offsetToPosition(text, 7, PositionEncoding::UTF16), (Position{2, 1}));
  EXPECT_EQ(offsetToPosition(text, 9, PositionEncoding::UTF16), (Position{3, 1}));
  EXPECT_EQ(offsetToPosition("a\r", 2, PositionEncoding::UTF16), (Position{1, 0}));
  auto outside = positionToOffset(text, {7, 0}, PositionEncoding::UTF16);
  EXPECT_NE(outside.error.find("it has 4 lines"), std::string::npos) << outside.error;
}
