// The evaluator's view of the syntax tree (ShapeEval.h): paths down to a
// node, the scope of a node, the call at a position, a call's arguments.
#include "ShapeEvalInternal.h"

#include <algorithm>

namespace pallas::analysis::shape {

// ---- Evaluator: structure -------------------------------------------------------

const syntax::ParsedSource* Evaluator::docOf(const std::string& path) const {
  auto f = index_.file(path);
  return f ? f->doc : nullptr;
}

std::vector<TSNode> Evaluator::pathTo(TSNode root, TSNode target) {
  std::vector<TSNode> out{root};
  uint32_t s = ts_node_start_byte(target), e = ts_node_end_byte(target);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (unsigned guard = 0; guard < 100000 && !ts_node_eq(out.back(), target); ++guard) {
    if (ts_tree_cursor_goto_first_child_for_byte(&cursor, s) < 0)
      break;
    bool found = false;
    do {
      TSNode n = ts_tree_cursor_current_node(&cursor);
      if (ts_node_start_byte(n) > s)
        break;
      if (ts_node_end_byte(n) >= e) {
        found = true;
        break;
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
    if (!found)
      break;
    out.push_back(ts_tree_cursor_current_node(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<TSNode> Evaluator::pathToPoint(TSNode root, TSPoint point) {
  std::vector<TSNode> out{root};
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  auto before = [](TSPoint a, TSPoint b) {
    return a.row < b.row || (a.row == b.row && a.column < b.column);
  };
  for (unsigned guard = 0; guard < 100000; ++guard) {
    if (ts_tree_cursor_goto_first_child_for_point(&cursor, point) < 0)
      break;
    // The child may end exactly at the point (`(` before an argument that
    // starts there): the node that contains it is a later sibling.
    TSNode n = ts_tree_cursor_current_node(&cursor);
    while (!before(point, ts_node_end_point(n)) && ts_tree_cursor_goto_next_sibling(&cursor))
      n = ts_tree_cursor_current_node(&cursor);
    if (before(point, ts_node_start_point(n)) || !before(point, ts_node_end_point(n)))
      break;
    out.push_back(n);
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

const std::vector<TSNode>& Evaluator::topLevel(const syntax::ParsedSource* doc) const {
  auto it = topLevel_.find(doc);
  if (it == topLevel_.end())
    it = topLevel_.emplace(doc, namedChildren(doc->root())).first;
  return it->second;
}

std::vector<TSNode> Evaluator::path(const syntax::ParsedSource* doc, TSNode target) const {
  const std::vector<TSNode>& top = topLevel(doc);
  uint32_t s = ts_node_start_byte(target), e = ts_node_end_byte(target);
  auto it = std::upper_bound(top.begin(), top.end(), s,
                             [](uint32_t b, TSNode n) { return b < ts_node_start_byte(n); });
  if (it != top.begin() && ts_node_end_byte(*(it - 1)) >= e) {
    std::vector<TSNode> out{doc->root()};
    std::vector<TSNode> rest = pathTo(*(it - 1), target);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  return pathTo(doc->root(), target);
}

std::vector<TSNode> Evaluator::pathAt(const syntax::ParsedSource* doc, TSPoint point) const {
  const std::vector<TSNode>& top = topLevel(doc);
  auto before = [](TSPoint a, TSPoint b) {
    return a.row < b.row || (a.row == b.row && a.column < b.column);
  };
  auto it = std::upper_bound(top.begin(), top.end(), point, [&](TSPoint p, TSNode n) {
    return before(p, ts_node_start_point(n));
  });
  if (it != top.begin() && before(point, ts_node_end_point(*(it - 1)))) {
    std::vector<TSNode> out{doc->root()};
    std::vector<TSNode> rest = pathToPoint(*(it - 1), point);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  return pathToPoint(doc->root(), point);
}

Scope Evaluator::scopeAt(const std::string& path, TSNode node) const {
  Scope s;
  s.path = path;
  const syntax::ParsedSource* doc = docOf(path);
  if (!doc)
    return s;
  std::vector<TSNode> chain = this->path(doc, node);
  for (size_t k = chain.size(); k-- > 0;)
    if (!ts_node_eq(chain[k], node) && isDef(chain[k])) {
      s.function = chain[k];
      break;
    }
  return s;
}

std::optional<TSNode> Evaluator::callAt(const std::string& path, uint32_t row,
                                        uint32_t column) const {
  const syntax::ParsedSource* doc = docOf(path);
  if (!doc)
    return std::nullopt;
  TSPoint p{row, column};
  // The innermost call that starts there (`pl.pallas_call(...)` rather than
  // `pl.pallas_call(...)(x)`).
  std::vector<TSNode> chain = pathAt(doc, p);
  for (size_t k = chain.size(); k-- > 0;) {
    TSPoint s = ts_node_start_point(chain[k]);
    if (is(chain[k], "call") && s.row == row && s.column == column)
      return chain[k];
  }
  return std::nullopt;
}

Evaluator::Args Evaluator::argsOf(TSNode call, const syntax::ParsedSource& doc) {
  Args a;
  TSNode args = field(call, "arguments");
  if (isNull(args))
    return a;
  if (is(args, "generator_expression")) {
    a.splat = true;
    return a;
  }
  for (TSNode c : namedChildren(args)) {
    if (is(c, "comment"))
      continue;
    if (is(c, "keyword_argument")) {
      TSNode name = field(c, "name");
      TSNode value = field(c, "value");
      if (!isNull(name) && !isNull(value))
        a.keywords[str(doc.textOf(name))] = value;
      continue;
    }
    if (is(c, "list_splat") || is(c, "dictionary_splat")) {
      a.splat = true;
      continue;
    }
    a.positional.push_back(c);
  }
  return a;
}

TSNode Evaluator::Args::get(size_t index, const std::string& keyword) const {
  auto it = keywords.find(keyword);
  if (it != keywords.end())
    return it->second;
  if (index < positional.size())
    return positional[index];
  return TSNode{};
}

} // namespace pallas::analysis::shape
