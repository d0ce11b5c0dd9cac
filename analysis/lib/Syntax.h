// A Python document as tree-sitter sees it: the text, the parser and the
// tree, kept current edit by edit (ts_tree_edit + incremental reparse with the
// old tree). No MLIR here.
#pragma once

#include "pallas/analysis/Project.h" // ByteEdit

#include <string>
#include <string_view>
#include <tree_sitter/api.h>

extern "C" const TSLanguage* tree_sitter_python();

namespace pallas::analysis::syntax {

class Document {
public:
  Document();
  ~Document();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  // Replace the whole text and parse it from scratch.
  void setText(std::string text);
  // Apply one edit (byte offsets of the current text) to the text and the
  // tree. Throws std::out_of_range for an edit outside the text. Call
  // reparse() after the last edit of a batch.
  void applyEdit(const ByteEdit& edit);
  // Incrementally reparse after applyEdit(); a no-op when nothing changed.
  void reparse();

  const std::string& text() const { return text_; }
  TSNode root() const { return ts_tree_root_node(tree_); }
  std::string_view textOf(TSNode node) const;

private:
  TSPoint pointAt(size_t byte) const;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::string text_;
  bool dirty_ = false;
};

// Small helpers over TSNode.
inline bool isNull(TSNode n) { return ts_node_is_null(n); }
inline std::string_view type(TSNode n) { return ts_node_type(n); }
inline bool is(TSNode n, std::string_view t) { return !isNull(n) && type(n) == t; }
TSNode field(TSNode n, std::string_view name);

} // namespace pallas::analysis::syntax
