// Names.h: what a module-level name holds once the module has run, in the
// order Python runs its statements (docs/analysis.md 8.15), and the fields
// of objects built by dataclass / NamedTuple constructors (8.16). Shared by
// the static evaluation of interpret= (NamesInterpret.cpp) and the
// KernelWalk's callables (analysis/passes/KernelWalkClasses.cpp).
#include "NamesInternal.h"

#include <algorithm>
#include <set>

namespace pallas::analysis::names {

namespace {

std::string textOf(TSNode n, const syntax::ParsedSource& doc) {
  return str(doc.textOf(n));
}

// The walks below are over a user's module, which may nest as deep as the
// parser allows: they use syntax::anyNode / forEachNode (a cursor), never
// recursion.
bool containsIdentifier(TSNode node, const syntax::ParsedSource& doc, const std::string& name) {
  return syntax::anyNode(
      node, [&](TSNode n) { return is(n, "identifier") && textOf(n, doc) == name; },
      [](TSNode) { return false; });
}

// Whether `node`, under a module-level statement, binds the module-level
// `name` other than by a plain top-level assignment: an assignment nested in
// if / try / for / with, an augmented assignment, a for / with target, a
// walrus, an import. Assignments inside functions and class bodies bind
// their own locals and attributes (`global name` is handled by the caller).
bool nestedBinding(TSNode node, const syntax::ParsedSource& doc, const std::string& name) {
  auto ownScope = [](TSNode n) {
    return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
  };
  auto binds = [&](TSNode n) {
    if (ownScope(n))
      return false;
    if (is(n, "import_statement") || is(n, "import_from_statement"))
      return containsIdentifier(n, doc, name);
    if (is(n, "assignment") || is(n, "augmented_assignment") || is(n, "for_statement") ||
        is(n, "as_pattern_target") || is(n, "named_expression")) {
      TSNode left = is(n, "as_pattern_target")  ? n
                    : is(n, "named_expression") ? field(n, "name")
                                                : field(n, "left");
      return !isNull(left) && containsIdentifier(left, doc, name);
    }
    return false;
  };
  auto skip = [&](TSNode n) {
    return ownScope(n) || is(n, "import_statement") || is(n, "import_from_statement");
  };
  return syntax::anyNode(node, binds, skip);
}

bool declaresGlobal(TSNode node, const syntax::ParsedSource& doc, const std::string& name) {
  return syntax::anyNode(
      node, [&](TSNode n) { return is(n, "global_statement") && containsIdentifier(n, doc, name); },
      [](TSNode n) { return is(n, "global_statement"); });
}

// The function definitions of the module (any depth) that declare
// `global name`: each rebinds it when it runs.
void rebindingFunctions(TSNode node, const syntax::ParsedSource& doc, const std::string& name,
                        std::vector<TSNode>& out) {
  syntax::forEachNode(node, [&](TSNode n) {
    if (is(n, "function_definition") && declaresGlobal(field(n, "body"), doc, name))
      out.push_back(n);
  });
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

std::optional<ModuleValue> moduleValue(const syntax::ParsedSource& doc, const std::string& name) {
  std::vector<TSNode> rebinders;
  if (doc.text().find("global") != std::string::npos) // most modules have none
    rebindingFunctions(doc.root(), doc, name, rebinders);
  std::set<uint32_t> called; // start bytes of rebinding functions called at module level
  ModuleValue out;
  bool seen = false;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode inner = is(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1
                       ? ts_node_named_child(stmt, 0)
                       : TSNode{};
    if (is(inner, "assignment") && is(field(inner, "left"), "identifier") &&
        textOf(field(inner, "left"), doc) == name && !isNull(field(inner, "right")) &&
        !is(field(inner, "right"), "assignment")) {
      out.value = field(inner, "right");
      out.state = ModuleValue::State::Known;
      seen = true;
      continue;
    }
    if (is(inner, "call") && is(field(inner, "function"), "identifier")) {
      // `enable_debug()` at module level runs its `global name; name = v`.
      std::string callee = textOf(field(inner, "function"), doc);
      for (TSNode def : rebinders) {
        if (!is(ts_node_parent(def), "module") && !is(ts_node_parent(def), "decorated_definition"))
          continue;
        if (textOf(field(def, "name"), doc) != callee)
          continue;
        called.insert(ts_node_start_byte(def));
        std::optional<TSNode> v = rebindingValue(def, doc, name, out.value);
        if (!v) {
          out.state = ModuleValue::State::Unknown;
        } else if (!ts_node_eq(*v, out.value)) {
          out.value = *v;
          out.state = ModuleValue::State::Known;
        }
        seen = true;
      }
      continue;
    }
    if (nestedBinding(stmt, doc, name)) {
      out.state = ModuleValue::State::Nested;
      seen = true;
    }
  }
  if (!seen)
    return std::nullopt;
  // A function that rebinds the name and is not run at module level may run
  // before any use: what the name holds then is not known.
  for (TSNode def : rebinders)
    if (!called.count(ts_node_start_byte(def)) && out.state == ModuleValue::State::Known)
      out.state = ModuleValue::State::Unknown;
  return out;
}

std::optional<TSNode> constructedField(TSNode call, const std::string& attr,
                                       const syntax::ParsedSource& doc, const Globals& globals) {
  while (is(call, "parenthesized_expression"))
    call = ts_node_named_child(call, 0);
  if (!is(call, "call"))
    return std::nullopt;
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

} // namespace pallas::analysis::names
