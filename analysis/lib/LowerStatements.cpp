// Lowering of statements: blocks (with the dead region after a statement
// that never completes), if/elif/else, with, for/while, try, assignments and
// their targets, local definitions and imports.
#include "Lowerer.h"
#include "NamesInstancesInternal.h"

namespace pallas::analysis::lower {

// ---- statements -------------------------------------------------------------

void Lowerer::lowerBlock(TSNode block) {
  if (isNull(block))
    return;
  facts_.emplace_back();
  std::vector<TSNode> stmts = syntax::namedChildren(block);
  for (size_t i = 0; i < stmts.size(); ++i) {
    lowerStatement(stmts[i]);
    if (i + 1 == stmts.size() || !neverCompletes(stmts[i]))
      continue;
    // The statements after one that never completes (raise, return,
    // self.skipTest(...), pytest.skip(...), sys.exit(...)) cannot run: they
    // are lowered (names, hover) into a region that is statically dead, so
    // the walk skips them and a launch there is not analysed.
    size_t j = i + 1;
    while (j < stmts.size() && is(stmts[j], "comment"))
      ++j;
    if (j == stmts.size())
      break;
    mlir::Value c = constant(stmts[j], pd::ConstantKind::Bool);
    auto op = pd::IfOp::create(b_, loc(stmts[j]), c, b_.getBoolAttr(false));
    mlir::Block* thenBlock = new mlir::Block();
    op.getThenRegion().push_back(thenBlock);
    op.getElseRegion().push_back(new mlir::Block());
    inRegion(thenBlock, [&] {
      for (size_t k = j; k < stmts.size(); ++k)
        lowerStatement(stmts[k]);
    });
    break;
  }
  facts_.pop_back();
}

pd::IfOp Lowerer::lowerIf(TSNode s, TSNode cond, TSNode consequence,
                          std::span<const TSNode> alternatives) {
  mlir::Value c = lowerExpr(cond);
  auto st = staticCondition(cond);
  if (is(cond, "identifier") && !findLocal(text(cond)))
    findGlobal(text(cond));
  std::map<std::string, bool> whenTrue, whenFalse;
  learnCondition(cond, true, whenTrue);
  learnCondition(cond, false, whenFalse);
  return lowerBranches(
      s, c, st, whenTrue, whenFalse, [&] { lowerBlock(consequence); },
      [&] {
        if (alternatives.empty())
          return;
        TSNode alt = alternatives.front();
        if (is(alt, "elif_clause")) {
          // The remaining clauses belong to that elif's else region; an elif
          // chain nests one pallas.if per clause, so it counts as nesting.
          unsigned saved = nesting_;
          if (++nesting_ >= kMaxNesting)
            tooDeep(alt);
          else
            lowerIf(alt, field(alt, "condition"), field(alt, "consequence"),
                    alternatives.subspan(1));
          nesting_ = saved;
        } else if (is(alt, "else_clause")) {
          lowerBlock(field(alt, "body"));
        }
      });
}

pd::IfOp Lowerer::lowerBranches(TSNode s, mlir::Value c, std::optional<bool> st,
                                const std::map<std::string, bool>& whenTrue,
                                const std::map<std::string, bool>& whenFalse,
                                llvm::function_ref<void()> thenBody,
                                llvm::function_ref<void()> elseBody) {
  auto op = pd::IfOp::create(b_, loc(s), c, st ? b_.getBoolAttr(*st) : mlir::BoolAttr());
  mlir::Block* thenBlock = new mlir::Block();
  op.getThenRegion().push_back(thenBlock);
  mlir::Block* elseBlock = new mlir::Block();
  op.getElseRegion().push_back(elseBlock);
  facts_.push_back(whenTrue);
  inRegion(thenBlock, thenBody);
  facts_.pop_back();
  facts_.push_back(whenFalse);
  struct PopFacts {
    std::vector<std::map<std::string, bool>>& f;
    ~PopFacts() { f.pop_back(); }
  } popFacts{facts_};
  // The then branch's assignments are joined after the if, where the else
  // branch cannot see them (they do not dominate it, and in Python the else
  // branch reads what the names were before the if): the else branch reads
  // the earlier bindings.
  auto& vars = scopes_.back().vars;
  std::unordered_map<std::string, std::optional<Var>> thenShadowed = lastRegionShadowed_;
  std::unordered_map<std::string, Var> thenJoins;
  for (const auto& [name, before] : thenShadowed) {
    auto it = vars.find(name);
    if (it == vars.end())
      continue;
    thenJoins.emplace(name, it->second);
    if (before)
      it->second = *before;
    else
      vars.erase(it);
  }
  inRegion(elseBlock, elseBody);
  std::unordered_map<std::string, std::optional<Var>> elseShadowed = lastRegionShadowed_;
  // The else branch may have opened scopes (nested defs): scopes_ may have
  // grown since `vars` was taken.
  auto& varsAfter = scopes_.back().vars;
  // After the if, each name a branch rebinds holds what the branch taken
  // left it with: that branch's when the condition is known, else one of
  // the two (alternatives).
  std::set<std::string> rebound;
  for (const auto& [name, join] : thenJoins)
    rebound.insert(name);
  for (const auto& [name, before] : elseShadowed)
    rebound.insert(name);
  for (const std::string& name : rebound) {
    auto beforeIt = thenShadowed.find(name);
    std::optional<Var> before =
        beforeIt != thenShadowed.end() ? beforeIt->second : elseShadowed.at(name);
    std::optional<Var> thenValue = before;
    if (auto j = thenJoins.find(name); j != thenJoins.end())
      thenValue = j->second;
    else if (thenShadowed.contains(name))
      thenValue.reset(); // the then branch deleted it
    std::optional<Var> elseValue = before;
    if (elseShadowed.contains(name)) {
      auto it = varsAfter.find(name);
      elseValue = it != varsAfter.end() ? std::optional<Var>(it->second) : std::nullopt;
    }
    std::optional<Var> after = joinBranches(s, st, thenValue, elseValue);
    if (after)
      varsAfter[name] = *after;
    else
      varsAfter.erase(name);
  }
  return op;
}

// What a name holds after an if whose branches left it `thenValue` and
// `elseValue` (nullopt: unbound there). A known condition picks its branch;
// otherwise a join that keeps the last branch's description (kernels,
// closures, factories follow it as before) and lists both values, and
// keeps a literal only when both branches bound the same one.
std::optional<Var> Lowerer::joinBranches(TSNode s, std::optional<bool> st,
                                         std::optional<Var> thenValue,
                                         std::optional<Var> elseValue) {
  if (st)
    return *st ? thenValue : elseValue;
  if (!thenValue || !elseValue)
    return thenValue ? thenValue : elseValue; // the other branch leaves it unbound
  if (thenValue->value == elseValue->value)
    return elseValue;
  ValInfo joined = info_.lookup(elseValue->value);
  joined.prov = prov(elseValue->value);
  joined.alternatives.clear();
  for (const Var* branch : {&*thenValue, &*elseValue}) {
    const ValInfo* bi = infoOf(branch->value);
    if (bi && !bi->alternatives.empty())
      joined.alternatives.append(bi->alternatives.begin(), bi->alternatives.end());
    else
      joined.alternatives.push_back(branch->value);
  }
  const ValInfo* thenInfo = infoOf(thenValue->value);
  TSNode thenConstant = thenInfo ? thenInfo->constant : TSNode{};
  if (isNull(thenConstant) || isNull(joined.constant) ||
      text(thenConstant) != text(joined.constant))
    joined.constant = TSNode{};
  mlir::Value v = pd::OpaqueOp::create(b_, loc(s), valueTy_, "join", mlir::ValueRange{},
                                       strArray({}), b_.getDenseI64ArrayAttr({}))
                      .getResult();
  info_[v] = std::move(joined);
  return Var{v, regionDepth_};
}

// match: the cases tried in order, each a pallas.if whose else region holds
// the cases after it, so a name the cases rebind is joined like an if's
// (the last case no longer wins over the one that matches).
void Lowerer::lowerMatch(TSNode s) {
  std::vector<TSNode> subjects;
  uint32_t count = ts_node_child_count(s);
  for (uint32_t i = 0; i < count; ++i)
    if (const char* f = ts_node_field_name_for_child(s, i); f && std::string_view(f) == "subject")
      subjects.push_back(ts_node_child(s, i));
  mlir::Value subjectValue;
  for (TSNode subject : subjects)
    subjectValue = lowerExpr(subject);
  if (!subjectValue)
    subjectValue = constant(s, pd::ConstantKind::Bool);
  std::vector<TSNode> cases;
  for (TSNode c : syntax::namedChildren(field(s, "body")))
    if (is(c, "case_clause"))
      cases.push_back(c);
  // `match a, b:` matches a tuple: its cases are not evaluated.
  lowerCases(s, subjects.size() == 1 ? subjects.front() : TSNode{}, subjectValue, cases);
}

void Lowerer::lowerCases(TSNode s, TSNode subject, mlir::Value subjectValue,
                         std::span<const TSNode> cases) {
  if (cases.empty())
    return;
  TSNode clause = cases.front();
  if (TSNode guard = field(clause, "guard"); !isNull(guard) && ts_node_named_child_count(guard))
    lowerExpr(ts_node_named_child(guard, 0));
  std::optional<bool> st = isNull(subject) ? std::nullopt : caseMatches(subject, clause);
  lowerBranches(
      clause, subjectValue, st, {}, {}, [&] { lowerBlock(field(clause, "consequence")); },
      [&] {
        unsigned saved = nesting_;
        if (cases.size() > 1 && ++nesting_ >= kMaxNesting)
          tooDeep(cases[1]);
        else
          lowerCases(s, subject, subjectValue, cases.subspan(1));
        nesting_ = saved;
      });
}

namespace {

// Python's == between two constants a match's literal pattern compares
// (True == 1; a str never equals an int).
std::optional<bool> constantsEqual(const names::PyConstant& a, const names::PyConstant& b) {
  using K = names::PyConstant::Kind;
  auto numeric = [](K k) { return k == K::Bool || k == K::Int; };
  if (numeric(a.kind) && numeric(b.kind))
    return a.i == b.i;
  if (a.kind != b.kind)
    return a.kind == K::Enum || b.kind == K::Enum ? std::nullopt : std::optional(false);
  if (a.kind == K::None)
    return true;
  return a.s == b.s;
}

} // namespace

// Whether a case clause matches the subject, when the source decides it:
// `_` and a bare capture name always match, a literal (or `|` of literals)
// against a constant subject; a guard must be known too.
std::optional<bool> Lowerer::caseMatches(TSNode subject, TSNode clause) {
  std::vector<TSNode> patterns;
  for (TSNode c : syntax::namedChildren(clause))
    if (is(c, "case_pattern"))
      patterns.push_back(c);
  if (patterns.size() != 1)
    return std::nullopt; // `case a, b:` is a sequence pattern
  names::LocalLookup locals = literalLocals();
  std::optional<names::PyConstant> subjectConstant;
  bool subjectRead = false;
  std::function<std::optional<bool>(TSNode)> matches = [&](TSNode p) -> std::optional<bool> {
    if (is(p, "case_pattern")) {
      if (text(p) == "_")
        return true;
      if (ts_node_named_child_count(p) != 1)
        return std::nullopt;
      p = ts_node_named_child(p, 0);
    }
    if (is(p, "dotted_name") && ts_node_named_child_count(p) == 1)
      return true; // a capture pattern binds the subject to the name
    if (is(p, "union_pattern")) {
      bool unknown = false;
      for (TSNode alt : syntax::namedChildren(p)) {
        std::optional<bool> m = matches(alt);
        if (m && *m)
          return true;
        unknown |= !m;
      }
      return unknown ? std::nullopt : std::optional(false);
    }
    std::string_view t = syntax::type(p);
    if (t != "string" && t != "concatenated_string" && t != "integer" && t != "true" &&
        t != "false" && t != "none")
      return std::nullopt;
    std::optional<names::PyConstant> literal = names::constantOf(p, doc_, nullptr, nullptr);
    if (!subjectRead) {
      subjectRead = true;
      subjectConstant = names::constantOf(subject, doc_, locals, nullptr);
    }
    if (!literal || !subjectConstant)
      return std::nullopt;
    return constantsEqual(*subjectConstant, *literal);
  };
  std::optional<bool> m = matches(patterns.front());
  TSNode guard = field(clause, "guard");
  if (!m || !*m || isNull(guard))
    return m;
  return ts_node_named_child_count(guard) ? staticCondition(ts_node_named_child(guard, 0))
                                          : std::nullopt;
}

void Lowerer::lowerWith(TSNode s) {
  std::string context;
  TSNode contextNode{};
  Args items;
  std::vector<std::pair<TSNode, mlir::Value>> targets;
  TSNode clause{};
  for (TSNode c : syntax::namedChildren(s))
    if (is(c, "with_clause"))
      clause = c;
  std::vector<TSNode> yielded; // per target: what its context manager yields
  for (TSNode item : syntax::namedChildren(clause)) {
    if (!is(item, "with_item"))
      continue;
    TSNode value = field(item, "value");
    TSNode target{};
    if (is(value, "as_pattern")) {
      TSNode alias = field(value, "alias");
      target = isNull(alias) ? TSNode{} : ts_node_named_child(alias, 0);
      value = ts_node_named_child(value, 0);
    }
    TSNode callee = is(value, "call") ? field(value, "function") : value;
    if (auto b = resolveBinding(callee);
        b && b->file.empty() &&
        names::canonicalApi(b->target) == apiName(Api::ForceGpuInterpretMode)) {
      context = "force_gpu_interpret_mode";
      contextNode = value;
    }
    mlir::Value v = lowerExpr(value);
    items.values.push_back(v);
    items.keywords.push_back("");
    if (!isNull(target))
      targets.emplace_back(target, v);
    yielded.push_back(isNull(target) ? TSNode{} : contextManagerYield(value));
  }
  for (size_t i = 0; i < targets.size(); ++i)
    bindTarget(targets[i].first, targets[i].second, yielded[i]);
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(items.values, origins, indices);
  auto op = pd::ScopeOp::create(b_, loc(s), valueTy_, "python.with", items.values,
                                strArray(items.keywords), origins, indices, strArray({}),
                                mlir::ArrayAttr(),
                                context.empty() ? mlir::StringAttr() : b_.getStringAttr(context));
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  if (!context.empty()) {
    TSPoint p = ts_node_start_point(contextNode);
    TSNode mode =
        is(contextNode, "call")
            ? callArguments(field(contextNode, "arguments")).positionalOrKeyword(0, "params")
            : TSNode{};
    contexts_.push_back(Context{context, p.row + 1, p.column + 1, mode});
  }
  size_t depth = contexts_.size();
  inRegion(block, [&] { lowerBlock(field(s, "body")); });
  // set_gpu_interpret_mode inside the block stays (it is global); only the
  // with's own context ends here.
  if (!context.empty() && contexts_.size() >= depth)
    contexts_.erase(contexts_.begin() + (depth - 1));
}

// The one top-level statement (a def, or a decorated def) defining the
// module-level function `callee` names: an identifier that is not a local,
// bound to a function of this file defined once. Null otherwise. (A
// rebinding of the name re-lowers the unit asking: findGlobal records it.)
TSNode Lowerer::moduleDefStatementOf(TSNode callee) {
  if (!is(callee, "identifier") || findLocal(text(callee)))
    return TSNode{};
  std::optional<names::Binding> b = findGlobal(text(callee));
  if (!b || b->kind != names::Binding::Kind::Function || !b->file.empty())
    return TSNode{};
  TSNode found{};
  unsigned defs = 0;
  for (TSNode st : syntax::namedChildren(doc_.root())) {
    TSNode d = is(st, "decorated_definition") ? field(st, "definition") : st;
    if (is(d, "function_definition") && text(field(d, "name")) == text(callee)) {
      found = st;
      ++defs;
    }
  }
  return defs == 1 ? found : TSNode{};
}

// `yield e` written as a statement: e (not for `yield from`, a bare
// `yield`, or a yield inside a larger expression). Null otherwise.
TSNode Lowerer::yieldedExpression(TSNode stmt) {
  if (!is(stmt, "expression_statement") || ts_node_named_child_count(stmt) != 1)
    return TSNode{};
  TSNode y = ts_node_named_child(stmt, 0);
  if (!is(y, "yield") || ts_node_named_child_count(y) != 1 || text(y).starts_with("yield from"))
    return TSNode{};
  return ts_node_named_child(y, 0);
}

// `with f(...) as x:` with f a module-level def of this file decorated
// `@contextlib.contextmanager` (any spelling ending in `contextmanager`)
// whose body yields once, as one of its own statements or of a `try:` among
// them: x is the yielded expression when that is a literal without names,
// or a name the generator binds once, before the yield, to such a literal
// and does not change before it (docs/analysis.md 8.49). Null otherwise.
TSNode Lowerer::contextManagerYield(TSNode value) {
  TSNode defStmt = moduleDefStatementOf(is(value, "call") ? field(value, "function") : TSNode{});
  if (!is(defStmt, "decorated_definition"))
    return TSNode{};
  std::vector<TSNode> decorators;
  for (TSNode n : syntax::namedChildren(defStmt))
    if (is(n, "decorator"))
      decorators.push_back(n);
  if (decorators.size() != 1 || !names::dottedName(ts_node_named_child(decorators.front(), 0), doc_)
                                     .ends_with("contextmanager"))
    return TSNode{};
  TSNode def = field(defStmt, "definition");
  auto nested = [](TSNode n) {
    return is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition");
  };
  unsigned yields = 0;
  syntax::forEachNode(field(def, "body"), [&](TSNode n) {
    if (nested(n))
      return syntax::Walk::SkipChildren;
    yields += is(n, "yield") && ts_node_is_named(n); // not the keyword
    return syntax::Walk::Descend;
  });
  if (yields != 1)
    return TSNode{};
  // The yield as a statement of the body, or of a top-level try's body.
  TSNode block = field(def, "body"), yieldStmt{};
  TSNode e{};
  for (TSNode st : syntax::namedChildren(block)) {
    TSNode inner = is(st, "try_statement") ? field(st, "body") : TSNode{};
    for (TSNode cand : isNull(inner) ? std::vector<TSNode>{st} : syntax::namedChildren(inner))
      if (TSNode y = yieldedExpression(cand); !isNull(y)) {
        yieldStmt = cand;
        e = y;
      }
  }
  if (isNull(yieldStmt))
    return TSNode{};
  if (is(e, "identifier")) {
    // Bound once in the generator, by a statement of its body before the
    // yield, and not used between that statement and the yield.
    std::string name = text(e);
    TSNode bound{};
    unsigned bindings = 0;
    syntax::forEachNode(field(def, "body"), [&](TSNode n) {
      if (nested(n))
        return syntax::Walk::SkipChildren;
      if (names::instances::bindsName(n, name, doc_))
        ++bindings;
      return syntax::Walk::Descend;
    });
    TSNode bindingStmt{};
    for (TSNode st : syntax::namedChildren(block)) {
      TSNode a = is(st, "expression_statement") && ts_node_named_child_count(st) == 1
                     ? ts_node_named_child(st, 0)
                     : TSNode{};
      if (is(a, "assignment") && is(field(a, "left"), "identifier") &&
          text(field(a, "left")) == name &&
          ts_node_start_byte(st) < ts_node_start_byte(yieldStmt)) {
        bound = field(a, "right");
        bindingStmt = st;
      }
    }
    // Any use between that statement and the yield may change it.
    bool used = !isNull(bindingStmt) &&
                syntax::anyNode(
                    field(def, "body"),
                    [&](TSNode n) {
                      return is(n, "identifier") && text(n) == name &&
                             ts_node_start_byte(n) >= ts_node_end_byte(bindingStmt) &&
                             ts_node_start_byte(n) < ts_node_start_byte(yieldStmt);
                    },
                    [](TSNode) { return false; });
    if (bindings != 1 || used || isNull(bound))
      return TSNode{};
    e = bound;
  }
  while (is(e, "parenthesized_expression"))
    e = ts_node_named_child(e, 0);
  bool literal = is(e, "dictionary") || is(e, "true") || is(e, "false") || is(e, "none") ||
                 is(e, "integer") || is(e, "string");
  bool names = syntax::anyNode(
      e, [](TSNode n) { return is(n, "identifier"); }, [](TSNode) { return false; });
  return literal && !names ? e : TSNode{};
}

// `p = p or E` (a parameter p rebound to itself or a fallback) where p's
// default is None, False, 0 or "": a caller that leaves p out gets E, and
// one that passes a truthy value (an options object) keeps it (8.51). E
// (reading module-level names and literals only); null otherwise.
TSNode Lowerer::falsyParameterFallback(TSNode target, TSNode valueNode) {
  TSNode vn = valueNode;
  while (is(vn, "parenthesized_expression"))
    vn = ts_node_named_child(vn, 0);
  if (!is(vn, "boolean_operator") || text(field(vn, "operator")) != "or")
    return TSNode{};
  TSNode left = field(vn, "left"), right = field(vn, "right");
  if (!is(left, "identifier") || text(left) != text(target) || readsLocalNames(right))
    return TSNode{};
  const Var* p = findLocal(text(target));
  ValInfo* vi = p && !readsLate(text(target)) ? infoOf(p->value) : nullptr;
  if (!vi || !vi->isParam || isNull(vi->paramDefault))
    return TSNode{};
  std::string d = text(vi->paramDefault);
  bool falsy = d == "None" || d == "False" || d == "0" || d == "\"\"" || d == "''";
  return falsy ? right : TSNode{};
}

void Lowerer::bindTarget(TSNode target, mlir::Value v, TSNode valueNode) {
  // Nested targets (`((a,),) = x`) recurse once per level.
  if (nesting_ >= kMaxNesting) {
    tooDeep(target);
    return;
  }
  ++nesting_;
  bindTargetImpl(target, v, valueNode);
  --nesting_;
}

void Lowerer::bindTargetImpl(TSNode target, mlir::Value v, TSNode valueNode) {
  std::string_view t = syntax::type(target);
  if (t == "identifier") {
    TSNode fallback = falsyParameterFallback(target, valueNode);
    setVar(text(target), v);
    if (!isNull(fallback))
      info_[v].orDefault = fallback;
    if (!isNull(valueNode)) {
      TSNode vn = valueNode;
      while (is(vn, "parenthesized_expression"))
        vn = ts_node_named_child(vn, 0);
      std::string_view vt = syntax::type(vn);
      bool literal = vt == "true" || vt == "false" || vt == "none" || vt == "integer" ||
                     vt == "call" || vt == "dictionary" || vt == "string";
      // An expression over module-level names and literals
      // (`{"debug": True}[MODE]`): folded where it is read (8.22), its names
      // looked up at module level, so none may be this function's.
      // A field of a module-level object (`interp = CFG.interpret`) too,
      // read as the launch would read it there (8.75).
      bool overModuleNames =
          (vt == "subscript" || vt == "conditional_expression" || vt == "boolean_operator" ||
           vt == "not_operator" || vt == "comparison_operator" ||
           (vt == "attribute" && is(field(vn, "object"), "identifier"))) &&
          !readsLocalNames(vn);
      if (literal || overModuleNames)
        info_[v].constant = vn;
      bool composite = vt == "subscript" || vt == "conditional_expression" ||
                       vt == "boolean_operator" || vt == "not_operator" ||
                       vt == "comparison_operator" || vt == "call";
      if (composite && !v.getDefiningOp<pd::GlobalOp>() && !llvm::isa<mlir::BlockArgument>(v))
        info_[v].expression = vn;
      else if (vt == "tuple" || vt == "list") // a loop over it sees these elements (8.26)
        info_[v].tupleLiteral = vn;           // (a list: unless its function removes one)
    }
    return;
  }
  if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" ||
      t == "expression_list" || t == "list") {
    std::vector<TSNode> targets;
    for (TSNode el : syntax::namedChildren(target))
      if (!is(el, "comment"))
        targets.push_back(el);
    // `block, interp = settings()`: each target takes its element of the
    // tuple the call returns (8.31), when the text fixes it.
    bool moduleScope = false;
    std::vector<TSNode> elements = isNull(valueNode)
                                       ? std::vector<TSNode>{}
                                       : unpackedElements(valueNode, targets.size(), &moduleScope);
    // `a, b = modes`, a parameter whose default is a tuple literal (8.76):
    // each target is that element of what the caller passes.
    std::string paramName;
    std::vector<TSNode> defaults = paramTupleDefault(valueNode, targets.size(), &paramName);
    for (size_t i = 0; i < targets.size(); ++i) {
      TSNode el = targets[i];
      TSNode element = i < elements.size() ? elements[i] : TSNode{};
      Args a;
      a.values.push_back(v);
      a.keywords.push_back("");
      mlir::Value part = opaque(el, "unpack", {v});
      // `body, interp = make()` where make returns a module-level function:
      // the target holds that function, as a kernel or helper to follow.
      if (moduleScope && is(el, "identifier") && is(element, "identifier") &&
          !findLocal(text(element)))
        if (auto b = findGlobal(text(element)); b && b->kind == Binding::Kind::Function) {
          bindTarget(el, lowerExpr(element), element);
          continue;
        }
      // Unpacking a tuple of refs / a run_state pytree keeps the origin.
      Prov p = prov(v);
      if (p.origin != pd::origin::kArg)
        info_[part].prov = p;
      if (is(el, "list_splat_pattern")) {
        el = ts_node_named_child(el, 0);
        element = TSNode{};
      }
      bindTarget(el, part, element);
      if (!defaults.empty() && is(el, "identifier")) {
        info_[part].paramElementOf = paramName;
        info_[part].paramElementIndex = static_cast<int>(i);
        info_[part].elementDefault = defaults[i];
      }
      // A module-level name the function returns (`return BLOCK, DEBUG`):
      // read at module level, as the function reads it.
      if (moduleScope && is(el, "identifier") && is(element, "identifier"))
        info_[part].constant = element;
    }
    return;
  }
  if (t == "subscript") {
    // x_ref[idx] = v  ->  ref.__setitem__(x_ref, idx..., v)
    TSNode base = field(target, "value");
    Args a;
    std::string api;
    if (is(base, "attribute") && text(field(base, "attribute")) == "at" && !resolveBinding(base)) {
      Args inner;
      inner.values.push_back(lowerExpr(field(base, "object")));
      inner.keywords.push_back("");
      a.values.push_back(prim(base, std::string(apiName(Api::RefAt)), inner));
    } else {
      a.values.push_back(lowerExpr(base));
    }
    a.keywords.push_back("");
    for (TSNode index : subscriptIndices(target)) {
      a.values.push_back(lowerExpr(index));
      a.keywords.push_back("");
    }
    a.values.push_back(v);
    a.keywords.push_back("");
    api = pd::origin::mayBeRef(prov(a.values[0]).origin) ? "ref.__setitem__" : "value.__setitem__";
    prim(target, api, a);
    return;
  }
  if (t == "attribute") {
    forgetFacts(text(target));
    mlir::Value obj = lowerExpr(field(target, "object"));
    mlir::Value store = opaque(target, "setattr", {obj, v});
    // Which attribute: a caller's `cfg.interpret = True` before it passes
    // cfg on decides the launch's path (CallContexts.cpp, 8.41).
    store.getDefiningOp()->setAttr("pallas.attribute",
                                   b_.getStringAttr(text(field(target, "attribute"))));
    return;
  }
  opaque(target, t, {v});
}

