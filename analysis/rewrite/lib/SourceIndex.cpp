#include "SourceIndex.h"

#include <algorithm>

namespace pallas::analysis::rewrite {

TSNode fieldOf(TSNode n, std::string_view name) {
  if (isNull(n))
    return n;
  return ts_node_child_by_field_name(n, name.data(), static_cast<uint32_t>(name.size()));
}

SourceIndex::SourceIndex(std::string_view text) : text_(text) {
  parser_ = ts_parser_new();
  ts_parser_set_language(parser_, tree_sitter_python());
  tree_ =
      ts_parser_parse_string(parser_, nullptr, text_.data(), static_cast<uint32_t>(text_.size()));
  indexLines();
}

SourceIndex::SourceIndex(std::string_view text, TSTree* tree) : text_(text), tree_(tree) {
  indexLines();
}

void SourceIndex::indexLines() {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      lineStarts_.push_back(i + 1);
}

namespace {
// Thread-local: no lock, and an index is read-only once built.
thread_local std::vector<std::shared_ptr<const SourceIndex>> recent;
thread_local int scopes = 0;
} // namespace

SourceIndex::CacheScope::CacheScope() {
  ++scopes;
}
SourceIndex::CacheScope::~CacheScope() {
  if (--scopes == 0)
    recent.clear();
}

void SourceIndex::remember(std::shared_ptr<const SourceIndex> index) {
  if (scopes == 0)
    return;
  recent.insert(recent.begin(), std::move(index));
  if (recent.size() > 4)
    recent.pop_back();
}

std::shared_ptr<const SourceIndex> SourceIndex::of(std::string_view text) {
  for (size_t i = 0; i < recent.size(); ++i)
    if (recent[i]->text() == text) {
      std::rotate(recent.begin(), recent.begin() + static_cast<long>(i),
                  recent.begin() + static_cast<long>(i) + 1);
      return recent.front();
    }
  auto made = std::make_shared<const SourceIndex>(text);
  remember(made);
  return made;
}

SourceIndex::~SourceIndex() {
  if (tree_)
    ts_tree_delete(tree_);
  if (parser_)
    ts_parser_delete(parser_);
}

std::string_view SourceIndex::textOf(TSNode n) const {
  if (isNull(n))
    return {};
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e > text_.size() || s > e)
    return {};
  return std::string_view(text_).substr(s, e - s);
}

size_t SourceIndex::offset(SourcePos p) const {
  if (p.line >= lineStarts_.size())
    return std::string::npos;
  size_t o = lineStarts_[p.line] + p.column;
  return o > text_.size() ? std::string::npos : o;
}

namespace {
bool pointLess(TSPoint a, TSPoint b) {
  return a.row < b.row || (a.row == b.row && a.column < b.column);
}
} // namespace

const std::vector<TSNode>& SourceIndex::topLevel() const {
  std::call_once(topOnce_, [this] {
    TSTreeCursor cursor = ts_tree_cursor_new(root());
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do
        top_.push_back(ts_tree_cursor_current_node(&cursor));
      while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  });
  return top_;
}

size_t SourceIndex::topLevelAt(TSPoint p) const {
  const std::vector<TSNode>& top = topLevel();
  // Children are in order and do not overlap, so their ends are sorted.
  auto it = std::partition_point(top.begin(), top.end(), [&](TSNode n) {
    return !pointLess(p, ts_node_end_point(n)); // end <= p
  });
  if (it == top.end() || pointLess(p, ts_node_start_point(*it)))
    return std::string::npos;
  return static_cast<size_t>(it - top.begin());
}

TSNode SourceIndex::nodeAt(SourcePos p) const {
  TSPoint pt{p.line, p.column};
  size_t i = topLevelAt(pt);
  if (i == std::string::npos)
    return ts_node_named_descendant_for_point_range(root(), pt, pt);
  TSNode n = ts_node_named_descendant_for_point_range(top_[i], pt, pt);
  // From the root, an unnamed top-level child is passed over for the root.
  return ts_node_is_named(n) ? n : root();
}

