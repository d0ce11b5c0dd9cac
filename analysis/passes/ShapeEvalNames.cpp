// A name's value (ShapeEval.h): bound in the scope, assigned before the use,
// a parameter's default, or what every caller passes.
#include "ShapeEvalInternal.h"

#include <algorithm>

namespace pallas::analysis::shape {

Value Evaluator::boundValue(const std::string& name, TSNode binding, const Scope& scope,
                            int depth) {
  if (is(binding, "function_definition")) {
    Value v;
    v.kind = Value::Kind::Function;
    v.s = scope.path + '\x1f' + std::to_string(ts_node_start_byte(binding));
    return v;
  }
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (!doc || !is(binding, "assignment"))
    return Value::unknown(name);
  TSNode left = field(binding, "left");
  TSNode right = field(binding, "right");
  while (is(right, "assignment")) // a = b = value
    right = field(right, "right");
  Value v = evalAt(right, scope, depth + 1);
  if (is(left, "identifier"))
    return v;
  auto k = indexInPattern(left, name, *doc);
  if (v.kind == Value::Kind::Seq && k && *k < v.items.size())
    return v.items[*k];
  return Value::unknown(name);
}

Value Evaluator::evalName(const std::string& name, TSNode use, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (!doc)
    return Value::unknown(name);
  if (auto it = scope.bound.find(name); it != scope.bound.end())
    return it->second;
  if (!isNull(scope.function)) {
    TSNode body = field(scope.function, "body");
    bool conditional = false;
    if (is(body, "block")) {
      if (auto a = lastAssignment(body, name, use, *doc, &conditional))
        return conditional ? Value::unknown(name) : boundValue(name, *a, scope, depth);
    }
    for (const Param& p : paramsOf(scope.function, *doc))
      if (p.name == name)
        return p.star ? Value::unknown(name) : paramValue(name, p.node, scope, depth + 1);
    // A closure: the enclosing def's names.
    Scope outer = scope.parent ? *scope.parent : scopeAt(scope.path, scope.function);
    if (!scope.parent && !isNull(outer.function))
      return evalName(name, outer.function, outer, depth + 1);
    if (scope.parent)
      return evalName(name, scope.function, outer, depth + 1);
  }
  // Module level: the same for every use in the file (its last binding, or
  // the import), so computed once per name: each launch's SMEM and shape
  // checks read the same module constants again and again.
  std::string key = scope.path + '\x1f' + name;
  if (auto it = moduleNames_.find(key); it != moduleNames_.end())
    return it->second;
  Value v = moduleName(name, doc, scope.path, depth);
  return moduleNames_.emplace(std::move(key), std::move(v)).first->second;
}

Value Evaluator::moduleName(const std::string& name, const syntax::ParsedSource* doc,
                            const std::string& path, int depth) {
  Scope scope;
  scope.path = path;
  TSNode root = doc->root();
  bool conditional = false;
  if (auto a = lastAssignment(root, name, root, *doc, &conditional)) {
    if (conditional)
      return Value::unknown(name);
    Scope module; // a module-level right-hand side sees only module names
    module.path = scope.path;
    return boundValue(name, *a, module, depth);
  }
  // Imported from another workspace file: that file's binding.
  auto f = index_.file(scope.path);
  if (f && f->globals)
    if (const names::Binding* b = f->globals->find(name); b && !b->file.empty()) {
      if (b->kind == names::Binding::Kind::Function) {
        Value v;
        v.kind = Value::Kind::Function;
        v.s = b->file + '\x1f' + b->target;
        return v;
      }
      std::string leaf = b->target.substr(b->target.rfind('.') + 1);
      Scope other;
      other.path = b->file;
      if (other.path != scope.path && docOf(other.path))
        return evalName(leaf.empty() ? name : leaf, TSNode{}, other, depth + 1);
    }
  return Value::unknown(name);
}

Value Evaluator::paramValue(const std::string& name, TSNode param, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  TSNode defaultValue{};
  if (is(param, "default_parameter") || is(param, "typed_default_parameter"))
    defaultValue = field(param, "value");
  // A module-level def: what its callers pass.
  TSNode def = scope.function;
  TSNode parent{};
  if (const syntax::ParsedSource* d = docOf(scope.path)) {
    std::vector<TSNode> chain = this->path(d, def);
    size_t k = chain.size() >= 2 ? chain.size() - 2 : 0;
    if (chain.size() >= 2 && is(chain[k], "decorated_definition") && k > 0)
      --k;
    if (chain.size() >= 2)
      parent = chain[k];
  }
  if (is(def, "function_definition") && is(parent, "module") && depth < kMaxDepth) {
    Value v = fromCallers(name, scope, depth + 1);
    if (v.known())
      return v;
    if (v.s != "<no callers>")
      return v;
  }
  if (!isNull(defaultValue)) {
    Scope outer = scopeAt(scope.path, def);
    return evalAt(defaultValue, outer, depth + 1);
  }
  (void)doc;
  return Value::unknown(name);
}

Value Evaluator::fromCallers(const std::string& name, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (!doc || depth > kMaxDepth)
    return Value::unknown(name);
  std::string symbol = str(doc->textOf(field(scope.function, "name")));
  // Caller hops are bounded: a deep chain of parameters is unknown.
  int hops = 0;
  for (int d = depth; d > 0; d -= 4)
    ++hops;
  if (hops > kMaxCallerDepth * 3)
    return Value::unknown(name);
  std::vector<SourceIndex::CallSite> sites = index_.callersOf(scope.path, symbol);
  if (sites.empty())
    return Value::unknown("<no callers>");
  std::vector<Param> params = paramsOf(scope.function, *doc);
  size_t position = 0;
  bool keywordOnly = false;
  for (const Param& p : params) {
    if (p.name == name)
      break;
    if (p.star)
      keywordOnly = true;
    ++position;
  }
  std::optional<Value> agreed;
  for (const SourceIndex::CallSite& site : sites) {
    auto call = callAt(site.path, site.row, site.column);
    const syntax::ParsedSource* cdoc = docOf(site.path);
    if (!call || !cdoc)
      return Value::unknown(name);
    Evaluator::Args args = Evaluator::argsOf(*call, *cdoc);
    TSNode arg = args.get(keywordOnly ? SIZE_MAX : position, name);
    Value v;
    if (isNull(arg)) {
      if (args.splat)
        return Value::unknown(name);
      const Param& p = params[std::min(position, params.size() - 1)];
      if (isNull(p.defaultValue))
        return Value::unknown(name);
      v = evalAt(p.defaultValue, scopeAt(scope.path, scope.function), depth + 1);
    } else {
      v = evalAt(arg, scopeAt(site.path, *call), depth + 1);
    }
    if (!v.known())
      return Value::unknown(name);
    if (agreed && agreed->str() != v.str())
      return Value::unknown(name + " (callers disagree)");
    agreed = v;
  }
  return agreed ? *agreed : Value::unknown(name);
}

} // namespace pallas::analysis::shape
