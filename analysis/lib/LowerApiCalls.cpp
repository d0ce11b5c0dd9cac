// Lowering of a call of a JAX/Pallas API (by canonical name): launches,
// functools.partial of a construct, factories waiting for their body, and the
// lax loops and conditionals whose bodies become pallas.scope regions.
#include "Lowerer.h"

namespace pallas::analysis::lower {

// A call of a JAX/Pallas API (canonical name).
mlir::Value Lowerer::lowerApiCall(TSNode n, const std::string& api, TSNode argList) {
  auto positional = [&](unsigned index) -> TSNode {
    if (isNull(argList) || is(argList, "generator_expression"))
      return TSNode{};
    unsigned k = 0;
    for (uint32_t i = 0, c = ts_node_named_child_count(argList); i < c; ++i) {
      TSNode ch = ts_node_named_child(argList, i);
      std::string_view t = syntax::type(ch);
      if (t == "keyword_argument" || t == "comment" || t == "list_splat" || t == "dictionary_splat")
        continue;
      if (k++ == index)
        return ch;
    }
    return TSNode{};
  };
  auto keyword = [&](std::string_view name) -> TSNode {
    if (isNull(argList))
      return TSNode{};
    for (uint32_t i = 0, c = ts_node_named_child_count(argList); i < c; ++i) {
      TSNode ch = ts_node_named_child(argList, i);
      if (is(ch, "keyword_argument") && doc_.textOf(field(ch, "name")) == name)
        return field(ch, "value");
    }
    return TSNode{};
  };
  auto bodyArg = [&](unsigned index, std::string_view kw) {
    TSNode p = positional(index);
    return isNull(p) ? keyword(kw) : p;
  };
  auto makeFactory = [&](std::string fapi, bool viaPartial) {
    mlir::Value v = opaque(n, "factory", {});
    Factory f;
    f.api = std::move(fapi);
    f.call = n;
    f.viaPartial = viaPartial;
    info_[v].factory = f;
    return v;
  };

  if (isLaunchApi(api)) {
    TSNode body = api == "pl.core_map" ? TSNode{} : bodyArg(0, "body");
    if (api == "pl.kernel" && isNull(positional(0)))
      body = keyword("body");
    if (isNull(body))
      return makeFactory(api, false);
    return emitLaunch(n, api, "call", n, nullptr, callableOf(body));
  }
  if (api == "functools.partial") {
    TSNode first = positional(0);
    if (!isNull(first) && (is(first, "identifier") || is(first, "attribute"))) {
      if (auto b = resolveBinding(first); b && b->file.empty() && names::isJaxName(b->target)) {
        std::string inner = names::canonicalApi(b->target);
        if (isLaunchApi(inner) || inner == "pl.run_scoped" || inner == "plgpu.emit_pipeline" ||
            inner == "plgpu.emit_pipeline_warp_specialized" || inner == "pl.loop" ||
            inner == "pl.when" || inner == "plgpu.nd_loop" || inner == "pl.run_state")
          return makeFactory(inner, true);
      }
    }
    Args a = lowerArgs(argList);
    return prim(n, api, a);
  }
  if (api == "pl.when" || api == "pl.loop" || api == "plgpu.nd_loop" || api == "plgpu.inline_mgpu")
    return makeFactory(api, false);
  if (api == "pl.run_scoped") {
    TSNode body = bodyArg(0, "f");
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "pl.run_state") {
    TSNode body = positional(0);
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "plgpu.emit_pipeline" || api == "plgpu.emit_pipeline_warp_specialized") {
    TSNode body = bodyArg(0, "body");
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "lax.fori_loop" || api == "jax.lax.fori_loop") {
    TSNode body = bodyArg(2, "body_fun");
    Args ops;
    for (auto [i, kw] :
         {std::pair<unsigned, const char*>{0, "lower"}, {1, "upper"}, {3, "init_val"}}) {
      TSNode a = bodyArg(i, kw);
      if (isNull(a))
        continue;
      ops.values.push_back(lowerExpr(a));
      ops.keywords.push_back(kw);
      ops.nodes.push_back(a);
    }
    return emitScope(n, "lax.fori_loop", ops, {"value", "value"}, std::nullopt, callableOf(body));
  }
  if (api == "lax.while_loop") {
    TSNode cond = bodyArg(0, "cond_fun"), body = bodyArg(1, "body_fun"),
           init = bodyArg(2, "init_val");
    Args ops;
    if (!isNull(init)) {
      ops.values.push_back(lowerExpr(init));
      ops.keywords.push_back("init_val");
    }
    CallableRef condRef = callableOf(cond);
    return emitScope(n, api, ops, {"value"}, std::nullopt, callableOf(body), {condRef});
  }
  if (api == "lax.cond") {
    TSNode pred = positional(0), t = positional(1), f = positional(2);
    Args ops;
    if (!isNull(pred)) {
      ops.values.push_back(lowerExpr(pred));
      ops.keywords.push_back("");
    }
    CallableRef fRef = callableOf(f);
    return emitScope(n, api, ops, {}, std::nullopt, callableOf(t), {fRef});
  }
  if (api == "interpret.set_gpu_interpret_mode") {
    Args a = lowerArgs(argList);
    TSPoint p = ts_node_start_point(n);
    contexts_.push_back(Context{"set_gpu_interpret_mode", p.row + 1, p.column + 1});
    return prim(n, api, a);
  }
  Args a = lowerArgs(argList);
  return prim(n, api, a);
}

} // namespace pallas::analysis::lower