TSNode SourceIndex::descendantFor(TSPoint a, TSPoint b) const {
  size_t i = topLevelAt(a);
  // Only when one top-level child holds the whole range is it the answer's
  // ancestor; otherwise the root is (and its lookup is a single step).
  if (i == std::string::npos || pointLess(ts_node_end_point(top_[i]), b) ||
      !pointLess(b, ts_node_end_point(top_[i])))
    return ts_node_descendant_for_point_range(root(), a, b);
  return ts_node_descendant_for_point_range(top_[i], a, b);
}

// Nodes with more children than this have them indexed for the descent.
constexpr uint32_t kWide = 32;

// The child of `cur` that covers [start, end), or null: the first child
// that ends at or after `end` covers it if it starts at or before `start`
// (children are in byte order and do not overlap), found by binary search.
// Wide nodes keep their child list (each query would list it again).
TSNode SourceIndex::coveringChild(TSNode cur, uint32_t start, uint32_t end) const {
  std::vector<TSNode> narrow;
  const std::vector<TSNode>* kids = &narrow;
  if (ts_node_child_count(cur) > kWide) {
    auto [slot, fresh] = wideChildren_.try_emplace(cur.id);
    if (fresh)
      slot->second = syntax::childrenOf(cur, /*namedOnly=*/false);
    kids = &slot->second;
  } else {
    narrow = syntax::childrenOf(cur, /*namedOnly=*/false);
  }
  auto c = std::partition_point(kids->begin(), kids->end(),
                                [&](TSNode k) { return ts_node_end_byte(k) < end; });
  return c != kids->end() && ts_node_start_byte(*c) <= start ? *c : TSNode{};
}

TSNode SourceIndex::parent(TSNode n) const {
  if (isNull(n) || ts_node_eq(n, root()))
    return TSNode{};
  std::lock_guard lock(parentsMutex_);
  // Walking up asks for the parent of the last answer: the path from the
  // root to the last node asked about answers every step after the first,
  // each in one comparison (scanning the path per step was quadratic in the
  // depth).
  if (lastAnswer_ >= 1 && lastAnswer_ < path_.size() && ts_node_eq(path_[lastAnswer_], n))
    return path_[--lastAnswer_];
  for (size_t k = path_.size(); k-- > 1;)
    if (ts_node_eq(path_[k], n)) {
      lastAnswer_ = k - 1;
      return path_[k - 1];
    }
  // Otherwise descend to `n` from the top-level statement that holds it
  // (binary search), choosing at each level the child that covers it: the
  // cost is the node's depth times the siblings on the way, never the file.
  const std::vector<TSNode>& top = topLevel();
  uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
  auto first = std::partition_point(top.begin(), top.end(),
                                    [&](TSNode t) { return ts_node_end_byte(t) < end; });
  for (auto it = first; it != top.end() && ts_node_start_byte(*it) <= start; ++it) {
    path_.assign({root(), *it});
    TSNode cur = *it;
    bool found = ts_node_eq(cur, n);
    while (!found) {
      TSNode next = coveringChild(cur, start, end);
      if (isNull(next))
        break;
      path_.push_back(next);
      cur = next;
      found = ts_node_eq(cur, n);
    }
    if (found) {
      lastAnswer_ = path_.size() - 2;
      return path_[lastAnswer_];
    }
  }
  path_.clear();
  return ts_node_parent(n); // not reached by the descent (a zero-width node at a boundary)
}

const std::vector<TSNode>* SourceIndex::startingAt(TSPoint p) const {
  std::call_once(startsOnce_, [this] {
    // Pre-order with a cursor (iterative, so any depth): a node comes before
    // the nodes inside it, so each position's list is outermost first here.
    syntax::forEachNode(root(), [&](TSNode n) {
      TSPoint s = ts_node_start_point(n);
      starts_[(static_cast<uint64_t>(s.row) << 32) | s.column].push_back(n);
    });
    for (auto& [_, nodes] : starts_)
      std::reverse(nodes.begin(), nodes.end());
  });
  auto it = starts_.find((static_cast<uint64_t>(p.row) << 32) | p.column);
  return it == starts_.end() ? nullptr : &it->second;
}

