// Names.h: what a module-level name holds once the module has run, in the
// order Python runs its statements (docs/analysis.md 8.15), and the fields
// of objects built by dataclass / NamedTuple constructors (8.16). Shared by
// the static evaluation of interpret= (NamesInterpret.cpp) and the
// KernelWalk's callables (analysis/passes/KernelWalkClasses.cpp).
#include "NamesInternal.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace pallas::analysis::names {

namespace {

std::string textOf(TSNode n, const syntax::ParsedSource& doc) {
  return str(doc.textOf(n));
}

// The walks below are over a user's module, which may nest as deep as the
// parser allows: they use syntax::anyNode / forEachNode (a cursor), never
// recursion.
bool isOwnScope(TSNode n) {
  return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
}

void addIdentifiers(TSNode node, const syntax::ParsedSource& doc, std::set<std::string>& out) {
  syntax::forEachNode(node, [&](TSNode n) {
    if (is(n, "identifier"))
      out.insert(textOf(n, doc));
  });
}

// The module-level names `node`, under a module-level statement, binds other
// than by a plain top-level assignment: an assignment nested in if / try /
// for / with, an augmented assignment, a for / with target, a walrus, an
// import (every name it spells). Assignments inside functions and class
// bodies bind their own locals and attributes (`global name` is handled by
// the caller). Conservative: `obj.attr = v` and `d[k] = v` count for obj
// and d (and k).
void nestedBindings(TSNode node, const syntax::ParsedSource& doc, std::set<std::string>& out) {
  syntax::forEachNode(node, [&](TSNode n) {
    if (isOwnScope(n))
      return syntax::Walk::SkipChildren;
    if (is(n, "import_statement") || is(n, "import_from_statement")) {
      addIdentifiers(n, doc, out);
      return syntax::Walk::SkipChildren;
    }
    if (is(n, "assignment") || is(n, "augmented_assignment") || is(n, "for_statement") ||
        is(n, "as_pattern_target") || is(n, "named_expression")) {
      TSNode left = is(n, "as_pattern_target")  ? n
                    : is(n, "named_expression") ? field(n, "name")
                                                : field(n, "left");
      if (!isNull(left))
        addIdentifiers(left, doc, out);
    }
    return syntax::Walk::Descend;
  });
}

bool nestedBinding(TSNode node, const syntax::ParsedSource& doc, const std::string& name) {
  std::set<std::string> bound;
  nestedBindings(node, doc, bound);
  return bound.count(name) > 0;
}

// A function definition (any depth) whose body declares `global n` for each
// n of `names` (also through a def nested in it): each run of it may rebind
// them.
struct Rebinder {
  TSNode def;
  std::set<std::string> names;
  bool moduleLevel = false; // a statement of the module (maybe decorated)
};

// Every rebinder of the module, in pre-order, in one walk: a `global`
// statement counts for every definition it is inside.
std::vector<Rebinder> rebindingFunctions(const syntax::ParsedSource& doc) {
  std::vector<Rebinder> all;
  std::vector<size_t> open; // the definitions the walk is inside, innermost last
  syntax::forEachNode(doc.root(), [&](TSNode n) {
    uint32_t start = ts_node_start_byte(n);
    while (!open.empty() && start >= ts_node_end_byte(all[open.back()].def))
      open.pop_back();
    if (is(n, "function_definition")) {
      open.push_back(all.size());
      all.push_back({n, {}});
    } else if (is(n, "global_statement")) {
      std::set<std::string> declared;
      addIdentifiers(n, doc, declared);
      for (size_t i : open)
        all[i].names.insert(declared.begin(), declared.end());
      return false;
    }
    return true;
  });
  std::vector<Rebinder> out;
  for (Rebinder& r : all)
    if (!r.names.empty()) {
      TSNode parent = ts_node_parent(r.def);
      r.moduleLevel = is(parent, "module") || is(parent, "decorated_definition");
      out.push_back(std::move(r));
    }
  return out;
}

bool isLiteral(TSNode n) {
  return is(n, "true") || is(n, "false") || is(n, "none") || is(n, "integer") || is(n, "string");
}

// The value a function that declares `global name` leaves in it: the last
// assignment among its body's own statements when that is a literal
// (anything else depends on the call). nullopt: it may leave anything.
std::optional<TSNode> rebindingValue(TSNode def, const syntax::ParsedSource& doc,
                                     const std::string& name, TSNode current) {
  TSNode value = current;
  for (TSNode stmt : syntax::namedChildren(field(def, "body"))) {
    TSNode assign = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                        ? ts_node_named_child(stmt, 0)
                        : TSNode{};
    if (is(assign, "assignment") && is(field(assign, "left"), "identifier") &&
        textOf(field(assign, "left"), doc) == name) {
      if (!isLiteral(field(assign, "right")))
        return std::nullopt;
      value = field(assign, "right");
      continue;
    }
    if (nestedBinding(stmt, doc, name) || is(stmt, "return_statement"))
      return std::nullopt; // conditional or early exit: depends on the run
  }
  return value;
}

} // namespace