void Lowerer::lowerAssignment(TSNode a) {
  // `a = b = c = 1` nests to the right; lowered innermost first (as the
  // recursion did), but iteratively: 60,000 chained targets overflowed it.
  std::vector<TSNode> chain{a};
  while (is(field(chain.back(), "right"), "assignment"))
    chain.push_back(field(chain.back(), "right"));
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    lowerOneAssignment(*it);
}

void Lowerer::lowerOneAssignment(TSNode a) {
  TSNode left = field(a, "left");
  TSNode right = field(a, "right");
  if (is(right, "assignment"))
    right = field(right, "left"); // lowered just before
  if (isNull(right))
    return; // annotation only: `x: int`
  TSNode r = right;
  while (is(r, "parenthesized_expression"))
    r = ts_node_named_child(r, 0);
  // a, b = x, y  ->  element-wise, so each keeps its own origin.
  if ((is(left, "pattern_list") || is(left, "tuple_pattern")) &&
      (is(r, "expression_list") || is(r, "tuple")) &&
      ts_node_named_child_count(left) == ts_node_named_child_count(r)) {
    std::vector<TSNode> sources = syntax::namedChildren(r);
    std::vector<mlir::Value> values;
    values.reserve(sources.size());
    for (TSNode source : sources)
      values.push_back(lowerExpr(source));
    std::vector<TSNode> targets = syntax::namedChildren(left);
    for (size_t i = 0; i < targets.size() && i < sources.size(); ++i)
      bindTarget(targets[i], values[i], sources[i]);
    return;
  }
  // `m = importlib.import_module("pkg.mod")`: m names that module, as a
  // local `import pkg.mod as m` would (8.18).
  if (is(left, "identifier"))
    if (auto module = names::importModuleName(r, doc_, globals_)) {
      Binding b = *globals_.importedModule(*module);
      recordLookup("importlib:" + *module, b.fingerprint());
      mlir::Value v = global(r, text(left), b.target);
      info_[v].binding = b;
      setVar(text(left), v);
      return;
    }
  mlir::Value v = lowerExpr(right);
  bindTarget(left, v, right);
}

