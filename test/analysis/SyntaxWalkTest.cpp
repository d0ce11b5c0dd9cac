// The cursor walks of detail/SyntaxWalk.h on real tree-sitter trees: pre-order,
// skipping a subtree, stopping at the first match (nothing after it is
// visited), depths beyond any call stack, and children in one pass.
#include "pallas/analysis/detail/SyntaxWalk.h"

#include "Syntax.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace pallas::analysis::syntax {
namespace {

std::vector<std::string> identifiers(const ParsedSource& src, TSNode root) {
  std::vector<std::string> out;
  forEachNode(root, [&](TSNode n) {
    if (std::string_view(ts_node_type(n)) == "identifier")
      out.emplace_back(src.textOf(n));
  });
  return out;
}

TEST(SyntaxWalk, VisitsEveryNodeInPreOrder) {
  ParsedSource src;
  src.setText("a = f(b, g(c))\nd = e\n");
  EXPECT_EQ(identifiers(src, src.root()),
            (std::vector<std::string>{"a", "f", "b", "g", "c", "d", "e"}));
}

TEST(SyntaxWalk, FalseSkipsTheNodesInsideOnly) {
  ParsedSource src;
  src.setText("a = f(b, g(c))\nd = e\n");
  std::vector<std::string> seen;
  forEachNode(src.root(), [&](TSNode n) {
    std::string_view type = ts_node_type(n);
    if (type == "identifier")
      seen.emplace_back(src.textOf(n));
    return type != "argument_list"; // f's arguments are not looked at
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "f", "d", "e"}));
}

TEST(SyntaxWalk, StopEndsTheWalkAtOnce) {
  ParsedSource src;
  src.setText("a = 1\nb = 2\nc = 3\n");
  std::vector<std::string> seen;
  forEachNode(src.root(), [&](TSNode n) {
    if (std::string_view(ts_node_type(n)) != "identifier")
      return Walk::Descend;
    seen.emplace_back(src.textOf(n));
    return seen.back() == "b" ? Walk::Stop : Walk::Descend;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
}

TEST(SyntaxWalk, AnyNodeLooksAtNothingAfterTheFirstMatch) {
  ParsedSource src;
  std::string text = "hit = 0\n";
  for (int i = 0; i < 1000; ++i)
    text += "x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  src.setText(text);
  size_t looked = 0;
  bool found = anyNode(
      src.root(),
      [&](TSNode n) {
        ++looked;
        return std::string_view(ts_node_type(n)) == "identifier" && src.textOf(n) == "hit";
      },
      [](TSNode) { return false; });
  EXPECT_TRUE(found);
  // module, the first statement, its assignment, then `hit`.
  EXPECT_EQ(looked, 4u);
  EXPECT_FALSE(anyNode(
      src.root(), [&](TSNode n) { return src.textOf(n) == "missing"; },
      [](TSNode) { return false; }));
}

TEST(SyntaxWalk, AnyNodeHonoursSkip) {
  ParsedSource src;
  src.setText("def f():\n    hit = 1\n");
  auto isHit = [&](TSNode n) { return src.textOf(n) == "hit"; };
  EXPECT_TRUE(anyNode(src.root(), isHit, [](TSNode) { return false; }));
  EXPECT_FALSE(anyNode(src.root(), isHit, [](TSNode n) {
    return std::string_view(ts_node_type(n)) == "function_definition";
  }));
}

TEST(SyntaxWalk, NestingDeeperThanAStackIsWalked) {
  ParsedSource src;
  const int depth = 20000;
  src.setText("x = " + std::string(depth, '(') + "hit" + std::string(depth, ')') + "\n");
  size_t parens = 0;
  forEachNode(src.root(), [&](TSNode n) {
    parens += std::string_view(ts_node_type(n)) == "parenthesized_expression";
  });
  EXPECT_EQ(parens, static_cast<size_t>(depth));
  EXPECT_TRUE(anyNode(
      src.root(), [&](TSNode n) { return src.textOf(n) == "hit"; }, [](TSNode) { return false; }));
}

TEST(SyntaxWalk, ChildrenAndFieldChildrenInOrder) {
  ParsedSource src;
  src.setText("[1, 2, 3]\nx[a, b]\n");
  TSNode list = ts_node_named_child(ts_node_named_child(src.root(), 0), 0);
  std::vector<TSNode> all = childrenOf(list, false), named = childrenOf(list, true);
  EXPECT_EQ(all.size(), 7u); // [ 1 , 2 , 3 ]
  ASSERT_EQ(named.size(), 3u);
  EXPECT_EQ(src.textOf(named[2]), "3");
  TSNode subscript = ts_node_named_child(ts_node_named_child(src.root(), 1), 0);
  std::vector<TSNode> indices = fieldChildren(subscript, "subscript");
  ASSERT_EQ(indices.size(), 2u);
  EXPECT_EQ(src.textOf(indices[0]), "a");
  EXPECT_EQ(src.textOf(indices[1]), "b");
  EXPECT_TRUE(childrenOf(TSNode{}, true).empty());
}

} // namespace
} // namespace pallas::analysis::syntax
