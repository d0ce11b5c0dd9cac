#include "Syntax.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pallas::analysis::syntax {

Document::Document() : parser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_, tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python grammar ABI is not supported by the runtime");
}

Document::~Document() {
  if (tree_) ts_tree_delete(tree_);
  ts_parser_delete(parser_);
}

void Document::setText(std::string text) {
  text_ = std::move(text);
  if (tree_) ts_tree_delete(tree_);
  tree_ = ts_parser_parse_string(parser_, nullptr, text_.data(), static_cast<uint32_t>(text_.size()));
  dirty_ = false;
}

// Row and byte column of a byte offset, counting newlines before it. A scan
// (vectorised by the library) is cheaper than keeping a line table current.
TSPoint Document::pointAt(size_t byte) const {
  const char* begin = text_.data();
  const char* end = begin + byte;
  uint32_t row = 0;
  const char* lineStart = begin;
  for (const char* p = begin; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) break;
    ++row;
    p = static_cast<const char*>(nl) + 1;
    lineStart = p;
  }
  return TSPoint{row, static_cast<uint32_t>(end - lineStart)};
}

void Document::applyEdit(const ByteEdit& edit) {
  if (edit.startByte > edit.oldEndByte || edit.oldEndByte > text_.size())
    throw std::out_of_range("edit outside the document");
  // tree-sitter offsets are 32-bit; a 4 GB Python file is not a use case.
  if (text_.size() - (edit.oldEndByte - edit.startByte) + edit.newText.size() > UINT32_MAX)
    throw std::out_of_range("document too large");
  TSInputEdit in{};
  in.start_byte = static_cast<uint32_t>(edit.startByte);
  in.old_end_byte = static_cast<uint32_t>(edit.oldEndByte);
  in.start_point = pointAt(edit.startByte);
  in.old_end_point = pointAt(edit.oldEndByte);
  text_.replace(edit.startByte, edit.oldEndByte - edit.startByte, edit.newText);
  in.new_end_byte = static_cast<uint32_t>(edit.startByte + edit.newText.size());
  in.new_end_point = pointAt(in.new_end_byte);
  if (tree_) ts_tree_edit(tree_, &in);
  dirty_ = true;
}

void Document::reparse() {
  if (!dirty_ && tree_) return;
  TSTree* fresh = ts_parser_parse_string(parser_, tree_, text_.data(), static_cast<uint32_t>(text_.size()));
  if (tree_) ts_tree_delete(tree_);
  tree_ = fresh;
  dirty_ = false;
}

std::string_view Document::textOf(TSNode node) const {
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  b = std::min<uint32_t>(b, static_cast<uint32_t>(text_.size()));
  e = std::min<uint32_t>(std::max(b, e), static_cast<uint32_t>(text_.size()));
  return std::string_view(text_).substr(b, e - b);
}

TSNode field(TSNode n, std::string_view name) {
  return ts_node_child_by_field_name(n, name.data(), static_cast<uint32_t>(name.size()));
}

} // namespace pallas::analysis::syntax
