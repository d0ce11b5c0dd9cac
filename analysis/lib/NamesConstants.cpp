// The Python constants an `interpret=` expression is built from, folded as
// Python evaluates them (docs/analysis.md 8.18): `not ON_GPU`,
// `mode == "debug"`, `CONFIG["interpret"]`, `a if DEBUG else b`,
// `USE_INTERPRET or False`. Only what the text determines: a name counts
// when it is a local bound once to a constant or a module-level value the
// module's execution order fixes (moduleValue); a parameter never does here
// (its value comes from each call site, CallContexts), so an expression over
// one stays unknown: a "may", never "absent". The call contexts fold it
// again with the caller's constants bound (8.30: LocalLookup kind
// kBoundConstant).
#include "NamesInternal.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace pallas::analysis::names {

namespace {

std::optional<PyConstant> literal(TSNode n, const syntax::ParsedSource& doc) {
  std::string_view t = syntax::type(n);
  PyConstant c;
  if (t == "true" || t == "false") {
    c.kind = PyConstant::Kind::Bool;
    c.i = t == "true";
    return c;
  }
  if (t == "none")
    return c;
  if (t == "integer") {
    std::string digits;
    for (char ch : doc.textOf(n))
      if (ch != '_')
        digits.push_back(ch);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size())
      return std::nullopt; // 0x.., 1e3 as an int literal is not one: unknown
    c.kind = PyConstant::Kind::Int;
    c.i = v;
    return c;
  }
  if (t == "string") {
    // A plain string: no prefix (f, b, r...), no interpolation, one piece.
    std::string_view text = doc.textOf(n);
    if (text.empty() || (text.front() != '"' && text.front() != '\''))
      return std::nullopt;
    c.kind = PyConstant::Kind::Str;
    for (TSNode part : syntax::namedChildren(n)) {
      std::string_view pt = syntax::type(part);
      if (pt == "string_content")
        c.s += doc.textOf(part);
      else if (pt != "string_start" && pt != "string_end")
        return std::nullopt; // interpolation, escape sequences: not folded
    }
    return c;
  }
  return std::nullopt;
}

std::optional<bool> compare(std::string_view op, const PyConstant& a, const PyConstant& b) {
  using K = PyConstant::Kind;
  auto numeric = [](const PyConstant& c) { return c.kind == K::Int || c.kind == K::Bool; };
  if (a.kind == K::Enum || b.kind == K::Enum) {
    // A plain Enum's members are singletons compared by identity (`==` is
    // object equality): equal only to themselves; never ordered.
    bool same = a.kind == b.kind && a.s == b.s;
    if (op == "is" || op == "==")
      return same;
    if (op == "is not" || op == "!=")
      return !same;
    return std::nullopt;
  }
  if (op == "is" || op == "is not") {
    // Identity is only certain for the singletons.
    if (a.kind == K::None || b.kind == K::None || (a.kind == K::Bool && b.kind == K::Bool)) {
      bool same = a.kind == b.kind && (a.kind == K::None || a.i == b.i);
      return op == "is" ? same : !same;
    }
    return std::nullopt;
  }
  int order = 0;
  if (numeric(a) && numeric(b))
    order = a.i < b.i ? -1 : a.i > b.i;
  else if (a.kind == K::Str && b.kind == K::Str)
    order = a.s < b.s ? -1 : a.s > b.s;
  else if (op == "==" || op == "!=") {
    // Different kinds (None against a str) are unequal; never ordered.
    bool equal = a.kind == K::None && b.kind == K::None;
    return op == "==" ? equal : !equal;
  } else
    return std::nullopt;
  if (op == "==")
    return order == 0;
  if (op == "!=")
    return order != 0;
  if (op == "<")
    return order < 0;
  if (op == "<=")
    return order <= 0;
  if (op == ">")
    return order > 0;
  if (op == ">=")
    return order >= 0;
  return std::nullopt;
}

PyConstant boolean(bool v) {
  PyConstant c;
  c.kind = PyConstant::Kind::Bool;
  c.i = v;
  return c;
}

bool isAutoCall(TSNode n, const syntax::ParsedSource& doc) {
  if (!is(n, "call") || ts_node_named_child_count(field(n, "arguments")) != 0)
    return false;
  std::string_view f = doc.textOf(field(n, "function"));
  return f == "auto" || f == "enum.auto";
}

