#include "DocumentStore.h"

#include <gtest/gtest.h>

using namespace pallas::server;
using pallas::protocol::json;
using pallas::protocol::PositionEncoding;

namespace {

json change(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2, const std::string& text) {
  return json{
      {"range",
       {{"start", {{"line", l1}, {"character", c1}}}, {"end", {{"line", l2}, {"character", c2}}}}},
      {"text", text}};
}

class DocumentStoreTest : public ::testing::Test {
protected:
  void SetUp() override { store.open({"file:///k.py", "/k.py", 1, "x = '😀é'\ny = 2\n"}); }
  DocumentStore store;
};

TEST_F(DocumentStoreTest, IncrementalEditsInUtf16) {
  // Replace "é" (UTF-16 column 7..8, after the 2-unit emoji).
  auto r =
      store.change("/k.py", 2, json::array({change(0, 7, 0, 8, "中")}), PositionEncoding::UTF16);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.edits.size(), 1u);
  EXPECT_EQ(r.edits[0].startByte, 9u);
  EXPECT_EQ(r.edits[0].oldEndByte, 11u);
  EXPECT_EQ(store.get("/k.py")->text, "x = '😀中'\ny = 2\n");
  EXPECT_EQ(store.get("/k.py")->version, 2);
}

TEST_F(DocumentStoreTest, SameEditInUtf8) {
  auto r =
      store.change("/k.py", 2, json::array({change(0, 9, 0, 11, "中")}), PositionEncoding::UTF8);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(store.get("/k.py")->text, "x = '😀中'\ny = 2\n");
}

TEST_F(DocumentStoreTest, ChangesApplyInSequence) {
  json changes = json::array({change(1, 0, 1, 0, "z = 0\n"), change(2, 4, 2, 5, "3"),
                              json{{"text", "whole\n"}}, change(0, 5, 0, 5, "!")});
  auto r = store.change("/k.py", 3, changes, PositionEncoding::UTF16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.edits.size(), 4u);
  EXPECT_EQ(store.get("/k.py")->text, "whole!\n");
}

TEST_F(DocumentStoreTest, RangeOutsideDocumentLeavesDraftUnchanged) {
  json changes = json::array({change(0, 0, 0, 1, "q"), change(40, 0, 40, 1, "")});
  auto r = store.change("/k.py", 5, changes, PositionEncoding::UTF16);
  EXPECT_NE(r.error.find("outside the document"), std::string::npos) << r.error;
  EXPECT_EQ(store.get("/k.py")->text, "x = '😀é'\ny = 2\n");
  EXPECT_EQ(store.get("/k.py")->version, 1);
}

TEST_F(DocumentStoreTest, BadChanges) {
  EXPECT_NE(store.change("/nope.py", 2, json::array(), PositionEncoding::UTF16).error, "");
  EXPECT_NE(store.change("/k.py", 2, json::object(), PositionEncoding::UTF16).error, "");
  EXPECT_NE(store
                .change("/k.py", 2, json::array({json{{"range", 1}, {"text", ""}}}),
                        PositionEncoding::UTF16)
                .error,
            "");
  EXPECT_NE(store.change("/k.py", 2, json::array({change(0, 2, 0, 1, "")}), PositionEncoding::UTF16)
                .error.find("ends before"),
            std::string::npos);
  EXPECT_NE(store.change("/k.py", 2, json::array({change(0, 6, 0, 6, "")}), PositionEncoding::UTF16)
                .error.find("surrogate"),
            std::string::npos);
  auto r = store.change("/k.py", 2, json::array({json{{"text", std::string("\xff")}}}),
                        PositionEncoding::UTF16);
  EXPECT_NE(r.error.find("UTF-8"), std::string::npos);
  EXPECT_EQ(store.get("/k.py")->text, "x = '😀é'\ny = 2\n");
}

TEST_F(DocumentStoreTest, OpenCloseLifecycle) {
  EXPECT_TRUE(store.isOpen("/k.py"));
  EXPECT_TRUE(store.close("/k.py"));
  EXPECT_FALSE(store.close("/k.py"));
  EXPECT_FALSE(store.get("/k.py"));
}

} // namespace

