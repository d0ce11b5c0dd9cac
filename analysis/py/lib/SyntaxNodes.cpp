#include "SyntaxNodes.h"

#include <cstring>

// NOLINTNEXTLINE(readability-identifier-naming): the grammar's C symbol
extern "C" const TSLanguage* tree_sitter_python();

namespace pallas::py::syntax {

namespace {

std::vector<TSNode> children(TSNode n, bool namedOnly) {
  std::vector<TSNode> out;
  if (isNull(n))
    return out;
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode k = ts_tree_cursor_current_node(&c);
      if ((!namedOnly || ts_node_is_named(k)) && !is(k, "comment"))
        out.push_back(k);
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
  return out;
}

TSFieldId fieldId(std::string_view name) {
  return ts_language_field_id_for_name(tree_sitter_python(), name.data(),
                                       static_cast<uint32_t>(name.size()));
}

} // namespace

std::vector<TSNode> kids(TSNode n) {
  return children(n, true);
}

std::vector<TSNode> allKids(TSNode n) {
  return children(n, false);
}

TSNode field(TSNode n, std::string_view name) {
  if (isNull(n))
    return TSNode{};
  TSFieldId id = fieldId(name);
  return id == 0 ? TSNode{} : ts_node_child_by_field_id(n, id);
}

std::vector<TSNode> fieldAll(TSNode n, std::string_view name) {
  std::vector<TSNode> out;
  if (isNull(n))
    return out;
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      const char* f = ts_tree_cursor_current_field_name(&c);
      if (f && name == f)
        out.push_back(ts_tree_cursor_current_node(&c));
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
  return out;
}

bool hasToken(TSNode n, std::string_view token) {
  for (TSNode k : allKids(n))
    if (!ts_node_is_named(k) && type(k) == token)
      return true;
  return false;
}

} // namespace pallas::py::syntax