// The class_definition of the module-level `class name(Enum)` of the
// document: a plain Enum (one base spelled `Enum` or `enum.Enum`, no
// metaclass), bound by that statement alone (no other module-level binding
// of the name), defining no `__eq__` / `__bool__` / `__len__` / `__new__`
// (which would change how its members compare or test). Null otherwise.
TSNode plainEnumClass(const syntax::ParsedSource& doc, const std::string& name) {
  if (moduleValue(doc, name))
    return TSNode{}; // assigned or imported at module level too
  TSNode found{};
  int definitions = 0;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode d = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    if ((is(d, "class_definition") || is(d, "function_definition")) &&
        doc.textOf(field(d, "name")) == name) {
      ++definitions;
      found = is(d, "class_definition") ? d : TSNode{};
    }
  }
  if (definitions != 1 || isNull(found))
    return TSNode{};
  std::vector<TSNode> bases;
  for (TSNode b : syntax::namedChildren(field(found, "superclasses")))
    if (!is(b, "comment"))
      bases.push_back(b);
  if (bases.size() != 1 || (doc.textOf(bases[0]) != "Enum" && doc.textOf(bases[0]) != "enum.Enum"))
    return TSNode{};
  for (TSNode stmt : syntax::namedChildren(field(found, "body"))) {
    TSNode d = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    std::string_view n = is(d, "function_definition") ? doc.textOf(field(d, "name")) : "";
    if (n == "__eq__" || n == "__bool__" || n == "__len__" || n == "__new__")
      return TSNode{};
  }
  return found;
}

// `C.NAME` for a member of a plain Enum class of the document (8.53): the
// member, named by the first member with an equal value (Python makes a
// later one an alias of it). Members are the body's top-level `NAME = v`
// with v a literal or `auto()`; any other member value, or `auto()` next to
// integer literals (which it may equal), leaves it unknown.
std::optional<PyConstant> enumMember(TSNode attr, const syntax::ParsedSource& doc) {
  TSNode object = field(attr, "object");
  if (!is(object, "identifier"))
    return std::nullopt;
  std::string cls = str(doc.textOf(object));
  TSNode def = plainEnumClass(doc, cls);
  if (isNull(def))
    return std::nullopt;
  std::string member = str(doc.textOf(field(attr, "attribute")));
  struct Member {
    std::string name;
    std::optional<PyConstant> value; // nullopt: auto()
  };
  std::vector<Member> members;
  bool autos = false, ints = false;
  for (TSNode stmt : syntax::namedChildren(field(def, "body"))) {
    TSNode a = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                   ? ts_node_named_child(stmt, 0)
                   : TSNode{};
    if (!is(a, "assignment") || !is(field(a, "left"), "identifier"))
      continue;
    std::string name = str(doc.textOf(field(a, "left")));
    if (name.starts_with("_"))
      continue; // _ignore_, _order_ and private names are not members
    TSNode v = field(a, "right");
    if (isAutoCall(v, doc)) {
      autos = true;
      members.push_back({name, std::nullopt});
      continue;
    }
    auto c = literal(v, doc);
    if (!c)
      return std::nullopt; // a value the text does not fix: it may alias any
    ints |= c->kind == PyConstant::Kind::Int || c->kind == PyConstant::Kind::Bool;
    members.push_back({name, c});
  }
  if (autos && ints)
    return std::nullopt;
  auto it = std::find_if(members.begin(), members.end(),
                         [&](const Member& m) { return m.name == member; });
  if (it == members.end())
    return std::nullopt;
  std::string canonical = it->name;
  if (it->value)
    for (const Member& m : members)
      if (m.value && compare("==", *m.value, *it->value).value_or(false)) {
        canonical = m.name;
        break;
      }
  PyConstant c;
  c.kind = PyConstant::Kind::Enum;
  c.s = cls + "." + canonical;
  return c;
}

bool isIdentifierText(std::string_view t) {
  if (t.empty() || std::isdigit(static_cast<unsigned char>(t.front())))
    return false;
  return std::all_of(t.begin(), t.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  });
}

} // namespace

bool PyConstant::truthy() const {
  switch (kind) {
  case Kind::None:
    return false;
  case Kind::Bool:
  case Kind::Int:
    return i != 0;
  case Kind::Str:
    return !s.empty();
  case Kind::Enum:
    return true; // a plain Enum member (no __bool__ / __len__)
  }
  return false;
}

