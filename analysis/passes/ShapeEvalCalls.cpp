// Calls (ShapeEval.h): to a JAX/Python API (ShapeEvalApis.cpp), to a user
// helper that returns a value, or to a value that is called.
#include "ShapeEvalInternal.h"

#include <algorithm>

namespace pallas::analysis::shape {

Value Evaluator::evalCall(TSNode call, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  TSNode callee = unparen(field(call, "function"));
  std::string qn = qualifiedName(callee, scope);
  if (!qn.empty())
    return evalApi(qn, call, scope, depth);
  // jnp.dtype(x).itemsize is an attribute; x.astype(d) etc. are not modelled.
  Value f = is(callee, "identifier") ? evalAt(callee, scope, depth + 1) : Value{};
  if (f.kind == Value::Kind::Function) {
    std::string path = f.s.substr(0, f.s.find('\x1f'));
    std::string key = f.s.substr(f.s.find('\x1f') + 1);
    const syntax::ParsedSource* fdoc = docOf(path);
    if (fdoc) {
      TSNode def{};
      if (!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)) {
        uint32_t byte = static_cast<uint32_t>(std::stoul(key));
        TSPoint at{};
        {
          TSNode n = ts_node_descendant_for_byte_range(fdoc->root(), byte, byte);
          at = ts_node_start_point(n);
          if (ts_node_start_byte(n) != byte)
            at = TSPoint{UINT32_MAX, 0};
        }
        for (TSNode n : pathAt(fdoc, at))
          if (is(n, "function_definition") && ts_node_start_byte(n) == byte)
            def = n;
      } else if (auto d = moduleDef(path, key); d && is(*d, "function_definition")) {
        def = *d;
      }
      if (!isNull(def))
        return evalUserCall(def, path, call, scope, depth + 1);
    }
  }
  return Value::unknown(str(doc->textOf(callee)) + "(...)");
}

// A user helper that returns a value: `def smem_tile(bm): return plgpu.SMEM(...)`.
// Its parameters are bound to the call's arguments; one return statement.
Value Evaluator::evalUserCall(TSNode def, const std::string& path, TSNode call, const Scope& scope,
                              int depth) {
  const syntax::ParsedSource* fdoc = docOf(path);
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (!fdoc || !doc)
    return Value::unknown("call");
  TSNode body = field(def, "body");
  std::optional<TSNode> ret;
  int returns = 0;
  std::function<void(TSNode, int)> find = [&](TSNode n, int d) {
    if (d > 64 || returns > 1)
      return;
    for (TSNode c : namedChildren(n)) {
      if (is(c, "return_statement")) {
        ++returns;
        ret = c;
      } else if (!is(c, "function_definition") && !is(c, "class_definition") &&
                 !is(c, "decorated_definition") && !is(c, "lambda")) {
        find(c, d + 1);
      }
    }
  };
  find(body, 0);
  if (returns != 1 || !ret || ts_node_named_child_count(*ret) == 0)
    return Value::unknown(str(fdoc->textOf(field(def, "name"))) + "(...)");
  Scope inner;
  inner.path = path;
  inner.function = def;
  Evaluator::Args args = Evaluator::argsOf(call, *doc);
  if (args.splat)
    return Value::unknown(str(fdoc->textOf(field(def, "name"))) + "(...)");
  size_t k = 0;
  for (const Param& p : paramsOf(def, *fdoc)) {
    if (p.star)
      break;
    TSNode a = args.get(k++, p.name);
    if (!isNull(a))
      inner.bound[p.name] = evalAt(a, scope, depth + 1);
    else if (!isNull(p.defaultValue))
      inner.bound[p.name] = evalAt(p.defaultValue, scopeAt(path, def), depth + 1);
  }
  return evalAt(ts_node_named_child(*ret, 0), inner, depth + 1);
}

} // namespace pallas::analysis::shape
