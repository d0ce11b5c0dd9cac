// Names.h: `self.attr` read in a method, looked up the way Python looks it
// up on the objects the document builds (docs/analysis.md 8.25): the
// instance's own attribute (what the `__init__` found along the instance's
// class stores, from the constructor call's arguments), else the class
// attribute found along the bases of the instance's actual class (a
// subclass's override first). The instances are the calls `K(...)` of the
// document, K the method's class or a subclass of it defined there.
#include "NamesInstancesInternal.h"

#include <algorithm>
#include <memory>
#include <set>
#include <unordered_map>

namespace pallas::analysis::names::instances {

std::string textOf(TSNode n, const syntax::ParsedSource& doc) {
  return str(doc.textOf(n));
}

TSNode definitionOf(TSNode stmt) {
  return is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
}

// The single expression of an expression statement, else null.
TSNode expressionOf(TSNode stmt) {
  return is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
             ? ts_node_named_child(stmt, 0)
             : TSNode{};
}

// A parameter's name and default (null when it has none); "*"/"**"-prefixed
// for `*args` / `**kwargs`, "*" alone for the bare keyword-only marker.
std::pair<std::string, TSNode> parameterOf(TSNode p, const syntax::ParsedSource& doc) {
  if (is(p, "identifier"))
    return {textOf(p, doc), TSNode{}};
  if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
    return {textOf(field(p, "name"), doc), field(p, "value")};
  if (is(p, "typed_parameter")) {
    TSNode inner = ts_node_named_child(p, 0);
    return {is(inner, "identifier") ? textOf(inner, doc) : parameterOf(inner, doc).first, TSNode{}};
  }
  if (is(p, "list_splat_pattern"))
    return {"*" + textOf(ts_node_named_child(p, 0), doc), TSNode{}};
  if (is(p, "dictionary_splat_pattern"))
    return {"**" + textOf(ts_node_named_child(p, 0), doc), TSNode{}};
  if (is(p, "keyword_separator"))
    return {"*", TSNode{}};
  return {"?", TSNode{}};
}

std::vector<std::pair<std::string, TSNode>> parametersOf(TSNode def,
                                                         const syntax::ParsedSource& doc) {
  std::vector<std::pair<std::string, TSNode>> out;
  for (TSNode p : syntax::namedChildren(field(def, "parameters")))
    if (!is(p, "comment") && !is(p, "positional_separator"))
      out.push_back(parameterOf(p, doc));
  return out;
}

// `self.a = v` as a top-level statement of an `__init__` written directly in
// a class body, `self` its first parameter.
bool isInitStore(TSNode assignment, TSNode target, const syntax::ParsedSource& doc) {
  TSNode stmt = ts_node_parent(assignment);
  TSNode block = ts_node_parent(stmt);
  TSNode def = ts_node_parent(block);
  if (!is(stmt, "expression_statement") || !is(def, "function_definition") ||
      textOf(field(def, "name"), doc) != "__init__" ||
      !ts_node_eq(field(assignment, "left"), target))
    return false;
  auto params = parametersOf(def, doc);
  return !params.empty() && textOf(field(target, "object"), doc) == params.front().first;
}

// `self.a = v` as a top-level statement of another method written directly
// in a module-level class body (undecorated, `self` its first parameter):
// a setter of `a` (8.32). Its name, else "".
std::string setterStore(TSNode assignment, TSNode target, const syntax::ParsedSource& doc) {
  // Each parent only of a node that has one (the root's is null).
  TSNode stmt = ts_node_parent(assignment);
  TSNode block = is(stmt, "expression_statement") ? ts_node_parent(stmt) : TSNode{};
  TSNode def = is(block, "block") ? ts_node_parent(block) : TSNode{};
  TSNode body = is(def, "function_definition") ? ts_node_parent(def) : TSNode{};
  TSNode cls = is(body, "block") ? ts_node_parent(body) : TSNode{};
  if (!is(cls, "class_definition") || !ts_node_eq(ts_node_parent(cls), doc.root()) ||
      !ts_node_eq(field(assignment, "left"), target) ||
      textOf(field(def, "name"), doc) == "__init__")
    return {};
  auto params = parametersOf(def, doc);
  if (params.empty() || textOf(field(target, "object"), doc) != params.front().first)
    return {};
  return textOf(field(def, "name"), doc);
}

// A classmethod of a module-level class K that uses its class only to
// construct (`@classmethod def debug(cls): return cls(interpret=True)`,
// every `cls` in its body the callee of a call), in a K no class of the
// file derives from (so `cls` is K): its `cls(...)` calls build K's
// objects, and `K.debug()` hands out only those (8.58).
struct Constructor {
  std::string klass, name, cls;
  TSNode body{};
};

std::vector<Constructor> classmethodConstructors(const Instances& in,
                                                 const syntax::ParsedSource& doc) {
  std::set<std::string> derived;
  for (auto& [name, info] : in.classes)
    derived.insert(info.bases.begin(), info.bases.end());
  std::vector<Constructor> out;
  for (auto& [klass, info] : in.classes) {
    if (derived.count(klass))
      continue;
    for (TSNode stmt : syntax::namedChildren(field(info.def, "body"))) {
      TSNode d = definitionOf(stmt);
      if (!is(stmt, "decorated_definition") || !is(d, "function_definition"))
        continue;
      std::vector<TSNode> decorators;
      for (TSNode n : syntax::namedChildren(stmt))
        if (is(n, "decorator"))
          decorators.push_back(n);
      if (decorators.size() != 1 || textOf(decorators.front(), doc) != "@classmethod")
        continue;
      auto params = parametersOf(d, doc);
      if (params.empty())
        continue;
      std::string cls = params.front().first;
      bool onlyCalled = !syntax::anyNode(
          field(d, "body"),
          [&](TSNode n) {
            if (!is(n, "identifier") || doc.textOf(n) != cls)
              return false;
            TSNode parent = ts_node_parent(n);
            return !(is(parent, "call") && ts_node_eq(field(parent, "function"), n));
          },
          [](TSNode) { return false; });
      if (onlyCalled)
        out.push_back({klass, textOf(field(d, "name"), doc), cls, field(d, "body")});
    }
  }
  return out;
}

Instances computeInstances(const syntax::ParsedSource& doc) {
  Instances out;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode d = definitionOf(stmt);
    if (!is(d, "class_definition"))
      continue;
    ClassInfo info;
    info.def = d;
    for (TSNode base : syntax::namedChildren(field(d, "superclasses"))) {
      if (is(base, "comment"))
        continue;
      if (is(base, "identifier") && textOf(base, doc) != "object")
        info.bases.push_back(textOf(base, doc));
      else if (!is(base, "identifier"))
        info.foreignBase = true; // `nn.Module`, `metaclass=...`, `Generic[T]`
    }
    out.classes[textOf(field(d, "name"), doc)] = std::move(info);
  }
  for (auto& [name, info] : out.classes) {
    auto foreign = [&](const std::string& b) { return !out.classes.count(b); };
    if (std::any_of(info.bases.begin(), info.bases.end(), foreign))
      info.foreignBase = true;
  }
  std::vector<Constructor> constructors = classmethodConstructors(out, doc);
  auto constructorAt = [&](TSNode n) -> const Constructor* {
    for (const Constructor& c : constructors)
      if (ts_node_start_byte(n) >= ts_node_start_byte(c.body) &&
          ts_node_end_byte(n) <= ts_node_end_byte(c.body))
        return &c;
    return nullptr;
  };
  std::vector<std::pair<const Constructor*, TSNode>> constructed;
  std::set<std::string> calledConstructors; // "K.name" called as `K.name(...)`
  syntax::forEachNode(doc.root(), [&](TSNode n) {
    if (is(n, "call")) {
      TSNode callee = field(n, "function");
      if (is(callee, "identifier"))
        if (auto it = out.classes.find(textOf(callee, doc)); it != out.classes.end())
          out.sites[it->first].push_back(n);
      // `cls(...)` in a classmethod constructor of K: a construction of K,
      // once something calls the constructor (below).
      if (const Constructor* c = is(callee, "identifier") ? constructorAt(n) : nullptr;
          c && textOf(callee, doc) == c->cls)
        constructed.push_back({c, n});
    } else if (is(n, "identifier")) {
      std::string_view t = doc.textOf(n);
      out.dynamic |= t == "setattr" || t == "vars" || t == "__dict__" || t == "__setattr__";
      out.dynamicCalls |= t == "getattr" || t == "methodcaller" || t == "__getattribute__";
      if (auto it = out.classes.find(str(t)); it != out.classes.end()) {
        TSNode parent = ts_node_parent(n);
        bool called = is(parent, "call") && ts_node_eq(field(parent, "function"), n);
        bool named = is(parent, "class_definition") && ts_node_eq(field(parent, "name"), n);
        bool base = is(parent, "argument_list") && is(ts_node_parent(parent), "class_definition");
        // `K.debug()` with debug a classmethod constructor of K: its
        // objects are the `cls(...)` calls it makes (8.58).
        TSNode grand = ts_node_parent(parent);
        bool viaConstructor =
            is(parent, "attribute") && ts_node_eq(field(parent, "object"), n) &&
            is(grand, "call") && ts_node_eq(field(grand, "function"), parent) &&
            std::any_of(constructors.begin(), constructors.end(), [&](const Constructor& c) {
              return c.klass == it->first && c.name == textOf(field(parent, "attribute"), doc);
            });
        if (viaConstructor)
          calledConstructors.insert(it->first + "." + textOf(field(parent, "attribute"), doc));
        if (!called && !named && !base && !viaConstructor && !is(parent, "type") &&
            !is(parent, "generic_type"))
          out.escaped.insert(it->first);
      }
    } else if (is(n, "assignment") || is(n, "augmented_assignment") || is(n, "for_statement") ||
               is(n, "as_pattern_target")) {
      TSNode left = is(n, "as_pattern_target") ? n : field(n, "left");
      syntax::forEachNode(left, [&](TSNode t) {
        if (!is(t, "attribute"))
          return syntax::Walk::Descend;
        std::string attr = textOf(field(t, "attribute"), doc);
        if (is(n, "assignment") && isInitStore(n, t, doc))
          return syntax::Walk::SkipChildren;
        if (std::string setter = is(n, "assignment") ? setterStore(n, t, doc) : std::string();
            !setter.empty())
          out.setters[attr].insert(setter);
        else
          out.storedElsewhere.insert(attr);
        return syntax::Walk::SkipChildren;
      });
    }
    return syntax::Walk::Descend;
  });
  // A constructor nobody calls builds nothing.
  for (auto& [c, call] : constructed)
    if (calledConstructors.count(c->klass + "." + c->name))
      out.sites[c->klass].push_back(call);
  std::string all;
  for (auto& [name, info] : out.classes)
    all += textOf(info.def, doc) + '\n';
  // The module-level functions too: what a call of one returns (8.31) is
  // read by the same evaluations.
  for (TSNode stmt : syntax::namedChildren(doc.root()))
    if (is(definitionOf(stmt), "function_definition"))
      all += textOf(stmt, doc) + '\n';
  for (auto& [name, calls] : out.sites)
    for (TSNode c : calls)
      all += textOf(c, doc) + '\n';
  for (const std::string& a : out.storedElsewhere)
    all += a + ',';
  for (auto& [a, methods] : out.setters)
    for (const std::string& m : methods)
      all += a + '.' + m + ',';
  // Setter calls can be anywhere (module level too): the whole text.
  if (!out.setters.empty())
    all += doc.text();
  for (const std::string& k : out.escaped)
    all += k + ';';
  all += out.dynamic ? "dynamic" : "";
  all += out.dynamicCalls ? "dynamicCalls" : "";
  out.fingerprint = std::to_string(std::hash<std::string>{}(all));
  return out;
}

