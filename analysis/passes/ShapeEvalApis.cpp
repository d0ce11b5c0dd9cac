// The JAX and Python APIs the shape evaluator models (ShapeEval.h):
// jnp dtypes, jax.ShapeDtypeStruct, plgpu.SMEM / Barrier / BlockSpec /
// CompilerParams, math.prod, min/max/len and friends.
#include "ShapeEvalInternal.h"

#include <set>

namespace pallas::analysis::shape {

namespace detail {
namespace {

void collectIdentifiers(TSNode n, const syntax::ParsedSource& doc, std::set<std::string>& out,
                        int depth) {
  if (depth > 64)
    return;
  if (is(n, "identifier"))
    out.insert(str(doc.textOf(n)));
  for (TSNode c : namedChildren(n))
    collectIdentifiers(c, doc, out, depth + 1);
}

} // namespace

// `lambda i, k: (0, k)` -> false, `lambda i: (0, 0)` -> true; nullopt for
// anything but a lambda with plain parameters (a def, *args).
std::optional<bool> lambdaIgnoresParameters(TSNode node, const syntax::ParsedSource& doc) {
  if (isNull(node) || !is(node, "lambda"))
    return std::nullopt;
  std::set<std::string> params, used;
  if (TSNode ps = field(node, "parameters"); !isNull(ps))
    for (TSNode p : namedChildren(ps)) {
      if (!is(p, "identifier"))
        return std::nullopt;
      params.insert(str(doc.textOf(p)));
    }
  collectIdentifiers(field(node, "body"), doc, used, 0);
  for (const std::string& p : params)
    if (used.count(p))
      return false;
  return true;
}

} // namespace detail

// Numbers from builtins and helpers: min/max/sum, math.prod, len, int, abs,
// tuple/list, pl.cdiv; a scalar constructor (jnp.float32(1.0)) is no dtype.
std::optional<Value> Evaluator::evalScalarApi(const ApiCall& c) {
  const std::string& api = c.api;
  const Evaluator::Args& a = c.args;
  const std::string& text = c.text;
  if (!dtypeOfName(api).empty())
    return Value::unknown(text); // jnp.float32(1.0): a scalar, not a dtype
  if (api == apiName(Api::JnpDtype) || api == apiName(Api::NumpyDtype)) {
    Value d = fromDtypeValue(c.arg(0, "dtype"));
    return d;
  }
  if (api == "builtins.min" || api == "builtins.max" || api == "builtins.sum") {
    std::vector<Value> vals;
    if (a.positional.size() == 1) {
      Value s = c.arg(0, "");
      if (s.kind != Value::Kind::Seq)
        return Value::unknown(text);
      vals = s.items;
    } else {
      for (size_t k = 0; k < a.positional.size(); ++k)
        vals.push_back(c.arg(k, ""));
    }
    if (vals.empty() && api != "builtins.sum")
      return Value::unknown(text);
    int64_t r = 0;
    bool first = true;
    for (const Value& v : vals) {
      if (!v.isInt())
        return v.known() ? Value::unknown(text) : v;
      if (api == "builtins.sum")
        r += v.i;
      else if (first || (api == "builtins.min" ? v.i < r : v.i > r))
        r = v.i;
      first = false;
    }
    return Value::integer(r);
  }
  if (api == apiName(Api::MathProd) || api == apiName(Api::NumpyProd)) {
    Value s = c.arg(0, "");
    if (s.kind != Value::Kind::Seq)
      return s.known() ? Value::unknown(text) : s;
    int64_t r = 1;
    for (const Value& v : s.items) {
      if (!v.isInt())
        return v.known() ? Value::unknown(text) : v;
      r *= v.i;
    }
    return Value::integer(r);
  }
  if (api == "builtins.len") {
    Value s = c.arg(0, "");
    if (s.kind == Value::Kind::Seq)
      return Value::integer(static_cast<int64_t>(s.items.size()));
    return s.known() ? Value::unknown(text) : s;
  }
  if (api == "builtins.int" || api == "builtins.abs") {
    Value v = c.arg(0, "");
    if (v.isInt())
      return api == "builtins.abs" ? Value::integer(v.i < 0 ? -v.i : v.i) : v;
    if (v.kind == Value::Kind::Float && api == "builtins.int")
      return Value::integer(static_cast<int64_t>(v.f));
    return v.known() ? Value::unknown(text) : v;
  }
  if (api == "builtins.tuple" || api == "builtins.list") {
    Value v = c.arg(0, "");
    v.i = api == "builtins.list";
    return v.kind == Value::Kind::Seq ? v : (v.known() ? Value::unknown(text) : v);
  }
  if (api == apiName(Api::Cdiv)) {
    Value x = c.arg(0, ""), y = c.arg(1, "");
    if (x.isInt() && y.isInt() && y.i > 0)
      return Value::integer((x.i + y.i - 1) / y.i);
    return Value::unknown(text);
  }
  return std::nullopt;
}

// Arrays and their specs: ShapeDtypeStruct, jnp/np creators, jax.random.
std::optional<Value> Evaluator::evalArrayApi(const ApiCall& c) {
  const std::string& api = c.api;
  const std::string& text = c.text;
  const std::string& leaf = c.leaf;
  bool numpyLike = startsWith(api, "jnp.") || startsWith(api, "numpy.");
  if (api == apiName(Api::ShapeDtypeStruct)) {
    Value v = Value::object(std::string(apiName(Api::ShapeDtypeStruct)));
    v.fields["shape"] = c.arg(0, "shape");
    v.fields["dtype"] = fromDtypeValue(c.arg(1, "dtype"));
    return v;
  }
  if (numpyLike && (leaf == "zeros" || leaf == "ones" || leaf == "empty" || leaf == "full")) {
    Value v = Value::object("array");
    v.fields["shape"] = asShapeTuple(c.arg(0, "shape"));
    size_t dtypeIndex = leaf == "full" ? 2 : 1;
    v.fields["dtype"] =
        c.has(dtypeIndex, "dtype")
            ? fromDtypeValue(c.arg(dtypeIndex, "dtype"))
            : (leaf == "full" ? Value::unknown("dtype of " + text) : Value::dtype("float32"));
    return v;
  }
  if (startsWith(api, "jax.random.") &&
      (leaf == "normal" || leaf == "uniform" || leaf == "bernoulli")) {
    Value v = Value::object("array");
    v.fields["shape"] = c.arg(1, "shape");
    v.fields["dtype"] =
        c.has(2, "dtype") ? fromDtypeValue(c.arg(2, "dtype")) : Value::dtype("float32");
    return v;
  }
  return std::nullopt;
}

// Allocations (SMEM, GMEM, TMEM, ACC), grid specs, barriers, RefUnion.
std::optional<Value> Evaluator::evalAllocationApi(const ApiCall& c) {
  const std::string& api = c.api;
  const Evaluator::Args& a = c.args;
  const std::string& text = c.text;
  if (api == apiName(Api::Smem) || api == apiName(Api::Gmem) || api == apiName(Api::Tmem) ||
      api == apiName(Api::Any) || api == apiName(Api::Acc) || api == apiName(Api::AccInit)) {
    Value v = Value::object(api);
    v.fields["shape"] = asShapeTuple(c.arg(0, "shape"));
    v.fields["dtype"] = c.has(1, "dtype")
                            ? fromDtypeValue(c.arg(1, "dtype"))
                            : ((api == apiName(Api::Acc) || api == apiName(Api::AccInit))
                                   ? Value::dtype("float32")
                                   : Value::unknown("dtype of " + text));
    if (c.has(99, "transforms"))
      v.fields["transforms"] = c.arg(99, "transforms");
    if (api == apiName(Api::Tmem)) // Blackwell tensor memory: what sizes it in columns
      for (const char* k : {"packed", "collective", "layout"})
        if (c.has(99, k))
          v.fields[k] = c.arg(99, k);
    return v;
  }
  if (api == apiName(Api::GridSpec)) { // pl.GridSpec(grid, in_specs, out_specs, scratch_shapes)
    Value v = Value::object(api);
    const char* keys[] = {"grid", "in_specs", "out_specs", "scratch_shapes"};
    for (size_t k = 0; k < 4; ++k)
      if (c.has(k, keys[k]))
        v.fields[keys[k]] = c.arg(k, keys[k]);
    if (a.splat)
      v.fields["<splat>"] = Value::unknown(text);
    return v;
  }
  if (api == apiName(Api::Barrier)) {
    Value v = Value::object(api);
    v.fields["num_arrivals"] =
        c.has(0, "num_arrivals") ? c.arg(0, "num_arrivals") : Value::integer(1);
    v.fields["num_barriers"] =
        barrierCount(c.has(1, "num_barriers") ? c.arg(1, "num_barriers") : Value::integer(1));
    v.fields["orders_tensor_core"] =
        c.has(2, "orders_tensor_core") ? c.arg(2, "orders_tensor_core") : Value::boolean(false);
    return v;
  }
  if (api == apiName(Api::ClusterBarrier)) { // keyword-only, like plgpu.Barrier
    Value v = Value::object(api);
    v.fields["num_arrivals"] =
        c.has(99, "num_arrivals") ? c.arg(99, "num_arrivals") : Value::integer(1);
    v.fields["num_barriers"] =
        barrierCount(c.has(99, "num_barriers") ? c.arg(99, "num_barriers") : Value::integer(1));
    v.fields["collective_axes"] = c.has(99, "collective_axes") ? c.arg(99, "collective_axes")
                                                               : Value::unknown("collective_axes");
    return v;
  }
  if (api == apiName(Api::RefUnion)) { // plgpu.RefUnion(*groups): each a tree of allocations
    Value v = Value::object(api);
    std::vector<Value> groups;
    groups.reserve(a.positional.size());
    for (size_t k = 0; k < a.positional.size(); ++k)
      groups.push_back(c.arg(k, ""));
    v.fields["refs"] = Value::seq(groups);
    if (a.splat)
      v.fields["<splat>"] = Value::unknown(text);
    return v;
  }
  return std::nullopt;
}

// BlockSpecs, transforms and compiler params.
std::optional<Value> Evaluator::evalSpecApi(const ApiCall& c) {
  const std::string& api = c.api;
  const Evaluator::Args& a = c.args;
  const std::string& text = c.text;
  const Scope& scope = c.scope;
  int depth = c.depth;
  const syntax::ParsedSource* doc = c.doc;
  if (api == apiName(Api::BlockSpec) || api == apiName(Api::GpuBlockSpec)) {
    Value v = Value::object(std::string(kBlockSpecObject));
    v.fields["block_shape"] =
        c.has(0, "block_shape") ? asShapeTuple(c.arg(0, "block_shape")) : Value::none();
    if (c.has(2, "memory_space"))
      v.fields["memory_space"] = c.arg(2, "memory_space");
    if (c.has(99, "delay_release"))
      v.fields["delay_release"] = c.arg(99, "delay_release");
    // Whether the index map ignores the grid indices (pipeline.py
    // _is_index_invariant): a pipeline gives such a block one buffer.
    if (!c.has(1, "index_map")) {
      Value yes;
      yes.kind = Value::Kind::Bool;
      yes.i = 1;
      v.fields["index_map_invariant"] = yes;
    } else if (auto inv = lambdaIgnoresParameters(a.get(1, "index_map"), *doc)) {
      Value b;
      b.kind = Value::Kind::Bool;
      b.i = *inv;
      v.fields["index_map_invariant"] = b;
    }
    if (c.has(99, "transforms"))
      v.fields["transforms"] = c.arg(99, "transforms");
    return v;
  }
  // Issue 17 (PLS006-PLS008, MosaicLaunch.h): the transforms of a BlockSpec
  // or an SMEM allocation.
  if (api == apiName(Api::TilingTransform)) {
    Value v = Value::object(api);
    v.fields["tiling"] = c.arg(0, "tiling");
    return v;
  }
  if (api == apiName(Api::SwizzleTransform)) {
    Value v = Value::object(api);
    v.fields["swizzle"] = c.arg(0, "swizzle");
    return v;
  }
  if (api == apiName(Api::CompilerParams)) {
    Value v = Value::object(api);
    if (!a.positional.empty() || a.splat)
      v.fields["<positional>"] = Value::unknown(text);
    for (const auto& [k, n] : a.keywords)
      v.fields[k] = evalAt(n, scope, depth + 1);
    return v;
  }
  return std::nullopt;
}

Value Evaluator::ApiCall::arg(size_t index, const std::string& keyword) const {
  TSNode n = args.get(index, keyword);
  if (isNull(n))
    return Value::unknown("<absent " + keyword + ">");
  return ev->evalAt(n, scope, depth + 1);
}

bool Evaluator::ApiCall::has(size_t index, const std::string& keyword) const {
  return !isNull(args.get(index, keyword));
}

Value Evaluator::evalApi(const std::string& api, TSNode call, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  ApiCall c{this, api, scope, depth, doc, Evaluator::argsOf(call, *doc), str(doc->textOf(call)),
            ""};
  if (c.text.size() > 60)
    c.text = c.text.substr(0, 57) + "...";
  c.leaf = api.substr(api.rfind('.') + 1);
  for (auto part : {&Evaluator::evalScalarApi, &Evaluator::evalArrayApi,
                    &Evaluator::evalAllocationApi, &Evaluator::evalSpecApi})
    if (std::optional<Value> v = (this->*part)(c))
      return *v;
  return Value::unknown(c.text); // builtins.range and the rest: not a shape
}

} // namespace pallas::analysis::shape
