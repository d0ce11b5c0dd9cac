// Small readers over tree-sitter-python nodes for the py lowering: children
// without comments, every child of a field, and the operator token between
// operands. No MLIR here.
#pragma once

#include <string_view>
#include <tree_sitter/api.h>
#include <vector>

namespace pallas::py::syntax {

inline bool isNull(TSNode n) {
  return ts_node_is_null(n);
}
inline std::string_view type(TSNode n) {
  return isNull(n) ? std::string_view() : std::string_view(ts_node_type(n));
}
inline bool is(TSNode n, std::string_view t) {
  return !isNull(n) && type(n) == t;
}

// The named children of `n` in order, comments left out.
std::vector<TSNode> kids(TSNode n);
// Every child of `n` (anonymous tokens included), comments left out.
std::vector<TSNode> allKids(TSNode n);
// The first child in field `name` (null when none).
TSNode field(TSNode n, std::string_view name);
// Every child in field `name`, in order.
std::vector<TSNode> fieldAll(TSNode n, std::string_view name);
// Does `n` have an anonymous child token spelled `token` ("async", "*")?
bool hasToken(TSNode n, std::string_view token);

} // namespace pallas::py::syntax