namespace {

using ModuleValues = std::unordered_map<std::string, ModuleValue>;

// What every module-level name holds once the module has run, in one pass
// over the module's statements in execution order.
ModuleValues computeModuleValues(const syntax::ParsedSource& doc) {
  std::vector<Rebinder> rebinders;
  if (doc.text().find("global") != std::string::npos) // most modules have none
    rebinders = rebindingFunctions(doc);
  // Per name, the start bytes of its rebinding functions called at module level.
  std::map<std::string, std::set<uint32_t>> called;
  ModuleValues out;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode inner = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                       ? ts_node_named_child(stmt, 0)
                       : TSNode{};
    std::string assigned; // `name = value`: name holds value from here on
    std::string mutated;  // `name[key] = value`: name's object changes
    TSNode target = is(inner, "assignment") ? field(inner, "left") : TSNode{};
    if (is(target, "subscript") && is(field(target, "value"), "identifier") &&
        !is(field(inner, "right"), "assignment")) {
      auto it = out.find(textOf(field(target, "value"), doc));
      if (it != out.end() && (it->second.state == ModuleValue::State::Known ||
                              it->second.state == ModuleValue::State::Mutated)) {
        mutated = it->first;
        it->second.state = ModuleValue::State::Mutated;
      }
    }
    if (is(inner, "assignment") && is(field(inner, "left"), "identifier") &&
        !isNull(field(inner, "right")) && !is(field(inner, "right"), "assignment")) {
      assigned = textOf(field(inner, "left"), doc);
      ModuleValue& mv = out[assigned];
      mv.value = field(inner, "right");
      mv.state = ModuleValue::State::Known;
    } else if (is(inner, "call") && is(field(inner, "function"), "identifier")) {
      // `enable_debug()` at module level runs its `global name; name = v`.
      std::string callee = textOf(field(inner, "function"), doc);
      for (const Rebinder& r : rebinders) {
        if (!r.moduleLevel || textOf(field(r.def, "name"), doc) != callee)
          continue;
        for (const std::string& name : r.names) {
          called[name].insert(ts_node_start_byte(r.def));
          ModuleValue& mv = out[name];
          std::optional<TSNode> v = rebindingValue(r.def, doc, name, mv.value);
          if (!v) {
            mv.state = ModuleValue::State::Unknown;
          } else if (!ts_node_eq(*v, mv.value)) {
            mv.value = *v;
            mv.state = ModuleValue::State::Known;
          }
        }
      }
      continue;
    }
    std::set<std::string> bound;
    nestedBindings(stmt, doc, bound);
    for (const std::string& name : bound)
      if (name != assigned && name != mutated)
        out[name].state = ModuleValue::State::Nested;
  }
  // A function that rebinds a name and is not run at module level may run
  // before any use: what the name holds then is not known.
  for (const Rebinder& r : rebinders)
    for (const std::string& name : r.names) {
      auto it = out.find(name);
      if (it != out.end() &&
          (it->second.state == ModuleValue::State::Known ||
           it->second.state == ModuleValue::State::Mutated) &&
          !called[name].count(ts_node_start_byte(r.def)))
        it->second.state = ModuleValue::State::Unknown;
    }
  return out;
}

