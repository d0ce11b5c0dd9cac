#include "Scopes.h"

#include "pallas/py/Dialect.h"

namespace pallas::py {

using namespace syntax;

void ScopeInfo::bind(std::string_view name) {
  if (name.empty())
    return;
  if (bound.insert(std::string(name)).second)
    locals.emplace_back(name);
}

namespace {
std::pair<uint32_t, uint32_t> keyOf(TSNode n) {
  return {ts_node_start_byte(n), ts_node_end_byte(n)};
}
bool isComprehension(TSNode n) {
  auto t = type(n);
  return t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
         t == "generator_expression";
}
} // namespace

// Walks the syntax of one scope, recording what it binds and opening the
// scopes nested in it. Depth is bounded: past the lowering's own limit the
// syntax is not lowered either.
struct ScopeTable::Collector {
  ScopeTable& table;
  unsigned depth = 0;
  static constexpr unsigned kMaxDepth = 400;

  std::string_view name(TSNode n) const {
    return table.text_.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }

  // The scope a walrus binds in: the nearest enclosing one that is not a
  // comprehension.
  static ScopeInfo* walrusScope(ScopeInfo* s) {
    while (s->kind == ScopeInfo::Kind::Comprehension && s->parent)
      s = s->parent;
    return s;
  }

  void targets(TSNode n, ScopeInfo* s) {
    if (isNull(n) || depth > kMaxDepth) // [[[[...a]]]] = 1 nests as deep as the file
      return;
    ++depth;
    targetsInner(n, s);
    --depth;
  }

  void targetsInner(TSNode n, ScopeInfo* s) {
    auto t = type(n);
    if (t == "identifier") {
      s->bind(name(n));
    } else if (t == "tuple_pattern" || t == "list_pattern" || t == "pattern_list" || t == "tuple" ||
               t == "list" || t == "parenthesized_expression" || t == "expression_list" ||
               t == "list_splat_pattern" || t == "list_splat") {
      for (TSNode k : kids(n))
        targets(k, s);
    } else {
      walk(n, s); // attribute / subscript targets read their parts
    }
  }

  void parameters(TSNode params, ScopeInfo* outer, ScopeInfo* inner) {
    for (TSNode p : kids(params)) {
      auto t = type(p);
      TSNode nameNode{};
      if (t == "identifier") {
        nameNode = p;
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        nameNode = field(p, "name");
        walk(field(p, "value"), outer);
      } else if (t == "typed_parameter") {
        for (TSNode k : kids(p))
          if (!is(k, "type")) {
            nameNode = is(k, "identifier") ? k : TSNode{};
            if (isNull(nameNode))
              for (TSNode kk : kids(k))
                if (is(kk, "identifier"))
                  nameNode = kk;
            break;
          }
      } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
        for (TSNode k : kids(p))
          if (is(k, "identifier"))
            nameNode = k;
      }
      if (!isNull(nameNode) && is(nameNode, "identifier"))
        inner->bind(name(nameNode));
    }
  }

  void patternCaptures(TSNode n, ScopeInfo* s) {
    if (isNull(n))
      return;
    auto t = type(n);
    if (t == "dotted_name") {
      std::vector<TSNode> parts = kids(n);
      if (parts.size() == 1 && name(parts[0]) != "_")
        s->bind(name(parts[0]));
      return;
    }
    if (t == "identifier") { // `*rest`, `**rest`, `as name`
      if (name(n) != "_")
        s->bind(name(n));
      return;
    }
    if (t == "class_pattern") {
      bool first = true;
      for (TSNode k : kids(n)) {
        if (first && is(k, "dotted_name")) {
          first = false;
          continue;
        }
        first = false;
        patternCaptures(k, s);
      }
      return;
    }
    if (t == "keyword_pattern") {
      std::vector<TSNode> parts = kids(n);
      for (size_t i = 1; i < parts.size(); ++i)
        patternCaptures(parts[i], s);
      return;
    }
    if (t == "dict_pattern") {
      for (TSNode v : fieldAll(n, "value"))
        patternCaptures(v, s);
      for (TSNode k : kids(n))
        if (is(k, "splat_pattern"))
          patternCaptures(k, s);
      return;
    }
    if (t == "as_pattern") {
      for (TSNode k : kids(n))
        patternCaptures(k, s);
      return;
    }
    for (TSNode k : kids(n))
      patternCaptures(k, s);
  }

  void comprehension(TSNode n, ScopeInfo* s) {
    std::vector<TSNode> clauses;
    for (TSNode k : kids(n))
      clauses.push_back(k);
    // The first iterable is evaluated in the enclosing scope.
    bool first = true;
    ScopeInfo* inner = table.open(n, ScopeInfo::Kind::Comprehension, s);
    for (TSNode k : clauses) {
      if (is(k, "for_in_clause")) {
        walk(field(k, "right"), first ? s : inner);
        first = false;
        targets(field(k, "left"), inner);
      }
    }
    for (TSNode k : clauses)
      if (!is(k, "for_in_clause"))
        walk(k, inner);
  }

  void walk(TSNode n, ScopeInfo* s) {
    if (isNull(n) || depth > kMaxDepth)
      return;
    ++depth;
    visit(n, s);
    --depth;
  }