void Lowerer::lowerStatement(TSNode s) {
  std::string_view t = syntax::type(s);
  if (nesting_ >= kMaxNesting) {
    tooDeep(s);
    return;
  }
  ++nesting_;
  if (t == "expression_statement") {
    lowerExpressionStatement(s);
  } else if (t == "return_statement") {
    TSNode v = ts_node_named_child_count(s) ? ts_node_named_child(s, 0) : TSNode{};
    mlir::Value val = isNull(v) ? mlir::Value() : lowerExpr(v);
    pd::ReturnOp::create(b_, loc(s), val);
  } else if (t == "if_statement") {
    lowerIfStatement(s);
  } else if (t == "match_statement") {
    lowerMatch(s);
  } else if (t == "for_statement" || t == "while_statement") {
    lowerLoop(s, t == "for_statement");
  } else if (t == "with_statement") {
    lowerWith(s);
  } else if (t == "try_statement") {
    lowerTry(s);
  } else if (t == "function_definition") {
    setVar(text(field(s, "name")), closure(s));
  } else if (t == "decorated_definition") {
    TSNode def = field(s, "definition");
    if (is(def, "function_definition"))
      setVar(text(field(def, "name")), decorate(s, def));
    else if (!isNull(def))
      setVar(text(field(def, "name")), opaque(def, "class", {}));
  } else if (t == "class_definition") {
    setVar(text(field(s, "name")), opaque(s, "class", {}));
  } else if (t == "import_statement" || t == "import_from_statement") {
    lowerLocalImport(s, t == "import_from_statement");
  } else if (t == "pass_statement" || t == "break_statement" || t == "continue_statement" ||
             t == "comment" || t == "global_statement" || t == "nonlocal_statement") {
    // nothing to model
  } else if (t == "ERROR") {
    lowerSyntaxError(s);
  } else if (t == "block") {
    lowerBlock(s);
  } else {
    // raise, assert, delete, match, print, exec...: their expressions.
    llvm::SmallVector<mlir::Value> operands;
    for (TSNode ch : syntax::namedChildren(s)) {
      std::string_view ct = syntax::type(ch);
      if (ct == "block")
        lowerBlock(ch);
      else if (ct.ends_with("_statement") || ct == "case_clause" || ct == "ERROR")
        lowerStatement(ch);
      else if (ct != "comment")
        operands.push_back(lowerExpr(ch));
    }
    opaque(s, t, operands);
  }
  --nesting_;
}