// The table of the document's current tree, computed once per tree: a
// kernel walk asks for the names it meets, launch after launch, and the
// module-level names are bound for all of them at once (Globals::build).
// Per thread (check runs one Project per thread; the server analyses a
// document on one worker at a time); keyed by the tree's revision, which no
// other tree ever has, so an entry cannot outlive its meaning.
std::shared_ptr<const ModuleValues> moduleValuesOf(const syntax::ParsedSource& doc) {
  thread_local std::vector<std::pair<uint64_t, std::shared_ptr<const ModuleValues>>> recent;
  for (auto& [revision, table] : recent)
    if (revision == doc.revision())
      return table;
  auto table = std::make_shared<const ModuleValues>(computeModuleValues(doc));
  constexpr size_t kKept = 16; // documents a walk moves between (helpers' files)
  if (recent.size() == kKept)
    recent.erase(recent.begin());
  recent.emplace_back(doc.revision(), table);
  return table;
}

} // namespace

std::optional<ModuleValue> moduleValue(const syntax::ParsedSource& doc, const std::string& name) {
  std::shared_ptr<const ModuleValues> table = moduleValuesOf(doc);
  auto it = table->find(name);
  if (it == table->end())
    return std::nullopt;
  return it->second;
}

namespace {

// An assignment (plain or augmented) whose target stores `.attr` of some
// object (`self.attr = v`, `a, self.attr = ...`).
bool assignsAttribute(TSNode n, const std::string& attr, const syntax::ParsedSource& doc) {
  if (!is(n, "assignment") && !is(n, "augmented_assignment"))
    return false;
  return syntax::anyNode(
      field(n, "left"),
      [&](TSNode t) { return is(t, "attribute") && textOf(field(t, "attribute"), doc) == attr; },
      [](TSNode) { return false; });
}

} // namespace

