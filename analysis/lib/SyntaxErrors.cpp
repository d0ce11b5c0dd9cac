// PLS011: the syntax errors of a document, read off its tree-sitter tree.
// See SyntaxErrors.h; the rule's page is docs/codes/PLS011.md.
#include "SyntaxErrors.h"

#include "pallas/analysis/Rules.h"

#include <algorithm>

namespace pallas::analysis {
namespace {

SourcePos posOf(TSPoint p) {
  return {p.row, p.column};
}

// The text of `node` on its first line, cut for a message.
std::string firstLineOf(TSNode node, std::string_view text) {
  uint32_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
  if (begin >= text.size() || end <= begin)
    return {};
  std::string_view s = text.substr(begin, std::min<size_t>(end, text.size()) - begin);
  s = s.substr(0, s.find('\n'));
  // A comment at the end of the line is not what failed to parse.
  if (size_t hash = s.find("  #"); hash != std::string_view::npos)
    s = s.substr(0, hash);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  std::string out(s.substr(0, 40));
  if (s.size() > 40)
    out += "...";
  return out;
}

// What every message ends with: what Python does with the file and what
// pallas-lsp does with the rest of it.
constexpr const char* kConsequence =
    " Python raises SyntaxError when it imports this file. pallas-lsp analyses the rest as the "
    "parser recovers it; findings in the broken statement are missing until it is fixed.";

Finding finding(SourceRange range, const std::string& path, std::string what) {
  Finding f;
  f.code = ruleCode(RuleId::SyntaxError);
  f.severity = rule(RuleId::SyntaxError).defaultSeverity;
  f.location = {path, range};
  f.message = std::move(what) + "." + kConsequence;
  return f;
}

Finding missingToken(TSNode node, const std::string& path) {
  // tree-sitter inserted a token the text lacks: a zero-width node at the
  // place it was expected (its type is the token: ")", "]", ":", ...).
  std::string token = ts_node_type(node);
  std::string what = ts_node_is_named(node) ? "invalid syntax: expected " + token
                                            : "invalid syntax: expected `" + token + "`";
  SourcePos at = posOf(ts_node_start_point(node));
  return finding({at, at}, path, std::move(what));
}

Finding errorNode(TSNode node, std::string_view text, const std::string& path) {
  // The squiggle covers the broken text on its first line only: an unclosed
  // bracket's ERROR can run to the end of the file.
  SourcePos start = posOf(ts_node_start_point(node)), end = posOf(ts_node_end_point(node));
  if (end.line != start.line) {
    size_t lineEnd = text.find('\n', ts_node_start_byte(node));
    uint32_t length = static_cast<uint32_t>(
        (lineEnd == std::string_view::npos ? text.size() : lineEnd) - ts_node_start_byte(node));
    end = {start.line, start.column + length};
  }
  std::string snippet = firstLineOf(node, text);
  std::string what = snippet.empty() ? std::string("invalid syntax")
                                     : "invalid syntax: Python cannot parse `" + snippet + "`";
  return finding({start, end}, path, std::move(what));
}

} // namespace

std::vector<Finding> syntaxErrorFindings(TSNode root, std::string_view text,
                                         const std::string& path) {
  std::vector<Finding> out;
  if (ts_node_is_null(root) || !ts_node_has_error(root))
    return out;
  // Pre-order with a cursor (no recursion: nesting is as deep as the user's
  // brackets), entering only subtrees that hold an error.
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  while (out.size() < kMaxSyntaxErrors) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    bool enter = false;
    if (ts_node_is_missing(node))
      out.push_back(missingToken(node, path));
    else if (std::string_view(ts_node_type(node)) == "ERROR")
      out.push_back(errorNode(node, text, path)); // its insides are one error
    else
      enter = ts_node_has_error(node);
    if (enter && ts_tree_cursor_goto_first_child(&cursor))
      continue;
    // The next sibling, else the next sibling of the nearest parent that
    // has one; done at the root.
    bool moved = ts_tree_cursor_goto_next_sibling(&cursor);
    while (!moved && ts_tree_cursor_goto_parent(&cursor))
      moved = ts_tree_cursor_goto_next_sibling(&cursor);
    if (!moved)
      break;
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

bool reportsSyntaxErrors(std::string_view text) {
  return text.find("jax") != std::string_view::npos;
}

} // namespace pallas::analysis
