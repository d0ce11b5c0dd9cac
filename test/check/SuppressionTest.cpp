#include "config/Suppression.h"

#include <gtest/gtest.h>

using pallas::check::Suppressions;

TEST(Suppression, LineDirectiveWithOneOrMoreCodes) {
  auto s = Suppressions::parse("a = 1  # pallas-lsp: ignore[PLS001]\n"
                               "b = 2  # pallas-lsp: ignore[PLS001, PLS002]\n"
                               "c = 3\n");
  EXPECT_TRUE(s.suppresses("PLS001", 0));
  EXPECT_FALSE(s.suppresses("PLS002", 0));
  EXPECT_TRUE(s.suppresses("PLS001", 1));
  EXPECT_TRUE(s.suppresses("PLS002", 1));
  EXPECT_FALSE(s.suppresses("PLS003", 1));
  EXPECT_FALSE(s.suppresses("PLS001", 2));
}

TEST(Suppression, BareIgnoreCoversEveryCodeOnItsLineOnly) {
  auto s = Suppressions::parse("x\ny  #pallas-lsp:ignore\nz\n");
  EXPECT_TRUE(s.suppresses("PLS004", 1));
  EXPECT_FALSE(s.suppresses("PLS004", 0));
  EXPECT_FALSE(s.suppresses("PLS004", 2));
}

TEST(Suppression, FileLevel) {
  auto all = Suppressions::parse("import x\n# pallas-lsp: ignore-file\n");
  EXPECT_TRUE(all.suppresses("PLS001", 0));
  EXPECT_TRUE(all.suppresses("PLS003", 40));
  auto some = Suppressions::parse("# pallas-lsp: ignore-file[PLS003]\n");
  EXPECT_TRUE(some.suppresses("PLS003", 9));
  EXPECT_FALSE(some.suppresses("PLS001", 9));
}

TEST(Suppression, PrefixesAndCombinedComments) {
  auto s = Suppressions::parse("k()  # noqa: E501  # pallas-lsp: ignore[PLS00]\n");
  EXPECT_TRUE(s.suppresses("PLS001", 0));
  EXPECT_TRUE(s.suppresses("PLS004", 0));
}

TEST(Suppression, DirectivesInsideStringsDoNothing) {
  auto s = Suppressions::parse("a = '# pallas-lsp: ignore'\n"
                               "b = \"\"\"\n"
                               "# pallas-lsp: ignore-file\n"
                               "\"\"\"\n"
                               "c = 'it\\'s # pallas-lsp: ignore'\n"
                               "d = 1  # pallas-lsp: ignore[PLS002]\n");
  EXPECT_FALSE(s.suppresses("PLS001", 0));
  EXPECT_FALSE(s.suppresses("PLS001", 2));
  EXPECT_FALSE(s.suppresses("PLS001", 4));
  EXPECT_TRUE(s.fileLevel().empty());
  // Line counting survives the triple-quoted string.
  EXPECT_TRUE(s.suppresses("PLS002", 5));
}

TEST(Suppression, MalformedDirectivesDoNothing) {
  auto s = Suppressions::parse("a  # pallas-lsp: ignored\n"
                               "b  # pallas-lsp: ignore[PLS001\n"
                               "c  # pallas-lsp: ignore[]\n"
                               "d  # pallas-lsp ignore\n");
  for (uint32_t line = 0; line < 4; ++line)
    EXPECT_FALSE(s.suppresses("PLS001", line)) << line;
}

// issue 14, item 12: a lone "\r" ends the comment's line.
TEST(Suppression, LoneCarriageReturnLines) {
  auto s = Suppressions::parse("a = 1\rb = 2  # pallas-lsp: ignore[PLS001]\rc = 3\r");
  EXPECT_TRUE(s.suppresses("PLS001", 1));
  EXPECT_FALSE(s.suppresses("PLS001", 0));
  EXPECT_FALSE(s.suppresses("PLS001", 2));
}