// Assignments (plain, chained, augmented) and expressions evaluated for
// their effect.
void Lowerer::lowerExpressionStatement(TSNode s) {
  for (TSNode e : syntax::namedChildren(s)) {
    if (is(e, "assignment"))
      lowerAssignment(e);
    else if (is(e, "augmented_assignment")) {
      TSNode left = field(e, "left");
      mlir::Value cur = lowerExpr(left);
      mlir::Value rhs = lowerExpr(field(e, "right"));
      mlir::Value v = opaque(e, "augmented_assignment", {cur, rhs});
      bindTarget(left, v, TSNode{});
    } else
      lowerExpr(e);
  }
}

void Lowerer::lowerIfStatement(TSNode s) {
  // Alternatives follow the consequence block (the clauses read once:
  // indexed access to a node's children is not O(1)).
  std::vector<TSNode> alternatives;
  for (TSNode ch : syntax::namedChildren(s))
    if (is(ch, "elif_clause") || is(ch, "else_clause"))
      alternatives.push_back(ch);
  lowerIf(s, field(s, "condition"), field(s, "consequence"), alternatives);
  if (!facts_.empty())
    learnFromDeadBranch(s);
}

// A branch that never completes: after the statement, its condition has
// the other truth value (`if self.INTERPRET: self.skipTest(...)`).
void Lowerer::learnFromDeadBranch(TSNode s) {
  TSNode cond = field(s, "condition");
  bool thenDead = neverCompletesBlock(field(s, "consequence"));
  TSNode elseBody{};
  bool elif = false;
  for (TSNode alt : syntax::namedChildren(s)) {
    elif |= is(alt, "elif_clause");
    if (is(alt, "else_clause"))
      elseBody = field(alt, "body");
  }
  bool elseDead = !isNull(elseBody) && neverCompletesBlock(elseBody);
  if (!elif && thenDead && !elseDead)
    learnCondition(cond, false, facts_.back());
  else if (!elif && elseDead && !thenDead)
    learnCondition(cond, true, facts_.back());
}