  void visit(TSNode n, ScopeInfo* s) {
    auto t = type(n);
    if (t == "function_definition") {
      s->bind(name(field(n, "name")));
      ScopeInfo* inner = table.open(n, ScopeInfo::Kind::Function, s);
      parameters(field(n, "parameters"), s, inner);
      walk(field(n, "body"), inner);
    } else if (t == "lambda") {
      ScopeInfo* inner = table.open(n, ScopeInfo::Kind::Function, s);
      parameters(field(n, "parameters"), s, inner);
      walk(field(n, "body"), inner);
    } else if (t == "class_definition") {
      s->bind(name(field(n, "name")));
      walk(field(n, "superclasses"), s);
      ScopeInfo* inner = table.open(n, ScopeInfo::Kind::Class, s);
      walk(field(n, "body"), inner);
    } else if (isComprehension(n)) {
      comprehension(n, s);
    } else if (t == "assignment" || t == "augmented_assignment") {
      targets(field(n, "left"), s);
      walk(field(n, "right"), s);
    } else if (t == "for_statement") {
      targets(field(n, "left"), s);
      walk(field(n, "right"), s);
      walk(field(n, "body"), s);
      for (TSNode a : fieldAll(n, "alternative"))
        walk(a, s);
    } else if (t == "as_pattern" && is(ts_node_parent(n), "with_item")) {
      std::vector<TSNode> parts = kids(n);
      if (!parts.empty())
        walk(parts[0], s);
      for (TSNode k : parts)
        if (is(k, "as_pattern_target"))
          for (TSNode tk : kids(k))
            targets(tk, s);
    } else if (t == "except_clause" || t == "except_group_clause") {
      TSNode alias = field(n, "alias");
      for (TSNode k : kids(n)) {
        if (!isNull(alias) && ts_node_eq(k, alias))
          targets(k, s);
        else if (is(k, "as_pattern")) {
          std::vector<TSNode> parts = kids(k);
          if (!parts.empty())
            walk(parts[0], s);
          for (TSNode p : parts)
            if (is(p, "as_pattern_target"))
              for (TSNode tk : kids(p))
                targets(tk, s);
        } else
          walk(k, s);
      }
    } else if (t == "import_statement") {
      for (TSNode nm : fieldAll(n, "name")) {
        if (is(nm, "aliased_import")) {
          s->bind(name(field(nm, "alias")));
        } else {
          std::vector<TSNode> parts = kids(nm);
          if (!parts.empty())
            s->bind(name(parts[0]));
        }
      }
    } else if (t == "import_from_statement") {
      for (TSNode nm : fieldAll(n, "name")) {
        if (is(nm, "aliased_import")) {
          s->bind(name(field(nm, "alias")));
        } else {
          std::vector<TSNode> parts = kids(nm);
          if (!parts.empty())
            s->bind(name(parts.back()));
        }
      }
    } else if (t == "global_statement") {
      for (TSNode k : kids(n))
        if (is(k, "identifier"))
          s->globals.insert(std::string(name(k)));
    } else if (t == "nonlocal_statement") {
      for (TSNode k : kids(n))
        if (is(k, "identifier"))
          s->nonlocals.insert(std::string(name(k)));
    } else if (t == "delete_statement") {
      for (TSNode k : kids(n))
        targets(k, s);
    } else if (t == "named_expression") {
      walrusScope(s)->bind(name(field(n, "name")));
      walk(field(n, "value"), s);
    } else if (t == "case_clause") {
      for (TSNode k : kids(n)) {
        if (is(k, "case_pattern"))
          patternCaptures(k, s);
        else
          walk(k, s);
      }
    } else {
      for (TSNode k : kids(n))
        walk(k, s);
    }
  }
};

ScopeInfo* ScopeTable::open(TSNode node, ScopeInfo::Kind kind, ScopeInfo* parent) {
  scopes_.push_back(std::make_unique<ScopeInfo>());
  ScopeInfo* s = scopes_.back().get();
  s->kind = kind;
  s->parent = parent;
  byNode_[keyOf(node)] = s;
  return s;
}

ScopeTable::ScopeTable(TSNode root, std::string_view text) : text_(text) {
  scopes_.push_back(std::make_unique<ScopeInfo>());
  Collector c{*this};
  if (is(root, "module")) {
    for (TSNode k : kids(root))
      c.walk(k, module());
  } else {
    c.walk(root, module());
  }
}

ScopeInfo* ScopeTable::scopeOf(TSNode node) const {
  auto it = byNode_.find(keyOf(node));
  return it == byNode_.end() ? nullptr : it->second;
}

Scope ScopeTable::resolve(const ScopeInfo* s, std::string_view name) const {
  using K = ScopeInfo::Kind;
  if (!s || s->kind == K::Module)
    return Scope::global;
  if (s->globals.count(name))
    return Scope::global;
  if (s->nonlocals.count(name))
    return Scope::free;
  if (s->bound.count(name))
    return s->kind == K::Class ? Scope::name : Scope::local;
  // A free variable: bound by an enclosing function (class bodies are not
  // enclosing scopes for the functions in them).
  for (const ScopeInfo* up = s->parent; up && up->kind != K::Module; up = up->parent) {
    if (up->kind == K::Class)
      continue;
    if (up->globals.count(name))
      break;
    if (up->bound.count(name) || up->nonlocals.count(name))
      return Scope::free;
  }
  return s->kind == K::Class ? Scope::name : Scope::global;
}

} // namespace pallas::py