// Once per tree, as names::moduleValue's table (NamesModuleValues.cpp).
std::shared_ptr<const Instances> instancesOf(const syntax::ParsedSource& doc) {
  thread_local std::vector<std::pair<uint64_t, std::shared_ptr<const Instances>>> recent;
  for (auto& [revision, table] : recent)
    if (revision == doc.revision())
      return table;
  auto table = std::make_shared<const Instances>(computeInstances(doc));
  constexpr size_t kKept = 16;
  if (recent.size() == kKept)
    recent.erase(recent.begin());
  recent.emplace_back(doc.revision(), table);
  return table;
}

// The classes K's attribute lookup visits, in order (depth first, leftmost
// base first: Python's MRO for hierarchies without diamonds); `open` when
// it reaches a class that derives from something else than the document's
// classes, which may define any attribute.
std::vector<std::string> lookupOrder(const Instances& in, const std::string& k, bool& open) {
  std::vector<std::string> order;
  std::vector<std::string> work{k};
  while (!work.empty() && order.size() < 64) {
    std::string c = work.back();
    work.pop_back();
    if (std::find(order.begin(), order.end(), c) != order.end())
      continue;
    auto it = in.classes.find(c);
    if (it == in.classes.end())
      continue;
    order.push_back(c);
    open |= it->second.foreignBase;
    for (auto b = it->second.bases.rbegin(); b != it->second.bases.rend(); ++b)
      work.push_back(*b);
  }
  return order;
}