// for / while: a python.for / python.while scope over the iterable or the
// condition; the else block runs in the same region.
void Lowerer::lowerLoop(TSNode s, bool isFor) {
  Args ops;
  TSNode head = isFor ? field(s, "right") : field(s, "condition");
  ops.values.push_back(lowerExpr(head));
  ops.keywords.push_back("");
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(ops.values, origins, indices);
  auto op = pd::ScopeOp::create(b_, loc(s), valueTy_, isFor ? "python.for" : "python.while",
                                ops.values, strArray(ops.keywords), origins, indices, strArray({}),
                                mlir::ArrayAttr(), mlir::StringAttr());
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  inRegion(block, [&] {
    if (isFor) {
      TSNode left = field(s, "left");
      mlir::Value iter = opaque(left, "iter", {ops.values[0]});
      bindTarget(left, iter, TSNode{});
      if (TSNode elements = everyElementOf(s); !isNull(elements)) {
        info_[iter].iterElements = elements;
        iter.getDefiningOp()->setAttr("pallas.every_element", b_.getUnitAttr());
      } else if (yieldsEveryElement(s)) {
        // Over a generator's yields (8.45): the walk reads them off the
        // generator's body (no literal for interpret= to read here).
        iter.getDefiningOp()->setAttr("pallas.every_element", b_.getUnitAttr());
      }
    }
    lowerBlock(field(s, "body"));
    TSNode alt = field(s, "alternative");
    if (!isNull(alt))
      lowerBlock(field(alt, "body"));
  });
}