std::optional<std::string> constantSourceText(const PyConstant& c) {
  switch (c.kind) {
  case PyConstant::Kind::None:
    return "None";
  case PyConstant::Kind::Bool:
    return c.i ? "True" : "False";
  case PyConstant::Kind::Int:
    return std::to_string(c.i);
  case PyConstant::Kind::Str:
    if (c.s.find_first_of("\"'\\\n") != std::string::npos)
      return std::nullopt;
    return "\"" + c.s + "\"";
  case PyConstant::Kind::Enum:
    return c.s;
  }
  return std::nullopt;
}

std::optional<PyConstant> constantFromText(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.back() == ' '))
    text = text.front() == ' ' ? text.substr(1) : text.substr(0, text.size() - 1);
  PyConstant c;
  if (text == "None")
    return c;
  if (text == "True" || text == "False")
    return boolean(text == "True");
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    std::string_view body = text.substr(1, text.size() - 2);
    if (body.find_first_of("\\'\"") != std::string_view::npos)
      return std::nullopt; // escapes, triple quotes: not folded
    c.kind = PyConstant::Kind::Str;
    c.s = str(body);
    return c;
  }
  // `C.NAME`: an Enum member, as constantSourceText spells one.
  if (size_t dot = text.find('.'); dot != std::string_view::npos &&
                                   isIdentifierText(text.substr(0, dot)) &&
                                   isIdentifierText(text.substr(dot + 1))) {
    c.kind = PyConstant::Kind::Enum;
    c.s = str(text);
    return c;
  }
  bool negative = !text.empty() && text.front() == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    return std::nullopt;
  c.kind = PyConstant::Kind::Int;
  c.i = negative ? -v : v;
  return c;
}

std::optional<TSNode> valueOfName(TSNode name, const syntax::ParsedSource& doc,
                                  const LocalLookup& lookupLocal, bool* fromModule) {
  std::string n = str(doc.textOf(name));
  if (lookupLocal)
    if (auto local = lookupLocal(n))
      return local->second == "local" && !isNull(local->first) ? std::optional(local->first)
                                                               : std::nullopt;
  if (auto mv = moduleValue(doc, n); mv && mv->state == ModuleValue::State::Known) {
    if (fromModule)
      *fromModule = true;
    return mv->value;
  }
  return std::nullopt;
}

namespace {

// The literal a container expression is: itself, or what a name (a local,
// else a module-level value) or a module-level function's call holds,
// followed; `moduleScope` is set once a module-level value was read (its
// names are the module's from there on). Null when not known.
TSNode containerLiteral(TSNode container, const syntax::ParsedSource& doc,
                        const LocalLookup& lookupLocal, bool& moduleScope) {
  static const LocalLookup noLocals;
  for (int hops = 0; hops < kMaxDepth && !isNull(container); ++hops) {
    while (is(container, "parenthesized_expression"))
      container = ts_node_named_child(container, 0);
    if (is(container, "call")) {
      // `settings()[1]`, `cfg = settings(); cfg[1]` (8.31): the value the
      // function returns.
      auto v = returnedValue(container, doc);
      if (!v)
        return TSNode{};
      moduleScope = true;
      container = *v;
      continue;
    }
    if (!is(container, "identifier"))
      break;
    bool nameFromModule = false;
    auto v = valueOfName(container, doc, moduleScope ? noLocals : lookupLocal, &nameFromModule);
    if (!v)
      return TSNode{};
    moduleScope |= nameFromModule;
    container = *v;
  }
  return container;
}

} // namespace

namespace {

// What a dict literal holds under `key`: the last pair with an equal key
// wins, as in Python. Not known when a key is not a constant, or a `**`
// splat after the last equal pair may hold the key; known and absent
// (value null) otherwise.
struct DictEntry {
  bool known = false;
  std::optional<TSNode> value;
};
DictEntry dictEntry(TSNode dict, const PyConstant& key, const syntax::ParsedSource& doc,
                    const LocalLookup& keyNames, int depth) {
  DictEntry e;
  bool splatAfter = false;
  for (TSNode pair : syntax::namedChildren(dict)) {
    if (is(pair, "dictionary_splat")) {
      splatAfter = true;
      continue;
    }
    if (!is(pair, "pair"))
      continue;
    auto k = constantOf(field(pair, "key"), doc, keyNames, nullptr, depth + 1);
    if (!k)
      return e; // an unknown key may be this one
    if (compare("==", *k, key).value_or(false)) {
      e.value = field(pair, "value");
      splatAfter = false;
    }
  }
  if (splatAfter)
    return e; // it may hold the key
  e.known = true;
  return e;
}

} // namespace

