// The one pre-order walk over a tree-sitter tree the analysis uses (the
// syntax library's, lib/Syntax.h, and the rewrite's SourceIndex): header-only
// so that pallas_rewrite_core, which links no front end, shares it.
#pragma once

#include <tree_sitter/api.h>

namespace pallas::analysis::syntax {

// Calls visit(node) on `root` and every node under it, named or not, in
// pre-order: a node before the nodes inside it, siblings in source order.
// With a cursor, iterative, so any depth is fine.
template <typename Visit> void forEachNode(TSNode root, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    visit(ts_tree_cursor_current_node(&cursor));
    if (ts_tree_cursor_goto_first_child(&cursor))
      continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
}

} // namespace pallas::analysis::syntax