std::optional<TSNode> constructedField(TSNode call, const std::string& attr,
                                       const syntax::ParsedSource& doc, const Globals& globals) {
  while (is(call, "parenthesized_expression"))
    call = ts_node_named_child(call, 0);
  if (!is(call, "call"))
    return std::nullopt;
  // `types.SimpleNamespace(interpret=True)`, `argparse.Namespace(...)`
  // (8.71): the keyword, when nothing in the file stores the attribute on
  // any object or uses setattr (such an object is changed freely).
  if (std::string api = importedName(field(call, "function"), doc, globals);
      api == "types.SimpleNamespace" || api == "argparse.Namespace") {
    bool stored = syntax::anyNode(
        doc.root(),
        [&](TSNode n) {
          return assignsAttribute(n, attr, doc) ||
                 (is(n, "identifier") && (doc.textOf(n) == "setattr" ||
                                          doc.textOf(n) == "__dict__" || doc.textOf(n) == "vars"));
        },
        [](TSNode) { return false; });
    if (stored)
      return std::nullopt;
    std::optional<TSNode> found;
    for (TSNode a : syntax::namedChildren(field(call, "arguments"))) {
      if (is(a, "comment"))
        continue;
      if (!is(a, "keyword_argument"))
        return std::nullopt; // a mapping splat, or an argument it rejects
      if (keywordName(a, doc) == attr)
        found = field(a, "value");
    }
    return found;
  }
  auto cls = resolveGlobalExpr(field(call, "function"), doc, globals);
  if (!cls || cls->kind != Binding::Kind::Class || !cls->file.empty())
    return std::nullopt;
  TSNode def{};
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode d = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    if (is(d, "class_definition") && textOf(field(d, "name"), doc) == cls->target) {
      def = stmt;
      break;
    }
  }
  if (isNull(def))
    return std::nullopt;
  TSNode clsNode = is(def, "decorated_definition") ? field(def, "definition") : def;
  // A dataclass (`@dataclass`, `@dataclasses.dataclass(...)`) or a
  // NamedTuple: the constructor's arguments are its annotated fields, in order.
  bool record = false;
  if (is(def, "decorated_definition"))
    for (TSNode d : syntax::namedChildren(def)) {
      if (!is(d, "decorator"))
        continue;
      TSNode e = ts_node_named_child(d, 0);
      TSNode callee = is(e, "call") ? field(e, "function") : e;
      record |= endsWith(dottedName(callee, doc), "dataclass");
    }
  for (TSNode base : syntax::namedChildren(field(clsNode, "superclasses")))
    record |= endsWith(dottedName(base, doc), "NamedTuple");
  if (!record)
    return std::nullopt;
  std::vector<std::pair<std::string, TSNode>> fields; // name, default
  for (TSNode stmt : syntax::namedChildren(field(clsNode, "body"))) {
    TSNode a = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                   ? ts_node_named_child(stmt, 0)
                   : TSNode{};
    if (is(a, "assignment") && !isNull(field(a, "type")) && is(field(a, "left"), "identifier")) {
      if (textOf(field(a, "type"), doc).find("ClassVar") != std::string::npos)
        continue;
      fields.emplace_back(textOf(field(a, "left"), doc), field(a, "right"));
    }
  }
  auto it = std::find_if(fields.begin(), fields.end(), [&](auto& f) { return f.first == attr; });
  if (it == fields.end())
    return std::nullopt;
  // A `__post_init__` (or an `__init__` written by hand, which @dataclass
  // keeps) that stores the field, also by `object.__setattr__` in a frozen
  // one: what the constructor was given is not what the object holds
  // (8.48). Unknown.
  for (TSNode stmt : syntax::namedChildren(field(clsNode, "body"))) {
    TSNode d = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    std::string name = is(d, "function_definition") ? textOf(field(d, "name"), doc) : "";
    if (name != "__post_init__" && name != "__init__")
      continue;
    bool stores = syntax::anyNode(
        field(d, "body"),
        [&](TSNode n) {
          return (is(n, "identifier") && doc.textOf(n) == "__setattr__") ||
                 assignsAttribute(n, attr, doc);
        },
        [](TSNode) { return false; });
    if (stores)
      return std::nullopt;
  }
  size_t index = static_cast<size_t>(it - fields.begin());
  size_t positional = 0;
  for (TSNode a : syntax::namedChildren(field(call, "arguments"))) {
    if (is(a, "list_splat") || is(a, "dictionary_splat"))
      return std::nullopt; // positions or names unknown
    if (is(a, "keyword_argument")) {
      if (keywordName(a, doc) == attr)
        return field(a, "value");
      continue;
    }
    if (is(a, "comment"))
      continue;
    if (positional++ == index)
      return a;
  }
  if (isNull(it->second))
    return std::nullopt; // a required field left out: TypeError
  return it->second;
}