bool bindsName(TSNode n, const std::string& name, const syntax::ParsedSource& doc) {
  if (!(is(n, "assignment") || is(n, "augmented_assignment") || is(n, "for_statement") ||
        is(n, "named_expression") || is(n, "as_pattern_target")))
    return false;
  TSNode left = is(n, "as_pattern_target")  ? n
                : is(n, "named_expression") ? field(n, "name")
                                            : field(n, "left");
  return syntax::anyNode(
      left, [&](TSNode t) { return is(t, "identifier") && textOf(t, doc) == name; },
      [](TSNode t) { return is(t, "attribute") || is(t, "subscript"); });
}

// Whether `name` is a parameter of `def`, or assigned in its body (its own
// statements, not nested scopes').
bool boundIn(TSNode def, const std::string& name, const syntax::ParsedSource& doc) {
  for (auto& [p, _] : parametersOf(def, doc))
    if (p.substr(std::min(p.find_first_not_of('*'), p.size())) == name)
      return true;
  return syntax::anyNode(
      field(def, "body"), [&](TSNode n) { return bindsName(n, name, doc); },
      [](TSNode n) {
        return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
      });
}

// The argument the call `site` passes for parameter `index` (named `name`)
// of `init` (self excluded by the caller); its default when left out.
std::optional<Located> argumentFor(TSNode site, TSNode init, const std::string& name,
                                   const syntax::ParsedSource& doc) {
  auto params = parametersOf(init, doc);
  int index = -1;
  for (size_t i = 1; i < params.size(); ++i) {
    if (params[i].first == name) {
      index = static_cast<int>(i) - 1;
      break;
    }
    if (params[i].first.front() == '*')
      break; // keyword-only from here on
  }
  TSNode dflt{};
  for (auto& [p, d] : params)
    if (p == name)
      dflt = d;
  int positional = 0;
  for (TSNode a : syntax::namedChildren(field(site, "arguments"))) {
    if (is(a, "comment"))
      continue;
    if (is(a, "list_splat") || is(a, "dictionary_splat"))
      return std::nullopt; // positions or names unknown
    if (is(a, "keyword_argument")) {
      if (keywordName(a, doc) == name)
        return Located{field(a, "value"), enclosingScope(site)};
      continue;
    }
    if (positional++ == index)
      return Located{a, enclosingScope(site)};
  }
  if (isNull(dflt))
    return std::nullopt; // a required argument left out: TypeError
  return Located{dflt, TSNode{}};
}

