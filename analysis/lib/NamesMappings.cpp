// The keys a `**mapping` passed to a launch holds, built the way Python
// builds it (docs/analysis.md 8.7, 8.73, 8.74): a dict literal's pairs and
// `**m` entries in order (a later key replaces an earlier one),
// `dict(m, k=v)` / `dict(**m, k=v)`, `a | b`, a name the caller's `resolve`
// maps to the expression bound to it, and an entry of a dict of mappings
// picked by a constant key (`LAUNCH_OPTIONS["debug"]`). Shared by the
// lowering (the launch's own keywords) and the call contexts (a caller's
// `**OVERRIDES`, a table entry under each caller's key).
#include "NamesInternal.h"

namespace pallas::analysis::names {

void MappingKeys::set(std::string k, TSNode v) {
  for (auto& [name, value] : keys)
    if (name == k) {
      value = v;
      return;
    }
  keys.emplace_back(std::move(k), v);
}

void MappingKeys::forget(TSNode part) {
  keysBeforeLast = std::move(keys);
  unknownBeforeLast = unknown;
  keys.clear();
  unknown = true;
  lastUnknown = part;
}

const TSNode* MappingKeys::find(const std::string& k) const {
  for (const auto& [name, value] : keys)
    if (name == k)
      return &value;
  return nullptr;
}

namespace {
constexpr unsigned kMaxMappingDepth = 8; // names of mappings followed (also a self-reference)
} // namespace

void mappingKeys(TSNode d, const syntax::ParsedSource& doc, const MappingResolve& resolve,
                 const LocalLookup& keyLookup, bool dictShadowed, MappingKeys& out,
                 unsigned depth) {
  while (is(d, "parenthesized_expression"))
    d = ts_node_named_child(d, 0);
  if (depth > kMaxMappingDepth) {
    out.forget(d);
    return;
  }
  if (is(d, "identifier")) {
    TSNode bound = resolve(str(doc.textOf(d)));
    if (isNull(bound))
      out.forget(d);
    else
      mappingKeys(bound, doc, resolve, keyLookup, dictShadowed, out, depth + 1);
    return;
  }
  if (is(d, "dictionary")) {
    for (TSNode pair : syntax::namedChildren(d)) {
      if (is(pair, "comment"))
        continue;
      if (is(pair, "dictionary_splat")) {
        mappingKeys(ts_node_named_child(pair, 0), doc, resolve, keyLookup, dictShadowed, out,
                    depth + 1);
        continue;
      }
      TSNode key = field(pair, "key");
      std::string k = is(pair, "pair") && is(key, "string") ? str(doc.textOf(key)) : std::string();
      // A computed key (or a string with a prefix or an escape) may be any key.
      if (k.size() < 2 || (k.front() != '"' && k.front() != '\'') ||
          k.find('\\') != std::string::npos) {
        out.forget(pair);
        continue;
      }
      out.set(k.substr(1, k.size() - 2), field(pair, "value"));
    }
    return;
  }
  if (is(d, "binary_operator") && doc.textOf(field(d, "operator")) == "|") {
    mappingKeys(field(d, "left"), doc, resolve, keyLookup, dictShadowed, out, depth + 1);
    mappingKeys(field(d, "right"), doc, resolve, keyLookup, dictShadowed, out, depth + 1);
    return;
  }
  if (is(d, "call") && doc.textOf(field(d, "function")) == "dict" && !dictShadowed) {
    unsigned positional = 0;
    for (TSNode a : syntax::namedChildren(field(d, "arguments"))) {
      if (is(a, "comment"))
        continue;
      if (is(a, "keyword_argument"))
        out.set(str(doc.textOf(field(a, "name"))), field(a, "value"));
      else if (is(a, "dictionary_splat"))
        mappingKeys(ts_node_named_child(a, 0), doc, resolve, keyLookup, dictShadowed, out,
                    depth + 1);
      else if (positional++ == 0 && !is(a, "list_splat"))
        mappingKeys(a, doc, resolve, keyLookup, dictShadowed, out, depth + 1); // dict(base, ...)
      else
        out.forget(a);
    }
    return;
  }
  // `TABLE[key]`: the entry of a dict (of mappings) the key picks when the
  // key is a constant here (a literal, a module constant, a parameter the
  // lookup binds for one caller). An entry of a module-level table reads
  // the module's names. Otherwise the part stays unknown: the call contexts
  // pick the entry per caller (8.73).
  if (is(d, "subscript")) {
    TSNode table = field(d, "value");
    if (is(table, "identifier"))
      (void)resolve(str(doc.textOf(table))); // record the lookup (the lowering re-lowers on change)
    bool fromModule = false;
    if (std::optional<TSNode> entry = elementOf(d, doc, keyLookup, &fromModule)) {
      if (!fromModule) {
        mappingKeys(*entry, doc, resolve, keyLookup, dictShadowed, out, depth + 1);
        return;
      }
      MappingResolve moduleNames = [&doc](const std::string& name) -> TSNode {
        auto mv = moduleValue(doc, name);
        return mv && mv->state == ModuleValue::State::Known ? mv->value : TSNode{};
      };
      mappingKeys(*entry, doc, moduleNames, nullptr, false, out, depth + 1);
      return;
    }
  }
  out.forget(d);
}

InterpretEval interpretInMapping(TSNode subscript, const syntax::ParsedSource& doc,
                                 const Globals& globals, const LocalLookup& lookup) {
  InterpretEval unknown{{"unknown"}, "unknown", str(doc.textOf(subscript)), {}, false};
  // Only an entry of a module-level table: its values read the module's names.
  bool fromModule = false;
  std::optional<TSNode> entry = elementOf(subscript, doc, lookup, &fromModule);
  if (!entry || !fromModule)
    return unknown;
  MappingResolve moduleNames = [&doc](const std::string& name) -> TSNode {
    auto mv = moduleValue(doc, name);
    return mv && mv->state == ModuleValue::State::Known ? mv->value : TSNode{};
  };
  MappingKeys m;
  mappingKeys(*entry, doc, moduleNames, nullptr, false, m, 0);
  if (const TSNode* v = m.find("interpret")) {
    InterpretEval e = evaluateInterpret(*v, doc, globals, nullptr);
    return e.source == "param" || e.source == "default_param" ? unknown : e;
  }
  if (m.unknown)
    return unknown;
  return evaluateInterpret(TSNode{}, doc, globals, nullptr); // absent: the launch's default
}

} // namespace pallas::analysis::names