std::optional<ModuleValue> valueSetBefore(const syntax::ParsedSource& doc, const std::string& name,
                                          TSNode use) {
  if (doc.text().find("global") == std::string::npos)
    return std::nullopt;
  std::map<std::string, TSNode> setters; // module-level functions that rebind `name`
  for (const Rebinder& r : rebindingFunctions(doc))
    if (r.moduleLevel && r.names.count(name))
      setters[textOf(field(r.def, "name"), doc)] = r.def;
  if (setters.empty())
    return std::nullopt;
  TSNode def = ts_node_parent(use);
  while (!isNull(def) && !is(def, "function_definition") && !is(def, "module"))
    def = ts_node_parent(def);
  if (!is(def, "function_definition"))
    return std::nullopt;
  auto callsSetter = [&](TSNode n) {
    return is(n, "call") && is(field(n, "function"), "identifier") &&
           setters.count(textOf(field(n, "function"), doc));
  };
  std::optional<ModuleValue> found;
  uint32_t at = ts_node_start_byte(use);
  for (TSNode stmt : syntax::namedChildren(field(def, "body"))) {
    if (ts_node_end_byte(stmt) > at)
      break;
    TSNode inner = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                       ? ts_node_named_child(stmt, 0)
                       : TSNode{};
    if (callsSetter(inner)) {
      // The setter runs here, unconditionally: its literal from now on.
      TSNode setter = setters.at(textOf(field(inner, "function"), doc));
      std::optional<TSNode> v = rebindingValue(setter, doc, name, TSNode{});
      found = v && !isNull(*v) ? ModuleValue{*v, ModuleValue::State::Known}
                               : ModuleValue{TSNode{}, ModuleValue::State::Unknown};
    } else if (found && syntax::anyNode(stmt, callsSetter, [](TSNode) { return false; })) {
      // Called again under a condition or inside an expression: either.
      found = ModuleValue{TSNode{}, ModuleValue::State::Unknown};
    }
  }
  return found;
}

std::optional<std::pair<TSNode, TSNode>> postInitStore(TSNode call, const std::string& attr,
                                                       const syntax::ParsedSource& doc,
                                                       const Globals& globals) {
  while (is(call, "parenthesized_expression"))
    call = ts_node_named_child(call, 0);
  if (!is(call, "call") || constructedField(call, attr, doc, globals))
    return std::nullopt;
  auto cls = resolveGlobalExpr(field(call, "function"), doc, globals);
  if (!cls || cls->kind != Binding::Kind::Class || !cls->file.empty())
    return std::nullopt;
  TSNode def{};
  for (TSNode stmt : syntax::namedChildren(doc.root()))
    if (is(stmt, "decorated_definition") &&
        textOf(field(field(stmt, "definition"), "name"), doc) == cls->target)
      def = stmt;
  bool dataclass = false;
  for (TSNode d : isNull(def) ? std::vector<TSNode>{} : syntax::namedChildren(def))
    if (is(d, "decorator")) {
      TSNode e = ts_node_named_child(d, 0);
      dataclass |= endsWith(dottedName(is(e, "call") ? field(e, "function") : e, doc), "dataclass");
    }
  if (!dataclass)
    return std::nullopt;
  TSNode post{};
  for (TSNode stmt : syntax::namedChildren(field(field(def, "definition"), "body"))) {
    std::string name = is(stmt, "function_definition") ? textOf(field(stmt, "name"), doc) : "";
    if (name == "__init__")
      return std::nullopt; // written by hand: not followed
    if (name == "__post_init__")
      post = stmt;
  }
  if (isNull(post))
    return std::nullopt;
  TSNode params = field(post, "parameters");
  if (ts_node_named_child_count(params) != 1 || !is(ts_node_named_child(params, 0), "identifier"))
    return std::nullopt;
  std::string self = textOf(ts_node_named_child(params, 0), doc);
  // The one store of self.attr, a statement of the body itself.
  TSNode value{};
  unsigned stores = 0;
  syntax::forEachNode(field(post, "body"), [&](TSNode n) {
    if (is(n, "identifier") && doc.textOf(n) == "__setattr__")
      stores += 2;
    if (!assignsAttribute(n, attr, doc))
      return syntax::Walk::Descend;
    TSNode left = field(n, "left");
    ++stores;
    TSNode stmt = ts_node_parent(n);
    bool top = is(n, "assignment") && is(left, "attribute") &&
               textOf(field(left, "object"), doc) == self && is(stmt, "expression_statement") &&
               ts_node_eq(ts_node_parent(stmt), field(post, "body"));
    value = top ? field(n, "right") : TSNode{};
    return syntax::Walk::Descend;
  });
  if (stores != 1 || isNull(value))
    return std::nullopt;
  return std::make_pair(post, value);
}

} // namespace pallas::analysis::names
