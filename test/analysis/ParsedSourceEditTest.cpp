// ParsedSource::applyEdit on lone carriage returns: Python and LSP read a
// "\r" not followed by "\n" as a line end, so text() (what the analysis
// reads and parses) has "\n" there. An edit can create one anywhere,
// including at the very first byte, or make one lone by deleting the "\n"
// after it; the tree must then have the lines Python sees.
#include "Syntax.h"
#include "pallas/analysis/Project.h"

#include <gtest/gtest.h>
#include <string>

namespace pallas::analysis::syntax {
namespace {

unsigned statements(const ParsedSource& src) {
  return ts_node_named_child_count(src.root());
}

TEST(ParsedSourceEdit, ALoneCarriageReturnInsertedAtTheFirstByteIsALineEnd) {
  ParsedSource src;
  src.setText("x = 1\n");
  src.applyEdit({0, 0, "y = 2\r"});
  src.reparse();
  EXPECT_EQ(src.text(), "y = 2\nx = 1\n");
  EXPECT_EQ(statements(src), 2u);
}

TEST(ParsedSourceEdit, ALoneCarriageReturnAloneAtByteZero) {
  ParsedSource src;
  src.setText("x = 1\n");
  src.applyEdit({0, 0, "\r"});
  src.reparse();
  EXPECT_EQ(src.text(), "\nx = 1\n");
  EXPECT_EQ(ts_node_start_point(ts_node_named_child(src.root(), 0)).row, 1u); // x = 1: line 2
}

TEST(ParsedSourceEdit, DeletingTheNewlineAfterACarriageReturnLeavesALineEnd) {
  ParsedSource src;
  src.setText("a = 1\r\nb = 2\n");
  src.applyEdit({6, 7, ""}); // the "\n" of "\r\n"
  src.reparse();
  EXPECT_EQ(src.text(), "a = 1\nb = 2\n");
  EXPECT_EQ(statements(src), 2u);
}

TEST(ParsedSourceEdit, ACarriageReturnBeforeANewlineStaysAsItIs) {
  ParsedSource src;
  src.setText("a = 1\nb = 2\n");
  src.applyEdit({5, 5, "\r"}); // "a = 1\r\n": a Windows line end
  src.reparse();
  EXPECT_EQ(src.text(), "a = 1\r\nb = 2\n");
  EXPECT_EQ(statements(src), 2u);
}

} // namespace
} // namespace pallas::analysis::syntax
