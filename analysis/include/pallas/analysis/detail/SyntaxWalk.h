// The walks over a tree-sitter tree the analysis uses (the syntax library's,
// lib/Syntax.h, and the rewrite's SourceIndex): header-only so that
// pallas_rewrite_core, which links no front end, shares them.
//
// Why they exist: ts_node_child(n, i) and ts_node_named_child(n, i) walk the
// children from the first one each time, so a loop over them is quadratic in
// the number of children (a 40,000-element list literal), and a recursive
// walk over a user's file can nest as deep as the file does (the parser takes
// up to 50,000 open brackets). A cursor is linear and needs no stack.
#pragma once

#include <string_view>
#include <tree_sitter/api.h>
#include <type_traits>
#include <vector>

namespace pallas::analysis::syntax {

// What a visitor of forEachNode asks for after seeing a node.
enum class Walk {
  Descend,      // look at the nodes inside it next
  SkipChildren, // go on with its next sibling
  Stop,         // end the walk here
};

// Calls visit(node) on `root` and every node under it, named or not, in
// pre-order: a node before the nodes inside it, siblings in source order.
// visit may return void (descend everywhere), bool (false skips the nodes
// inside that node) or Walk. With a cursor, iterative, so any depth is fine.
template <typename Visit> void forEachNode(TSNode root, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    Walk next = Walk::Descend;
    using Answer = decltype(visit(node));
    if constexpr (std::is_same_v<Answer, Walk>)
      next = visit(node);
    else if constexpr (std::is_same_v<Answer, bool>)
      next = visit(node) ? Walk::Descend : Walk::SkipChildren;
    else
      visit(node);
    if (next == Walk::Stop)
      break;
    if (next == Walk::Descend && ts_tree_cursor_goto_first_child(&cursor))
      continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
}

// Whether any node at or under `root` satisfies pred (pre-order; the walk
// ends at the first). skip(node) true: the nodes inside `node` are not
// looked at.
template <typename Pred, typename Skip> bool anyNode(TSNode root, Pred&& pred, Skip&& skip) {
  bool found = false;
  forEachNode(root, [&](TSNode n) {
    if (pred(n)) {
      found = true;
      return Walk::Stop;
    }
    return skip(n) ? Walk::SkipChildren : Walk::Descend;
  });
  return found;
}

// The children of `n` (only the named ones when namedOnly), in one linear
// pass; a null node has none.
inline std::vector<TSNode> childrenOf(TSNode n, bool namedOnly) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n) || ts_node_child_count(n) == 0)
    return out;
  out.reserve(namedOnly ? ts_node_named_child_count(n) : ts_node_child_count(n));
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor);
      if (!namedOnly || ts_node_is_named(c))
        out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

// The children of `n` under the grammar field `fieldName` (a subscript's
// indices, an import's names), in one linear pass.
inline std::vector<TSNode> fieldChildren(TSNode n, std::string_view fieldName) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n) || ts_node_child_count(n) == 0)
    return out;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const char* f = ts_tree_cursor_current_field_name(&cursor);
      if (f && fieldName == f)
        out.push_back(ts_tree_cursor_current_node(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

} // namespace pallas::analysis::syntax
