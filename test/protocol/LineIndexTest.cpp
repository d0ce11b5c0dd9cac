// The one line index (protocol/support): LSP's and Python's three line ends,
// line contents without their ends, and offsets that reject stale positions.
#include "pallas/support/LineIndex.h"

#include <gtest/gtest.h>

using pallas::support::findLineBreak;
using pallas::support::LineIndex;

TEST(LineIndex, CountsTheThreeLineEnds) {
  const std::string text = "a\nbb\r\nccc\rd";
  LineIndex index(text);
  ASSERT_EQ(index.lineCount(), 4u);
  EXPECT_EQ(index.lineText(0), "a");
  EXPECT_EQ(index.lineText(1), "bb");  // without "\r\n"
  EXPECT_EQ(index.lineText(2), "ccc"); // a lone "\r" ends a line
  EXPECT_EQ(index.lineText(3), "d");
  EXPECT_EQ(index.lineText(4), "");
  EXPECT_EQ(index.lineStart(2), 6u);
  EXPECT_FALSE(index.lineStart(4));
  EXPECT_EQ(index.lineBounds(1), std::make_pair(size_t{2}, size_t{4}));
}

TEST(LineIndex, EmptyTextAndTrailingBreakHaveAnEmptyLastLine) {
  EXPECT_EQ(LineIndex("").lineCount(), 1u);
  LineIndex index("x\n");
  ASSERT_EQ(index.lineCount(), 2u);
  EXPECT_EQ(index.lineText(1), "");
  EXPECT_EQ(index.offset(1, 0), 2u);
  EXPECT_FALSE(index.offset(1, 1));
}

TEST(LineIndex, OffsetsReachTheLastByteOfTheLineEndOnly) {
  const std::string text = "ab\r\ncd";
  LineIndex index(text);
  EXPECT_EQ(index.offset(0, 2), 2u); // the "\r"
  EXPECT_EQ(index.offset(0, 3), 3u); // the "\n" of "\r\n"
  EXPECT_FALSE(index.offset(0, 4));  // that is the next line
  EXPECT_EQ(index.offset(1, 2), 6u); // the end of the text
  EXPECT_FALSE(index.offset(1, 3));
}

TEST(LineIndex, CodePointColumnsCountCharactersNotBytes) {
  const std::string text = "x = \"\xc3\xa9\xf0\x9f\x98\x80\" # y";
  LineIndex index(text);
  EXPECT_EQ(index.codePointColumn(0, 4), 5u);
  EXPECT_EQ(index.codePointColumn(0, 11), 8u); // after é (2 bytes) and 😀 (4 bytes)
  EXPECT_EQ(index.codePointColumn(3, 7), 8u);  // no such line: byte column + 1
}

TEST(LineIndex, FindLineBreakMeasuresCrLfAsOne) {
  size_t length = 0;
  EXPECT_EQ(findLineBreak("ab\r\nc", 0, &length), 2u);
  EXPECT_EQ(length, 2u);
  EXPECT_EQ(findLineBreak("ab\rc", 0, &length), 2u);
  EXPECT_EQ(length, 1u);
  EXPECT_EQ(findLineBreak("abc", 0, &length), std::string_view::npos);
}
