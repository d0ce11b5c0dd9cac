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

namespace {

// Where a function body (re)binds its names, by start byte: assignment and
// loop targets, defs and classes, imports of its own code; and a closure of
// it that declares `nonlocal x` rebinds x where the body mentions the
// closure after its def (a call, or an escape), or anywhere when a nested
// def mentions it (it runs when that def runs). Iterative (user files nest
// deeply); each node is visited once.
std::unordered_map<std::string, uint32_t> lastBindings(TSNode def,
                                                       const syntax::ParsedSource& doc) {
  std::unordered_map<std::string, uint32_t> last;
  std::unordered_map<std::string, std::vector<std::string>> rebinders; // closure -> names
  std::unordered_map<std::string, uint32_t> mentioned;                 // closure name -> last use
  auto bind = [&](const std::string& name, uint32_t at) {
    uint32_t& l = last[name];
    l = std::max(l, at);
  };
  struct Item {
    TSNode node;
    bool nested; // inside a def nested in the body
    bool target; // an assignment target (identifiers there are bound)
  };
  std::vector<Item> stack{{field(def, "body"), false, false}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    TSNode n = it.node;
    if (isNull(n))
      continue;
    std::string_view t = syntax::type(n);
    uint32_t at = ts_node_start_byte(n);
    if (t == "identifier") {
      std::string name(doc.textOf(n));
      if (it.target && !it.nested)
        bind(name, at);
      uint32_t& m = mentioned[name];
      m = std::max(m, it.nested ? UINT32_MAX : at);
      continue;
    }
    if (t == "function_definition" || t == "class_definition" || t == "lambda") {
      if (!it.nested && t != "lambda")
        bind(std::string(doc.textOf(field(n, "name"))), at);
      if (t == "function_definition" && !it.nested)
        for (TSNode st : syntax::namedChildren(field(n, "body")))
          if (is(st, "nonlocal_statement"))
            for (TSNode x : syntax::namedChildren(st))
              if (is(x, "identifier"))
                rebinders[std::string(doc.textOf(field(n, "name")))].emplace_back(doc.textOf(x));
      for (TSNode c : syntax::namedChildren(n))
        if (!ts_node_eq(c, field(n, "name")))
          stack.push_back({c, true, false});
      continue;
    }
    if (t == "assignment" || t == "augmented_assignment" || t == "for_statement" ||
        t == "for_in_clause") {
      TSNode left = field(n, "left");
      for (TSNode c : syntax::namedChildren(n))
        stack.push_back({c, it.nested, ts_node_eq(c, left)});
      continue;
    }
    if (t == "as_pattern_target" || t == "aliased_import" || t == "dotted_name") {
      bool bound = t != "dotted_name" || it.target;
      for (TSNode c : syntax::namedChildren(n))
        stack.push_back({c, it.nested, bound || it.target});
      continue;
    }
    if (t == "import_statement" || t == "import_from_statement") {
      for (TSNode c : syntax::namedChildren(n))
        stack.push_back({c, it.nested, true});
      continue;
    }
    for (TSNode c : syntax::namedChildren(n))
      stack.push_back(
          {c, it.nested,
           it.target && (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" ||
                         t == "list_splat_pattern" || t == "parenthesized_expression")});
  }
  for (auto& [closure, names] : rebinders) {
    auto m = mentioned.find(closure);
    if (m == mentioned.end())
      continue;
    for (const std::string& x : names)
      bind(x, m->second);
  }
  return last;
}

} // namespace

// Late binding: a closure reads its free names when it runs (a kernel when
// its launch traces it), so a name of an enclosing function that the
// function rebinds after the closure's def (by an assignment, or by calling
// a closure that rebinds it nonlocal) may hold either value there: unknown.
bool Lowerer::readsLate(const std::string& name) {
  for (size_t i = scopes_.size(); i-- > 0;) {
    if (!scopes_[i].vars.count(name))
      continue;
    if (i + 1 == scopes_.size())
      return false; // the reading function's own name
    TSNode closureDef = scopes_[i + 1].def;
    if (isNull(closureDef) || isNull(scopes_[i].def))
      return false;
    if (!scopes_[i].lastBound)
      scopes_[i].lastBound = lastBindings(scopes_[i].def, doc_);
    auto it = scopes_[i].lastBound->find(name);
    return it != scopes_[i].lastBound->end() && it->second > ts_node_start_byte(closureDef);
  }
  return false;
}

// Python resolves a free name of a nested def when the def runs: a name an
// enclosing def binds only after the nested def is written (a helper defined
// below the kernel that calls it) holds that later value, and shadows any
// global of the same name. The read becomes `pallas.global NAME = "late"`;
// the enclosing body ends with `pallas.opaque "late_binding"(value)
// {pallas.name = NAME}` once its statements are lowered (emitLateBindings),
// which the kernel walk follows (KernelWalk::follow). A def bound there
// gives the read its arity (closureDef).
std::optional<mlir::Value> Lowerer::lateEnclosingRead(TSNode n, const std::string& name) {
  if (scopes_.size() < 2)
    return std::nullopt;
  for (size_t i = scopes_.size() - 1; i-- > 0;) {
    FnScope& scope = scopes_[i];
    if (isNull(scope.def))
      continue;
    if (!scope.lastBound)
      scope.lastBound = lastBindings(scope.def, doc_);
    auto it = scope.lastBound->find(name);
    if (it == scope.lastBound->end())
      continue;
    if (std::find(scope.lateReads.begin(), scope.lateReads.end(), name) == scope.lateReads.end())
      scope.lateReads.push_back(name);
    mlir::Value v = global(n, name, "late");
    TSNode at =
        ts_node_descendant_for_byte_range(ts_tree_root_node(doc_.tree()), it->second, it->second);
    while (!isNull(at) && ts_node_start_byte(at) == it->second && !is(at, "function_definition"))
      at = ts_node_parent(at);
    if (is(at, "function_definition") && ts_node_start_byte(at) == it->second)
      info_[v].closureDef = at;
    return v;
  }
  return std::nullopt;
}

bool Lowerer::boundByEnclosingDef(const std::string& name) {
  for (FnScope& scope : scopes_) {
    if (isNull(scope.def))
      continue;
    if (!scope.lastBound)
      scope.lastBound = lastBindings(scope.def, doc_);
    if (scope.lastBound->count(name))
      return true;
  }
  return false;
}

void Lowerer::emitLateBindings(TSNode at) {
  FnScope& scope = scopes_.back();
  for (const std::string& name : scope.lateReads) {
    auto it = scope.vars.find(name);
    if (it == scope.vars.end())
      continue;
    mlir::Value v = opaque(at, "late_binding", {it->second.value});
    v.getDefiningOp()->setAttr("pallas.name", b_.getStringAttr(name));
  }
}

} // namespace pallas::analysis::lower
