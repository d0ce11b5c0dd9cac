#include "ExpectedFailures.h"

#include <set>
#include <string>
#include <vector>

namespace pallas::analysis {

namespace {

using syntax::field;
using syntax::is;
using syntax::isNull;

// The classes whose `except` (and so assertRaises) catches `exception`.
std::set<std::string, std::less<>> catching(std::string_view exception) {
  std::set<std::string, std::less<>> names{std::string(exception), "Exception", "BaseException"};
  if (exception == "NotImplementedError")
    names.insert("RuntimeError");
  return names;
}

// The last part of a dotted name ("self.assertRaisesRegex" -> "assertRaisesRegex").
std::string_view lastPart(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

bool isRaisesCheck(std::string_view callee) {
  std::string_view name = lastPart(callee);
  return name == "assertRaises" || name == "assertRaisesRegex" || name == "assertRaisesRegexp" ||
         (name == "raises" && callee.find("pytest") != std::string_view::npos);
}

// Whether the first argument of `call` (a class or a tuple of classes)
// names one of `names`.
bool firstArgumentNames(const syntax::ParsedSource& doc, TSNode call,
                        const std::set<std::string, std::less<>>& names) {
  TSNode args = field(call, "arguments");
  if (isNull(args) || ts_node_named_child_count(args) == 0)
    return false;
  std::vector<TSNode> work{ts_node_named_child(args, 0)};
  while (!work.empty()) {
    TSNode n = work.back();
    work.pop_back();
    if (is(n, "identifier") || is(n, "attribute")) {
      if (names.count(lastPart(doc.textOf(n))))
        return true;
      continue;
    }
    for (TSNode c : syntax::namedChildren(n))
      work.push_back(c);
  }
  return false;
}

} // namespace

bool testExpectsFailure(const syntax::ParsedSource& doc, SourcePos at, std::string_view exception) {
  if (exception.empty())
    return false;
  // The outermost test function around the launch (the kernel is often a
  // def inside it): the first one met going down from the root towards the
  // launch, with a cursor (ts_node_parent re-walks from the root on each
  // call, which made many findings in a deep file quadratic).
  TSPoint p{at.line, at.column};
  TSNode test{};
  TSTreeCursor cursor = ts_tree_cursor_new(doc.root());
  do {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    if (is(n, "function_definition") && doc.textOf(field(n, "name")).substr(0, 4) == "test") {
      test = n;
      break;
    }
  } while (ts_tree_cursor_goto_first_child_for_point(&cursor, p) >= 0);
  ts_tree_cursor_delete(&cursor);
  if (isNull(test))
    return false;
  const auto names = catching(exception);
  std::vector<TSNode> work{field(test, "body")};
  while (!work.empty()) {
    TSNode c = work.back();
    work.pop_back();
    if (isNull(c))
      continue;
    if (is(c, "call") && isRaisesCheck(doc.textOf(field(c, "function"))) &&
        firstArgumentNames(doc, c, names))
      return true;
    for (TSNode child : syntax::namedChildren(c))
      work.push_back(child);
  }
  return false;
}

bool handledWhereItRuns(const syntax::ParsedSource& doc, SourcePos at, std::string_view exception) {
  if (exception.empty())
    return false;
  const auto names = catching(exception);
  // Down from the root towards the launch with a cursor: every `try` whose
  // body holds it, and whether one of its handlers catches the exception.
  TSPoint p{at.line, at.column};
  auto holds = [&](TSNode n) {
    TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
    auto before = [](TSPoint a, TSPoint b) {
      return a.row < b.row || (a.row == b.row && a.column <= b.column);
    };
    return before(s, p) && before(p, e);
  };
  bool handled = false;
  TSTreeCursor cursor = ts_tree_cursor_new(doc.root());
  do {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    if (!is(n, "try_statement") || !holds(field(n, "body")))
      continue;
    for (TSNode clause : syntax::namedChildren(n)) {
      if (!is(clause, "except_clause"))
        continue;
      // `except:` catches everything; else the classes it names (a tuple,
      // `as e` aside: an alias never names a class).
      bool named = false, catches = false;
      for (TSNode part : syntax::namedChildren(clause)) {
        if (is(part, "block") || is(part, "comment"))
          continue;
        named = true;
        std::vector<TSNode> work{part};
        while (!work.empty() && !catches) {
          TSNode c = work.back();
          work.pop_back();
          if (is(c, "identifier") || is(c, "attribute"))
            catches = names.count(lastPart(doc.textOf(c))) > 0;
          else
            for (TSNode child : syntax::namedChildren(c))
              work.push_back(child);
        }
      }
      if (!named || catches) {
        handled = true;
        break;
      }
    }
  } while (!handled && ts_tree_cursor_goto_first_child_for_point(&cursor, p) >= 0);
  ts_tree_cursor_delete(&cursor);
  return handled;
}

} // namespace pallas::analysis