std::optional<TSNode> methodNamed(TSNode cls, const std::string& name,
                                  const syntax::ParsedSource& doc) {
  std::optional<TSNode> found;
  for (TSNode stmt : syntax::namedChildren(field(cls, "body"))) {
    TSNode d = definitionOf(stmt);
    if (is(d, "function_definition") && textOf(field(d, "name"), doc) == name)
      found = d;
  }
  return found;
}

// The class attribute `attr` found along `order` (a class's lookup order):
// the last `attr = v` of the first class body that assigns it; nullopt when
// none does or the first one defines it as a method.
std::optional<Located> classAttribute(const Instances& in, const std::vector<std::string>& order,
                                      const std::string& attr, const syntax::ParsedSource& doc) {
  for (const std::string& c : order) {
    TSNode found{};
    for (TSNode stmt : syntax::namedChildren(field(in.classes.at(c).def, "body"))) {
      TSNode d = definitionOf(stmt);
      if (is(d, "function_definition") && textOf(field(d, "name"), doc) == attr)
        return std::nullopt; // a method, not a value
      TSNode e = expressionOf(stmt);
      if (is(e, "assignment") && is(field(e, "left"), "identifier") &&
          textOf(field(e, "left"), doc) == attr && !isNull(field(e, "right")))
        found = field(e, "right");
    }
    if (!isNull(found))
      return Located{found, TSNode{}};
  }
  return std::nullopt;
}

namespace {

// `super().__init__(...)` (also `super(K, self).__init__(...)`).
bool isSuperInitCall(TSNode e, const syntax::ParsedSource& doc) {
  TSNode callee = is(e, "call") ? field(e, "function") : TSNode{};
  if (!is(callee, "attribute") || textOf(field(callee, "attribute"), doc) != "__init__")
    return false;
  TSNode object = field(callee, "object");
  return is(object, "call") && textOf(field(object, "function"), doc) == "super";
}

// The value `stored` (an expression of the last `__init__` of `calls`)
// holds: a parameter of that `__init__` not rebound in it is the argument
// its call passes, which may in turn be a parameter of the `__init__`
// making that call (a `super().__init__(interpret=interpret)`), and so on
// back to the constructor call.
std::optional<Located> argumentThrough(const std::vector<std::pair<TSNode, TSNode>>& calls,
                                       TSNode stored, const syntax::ParsedSource& doc) {
  Located out{stored, calls.back().second};
  for (size_t i = calls.size(); i-- > 0;) {
    auto [call, init] = calls[i];
    if (!is(out.value, "identifier") || !ts_node_eq(out.scope, init))
      return out;
    std::string name = textOf(out.value, doc);
    auto params = parametersOf(init, doc);
    bool param =
        std::any_of(params.begin() + 1, params.end(), [&](auto& p) { return p.first == name; });
    if (!param)
      return out;
    // Rebound in the body: the argument may not be what it stores.
    bool rebound = syntax::anyNode(
        field(init, "body"),
        [&](TSNode n) {
          return (is(n, "assignment") || is(n, "augmented_assignment")) &&
                 is(field(n, "left"), "identifier") && textOf(field(n, "left"), doc) == name;
        },
        [](TSNode) { return false; });
    if (rebound)
      return std::nullopt;
    std::optional<Located> arg = argumentFor(call, init, name, doc);
    if (!arg)
      return std::nullopt;
    // A default is evaluated where the def is (module scope: no scope).
    if (isNull(arg->scope) || i == 0)
      return arg;
    out = *arg;
  }
  return out;
}

} // namespace

