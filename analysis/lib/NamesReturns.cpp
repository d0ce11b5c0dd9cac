// What a call of a module-level function of the document evaluates to, for
// the static evaluators (docs/analysis.md 8.31): `def settings(): return
// 128, True` makes `settings()` the tuple `128, True`, as Python runs it.
// Only when the text fixes it: a plain `def` (no decorator, not async, no
// yield) bound once at module level, ending in a `return`, whose every
// `return` spells the same value, and that value reads no name the function
// binds (so its names are the module's wherever the call is). Anything
// else (returns that differ, a value built from a parameter) is not known.
#include "NamesInternal.h"

namespace pallas::analysis::names {

namespace {

bool nestedScope(TSNode n) {
  return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
}

// The one plain module-level def named `name`; null when the module binds
// the name otherwise too (a second def, a decorator, an assignment).
TSNode moduleFunction(const syntax::ParsedSource& doc, const std::string& name) {
  TSNode found{};
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode d = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    if (!is(d, "function_definition") && !is(d, "class_definition"))
      continue;
    if (str(doc.textOf(field(d, "name"))) != name)
      continue;
    if (!isNull(found) || !ts_node_eq(d, stmt) || !is(d, "function_definition"))
      return TSNode{};
    found = d;
  }
  if (isNull(found) || moduleValue(doc, name))
    return TSNode{};
  // `async def`: a call returns a coroutine.
  if (startsWith(doc.textOf(found), "async"))
    return TSNode{};
  return found;
}

// Forms whose names live in a scope of their own (their targets would be
// read as module names): not followed.
bool hasOwnScope(TSNode value) {
  return syntax::anyNode(
      value,
      [](TSNode n) {
        return is(n, "lambda") || is(n, "list_comprehension") || is(n, "set_comprehension") ||
               is(n, "dictionary_comprehension") || is(n, "generator_expression") ||
               is(n, "named_expression");
      },
      [](TSNode) { return false; });
}

thread_local uint64_t followed = 0;

} // namespace

uint64_t returnsFollowed() {
  return followed;
}

std::optional<TSNode> returnedValue(TSNode call, const syntax::ParsedSource& doc,
                                    bool readsLocals) {
  while (is(call, "parenthesized_expression"))
    call = ts_node_named_child(call, 0);
  if (!is(call, "call") || !is(field(call, "function"), "identifier"))
    return std::nullopt;
  TSNode def = moduleFunction(doc, str(doc.textOf(field(call, "function"))));
  if (isNull(def))
    return std::nullopt;
  TSNode body = field(def, "body");
  std::vector<TSNode> statements;
  for (TSNode s : syntax::namedChildren(body))
    if (!is(s, "comment"))
      statements.push_back(s);
  // Falling off the end returns None: the last statement must return.
  if (statements.empty() || !is(statements.back(), "return_statement"))
    return std::nullopt;
  std::vector<TSNode> values;
  bool plain = true;
  syntax::forEachNode(body, [&](TSNode n) {
    if (nestedScope(n))
      return syntax::Walk::SkipChildren;
    if (is(n, "yield") || is(n, "await")) {
      plain = false;
      return syntax::Walk::Stop;
    }
    if (is(n, "return_statement")) {
      if (ts_node_named_child_count(n) == 0) {
        plain = false; // a bare `return`: None on that path
        return syntax::Walk::Stop;
      }
      values.push_back(ts_node_named_child(n, 0));
    }
    return syntax::Walk::Descend;
  });
  if (!plain || values.empty())
    return std::nullopt;
  // Every return must agree: one value whatever path the call takes.
  for (TSNode v : values)
    if (doc.textOf(v) != doc.textOf(values.back()))
      return std::nullopt;
  TSNode value = values.back();
  if (hasOwnScope(value))
    return std::nullopt;
  bool readsLocal = syntax::anyNode(
      value,
      [&](TSNode n) { return is(n, "identifier") && boundInDef(def, str(doc.textOf(n)), doc); },
      [](TSNode) { return false; });
  if (readsLocal && !readsLocals)
    return std::nullopt;
  ++followed;
  return value;
}

} // namespace pallas::analysis::names