// issue 14, item 12: versions only increase.
TEST(DocumentStore, OlderVersionIsRejected) {
  DocumentStore store;
  store.open({"file:///v.py", "/v.py", 5, "x = 1\n"});
  auto r =
      store.change("/v.py", 3, json::array({json{{"text", "x = 2\n"}}}), PositionEncoding::UTF16);
  EXPECT_NE(r.error.find("older than the document's version 5"), std::string::npos) << r.error;
  EXPECT_EQ(store.get("/v.py")->text, "x = 1\n");
  r = store.change("/v.py", -1, json::array({json{{"text", "x = 3\n"}}}), PositionEncoding::UTF16);
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(store.get("/v.py")->version, 5);
  r = store.change("/v.py", 6, json::array({json{{"text", "x = 4\n"}}}), PositionEncoding::UTF16);
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(store.get("/v.py")->version, 6);
}

// A lone "\r" ends a line: an edit on line 1 lands after it.
TEST(DocumentStore, EditsPastLineZeroOfALoneCrDocument) {
  DocumentStore store;
  store.open({"file:///cr.py", "/cr.py", 1, "a = 1\rb = 2\r"});
  auto r =
      store.change("/cr.py", 2, json::array({change(1, 4, 1, 5, "3")}), PositionEncoding::UTF16);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(store.get("/cr.py")->text, "a = 1\rb = 3\r");
}

TEST(DocumentStore, CloseGivesTheClosedDraftsSize) {
  pallas::server::DocumentStore store;
  store.open({"file:///k.py", "/k.py", 1, "abcd"});
  EXPECT_EQ(store.close("/k.py"), std::optional<size_t>(4));
  EXPECT_EQ(store.close("/k.py"), std::nullopt);
}

// ---- issue 34 --------------------------------------------------------------------

// A multi-cursor edit of many changes reaches the analysis as one edit
// spanning them (applying thousands of edits one by one to its text and
// syntax tree cost changes x size), and that edit turns the old text into
// the new one exactly.
TEST(DocumentStoreMany, ManyChangesBecomeOneEditThatGivesTheSameText) {
  DocumentStore store;
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "line " + std::to_string(i) + "\n";
  store.open({"file:///m.py", "/m.py", 1, text});
  json changes = json::array();
  for (uint32_t l = 100; l < 1900; ++l)
    changes.push_back(change(l, 0, l, 0, "# "));
  auto r = store.change("/m.py", 2, changes, PositionEncoding::UTF16);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.edits.size(), 1u);
  std::string after = store.get("/m.py")->text;
  std::string applied = text;
  applied.replace(r.edits[0].startByte, r.edits[0].oldEndByte - r.edits[0].startByte,
                  r.edits[0].newText);
  EXPECT_EQ(applied, after);
  EXPECT_EQ(r.edits[0].startByte, text.find("line 100\n"));
  EXPECT_EQ(after.substr(after.find("# line 1899"), 12), "# line 1899\n");
  // A few changes stay as they are.
  r = store.change("/m.py", 3, json::array({change(0, 0, 0, 0, "a"), change(1, 0, 1, 0, "b")}),
                   PositionEncoding::UTF16);
  EXPECT_EQ(r.edits.size(), 2u);
}

// The text of all open documents is capped: past it the change is refused
// and the draft keeps its text.
TEST(DocumentStoreMany, OpenTextIsCapped) {
  DocumentStore store;
  std::string big(kMaxOpenDocumentBytes / 2 + 1, 'x');
  EXPECT_EQ(store.wouldExceedCap("/a.py", big.size()), "");
  store.open({"file:///a.py", "/a.py", 1, big});
  EXPECT_NE(store.wouldExceedCap("/b.py", big.size()).find("over the 256 MiB"), std::string::npos);
  EXPECT_EQ(store.wouldExceedCap("/a.py", big.size()), ""); // reopening replaces it
  store.open({"file:///b.py", "/b.py", 1, "y = 1\n"});
  auto r = store.change("/b.py", 2, json::array({json{{"text", big}}}), PositionEncoding::UTF16);
  EXPECT_NE(r.error.find("over the 256 MiB"), std::string::npos) << r.error;
  EXPECT_EQ(store.get("/b.py")->text, "y = 1\n");
  EXPECT_TRUE(store.close("/a.py"));
  r = store.change("/b.py", 3, json::array({json{{"text", big}}}), PositionEncoding::UTF16);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.tooLargeAfter); // over the analysis budget (4 MiB)
  EXPECT_FALSE(r.tooLargeBefore);
}