// What `self.attr` holds in the object the call `site` of class K builds.
std::optional<Located> valueIn(const Instances& in, const std::string& k, TSNode site,
                               const std::string& attr, const syntax::ParsedSource& doc,
                               const Globals& globals) {
  if (in.dynamic || in.storedElsewhere.count(attr))
    return std::nullopt;
  // A dataclass / NamedTuple field: the constructor's argument (8.16).
  if (auto f = constructedField(site, attr, doc, globals))
    return Located{*f, enclosingScope(site)};
  bool open = false;
  std::vector<std::string> order = lookupOrder(in, k, open);
  // The instance's own attribute: what the first `__init__` along the
  // bases stores, its last top-level `self.attr = v`. An `__init__` that
  // stores nothing but calls `super().__init__(...)` as one of its own
  // statements hands on to the next `__init__` along the bases, with that
  // call's arguments (8.43): `calls` holds each call and the `__init__` it
  // runs, the constructor's first.
  std::vector<std::pair<TSNode, TSNode>> calls;
  TSNode call = site;
  for (const std::string& c : order) {
    std::optional<TSNode> init = methodNamed(in.classes.at(c).def, "__init__", doc);
    if (!init)
      continue;
    auto params = parametersOf(*init, doc);
    if (params.empty())
      return std::nullopt;
    calls.emplace_back(call, *init);
    TSNode stored{};
    TSNode superCall{};       // a top-level `super().__init__(...)`
    bool storedAfter = false; // the last store comes after that call
    bool callsInit = false;   // any other call of an __init__
    for (TSNode stmt : syntax::namedChildren(field(*init, "body"))) {
      TSNode e = expressionOf(stmt);
      TSNode left = is(e, "assignment") ? field(e, "left") : TSNode{};
      if (is(left, "attribute") && textOf(field(left, "attribute"), doc) == attr &&
          textOf(field(left, "object"), doc) == params.front().first) {
        stored = field(e, "right");
        storedAfter = !isNull(superCall);
      }
      if (isSuperInitCall(e, doc) && isNull(superCall)) {
        superCall = e;
        continue;
      }
      callsInit |= syntax::anyNode(
          stmt,
          [&](TSNode n) {
            return is(n, "call") && is(field(n, "function"), "attribute") &&
                   doc.textOf(field(field(n, "function"), "attribute")) == "__init__";
          },
          [](TSNode) { return false; });
    }
    if (isNull(stored)) {
      if (callsInit)
        return std::nullopt;
      if (!isNull(superCall)) {
        call = superCall;
        continue; // the next __init__ along the bases may store it
      }
      break; // not an instance attribute: the class attribute below
    }
    if (!isNull(superCall) && !storedAfter)
      return std::nullopt; // the __init__ it calls after the store may store it again
    return argumentThrough(calls, stored, doc);
  }
  if (open)
    return std::nullopt; // a base of another module may store or define it
  return classAttribute(in, order, attr, doc);
}

// `obj.attr` with obj the first parameter of a method of a module-level
// class (read there or in a closure inside it): that class and method.
struct SelfRead {
  std::string cls, method;
};
std::optional<SelfRead> selfClass(TSNode expr, const syntax::ParsedSource& doc) {
  TSNode object = field(expr, "object");
  if (!is(object, "identifier"))
    return std::nullopt;
  std::string name = textOf(object, doc);
  for (TSNode n = ts_node_parent(expr); !isNull(n); n = ts_node_parent(n)) {
    if (is(n, "class_definition"))
      return std::nullopt;
    if (is(n, "lambda")) {
      if (boundIn(n, name, doc))
        return std::nullopt;
      continue;
    }
    if (!is(n, "function_definition"))
      continue;
    auto params = parametersOf(n, doc);
    if (params.empty() || params.front().first != name) {
      if (boundIn(n, name, doc))
        return std::nullopt;
      continue;
    }
    TSNode outer = ts_node_parent(n);
    if (is(outer, "decorated_definition")) {
      for (TSNode d : syntax::namedChildren(outer))
        if (is(d, "decorator")) {
          std::string text = textOf(d, doc);
          if (text.find("staticmethod") != std::string::npos ||
              text.find("classmethod") != std::string::npos)
            return std::nullopt;
        }
      outer = ts_node_parent(outer);
    }
    TSNode cls = ts_node_parent(outer);
    TSNode top = is(cls, "class_definition") ? ts_node_parent(cls) : TSNode{};
    if (is(top, "decorated_definition")) // @dataclass
      top = ts_node_parent(top);
    if (!is(outer, "block") || !is(cls, "class_definition") || !ts_node_eq(top, doc.root()))
      return std::nullopt;
    // `self = other` in the method: not the instance.
    bool rebound = syntax::anyNode(
        field(n, "body"),
        [&](TSNode a) {
          return is(a, "assignment") && is(field(a, "left"), "identifier") &&
                 textOf(field(a, "left"), doc) == name;
        },
        [](TSNode) { return false; });
    if (rebound)
      return std::nullopt;
    return SelfRead{textOf(field(cls, "name"), doc), textOf(field(n, "name"), doc)};
  }
  return std::nullopt;
}