// `for v in (a, b, c):` over a literal tuple / list (or a local or
// module-level name holding a literal tuple), the target one name, and a body that cannot cut
// an iteration short (no break / continue / return / raise / yield): every
// element is bound to v in turn, and every statement of the body runs with
// each (docs/analysis.md 8.26). The literal; null otherwise.
// A loop target every element is bound to whole: one name, or a flat
// pattern of names (`for name, fn in ...`, each the element's item).
bool Lowerer::plainLoopTarget(TSNode left) {
  if (is(left, "identifier"))
    return true;
  if (!is(left, "pattern_list") && !is(left, "tuple_pattern"))
    return false;
  unsigned names = 0;
  for (TSNode el : syntax::namedChildren(left)) {
    if (is(el, "comment"))
      continue;
    if (!is(el, "identifier"))
      return false;
    ++names;
  }
  return names > 0;
}

TSNode Lowerer::everyElementOf(TSNode s) {
  if (!plainLoopTarget(field(s, "left")) || !isNull(field(s, "alternative")))
    return TSNode{};
  TSNode right = field(s, "right");
  while (is(right, "parenthesized_expression"))
    right = ts_node_named_child(right, 0);
  if (const Var* v = is(right, "identifier") ? findLocal(text(right)) : nullptr) {
    // A local bound to a literal tuple (immutable: what it held stays).
    // Not a join after an `if` / loop that assigned it: either value.
    auto join = v->value.getDefiningOp<pd::OpaqueOp>();
    ValInfo* vi =
        readsLate(text(right)) || (join && join.getWhat() == "join") ? nullptr : infoOf(v->value);
    TSNode name = right;
    right = vi ? vi->tupleLiteral : TSNode{};
    if (is(right, "list") && mayRemoveFrom(scopeOrModule(s), text(name)))
      right = TSNode{};
  } else if (is(right, "identifier")) {
    findGlobal(text(right)); // record the lookup: a rebinding re-lowers this unit
    // A tuple, or a list nothing in the module may shrink or replace
    // items of (appends only add iterations; 8.62).
    TSNode name = right;
    auto mv = names::moduleValue(doc_, text(right));
    right = mv && mv->state == names::ModuleValue::State::Known &&
                    (is(mv->value, "tuple") ||
                     (is(mv->value, "list") && !mayRemoveFrom(doc_.root(), text(name))))
                ? mv->value
                : TSNode{};
    // Whether a function shrinks the list is read off every function of
    // the module: an edit to any of them lowers this unit again.
    if (is(right, "list"))
      deps_.instances = names::instancesFingerprint(doc_);
  }
  if (!is(right, "tuple") && !is(right, "list"))
    return TSNode{};
  for (TSNode el : syntax::namedChildren(right))
    if (is(el, "list_splat") || is(el, "parenthesized_list_splat"))
      return TSNode{};
  return loopBodyCuts(s) ? TSNode{} : right;
}

