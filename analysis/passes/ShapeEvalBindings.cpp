// Where a name gets its value (ShapeEval.h): its qualified JAX/Python name,
// the names a def binds, the last assignment before a use, module-level defs.
#include "ShapeEvalInternal.h"

namespace pallas::analysis::shape {

namespace detail {

const std::set<std::string, std::less<>>& builtinNames() {
  static const std::set<std::string, std::less<>> names = {
      "min",        "max",   "len",  "int",       "abs", "sum",    "tuple", "list",
      "range",      "float", "bool", "round",     "pow", "divmod", "str",   "print",
      "isinstance", "dict",  "zip",  "enumerate", "map", "sorted",
  };
  return names;
}

std::vector<Param> paramsOf(TSNode def, const syntax::ParsedSource& doc) {
  std::vector<Param> out;
  TSNode params = field(def, "parameters");
  if (isNull(params))
    return out;
  for (TSNode p : namedChildren(params)) {
    Param q;
    q.node = p;
    if (is(p, "identifier")) {
      q.name = str(doc.textOf(p));
    } else if (is(p, "default_parameter") || is(p, "typed_default_parameter")) {
      q.name = str(doc.textOf(field(p, "name")));
      q.defaultValue = field(p, "value");
    } else if (is(p, "typed_parameter")) {
      for (TSNode c : namedChildren(p))
        if (is(c, "identifier")) {
          q.name = str(doc.textOf(c));
          break;
        }
    } else if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern")) {
      q.star = true;
      for (TSNode c : namedChildren(p))
        if (is(c, "identifier"))
          q.name = str(doc.textOf(c));
    } else {
      continue; // keyword separator, positional separator
    }
    out.push_back(q);
  }
  return out;
}

std::optional<size_t> indexInPattern(TSNode left, const std::string& name,
                                     const syntax::ParsedSource& doc) {
  size_t k = 0;
  for (TSNode c : namedChildren(left)) {
    if (is(c, "identifier") && doc.textOf(c) == name)
      return k;
    ++k;
  }
  return std::nullopt;
}

} // namespace detail

std::string Evaluator::qualifiedName(TSNode expr, const Scope& scope) const {
  expr = unparen(expr);
  auto f = index_.file(scope.path);
  if (!f || !f->globals)
    return {};
  std::string dotted = names::dottedName(expr, *f->doc);
  if (dotted.empty())
    return {};
  std::string first = dotted.substr(0, dotted.find('.'));
  // A local name (parameter or assignment of an enclosing def) shadows.
  for (const Scope* s = &scope; s; s = s->parent.get()) {
    if (s->bound.count(first))
      return {};
    if (!isNull(s->function) && localNames(s->path, s->function).count(first))
      return {};
  }
  const names::Binding* b = f->globals->find(first);
  if (!b) {
    if (builtinNames().count(first) && dotted == first)
      return "builtins." + first;
    return {};
  }
  auto r = names::resolveGlobalExpr(expr, *f->doc, *f->globals);
  if (!r || (r->kind != names::Binding::Kind::Module && r->kind != names::Binding::Kind::Symbol))
    return {};
  if (!r->file.empty())
    return {};
  return names::isJaxName(r->target) ? names::canonicalApi(r->target) : r->target;
}

// Parameters and names assigned in a def's body, once per def.
const std::set<std::string>& Evaluator::localNames(const std::string& path, TSNode def) const {
  const syntax::ParsedSource* doc = docOf(path);
  auto key = std::make_pair(static_cast<const void*>(doc), ts_node_start_byte(def));
  auto it = localNames_.find(key);
  if (it != localNames_.end())
    return it->second;
  std::set<std::string> names;
  if (doc) {
    for (const Param& p : paramsOf(def, *doc))
      names.insert(p.name);
    TSNode body = field(def, "body");
    if (is(body, "block")) {
      Assignments all;
      lastAssignment(body, std::string(), body, *doc, nullptr, &all);
      for (const auto& [n, b] : all)
        names.insert(n);
    }
  }
  return localNames_.emplace(key, std::move(names)).first->second;
}