// The document's classes whose attribute lookup passes through `cls`.
std::vector<std::string> receiversOf(const Instances& in, const std::string& cls) {
  std::vector<std::string> out;
  for (auto& [k, _] : in.classes) {
    bool open = false;
    std::vector<std::string> order = lookupOrder(in, k, open);
    if (std::find(order.begin(), order.end(), cls) != order.end())
      out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace pallas::analysis::names::instances

namespace pallas::analysis::names {

// The def or lambda around `node` (null at module level).
TSNode enclosingScope(TSNode node) {
  for (TSNode n = ts_node_parent(node); !isNull(n); n = ts_node_parent(n))
    if (is(n, "function_definition") || is(n, "lambda"))
      return n;
  return TSNode{};
}

using namespace instances;

bool boundInDef(TSNode def, const std::string& name, const syntax::ParsedSource& doc) {
  return boundIn(def, name, doc);
}

std::string instancesFingerprint(const syntax::ParsedSource& doc) {
  return instancesOf(doc)->fingerprint;
}

std::vector<std::string> instantiatedReceivers(const syntax::ParsedSource& doc,
                                               const std::string& cls) {
  std::shared_ptr<const Instances> in = instancesOf(doc);
  std::vector<std::string> out;
  if (!in->classes.count(cls))
    return out;
  for (const std::string& k : receiversOf(*in, cls))
    if (in->sites.count(k) || in->escaped.count(k))
      out.push_back(k);
  return out;
}

namespace {

// A `@property` named `attr` found first along `order` whose body is one
// `return e` (after a docstring, if any): the def and e. nullopt when the
// name is found first as anything else (a method, a class attribute, a
// property with more statements).
std::optional<std::pair<TSNode, TSNode>> propertyReturn(const Instances& in,
                                                        const std::vector<std::string>& order,
                                                        const std::string& attr,
                                                        const syntax::ParsedSource& doc) {
  for (const std::string& c : order) {
    std::optional<std::pair<TSNode, TSNode>> found;
    bool other = false;
    for (TSNode stmt : syntax::namedChildren(field(in.classes.at(c).def, "body"))) {
      TSNode d = definitionOf(stmt);
      TSNode e = expressionOf(stmt);
      bool assigns = is(e, "assignment") && is(field(e, "left"), "identifier") &&
                     textOf(field(e, "left"), doc) == attr;
      bool defines = is(d, "function_definition") && textOf(field(d, "name"), doc) == attr;
      if (!assigns && !defines)
        continue;
      found.reset();
      other = true;
      if (!defines || !is(stmt, "decorated_definition"))
        continue;
      std::vector<TSNode> decorators;
      for (TSNode n : syntax::namedChildren(stmt))
        if (is(n, "decorator"))
          decorators.push_back(n);
      if (decorators.size() != 1 || textOf(decorators.front(), doc) != "@property")
        continue;
      std::vector<TSNode> body;
      for (TSNode b : syntax::namedChildren(field(d, "body")))
        if (!is(b, "comment"))
          body.push_back(b);
      if (!body.empty() && body.size() == 2 && is(expressionOf(body.front()), "string"))
        body.erase(body.begin());
      if (body.size() == 1 && is(body.front(), "return_statement") &&
          ts_node_named_child_count(body.front()) == 1) {
        found = std::make_pair(d, ts_node_named_child(body.front(), 0));
        other = false;
      }
    }
    if (found)
      return found;
    if (other)
      return std::nullopt;
  }
  return std::nullopt;
}

// `obj.attr` where attr is a `@property` of the class K of the object the
// call `site` builds (8.44): its return evaluated on that object, `self.x`
// in it being what the object holds in x. nullopt when attr is no such
// property along K's bases (or a base is of another module).
std::optional<InterpretEval> propertyOn(const Instances& in, const std::string& k, TSNode site,
                                        const std::string& attr, const syntax::ParsedSource& doc,
                                        const Globals& globals) {
  bool orderOpen = false;
  auto prop = propertyReturn(in, lookupOrder(in, k, orderOpen), attr, doc);
  if (!prop || orderOpen)
    return std::nullopt;
  auto params = parametersOf(prop->first, doc);
  std::string self = params.size() == 1 ? params.front().first : std::string();
  if (self.empty())
    return InterpretEval{{"unknown"}, "unknown", "", {}, false};
  LocalLookup receiver =
      [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    if (name.size() > self.size() + 1 && name.starts_with(self + ".")) {
      std::string x = name.substr(self.size() + 1);
      std::optional<Located> held = x.find('.') == std::string::npos && !in.setters.count(x)
                                        ? valueIn(in, k, site, x, doc, globals)
                                        : std::nullopt;
      // A name of the def that holds the value (a caller's local) is not
      // followed.
      bool local = held && !isNull(held->scope) &&
                   syntax::anyNode(
                       held->value,
                       [&](TSNode n) {
                         return is(n, "identifier") && boundIn(held->scope, textOf(n, doc), doc);
                       },
                       [](TSNode) { return false; });
      if (held && !local)
        return std::make_pair(held->value, std::string("local"));
      return std::make_pair(TSNode{}, std::string("unknown"));
    }
    if (boundIn(prop->first, name, doc))
      return std::make_pair(TSNode{}, std::string("unknown"));
    return std::nullopt;
  };
  return evaluateInterpret(prop->second, doc, globals, receiver);
}

} // namespace

std::optional<InterpretEval>
instanceAttributeInterpret(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals) {
  if (!is(expr, "attribute"))
    return std::nullopt;
  std::optional<SelfRead> read = selfClass(expr, doc);
  if (!read)
    return std::nullopt;
  std::shared_ptr<const Instances> in = instancesOf(doc);
  const std::string& cls = read->cls;
  if (!in->classes.count(cls))
    return std::nullopt;
  std::string attr = textOf(field(expr, "attribute"), doc);
  InterpretEval out;
  out.text = textOf(expr, doc);
  out.source = "module_constant";
  // A construction that passes `self.attr` itself (`Op(self.interpret)` in
  // a method): not followed a second time (each level would visit every
  // construction again).
  thread_local bool evaluating = false;
  if (evaluating)
    return InterpretEval{{"unknown"}, "unknown", out.text, {}, false};
  struct Reentry {
    bool& flag;
    explicit Reentry(bool& f) : flag(f) { flag = true; }
    ~Reentry() { flag = false; }
    Reentry(const Reentry&) = delete;
    Reentry& operator=(const Reentry&) = delete;
  } reentry(evaluating);
  std::set<std::string> paths;
  bool any = false;
  size_t accounted = 0; // setter calls (8.32) on the objects followed
  auto unknown = [&] { return InterpretEval{{"unknown"}, "unknown", out.text, {}, false}; };
  // Adds what one value selects; false when it is not known.
  auto absorb = [&](const InterpretEval& e) {
    if (e.paths.empty() || std::find(e.paths.begin(), e.paths.end(), "unknown") != e.paths.end())
      return false;
    paths.insert(e.paths.begin(), e.paths.end());
    if (out.params.empty())
      out.params = e.params;
    return true;
  };
  for (const std::string& k : receiversOf(*in, cls)) {
    if (in->escaped.count(k))
      return unknown();
    auto it = in->sites.find(k);
    if (it == in->sites.end())
      continue;
    // K overrides the method the read is in: it runs there only through
    // super(), with a value this lookup does not bound.
    bool open = false;
    bool overridden = false;
    for (const std::string& c : lookupOrder(*in, k, open)) {
      if (c == cls)
        break;
      overridden |= methodNamed(in->classes.at(c).def, read->method, doc).has_value();
    }
    for (TSNode site : it->second) {
      any = true;
      std::optional<Located> initial =
          overridden ? std::nullopt : valueIn(*in, k, site, attr, doc, globals);
      // A property: its return evaluated on this object, `self.x` in it
      // being what the object holds in x (8.44).
      if (!initial && !overridden && !in->dynamic && !in->storedElsewhere.count(attr))
        if (std::optional<InterpretEval> e = propertyOn(*in, k, site, attr, doc, globals)) {
          any = true;
          if (!absorb(*e))
            return unknown();
          continue;
        }
      // The values the object holds where it is used: what it was built
      // with, or what a method called on it before stored (8.32).
      std::vector<std::optional<Located>> held{initial};
      if (!overridden && in->setters.count(attr)) {
        auto states = setterStates(*in, k, site, attr, doc, accounted);
        if (!states)
          return unknown();
        if (!states->empty()) {
          held.clear();
          for (const Located& l : *states)
            held.push_back(isNull(l.value) ? initial : std::optional(l));
        }
      }
      for (const std::optional<Located>& v : held) {
        // A name of the def the value is read in (the caller's local, an
        // __init__'s own) is not followed: unknown.
        LocalLookup scoped =
            [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
          if (v && !isNull(v->scope) && boundIn(v->scope, name, doc))
            return std::make_pair(TSNode{}, std::string("unknown"));
          return std::nullopt;
        };
        InterpretEval e = v ? evaluateInterpret(v->value, doc, globals, scoped)
                            : InterpretEval{{"unknown"}, "unknown", out.text, {}, false};
        if (!absorb(e))
          return unknown();
      }
    }
  }
  // A call of a setter on a receiver none of the objects above is (a
  // parameter, `self.debug()`, an object of another class): its order
  // against the launch is not known.
  if (in->setters.count(attr) && accounted != setterCallCount(*in, attr, doc))
    return unknown();
  if (!any)
    return std::nullopt; // no instance built here: the callers decide
  out.paths.assign(paths.begin(), paths.end());
  return out;
}

std::optional<InterpretEval> classAttributeInterpret(TSNode expr, const syntax::ParsedSource& doc,
                                                     const Globals& globals,
                                                     const std::string& clsName) {
  if (!is(expr, "attribute") || !is(field(expr, "object"), "identifier"))
    return std::nullopt;
  std::string cls = clsName.empty() ? textOf(field(expr, "object"), doc) : clsName;
  const Binding* b = globals.find(cls);
  if (!b || b->kind != Binding::Kind::Class || !b->file.empty())
    return std::nullopt; // not a class of this document
  std::shared_ptr<const Instances> in = instancesOf(doc);
  std::string attr = textOf(field(expr, "attribute"), doc);
  if (!in->classes.count(cls) || in->dynamic || in->storedElsewhere.count(attr))
    return std::nullopt; // `Cfg.interpret = ...` somewhere: which value runs is not followed
  bool open = false;
  std::vector<std::string> order = lookupOrder(*in, cls, open);
  std::optional<Located> v = classAttribute(*in, order, attr, doc);
  if (!v && open)
    return std::nullopt; // a base of another module may define it
  if (!v)
    return std::nullopt;
  InterpretEval e = evaluateInterpret(v->value, doc, globals, nullptr);
  e.text = textOf(expr, doc);
  if (e.source != "unknown")
    e.source = "module_constant";
  return e;
}

namespace {

// The instances of the class `site` builds, when its attributes can be read
// off the text: a module-level class of the document none of whose objects'
// attributes may change where the text does not show it. Null otherwise.
std::shared_ptr<const Instances> readableInstances(TSNode site, const std::string& attr,
                                                   const syntax::ParsedSource& doc) {
  if (!is(site, "call") || !is(field(site, "function"), "identifier"))
    return nullptr;
  std::shared_ptr<const Instances> in = instancesOf(doc);
  std::string k = textOf(field(site, "function"), doc);
  if (!in->classes.count(k) || in->escaped.count(k) || in->dynamic || in->dynamicCalls ||
      in->setters.count(attr) || in->storedElsewhere.count(attr))
    return nullptr;
  return in;
}

} // namespace

std::optional<TSNode> builtObjectAttribute(TSNode site, const std::string& attr,
                                           const syntax::ParsedSource& doc,
                                           const Globals& globals) {
  std::shared_ptr<const Instances> in = readableInstances(site, attr, doc);
  if (!in)
    return std::nullopt;
  std::optional<Located> v =
      valueIn(*in, textOf(field(site, "function"), doc), site, attr, doc, globals);
  // Read in a def's scope (an `__init__` storing its own local): the def's
  // names, not the module's; only a value the call itself passes is kept.
  if (!v || (!isNull(v->scope) && !ts_node_eq(v->scope, enclosingScope(site))))
    return std::nullopt;
  return v->value;
}

std::optional<InterpretEval> builtObjectAttributeInterpret(TSNode site, const std::string& attr,
                                                           const syntax::ParsedSource& doc,
                                                           const Globals& globals) {
  std::shared_ptr<const Instances> in = readableInstances(site, attr, doc);
  if (!in)
    return std::nullopt;
  std::string k = textOf(field(site, "function"), doc);
  InterpretEval e{{"unknown"}, "unknown", "", {}, false};
  if (std::optional<Located> v = valueIn(*in, k, site, attr, doc, globals)) {
    LocalLookup scoped =
        [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
      if (!isNull(v->scope) && boundIn(v->scope, name, doc))
        return std::make_pair(TSNode{}, std::string("unknown"));
      return std::nullopt;
    };
    e = evaluateInterpret(v->value, doc, globals, scoped);
  } else if (std::optional<InterpretEval> p = propertyOn(*in, k, site, attr, doc, globals)) {
    e = *p;
  }
  if (e.paths.size() != 1 || e.paths[0] == "unknown" || e.source == "param" ||
      e.source == "default_param")
    return std::nullopt;
  return e;
}

} // namespace pallas::analysis::names