// Whether a loop's body may cut an iteration short (break / continue /
// return / raise / yield outside nested defs).
bool Lowerer::loopBodyCuts(TSNode s) {
  return syntax::anyNode(
      field(s, "body"),
      [](TSNode n) {
        return is(n, "break_statement") || is(n, "continue_statement") ||
               is(n, "return_statement") || is(n, "raise_statement") || is(n, "yield");
      },
      [](TSNode n) {
        return is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition");
      });
}

// `for v in gen():` with gen a module-level def of this file (not
// decorated, not rebound locally) whose statements are only `yield e`
// (a docstring, comments and plain defs aside): v is each e in turn, and, as for a
// literal (everyElementOf), every statement of a body that cannot cut an
// iteration short runs with each (docs/analysis.md 8.45).
bool Lowerer::yieldsEveryElement(TSNode s) {
  if (!plainLoopTarget(field(s, "left")) || !isNull(field(s, "alternative")))
    return false;
  TSNode right = field(s, "right");
  TSNode gen = moduleDefStatementOf(is(right, "call") ? field(right, "function") : TSNode{});
  if (!is(gen, "function_definition")) // not decorated
    return false;
  unsigned yields = 0, index = 0;
  for (TSNode st : syntax::namedChildren(field(gen, "body"))) {
    if (is(st, "comment"))
      continue;
    TSNode e = is(st, "expression_statement") && ts_node_named_child_count(st) == 1
                   ? ts_node_named_child(st, 0)
                   : TSNode{};
    bool docstring = index++ == 0 && is(e, "string");
    if (docstring)
      continue;
    // A plain def between the yields only binds the name a yield gives out
    // (`def plain(...): ...` then `yield "plain", plain`; 8.87).
    if (is(st, "function_definition"))
      continue;
    if (isNull(yieldedExpression(st)))
      return false;
    ++yields;
  }
  return yields > 0 && !loopBodyCuts(s);
}

