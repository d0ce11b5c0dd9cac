// Path facts (docs/analysis.md, "Paths that cannot execute"): which
// statements never complete, what a condition being true or false tells about
// the names in it, and the static value of an if's condition.
#include "Lowerer.h"
#include "NamesInternal.h"

namespace pallas::analysis::lower {

namespace {

// Calls that never return normally: the test frameworks' skips and
// failures and the process exits.
bool isNoReturnCall(llvm::StringRef callee) {
  return callee == "self.skipTest" || callee == "self.fail" || callee == "pytest.skip" ||
         callee == "pytest.fail" || callee == "pytest.xfail" || callee == "pytest.exit" ||
         callee == "sys.exit" || callee == "os._exit" || callee == "exit" || callee == "quit";
}

} // namespace

bool Lowerer::neverCompletes(TSNode s) {
  std::string_view t = syntax::type(s);
  if (t == "raise_statement" || t == "return_statement" || t == "continue_statement" ||
      t == "break_statement")
    return true;
  if (t == "expression_statement" && ts_node_named_child_count(s) == 1) {
    TSNode e = ts_node_named_child(s, 0);
    return is(e, "call") && isNoReturnCall(names::dottedName(field(e, "function"), doc_)) &&
           !findLocal(names::dottedName(field(e, "function"), doc_));
  }
  if (t == "if_statement") {
    // Every branch (an else included) never completes.
    if (!neverCompletesBlock(field(s, "consequence")))
      return false;
    bool hasElse = false;
    for (TSNode alt : syntax::namedChildren(s)) {
      if (is(alt, "elif_clause") && !neverCompletesBlock(field(alt, "consequence")))
        return false;
      if (is(alt, "else_clause")) {
        hasElse = true;
        if (!neverCompletesBlock(field(alt, "body")))
          return false;
      }
    }
    return hasElse;
  }
  if (t == "block")
    return neverCompletesBlock(s);
  return false;
}

bool Lowerer::neverCompletesBlock(TSNode block) {
  if (isNull(block))
    return false;
  for (TSNode s : syntax::namedChildren(block))
    if (neverCompletes(s))
      return true;
  return false;
}

// What `cond` being `truth` tells about the names in it: `not`, `and` (all
// true), `or` (all false); a plain name or attribute chain is recorded.
// A worklist, not recursion: `not not ... x` and `a and b and ...` nest one
// level per operator.
void Lowerer::learnCondition(TSNode cond, bool truth, std::map<std::string, bool>& into) {
  std::vector<std::pair<TSNode, bool>> work{{cond, truth}};
  while (!work.empty()) {
    auto [c, t] = work.back();
    work.pop_back();
    while (is(c, "parenthesized_expression"))
      c = ts_node_named_child(c, 0);
    if (is(c, "not_operator")) {
      work.emplace_back(field(c, "argument"), !t);
      continue;
    }
    if (is(c, "boolean_operator")) {
      std::string_view op = doc_.textOf(field(c, "operator"));
      if ((op == "and" && t) || (op == "or" && !t)) {
        work.emplace_back(field(c, "right"), t);
        work.emplace_back(field(c, "left"), t);
      }
      continue;
    }
    std::string name = names::dottedName(c, doc_);
    if (!name.empty())
      into[name] = t;
  }
}

std::optional<bool> Lowerer::knownFact(TSNode expr) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  std::string name = names::dottedName(expr, doc_);
  if (name.empty())
    return std::nullopt;
  for (auto it = facts_.rbegin(); it != facts_.rend(); ++it)
    if (auto f = it->find(name); f != it->end())
      return f->second;
  return std::nullopt;
}

// An assignment to `name` (or to an attribute of it) ends what was known.
void Lowerer::forgetFacts(const std::string& name) {
  for (auto& frame : facts_)
    for (auto it = frame.begin(); it != frame.end();)
      it = (it->first == name || llvm::StringRef(it->first).starts_with(name + "."))
               ? frame.erase(it)
               : std::next(it);
}

std::optional<bool> Lowerer::staticCondition(TSNode cond) {
  // `not` flips what is underneath; a loop, since the nots may be many.
  bool negated = false;
  auto result = [&](std::optional<bool> v) {
    return v ? std::optional<bool>(*v != negated) : std::nullopt;
  };
  for (;;) {
    while (is(cond, "parenthesized_expression"))
      cond = ts_node_named_child(cond, 0);
    if (auto f = knownFact(cond))
      return result(f);
    if (!is(cond, "not_operator"))
      break;
    negated = !negated;
    cond = field(cond, "argument");
  }
  if (is(cond, "true"))
    return result(true);
  if (is(cond, "false") || is(cond, "none"))
    return result(false);
  if (is(cond, "integer"))
    return result(doc_.textOf(cond) != "0");
  // typing.TYPE_CHECKING is False when the program runs.
  if (is(cond, "identifier") || is(cond, "attribute"))
    if (auto b = resolveBinding(cond);
        b && b->kind == Binding::Kind::Symbol && b->target == "typing.TYPE_CHECKING")
      return result(false);
  if (is(cond, "identifier") && !findLocal(text(cond))) {
    auto b = globals_.find(text(cond));
    if (b && b->kind == Binding::Kind::Constant) {
      const std::string& t = b->target;
      if (t == "True")
        return result(true);
      if (t == "False" || t == "None" || t == "0")
        return result(false);
    }
  }
  // What Python computes from literals, module constants and local
  // literals (`MODE == "debug"`, `BLOCK > 64 and FAST`); parameters and
  // names whose value a branch chose are not known.
  if (auto c = names::constantOf(cond, doc_, literalLocals(), nullptr))
    return result(c->truthy());
  // `if self.fence:` in a method: what every object the document builds
  // holds there, as `interpret=self.interpret` is read (8.25, 8.43). JAX
  // reads interpret= by Python's truthiness of those same values (False,
  // None, 0 compile; True or a params object interpret), so a flag every
  // object holds falsy reads "compiled", and one every object holds truthy
  // reads an interpreter (8.92).
  if (is(cond, "attribute"))
    if (auto e = names::instanceAttributeInterpret(cond, doc_, globals_); e && !e->paths.empty()) {
      auto count = [&](llvm::StringRef p) { return llvm::count(e->paths, p); };
      if (count("unknown") == 0 && count("compiled") == static_cast<long>(e->paths.size()))
        return result(false);
      if (count("unknown") == 0 && count("compiled") == 0)
        return result(true);
    }
  return std::nullopt;
}

names::LocalLookup Lowerer::literalLocals() {
  return [this](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    const Var* v = findLocal(name);
    if (!v)
      return std::nullopt;
    const ValInfo* vi = infoOf(v->value);
    if (readsLate(name) || !vi || vi->isParam || isNull(vi->constant))
      return std::make_pair(TSNode{}, std::string("unknown"));
    return std::make_pair(vi->constant, std::string("local"));
  };
}

} // namespace pallas::analysis::lower
