// `nonlocal` rebinding in execution order (docs/analysis.md 8.19): calling a
// closure whose body declares `nonlocal x` and assigns x rebinds the
// enclosing function's x at the call; a closure that escapes (read as a
// value: passed, stored, returned) may rebind it at any later time, so x
// becomes unknown there.
#include "Lowerer.h"

#include <cctype>

namespace pallas::analysis::lower {

namespace {

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Whether `word` occurs in `text` as a whole identifier.
bool mentions(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + word.size())) {
    bool before = at > 0 && isIdentChar(text[at - 1]);
    bool after = at + word.size() < text.size() && isIdentChar(text[at + word.size()]);
    if (!before && !after)
      return true;
  }
  return false;
}

bool isLiteral(TSNode n) {
  return is(n, "true") || is(n, "false") || is(n, "none") || is(n, "integer") || is(n, "float") ||
         is(n, "string");
}

} // namespace

// What calling the closure `def` does to the names it declares nonlocal:
// the value of its last assignment among the body's own statements, read
// where the call is when it is a literal or a name the closure does not bind
// itself; unknown (null) when the name is assigned or mentioned in any other
// statement of the body (a condition, a loop, a nested def), or the value is
// anything else. Statements after a top-level `return` / `raise` do not run.
std::vector<NonlocalRebind> Lowerer::nonlocalRebinds(TSNode def) {
  std::vector<NonlocalRebind> out;
  TSNode body = field(def, "body");
  if (!is(def, "function_definition") || isNull(body))
    return out;
  std::vector<TSNode> stmts = syntax::namedChildren(body);
  for (TSNode s : stmts)
    if (is(s, "nonlocal_statement"))
      for (TSNode n : syntax::namedChildren(s))
        if (is(n, "identifier"))
          out.push_back({text(n), TSNode{}, true});
  if (out.empty())
    return out;
  std::string params = text(field(def, "parameters"));
  std::string bodyText = text(body);
  for (NonlocalRebind& r : out) {
    for (TSNode s : stmts) {
      if (is(s, "nonlocal_statement") || is(s, "comment"))
        continue;
      if (is(s, "return_statement") || is(s, "raise_statement")) {
        if (mentions(text(s), r.name))
          r.known = false;
        break;
      }
      TSNode a = is(s, "expression_statement") && ts_node_named_child_count(s) == 1
                     ? ts_node_named_child(s, 0)
                     : TSNode{};
      TSNode left = is(a, "assignment") ? field(a, "left") : TSNode{};
      TSNode right = is(a, "assignment") ? field(a, "right") : TSNode{};
      if (is(left, "identifier") && text(left) == r.name && !isNull(right) &&
          !is(right, "assignment")) {
        while (is(right, "parenthesized_expression"))
          right = ts_node_named_child(right, 0);
        r.value = right;
        continue;
      }
      if (mentions(text(s), r.name))
        r.known = false;
    }
    if (!r.known || isNull(r.value))
      continue;
    // A name as the value: read at the call when the closure does not bind
    // it itself (a parameter, or a name it mentions anywhere else).
    if (is(r.value, "identifier")) {
      std::string v = text(r.value);
      size_t uses = 0;
      for (size_t at = bodyText.find(v); at != std::string::npos; at = bodyText.find(v, at + 1))
        ++uses;
      if (mentions(params, v) || uses != 1)
        r.known = false;
    } else if (!isLiteral(r.value)) {
      r.known = false;
    }
  }
  return out;
}

// The closure value `fn` was called (`called`) or read as a value: rebind
// the enclosing function's names it declares nonlocal.
void Lowerer::applyNonlocal(mlir::Value fn, bool called) {
  ValInfo* vi = infoOf(fn);
  if (!vi || isNull(vi->closureDef))
    return;
  TSNode def = vi->closureDef;
  for (const NonlocalRebind& r : nonlocalRebinds(def)) {
    if (!findLocal(r.name))
      continue; // not a variable of a function being lowered
    if (called && isNull(r.value))
      continue; // the call does not assign it
    mlir::Value v = called && r.known ? lowerExpr(r.value) : opaque(def, "nonlocal", {});
    setVar(r.name, v);
  }
}

} // namespace pallas::analysis::lower
