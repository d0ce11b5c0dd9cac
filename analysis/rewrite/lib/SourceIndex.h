// The document's syntax, for what the MLIR module does not keep: operator
// tokens of `pallas.opaque "binary_operator"`, the extent of a decorated def,
// the source text of an operand that comes from outside a region, import
// aliases. Every lookup starts from an op's location (line:col of its syntax
// node), so the structure still comes from the module; only the leaves come
// from here.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/analysis/detail/SyntaxWalk.h" // childrenOf, fieldChildren, forEachNode

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
  // (nodeAt descends from the top-level statement that holds `p`, found by
  // binary search, not from the root: tree-sitter steps through every
  // sibling on the way down, so from the root each lookup cost the number of
  // statements in the file: findings x file size.)
  // ts_node_descendant_for_point_range(root(), a, b), the same way.
  TSNode descendantFor(TSPoint a, TSPoint b) const;
  // The parent of `n` (null for the root). ts_node_parent walks down from the
  // root on every call (through every top-level statement before `n`); this
  // descends from the top-level statement that holds `n` and keeps the path,
  // so walking up from a node costs one descent, whatever the file's size.
  TSNode parent(TSNode n) const;
  // Leading whitespace of a line.
  std::string indentOf(uint32_t line) const;
  // The name a module-level import binds for `module` ("jax.numpy" -> "jnp"
  // for `import jax.numpy as jnp`, "jax.numpy" for `import jax`); "" if none.
  std::string aliasOf(const std::string& module) const;
  // Where to insert a new import line: the line after the last module-level
  // import (0 when there is none), as a position at column 0.
  SourcePos importInsertionPoint() const;

  // The root's children (named or not), in order; built on first use. Loop
  // over these, not ts_node_named_child(root, i): that call is linear in i.
  const std::vector<TSNode>& topLevel() const;

  // Byte ranges [start, end) of the identifiers spelled `name`, in source
  // order. The first call indexes every identifier in one walk; asking
  // "where is this name used" by walking the tree from the root per question
  // made each fix cost the file's size (findings x file size).
  struct Span {
    uint32_t start, end;
  };
  const std::vector<Span>& identifierSpans(std::string_view name) const;

private:
  // Index of the first top-level child that ends after `p` and starts at or
  // before it (what tree-sitter's descent picks at the root), or npos.
  size_t topLevelAt(TSPoint p) const;
  mutable std::once_flag topOnce_;
  mutable std::vector<TSNode> top_;
  mutable std::mutex parentsMutex_;
  mutable std::vector<TSNode> path_; // root .. the last node parent() was asked about
  mutable size_t lastAnswer_ = 0;    // where in path_ parent()'s last answer stands
  // The children of nodes with many (a 40,000-element list in a region):
  // the descent picks the covering child by binary search instead of a scan
  // per query, which made a walk over every element quadratic.
  mutable std::unordered_map<const void*, std::vector<TSNode>> wideChildren_;
  TSNode coveringChild(TSNode cur, uint32_t start, uint32_t end) const;
  // aliasOf's answers: each is a scan of every top-level statement, asked
  // for every rewrite (findings x statements).
  std::string aliasUncached(const std::string& module) const;
  mutable std::unordered_map<std::string, std::string> aliases_;

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
  mutable std::once_flag identifiersOnce_;
  mutable std::unordered_map<std::string_view, std::vector<Span>> identifiers_;
};

// Small helpers over TSNode.
inline bool isNull(TSNode n) {
  return ts_node_is_null(n);
}
inline std::string_view typeOf(TSNode n) {
  return isNull(n) ? "" : ts_node_type(n);
}
TSNode fieldOf(TSNode n, std::string_view name);

} // namespace pallas::analysis::rewrite