std::optional<TSNode> elementOf(TSNode subscript, const syntax::ParsedSource& doc,
                                const LocalLookup& lookupLocal, bool* fromModule, int depth) {
  TSNode container = field(subscript, "value");
  std::vector<TSNode> keys;
  for (TSNode k : syntax::namedChildren(subscript))
    if (!ts_node_eq(k, container) && !is(k, "comment"))
      keys.push_back(k);
  if (keys.size() != 1)
    return std::nullopt; // a[i, j], a[1:2]: not one constant key
  bool keyFromModule = false;
  auto key = constantOf(keys[0], doc, lookupLocal, &keyFromModule, depth + 1);
  if (!key)
    return std::nullopt;
  // The container: a literal, or a name bound to one. Once it comes from
  // the module (a module-level name, a module function's return), its
  // names are the module's: `*fromModule` tells the caller so.
  bool moduleScope = false;
  static const LocalLookup noLocals;
  container = containerLiteral(container, doc, lookupLocal, moduleScope);
  if (isNull(container))
    return std::nullopt;
  if (fromModule && moduleScope)
    *fromModule = true;
  const LocalLookup& keyNames = moduleScope ? noLocals : lookupLocal;
  if (is(container, "dictionary")) {
    DictEntry e = dictEntry(container, *key, doc, keyNames, depth);
    return e.known ? e.value : std::nullopt;
  }
  if ((is(container, "tuple") || is(container, "list") || is(container, "expression_list")) &&
      key->kind == PyConstant::Kind::Int) {
    std::vector<TSNode> items;
    for (TSNode item : syntax::namedChildren(container)) {
      if (is(item, "list_splat"))
        return std::nullopt;
      if (!is(item, "comment"))
        items.push_back(item);
    }
    int64_t i = key->i < 0 ? key->i + static_cast<int64_t>(items.size()) : key->i;
    if (i >= 0 && i < static_cast<int64_t>(items.size()))
      return items[static_cast<size_t>(i)];
  }
  return std::nullopt;
}

