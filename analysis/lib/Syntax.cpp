#include "Syntax.h"

#include "ParserGuard.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

namespace pallas::analysis::syntax {

ParsedSource::ParsedSource() : parser_(ts_parser_new()), chunkParser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_, tree_sitter_python()) ||
      !ts_parser_set_language(chunkParser_, tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python grammar ABI is not supported by the runtime");
  bumpRevision();
}

ParsedSource::~ParsedSource() {
  dropChunks();
  if (tree_)
    ts_tree_delete(tree_);
  ts_parser_delete(parser_);
  ts_parser_delete(chunkParser_);
}

void ParsedSource::dropChunks() const {
  for (auto& [_, trees] : chunks_)
    for (TSTree* t : trees)
      ts_tree_delete(t);
  chunks_.clear();
}

namespace {

// Does a line starting at column 0 begin a new top-level statement? Not when
// it continues one (closing brackets, else/except/finally clauses).
bool startsStatement(std::string_view line) {
  if (line.empty())
    return false;
  char c = line[0];
  if (c == ' ' || c == '\t' || c == '#' || c == '\n' || c == '\r' || c == ')' || c == ']' ||
      c == '}')
    return false;
  for (std::string_view kw : {"else", "elif", "except", "finally"})
    if (line.substr(0, kw.size()) == kw &&
        (line.size() == kw.size() || line[kw.size()] == ':' || line[kw.size()] == ' '))
      return false;
  return true;
}

} // namespace

std::vector<TSNode> ParsedSource::recoveredChunks(TSNode error) const {
  uint32_t begin = ts_node_start_byte(error), end = ts_node_end_byte(error);
  auto key = std::make_pair(begin, end);
  auto it = chunks_.find(key);
  if (it == chunks_.end()) {
    // Chunk starts: lines at column 0 that start a statement, a decorated
    // definition starting at its first decorator.
    std::vector<std::pair<uint32_t, TSPoint>> starts;
    TSPoint p = ts_node_start_point(error);
    bool afterDecorator = false;
    for (uint32_t pos = begin; pos < end;) {
      size_t nl = text_.find('\n', pos);
      uint32_t lineEnd = nl == std::string::npos || nl >= end ? end : static_cast<uint32_t>(nl);
      std::string_view line(text_.data() + pos, lineEnd - pos);
      if (p.column == 0 && startsStatement(line)) {
        if (!afterDecorator || starts.empty())
          starts.emplace_back(pos, p);
        afterDecorator = line[0] == '@';
      }
      pos = lineEnd + 1;
      p = TSPoint{p.row + 1, 0};
    }
    std::vector<TSTree*> trees;
    if (starts.size() > 1) {
      for (size_t i = 0; i < starts.size(); ++i) {
        TSRange r{};
        r.start_byte = starts[i].first;
        r.start_point = starts[i].second;
        if (i + 1 < starts.size()) {
          r.end_byte = starts[i + 1].first;
          r.end_point = starts[i + 1].second;
        } else {
          r.end_byte = end;
          r.end_point = ts_node_end_point(error);
        }
        ts_parser_set_included_ranges(chunkParser_, &r, 1);
        ts_parser_set_timeout_micros(
            chunkParser_, kParseBudgetMicros + (r.end_byte - r.start_byte) * kParseMicrosPerByte);
        if (TSTree* t = ts_parser_parse_string(chunkParser_, nullptr, text_.data(),
                                               static_cast<uint32_t>(text_.size())))
          trees.push_back(t);
        else
          ts_parser_reset(chunkParser_); // over budget: that chunk stays unread
      }
    }
    it = chunks_.emplace(key, std::move(trees)).first;
  }
  std::vector<TSNode> roots;
  for (TSTree* t : it->second)
    roots.push_back(ts_tree_root_node(t));
  return roots;
}

void ParsedSource::install(std::string raw) {
  std::string derived = raw;
  bool changed = normaliseLoneCarriageReturns(derived);
  tooDeep_.reset();
  if (auto cut = findParserOverload(derived)) {
    text_ = std::move(derived); // for pointAt
    tooDeep_ = pointAt(*cut);
    derived = std::move(text_);
    blankFrom(derived, *cut);
    changed = true;
  }
  text_ = std::move(derived);
  rawKept_ = changed;
  if (changed)
    raw_ = std::move(raw);
  else
    raw_.clear();
  scanPending_ = false;
}

void ParsedSource::bumpRevision() {
  static std::atomic<uint64_t> next{1};
  revision_ = next.fetch_add(1, std::memory_order_relaxed);
}

void ParsedSource::setText(std::string text) {
  bumpRevision();
  dropChunks();
  install(std::move(text));
  if (tree_)
    ts_tree_delete(tree_);
  tree_ = parseBounded(nullptr);
  dirty_ = false;
}

// tree-sitter's error recovery can take minutes on adversarial input
// that stays under findParserOverload's count (found by fuzz_python_structured:
// a 3,900-deep unclosed bracket, then a 32,768-target chained assignment in
// it). A parse gets a budget far above what real files need (5-8 MB/s); past
// it the file is analysed as empty and reported like one nested too deep.
TSTree* ParsedSource::parseBounded(TSTree* old) {
  ts_parser_set_timeout_micros(parser_, kParseBudgetMicros + text_.size() * kParseMicrosPerByte);
  if (TSTree* t =
          ts_parser_parse_string(parser_, old, text_.data(), static_cast<uint32_t>(text_.size())))
    return t;
  ts_parser_reset(parser_);
  if (!rawKept_) {
    raw_ = text_;
    rawKept_ = true;
  }
  tooDeep_ = TSPoint{0, 0};
  blankFrom(text_, 0);
  return ts_parser_parse_string(parser_, nullptr, text_.data(),
                                static_cast<uint32_t>(text_.size()));
}