std::vector<TSNode> SourceIndex::nodesStartingAt(SourcePos p, const Keep& keep) const {
  std::vector<TSNode> out;
  if (const std::vector<TSNode>* nodes = startingAt(TSPoint{p.line, p.column}))
    for (size_t i = 0; i < nodes->size(); ++i)
      if (keep((*nodes)[i], i + 1 < nodes->size() ? (*nodes)[i + 1] : TSNode{}))
        out.push_back((*nodes)[i]);
  return out;
}

const std::vector<SourceIndex::Span>& SourceIndex::identifierSpans(std::string_view name) const {
  std::call_once(identifiersOnce_, [this] {
    // Pre-order with a cursor: identifiers come out in source order.
    // The type's name looked up once per symbol, not a strcmp per node
    // (several symbols are called "identifier": aliases of keywords too).
    std::vector<int8_t> isIdentifier(ts_language_symbol_count(tree_sitter_python()), -1);
    auto identifier = [&](TSNode n) {
      TSSymbol sym = ts_node_symbol(n);
      if (sym >= isIdentifier.size())
        return typeOf(n) == "identifier";
      if (isIdentifier[sym] < 0)
        isIdentifier[sym] = typeOf(n) == "identifier" ? 1 : 0;
      return isIdentifier[sym] == 1;
    };
    syntax::forEachNode(root(), [&](TSNode n) {
      if (identifier(n)) {
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        if (s <= e && e <= text_.size())
          identifiers_[std::string_view(text_).substr(s, e - s)].push_back({s, e});
      }
    });
  });
  static const std::vector<Span> none;
  auto it = identifiers_.find(name);
  return it == identifiers_.end() ? none : it->second;
}

std::string SourceIndex::indentOf(uint32_t line) const {
  size_t o = offset({line, 0});
  if (o == std::string::npos)
    return "";
  size_t e = o;
  while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t'))
    ++e;
  return text_.substr(o, e - o);
}

std::string SourceIndex::aliasOf(const std::string& module) const {
  {
    std::lock_guard lock(parentsMutex_);
    if (auto it = aliases_.find(module); it != aliases_.end())
      return it->second;
  }
  std::string alias = aliasUncached(module);
  std::lock_guard lock(parentsMutex_);
  aliases_.emplace(module, alias);
  return alias;
}

std::string SourceIndex::aliasUncached(const std::string& module) const {
  // A short name (`jnp`, `lax`) wins over the dotted path `import jax` gives.
  std::string dotted;
  for (TSNode s : topLevel()) {
    std::string_view t = typeOf(s);
    if (t == "import_statement") {
      // import jax.numpy as jnp / import jax.numpy / import jax
      for (TSNode n : syntax::childrenOf(s, true)) {
        if (typeOf(n) == "aliased_import") {
          if (textOf(fieldOf(n, "name")) == module)
            return std::string(textOf(fieldOf(n, "alias")));
        } else if (typeOf(n) == "dotted_name") {
          std::string name(textOf(n));
          // `import jax` makes `jax.numpy` reachable as written.
          if (name == module || module.starts_with(name + "."))
            dotted = module;
        }
      }
    } else if (t == "import_from_statement") {
      // from jax import numpy as jnp / from jax import lax
      std::string from(textOf(fieldOf(s, "module_name")));
      size_t dot = module.rfind('.');
      if (dot == std::string::npos || from != module.substr(0, dot))
        continue;
      std::string leaf = module.substr(dot + 1);
      for (TSNode n : syntax::fieldChildren(s, "name")) {
        if (typeOf(n) == "aliased_import") {
          if (textOf(fieldOf(n, "name")) == leaf)
            return std::string(textOf(fieldOf(n, "alias")));
        } else if (textOf(n) == leaf) {
          return leaf;
        }
      }
    }
  }
  return dotted;
}

SourcePos SourceIndex::importInsertionPoint() const {
  uint32_t line = 0;
  for (TSNode s : topLevel()) {
    std::string_view t = typeOf(s);
    if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement")
      line = ts_node_end_point(s).row + 1;
  }
  return {std::min<uint32_t>(line, static_cast<uint32_t>(lineStarts_.size() - 1)), 0};
}

} // namespace pallas::analysis::rewrite
