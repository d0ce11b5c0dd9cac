// The document's syntax, for what the MLIR module does not keep: operator
// tokens of `pallas.opaque "binary_operator"`, the extent of a decorated def,
// the source text of an operand that comes from outside a region, import
// aliases. Every lookup starts from an op's location (line:col of its syntax
// node), so the structure still comes from the module; only the leaves come
// from here.
#pragma once

#include "pallas/analysis/Finding.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <unordered_map>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace pallas::analysis::rewrite {

class SourceIndex {
public:
  explicit SourceIndex(std::string_view text);
  // Over a tree already parsed from `text` (taken over: deleted with this).
  SourceIndex(std::string_view text, TSTree* tree);
  ~SourceIndex();
  // The index of `text`, shared with the other callers on this thread that
  // ask for the same text within one CacheScope: one request's fixes look at
  // the same document many times (each quick fix, the rewrite's region
  // lookup and its translation), and each parse is a full tree-sitter parse.
  // Outside a scope it is parsed afresh.
  static std::shared_ptr<const SourceIndex> of(std::string_view text);
  // Remember an index made over an existing tree, for of() to find (within
  // the current scope).
  static void remember(std::shared_ptr<const SourceIndex> index);
  // While one is alive on a thread, of() reuses indexes; when the outermost
  // ends, they are let go (a server must not keep trees of closed files).
  class CacheScope {
  public:
    CacheScope();
    ~CacheScope();
    CacheScope(const CacheScope&) = delete;
    CacheScope& operator=(const CacheScope&) = delete;
  };
  SourceIndex(const SourceIndex&) = delete;
  SourceIndex& operator=(const SourceIndex&) = delete;

  std::string_view text() const { return text_; }
  TSNode root() const { return ts_tree_root_node(tree_); }
  std::string_view textOf(TSNode n) const;
  static SourcePos pos(TSPoint p) { return {p.row, p.column}; }
  // Byte offset of a 0-based (line, byte column); npos when outside.
  size_t offset(SourcePos p) const;
  // Nodes that start exactly at `p`, innermost first, that satisfy `keep`.
  // Linear in the nodes starting there: the first call indexes every node by
  // its start in one walk (walking up with ts_node_parent costs the depth of
  // the node each step, so a long expression, whose operators all start at
  // its first operand, was cubic in its length).
  // `keep` also gets the next larger node starting there (null for the
  // outermost): the node's parent whenever the parent starts there too.
  using Keep = std::function<bool(TSNode node, TSNode enclosingAtSameStart)>;
  std::vector<TSNode> nodesStartingAt(SourcePos p, const Keep& keep) const;
  // The smallest named node that contains `p`.
  TSNode nodeAt(SourcePos p) const;
  // Leading whitespace of a line.
  std::string indentOf(uint32_t line) const;
  // The name a module-level import binds for `module` ("jax.numpy" -> "jnp"
  // for `import jax.numpy as jnp`, "jax.numpy" for `import jax`); "" if none.
  std::string aliasOf(const std::string& module) const;
  // Where to insert a new import line: the line after the last module-level
  // import (0 when there is none), as a position at column 0.
  SourcePos importInsertionPoint() const;

private:
  void indexLines();
  std::string text_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::vector<size_t> lineStarts_;
  // Start position (row << 32 | column) -> the nodes starting there,
  // innermost first. Built on first use.
  mutable std::once_flag startsOnce_;
  mutable std::unordered_map<uint64_t, std::vector<TSNode>> starts_;
  const std::vector<TSNode>* startingAt(TSPoint p) const;
};

// Small helpers over TSNode.
inline bool isNull(TSNode n) { return ts_node_is_null(n); }
inline std::string_view typeOf(TSNode n) { return isNull(n) ? "" : ts_node_type(n); }
TSNode fieldOf(TSNode n, std::string_view name);

} // namespace pallas::analysis::rewrite