// The last statement before `use` in `block` (and the blocks nested in it,
// not in nested defs or classes) that binds `name`: an assignment's right
// side (or a whole tuple assignment), or a def. `conditional` is set when it
// sits in an if/for/while/try that does not also hold `use`.
std::optional<TSNode> Evaluator::lastAssignment(TSNode block, const std::string& name, TSNode use,
                                                const syntax::ParsedSource& doc, bool* conditional,
                                                Assignments* all) const {
  // A whole module is scanned once: every name's last binding is kept.
  if (!all && ts_node_eq(block, use) && is(block, "module")) {
    auto it = moduleAssignments_.find(&doc);
    if (it == moduleAssignments_.end()) {
      it = moduleAssignments_.emplace(&doc, Assignments{}).first;
      lastAssignment(block, std::string(), block, doc, nullptr, &it->second);
    }
    auto b = it->second.find(name);
    if (b == it->second.end())
      return std::nullopt;
    if (conditional)
      *conditional = b->second.second;
    return b->second.first;
  }
  std::optional<TSNode> found;
  bool foundConditional = false;
  uint32_t limit = ts_node_start_byte(use);
  bool whole = ts_node_eq(block, use); // every statement counts
  std::function<void(TSNode, bool, int)> scan = [&](TSNode b, bool cond, int depth) {
    if (depth > 64)
      return;
    for (TSNode st : namedChildren(b)) {
      if (!whole && ts_node_start_byte(st) >= limit)
        break;
      std::string_view t = syntax::type(st);
      // `x = x + 1`: the use in the right side sees the binding before it.
      bool complete = whole || ts_node_end_byte(st) <= limit;
      if (t == "expression_statement" && complete) {
        for (TSNode e : namedChildren(st)) {
          if (!is(e, "assignment") && !is(e, "augmented_assignment"))
            continue;
          // Chained `a = b = 1`: the right side is itself an assignment.
          TSNode cur = e;
          while (is(cur, "assignment") || is(cur, "augmented_assignment")) {
            TSNode left = field(cur, "left");
            bool hit = false;
            if (is(left, "identifier")) {
              if (all)
                (*all)[str(doc.textOf(left))] = {cur, cond};
              hit = doc.textOf(left) == name;
            } else if (is(left, "pattern_list") || is(left, "tuple_pattern") ||
                       is(left, "list_pattern")) {
              for (TSNode c : namedChildren(left))
                if (is(c, "identifier")) {
                  if (all)
                    (*all)[str(doc.textOf(c))] = {cur, cond};
                  hit |= doc.textOf(c) == name;
                }
            }
            if (hit) {
              found = cur;
              foundConditional = cond;
            }
            TSNode right = field(cur, "right");
            if (!is(right, "assignment"))
              break;
            cur = right;
          }
        }
      } else if ((t == "function_definition" || t == "class_definition") && complete) {
        if (all)
          (*all)[str(doc.textOf(field(st, "name")))] = {st, cond};
        if (doc.textOf(field(st, "name")) == name) {
          found = st;
          foundConditional = cond;
        }
      } else if (t == "decorated_definition" && complete) {
        TSNode def = field(st, "definition");
        if (all && !isNull(def))
          (*all)[str(doc.textOf(field(def, "name")))] = {def, cond};
        if (!isNull(def) && doc.textOf(field(def, "name")) == name) {
          found = def;
          foundConditional = cond;
        }
      } else if (t == "if_statement" || t == "for_statement" || t == "while_statement" ||
                 t == "try_statement" || t == "with_statement" || t == "match_statement") {
        bool holdsUse = !whole && contains(st, use);
        bool nowCond = cond || (t != "with_statement" && !holdsUse);
        if (t == "for_statement") {
          TSNode left = field(st, "left");
          if (is(left, "identifier") && all)
            (*all)[str(doc.textOf(left))] = {left, true};
          if (is(left, "identifier") && doc.textOf(left) == name) {
            found = left;
            foundConditional = true;
          }
        }
        std::function<void(TSNode, int)> blocks = [&](TSNode n, int d) {
          if (d > 8)
            return;
          for (TSNode c : namedChildren(n)) {
            if (is(c, "block"))
              scan(c, nowCond, depth + 1);
            else if (is(c, "elif_clause") || is(c, "else_clause") || is(c, "except_clause") ||
                     is(c, "finally_clause") || is(c, "case_clause"))
              blocks(c, d + 1);
          }
        };
        blocks(st, 0);
      }
    }
  };
  scan(block, false, 0);
  if (found && conditional)
    *conditional = foundConditional;
  return found;
}

std::optional<TSNode> Evaluator::moduleDef(const std::string& path, const std::string& name) const {
  const syntax::ParsedSource* doc = docOf(path);
  if (!doc)
    return std::nullopt;
  bool conditional = false;
  TSNode root = doc->root();
  auto n = lastAssignment(root, name, root, *doc, &conditional);
  if (!n || conditional)
    return std::nullopt;
  return n;
}

} // namespace pallas::analysis::shape