// Whether an identifier in `expr` names a local or parameter of the
// functions being lowered.
bool Lowerer::readsLocalNames(TSNode expr) {
  return syntax::anyNode(
      expr, [&](TSNode n) { return is(n, "identifier") && findLocal(text(n)) != nullptr; },
      [](TSNode) { return false; });
}

// Whether the list held by the local `name` may lose or replace elements
// inside `scope` (its function, closures included): a removing or replacing
// method, an item or slice store, `del`, an in-place operator other than
// `+=`, or the name handed to a call (the callee may do any of these).
// Appending keeps every element the loop is claimed to see.
bool Lowerer::mayRemoveFrom(TSNode scope, const std::string& name) {
  auto isName = [&](TSNode n) { return is(n, "identifier") && text(n) == name; };
  return syntax::anyNode(
      scope,
      [&](TSNode n) {
        if (is(n, "attribute") && isName(field(n, "object"))) {
          std::string a = text(field(n, "attribute"));
          return a != "append" && a != "extend" && a != "insert" && a != "index" && a != "count" &&
                 a != "copy";
        }
        if (is(n, "subscript") && isName(field(n, "value"))) {
          TSNode p = ts_node_parent(n);
          return (is(p, "assignment") || is(p, "augmented_assignment")) &&
                 ts_node_eq(field(p, "left"), n);
        }
        if (is(n, "delete_statement"))
          return syntax::anyNode(n, isName, [](TSNode) { return false; });
        if (is(n, "augmented_assignment") && isName(field(n, "left")))
          return text(field(n, "operator")) != "+=";
        if (is(n, "argument_list"))
          for (TSNode a : syntax::namedChildren(n))
            if (isName(a) || (is(a, "keyword_argument") && isName(field(a, "value"))))
              return true;
        return false;
      },
      [](TSNode) { return false; });
}

// try: one python.try scope holding the body and every handler, else and
// finally block.
void Lowerer::lowerTry(TSNode s) {
  auto op = pd::ScopeOp::create(b_, loc(s), valueTy_, "python.try", mlir::ValueRange{},
                                strArray({}), strArray({}), b_.getDenseI64ArrayAttr({}),
                                strArray({}), mlir::ArrayAttr(), mlir::StringAttr());
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  inRegion(block, [&] {
    lowerBlock(field(s, "body"));
    for (TSNode clause : syntax::namedChildren(s)) {
      std::string_view ct = syntax::type(clause);
      if (ct == "except_clause" || ct == "except_group_clause") {
        for (TSNode ch : syntax::namedChildren(clause)) {
          if (is(ch, "block"))
            lowerBlock(ch);
        }
      } else if (ct == "else_clause" || ct == "finally_clause") {
        TSNode body = field(clause, "body");
        if (isNull(body))
          for (TSNode c : syntax::namedChildren(clause))
            if (is(c, "block"))
              body = c;
        lowerBlock(body);
      }
    }
  });
}

// A local import binds names like a module-level one would.
void Lowerer::lowerLocalImport(TSNode s, bool isFrom) {
  TSNode moduleNode = field(s, "module_name");
  for (TSNode ch : syntax::namedChildren(s)) {
    if (ts_node_eq(ch, moduleNode) || !(is(ch, "dotted_name") || is(ch, "aliased_import")))
      continue;
    std::string module = isFrom ? text(moduleNode) : "";
    std::string name, alias;
    if (is(ch, "aliased_import")) {
      name = text(field(ch, "name"));
      alias = text(field(ch, "alias"));
    } else {
      name = text(ch);
      alias = isFrom ? name : name.substr(0, name.find('.'));
      if (!isFrom)
        name = alias;
    }
    Binding b;
    b.kind = Binding::Kind::Symbol;
    b.target = module.empty() ? name : module + "." + name;
    mlir::Value v =
        global(ch, alias, names::isJaxName(b.target) ? names::canonicalApi(b.target) : b.target);
    info_[v].binding = b;
    setVar(alias, v);
  }
}

// Syntax error: keep what is inside visible, statements and expressions.
void Lowerer::lowerSyntaxError(TSNode s) {
  llvm::SmallVector<mlir::Value> operands;
  for (TSNode ch : syntax::namedChildren(s)) {
    std::string_view ct = syntax::type(ch);
    if (ct.ends_with("_statement") || ct == "function_definition" || ct == "decorated_definition" ||
        ct == "ERROR" || ct == "block")
      ct == "block" ? lowerBlock(ch) : lowerStatement(ch);
    else if (ct != "comment")
      operands.push_back(lowerExpr(ch));
  }
  opaque(s, "ERROR", operands);
}

} // namespace pallas::analysis::lower