// Row and byte column of a byte offset, counting newlines before it. A scan
// (vectorised by the library) is cheaper than keeping a line table current.
TSPoint ParsedSource::pointAt(size_t byte) const {
  const char* begin = text_.data();
  const char* end = begin + byte;
  uint32_t row = 0;
  const char* lineStart = begin;
  for (const char* p = begin; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl)
      break;
    ++row;
    p = static_cast<const char*>(nl) + 1;
    lineStart = p;
  }
  return TSPoint{row, static_cast<uint32_t>(end - lineStart)};
}

void ParsedSource::applyEdit(const ByteEdit& edit) {
  if (edit.startByte > edit.oldEndByte || edit.oldEndByte > text_.size())
    throw std::out_of_range("edit outside the document");
  // tree-sitter offsets are 32-bit; a 4 GB Python file is not a use case.
  if (text_.size() - (edit.oldEndByte - edit.startByte) + edit.newText.size() > UINT32_MAX)
    throw std::out_of_range("document too large");
  bumpRevision();
  if (rawKept_) {
    // The text differs from what was given (lone "\r", blanked): apply the
    // edit to the given text, derive again and parse afresh.
    raw_.replace(edit.startByte, edit.oldEndByte - edit.startByte, edit.newText);
    std::string raw = std::move(raw_);
    install(std::move(raw));
    if (tree_)
      ts_tree_delete(tree_);
    tree_ = nullptr;
    dirty_ = true;
    return;
  }
  TSInputEdit in{};
  in.start_byte = static_cast<uint32_t>(edit.startByte);
  in.old_end_byte = static_cast<uint32_t>(edit.oldEndByte);
  in.start_point = pointAt(edit.startByte);
  in.old_end_point = pointAt(edit.oldEndByte);
  text_.replace(edit.startByte, edit.oldEndByte - edit.startByte, edit.newText);
  in.new_end_byte = static_cast<uint32_t>(edit.startByte + edit.newText.size());
  in.new_end_point = pointAt(in.new_end_byte);
  if (tree_)
    ts_tree_edit(tree_, &in);
  dirty_ = true;
  scanPending_ = true;
  // A lone "\r" can only appear (or stop being lone) next to the edit.
  size_t from = edit.startByte > 0 ? edit.startByte - 1 : 0;
  for (size_t i = from; i < std::min<size_t>(in.new_end_byte + 1, text_.size()); ++i)
    if (isLoneCarriageReturn(text_, i)) {
      std::string raw = std::move(text_);
      install(std::move(raw));
      if (tree_)
        ts_tree_delete(tree_);
      tree_ = nullptr;
      return;
    }
}

void ParsedSource::reparse() {
  if (!dirty_ && tree_)
    return;
  bumpRevision();
  if (scanPending_) {
    scanPending_ = false;
    if (findParserOverload(text_)) {
      std::string raw = std::move(text_);
      install(std::move(raw));
      if (tree_)
        ts_tree_delete(tree_);
      tree_ = nullptr;
    }
  }
  dropChunks();
  TSTree* fresh = parseBounded(tree_);
  if (tree_)
    ts_tree_delete(tree_);
  tree_ = fresh;
  dirty_ = false;
}

std::string_view ParsedSource::textOf(TSNode node) const {
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  b = std::min<uint32_t>(b, static_cast<uint32_t>(text_.size()));
  e = std::min<uint32_t>(std::max(b, e), static_cast<uint32_t>(text_.size()));
  return std::string_view(text_).substr(b, e - b);
}

std::vector<TSNode> namedChildren(TSNode n) {
  return childrenOf(n, /*namedOnly=*/true);
}

std::optional<Comparison> comparisonOf(const ParsedSource& doc, TSNode cmp) {
  if (!is(cmp, "comparison_operator"))
    return std::nullopt;
  std::vector<TSNode> operands;
  for (TSNode c : namedChildren(cmp))
    if (!is(c, "comment"))
      operands.push_back(c);
  if (operands.size() != 2)
    return std::nullopt;
  Comparison out{operands[0], operands[1], {}};
  uint32_t from = ts_node_end_byte(operands[0]), to = ts_node_start_byte(operands[1]);
  for (char ch : doc.text().substr(from, to - from))
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\\')
      out.op.push_back(ch);
  return out;
}

TSFieldId fieldId(std::string_view name) {
  // The grammar's field names, looked up once each: by-name lookups compare
  // the name against every field of the language (a tenth of lowering time).
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const TSLanguage* lang = tree_sitter_python();
    for (uint32_t id = 1, n = ts_language_field_count(lang); id <= n; ++id) {
      const char* name = ts_language_field_name_for_id(lang, static_cast<TSFieldId>(id));
      out.emplace_back(name ? name : "");
    }
    return out;
  }();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return static_cast<TSFieldId>(i + 1);
  return 0;
}

TSNode field(TSNode n, std::string_view name) {
  TSFieldId id = fieldId(name);
  return id == 0 ? TSNode{} : ts_node_child_by_field_id(n, id);
}

} // namespace pallas::analysis::syntax