std::optional<TSNode> dictGet(TSNode call, const syntax::ParsedSource& doc,
                              const LocalLookup& lookupLocal, bool* fromModule, int depth) {
  TSNode callee = field(call, "function");
  if (!is(callee, "attribute") || doc.textOf(field(callee, "attribute")) != "get")
    return std::nullopt;
  std::vector<TSNode> args;
  for (TSNode a : syntax::namedChildren(field(call, "arguments")))
    if (!is(a, "comment"))
      args.push_back(a);
  if (args.empty() || args.size() > 2)
    return std::nullopt;
  for (TSNode a : args)
    if (is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat"))
      return std::nullopt;
  auto key = constantOf(args[0], doc, lookupLocal, nullptr, depth + 1);
  if (!key)
    return std::nullopt;
  bool moduleScope = false;
  TSNode container = containerLiteral(field(callee, "object"), doc, lookupLocal, moduleScope);
  if (!is(container, "dictionary"))
    return std::nullopt;
  static const LocalLookup noLocals;
  const LocalLookup& keyNames = moduleScope ? noLocals : lookupLocal;
  DictEntry e = dictEntry(container, *key, doc, keyNames, depth);
  if (!e.known)
    return std::nullopt;
  if (e.value) {
    if (fromModule && moduleScope)
      *fromModule = true;
    return e.value;
  }
  // Absent: the default, read where the call is (None when not given).
  return args.size() == 2 ? args[1] : TSNode{};
}

namespace {

// `x in (a, b)`: whether the constant x equals an item of a tuple, list or
// set literal of constants (or a name bound to one), as Python tests it
// (8.30). nullopt when x or an item before the match is not a constant.
std::optional<bool> membership(TSNode needle, TSNode container, const syntax::ParsedSource& doc,
                               const LocalLookup& lookupLocal, bool* fromModule, int depth) {
  auto x = constantOf(needle, doc, lookupLocal, fromModule, depth + 1);
  if (!x)
    return std::nullopt;
  const LocalLookup* names = &lookupLocal;
  static const LocalLookup none;
  for (int hops = 0; hops < kMaxDepth; ++hops) {
    while (is(container, "parenthesized_expression"))
      container = ts_node_named_child(container, 0);
    if (!is(container, "identifier"))
      break;
    bool moduleLevel = false;
    auto v = valueOfName(container, doc, *names, &moduleLevel);
    if (!v)
      return std::nullopt;
    if (moduleLevel) {
      names = &none;
      if (fromModule)
        *fromModule = true;
    }
    container = *v;
  }
  if (!is(container, "tuple") && !is(container, "list") && !is(container, "set"))
    return std::nullopt;
  for (TSNode item : syntax::namedChildren(container)) {
    if (is(item, "comment"))
      continue;
    if (is(item, "list_splat"))
      return std::nullopt;
    auto c = constantOf(item, doc, *names, fromModule, depth + 1);
    if (!c)
      return std::nullopt;
    // Python's `in` compares with ==; a str never equals an int.
    auto equal = compare("==", *x, *c);
    if (!equal)
      return std::nullopt;
    if (*equal)
      return true;
  }
  return false;
}

} // namespace

std::optional<PyConstant> constantOf(TSNode expr, const syntax::ParsedSource& doc,
                                     const LocalLookup& lookupLocal, bool* fromModule, int depth) {
  if (depth > 4 * kMaxDepth || isNull(expr))
    return std::nullopt;
  while (is(expr, "parenthesized_expression") || is(expr, "named_expression"))
    expr = is(expr, "named_expression") ? field(expr, "value") : ts_node_named_child(expr, 0);
  if (auto c = literal(expr, doc))
    return c;
  std::string_view t = syntax::type(expr);
  if (t == "identifier" && doc.textOf(expr) == "__debug__")
    return boolean(true); // `python` without -O; the name cannot be rebound (8.53)
  if (t == "identifier") {
    // A parameter one call context binds to a constant (CallContexts).
    if (lookupLocal)
      if (auto local = lookupLocal(str(doc.textOf(expr)));
          local && startsWith(local->second, kBoundConstant))
        return constantFromText(std::string_view(local->second).substr(kBoundConstant.size()));
    auto v = valueOfName(expr, doc, lookupLocal, fromModule);
    // The value's own names are the module's or its function's: a local
    // bound to a module constant is looked up at module level from there.
    return v ? constantOf(*v, doc, nullptr, fromModule, depth + 1) : std::nullopt;
  }
  if (t == "attribute" && is(field(expr, "object"), "identifier")) {
    // `self.mode` where the lookup knows the receiver (a property, 8.44):
    // the value it holds, written with module-level names.
    if (lookupLocal) {
      if (auto local = lookupLocal(str(doc.textOf(expr)))) {
        if (local->second == "local" && !isNull(local->first))
          return constantOf(local->first, doc, nullptr, fromModule, depth + 1);
        return std::nullopt;
      }
      if (lookupLocal(str(doc.textOf(field(expr, "object")))))
        return std::nullopt; // an attribute of a local, not of the module's class
    }
    // `Mode.DEBUG`, a member of a module-level Enum (8.53).
    auto member = enumMember(expr, doc);
    if (member && fromModule)
      *fromModule = true;
    return member;
  }
  if (t == "not_operator") {
    auto a = constantOf(field(expr, "argument"), doc, lookupLocal, fromModule, depth + 1);
    return a ? std::optional(boolean(!a->truthy())) : std::nullopt;
  }
  if (t == "unary_operator" && doc.textOf(field(expr, "operator")) == "-") {
    auto a = constantOf(field(expr, "argument"), doc, lookupLocal, fromModule, depth + 1);
    if (!a || a->kind != PyConstant::Kind::Int)
      return std::nullopt;
    a->i = -a->i;
    return a;
  }
  if (t == "boolean_operator") {
    // `a or b` is a when a is truthy, else b; `a and b` the other way.
    auto a = constantOf(field(expr, "left"), doc, lookupLocal, fromModule, depth + 1);
    if (!a)
      return std::nullopt;
    bool isOr = doc.textOf(field(expr, "operator")) == "or";
    if (a->truthy() == isOr)
      return a;
    return constantOf(field(expr, "right"), doc, lookupLocal, fromModule, depth + 1);
  }
  if (t == "comparison_operator") {
    // One comparison (`a == b`); a chain `a < b < c` is left unknown.
    std::optional<syntax::Comparison> cmp = syntax::comparisonOf(doc, expr);
    if (!cmp)
      return std::nullopt;
    TSNode operands[2] = {cmp->left, cmp->right};
    std::string op = cmp->op;
    if (op == "isnot")
      op = "is not";
    if (op == "in" || op == "notin") {
      auto r = membership(operands[0], operands[1], doc, lookupLocal, fromModule, depth);
      return r ? std::optional(boolean(*r == (op == "in"))) : std::nullopt;
    }
    auto a = constantOf(operands[0], doc, lookupLocal, fromModule, depth + 1);
    auto b = a ? constantOf(operands[1], doc, lookupLocal, fromModule, depth + 1) : std::nullopt;
    if (!b)
      return std::nullopt;
    auto r = compare(op, *a, *b);
    return r ? std::optional(boolean(*r)) : std::nullopt;
  }
  if (t == "call") {
    // `bool(x)`, the builtin (not rebound here): x's truth (8.67). Its
    // argument's names are read with the lookup given, or at module level
    // for a call that is itself there (a local's value read without its
    // function's names would be misread).
    TSNode callee = field(expr, "function");
    if (is(callee, "identifier") && doc.textOf(callee) == "bool" &&
        !(lookupLocal && lookupLocal("bool")) && !moduleValue(doc, "bool") &&
        (lookupLocal || isNull(enclosingScope(expr)))) {
      std::vector<TSNode> args;
      for (TSNode a : syntax::namedChildren(field(expr, "arguments")))
        if (!is(a, "comment"))
          args.push_back(a);
      if (args.size() != 1 || is(args[0], "keyword_argument") || is(args[0], "list_splat") ||
          is(args[0], "dictionary_splat"))
        return std::nullopt;
      auto a = constantOf(args[0], doc, lookupLocal, fromModule, depth + 1);
      return a ? std::optional(boolean(a->truthy())) : std::nullopt;
    }
    // `CONFIG.get("interpret", False)` (8.69).
    bool gotFromModule = false;
    if (auto got = dictGet(expr, doc, lookupLocal, &gotFromModule, depth)) {
      if (isNull(*got))
        return PyConstant{};
      if (gotFromModule && fromModule)
        *fromModule = true;
      return constantOf(*got, doc, gotFromModule ? nullptr : lookupLocal, fromModule, depth + 1);
    }
    // What a module-level function returns (8.31): its names are the module's.
    auto v = returnedValue(expr, doc);
    if (v && fromModule)
      *fromModule = true;
    return v ? constantOf(*v, doc, nullptr, fromModule, depth + 1) : std::nullopt;
  }
  if (t == "conditional_expression") {
    TSNode chosen = conditionalBranch(expr, doc, lookupLocal, fromModule, depth);
    return isNull(chosen) ? std::nullopt
                          : constantOf(chosen, doc, lookupLocal, fromModule, depth + 1);
  }
  if (t == "subscript") {
    bool elementFromModule = false;
    auto e = elementOf(expr, doc, lookupLocal, &elementFromModule, depth);
    if (elementFromModule && fromModule)
      *fromModule = true;
    return e ? constantOf(*e, doc, elementFromModule ? nullptr : lookupLocal, fromModule, depth + 1)
             : std::nullopt;
  }
  return std::nullopt;
}

TSNode conditionalBranch(TSNode expr, const syntax::ParsedSource& doc,
                         const LocalLookup& lookupLocal, bool* fromModule, int depth) {
  // `body if condition else alternative`: three named children in order.
  std::vector<TSNode> parts;
  for (TSNode c : syntax::namedChildren(expr))
    if (!is(c, "comment"))
      parts.push_back(c);
  if (parts.size() != 3)
    return TSNode{};
  auto c = constantOf(parts[1], doc, lookupLocal, fromModule, depth + 1);
  if (!c)
    return TSNode{};
  return c->truthy() ? parts[0] : parts[2];
}

} // namespace pallas::analysis::names
