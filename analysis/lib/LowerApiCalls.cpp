// Lowering of a call of a JAX/Pallas API (by canonical name): launches,
// functools.partial of a construct, factories waiting for their body, and the
// lax loops and conditionals whose bodies become pallas.scope regions.
#include "Lowerer.h"

namespace pallas::analysis::lower {

TSNode CallArguments::positional(unsigned index) const {
  if (isNull(list) || is(list, "generator_expression"))
    return TSNode{};
  unsigned k = 0;
  for (TSNode ch : syntax::namedChildren(list)) {
    std::string_view t = syntax::type(ch);
    if (t == "list_splat") {
      TSNode literal = unpack ? unpack(ch) : TSNode{};
      if (isNull(literal))
        return TSNode{};
      for (TSNode el : syntax::namedChildren(literal))
        if (!is(el, "comment") && k++ == index)
          return el;
      continue;
    }
    if (t == "keyword_argument" || t == "comment" || t == "dictionary_splat")
      continue;
    if (k++ == index)
      return ch;
  }
  return TSNode{};
}

TSNode CallArguments::keyword(std::string_view name) const {
  if (isNull(list))
    return TSNode{};
  TSNode fromSplat{};
  for (TSNode ch : syntax::namedChildren(list)) {
    if (is(ch, "keyword_argument") && doc.textOf(field(ch, "name")) == name)
      return field(ch, "value");
    if (is(ch, "dictionary_splat") && splatKey)
      if (TSNode v = splatKey(ch, name); !isNull(v))
        fromSplat = v;
  }
  return fromSplat;
}

TSNode CallArguments::positionalOrKeyword(unsigned index, std::string_view name) const {
  TSNode p = positional(index);
  return isNull(p) ? keyword(name) : p;
}

// A call of a JAX/Pallas API (canonical name).
mlir::Value Lowerer::lowerApiCall(TSNode n, const std::string& api, TSNode argList) {
  CallArguments args = callArguments(argList);
  if (isLaunchApi(api))
    return lowerLaunchCall(n, api, args);
  if (api == "functools.partial")
    return lowerPartialCall(n, api, args);
  if (api == apiName(Api::When) || api == apiName(Api::Loop) || api == apiName(Api::NdLoop) ||
      api == apiName(Api::InlineMgpu))
    return factoryValue(n, api, false);
  if (api == apiName(Api::RunScoped))
    return applyBodyInCall(n, api, args.positionalOrKeyword(0, "f"));
  if (api == apiName(Api::RunState))
    return applyBodyInCall(n, api, args.positional(0));
  if (isPipelineApi(api))
    return applyBodyInCall(n, api, args.positionalOrKeyword(0, "body"));
  if (api == apiName(Api::ForiLoop) || api == apiName(Api::JaxLaxForiLoop))
    return lowerForiLoop(n, args);
  if (api == apiName(Api::WhileLoop))
    return lowerWhileLoop(n, api, args);
  if (api == apiName(Api::Cond))
    return lowerCond(n, api, args);
  Args a = lowerArgs(argList);
  if (api == apiName(Api::SetGpuInterpretMode)) {
    // Global from here on: the launches lowered after it run interpreted.
    TSPoint p = ts_node_start_point(n);
    contexts_.push_back(Context{"set_gpu_interpret_mode", p.row + 1, p.column + 1,
                                args.positionalOrKeyword(0, "params")});
  }
  return prim(n, api, a);
}

// An API called without its body: a value that emits the construct when it
// is applied to one (a decorator, a second call).
mlir::Value Lowerer::factoryValue(TSNode n, std::string api, bool viaPartial) {
  mlir::Value v = opaque(n, "factory", {});
  Factory f;
  f.api = std::move(api);
  f.call = n;
  f.viaPartial = viaPartial;
  info_[v].factory = f;
  return v;
}

// `pl.pallas_call(kernel, ...)` (also plgpu.kernel, pl.kernel, pl.core_map):
// a launch when the body is given, else a factory waiting for it.
mlir::Value Lowerer::lowerLaunchCall(TSNode n, const std::string& api, const CallArguments& args,
                                     const LaunchWrapper* wrapper) {
  // pl.pallas_call names its kernel `kernel`; plgpu.kernel and pl.kernel `body`.
  std::string_view bodyName = api == apiName(Api::PallasCall) ? "kernel" : "body";
  TSNode body = api == apiName(Api::CoreMap) ? TSNode{} : args.positionalOrKeyword(0, bodyName);
  if (api == apiName(Api::Kernel) && isNull(args.positional(0)))
    body = args.keyword("body");
  // A kernel-taking wrapper: the kernel is the wrapper's own parameter.
  if (wrapper && wrapper->takesKernel)
    body = wrapper->takesKernel->index >= 0
               ? args.positionalOrKeyword(static_cast<unsigned>(wrapper->takesKernel->index),
                                          wrapper->takesKernel->param)
           : wrapper->takesKernel->param.empty() ? TSNode{}
                                                 : args.keyword(wrapper->takesKernel->param);
  if (isNull(body)) {
    mlir::Value v = factoryValue(n, api, false);
    if (wrapper)
      info_[v].factory->wrapper = *wrapper;
    return v;
  }
  return emitLaunch(n, api, "call", n, nullptr, callableOf(body), wrapper);
}

// `functools.partial(construct, ...)` of a launch or a body-taking construct
// is a factory; any other partial is an ordinary primitive.
mlir::Value Lowerer::lowerPartialCall(TSNode n, const std::string& api, const CallArguments& args) {
  TSNode first = args.positional(0);
  // functools.partial(self.pallas_call, ...) of a launch wrapper method.
  if (auto w = isNull(first) ? std::nullopt : launchWrapperOf(first)) {
    mlir::Value v = factoryValue(n, w->api, true);
    info_[v].factory->wrapper = *w;
    return v;
  }
  if (!isNull(first) && (is(first, "identifier") || is(first, "attribute"))) {
    if (auto b = resolveBinding(first); b && b->file.empty() && names::isJaxName(b->target)) {
      std::string inner = names::canonicalApi(b->target);
      if (isLaunchApi(inner) || inner == apiName(Api::RunScoped) ||
          inner == apiName(Api::EmitPipeline) ||
          inner == apiName(Api::EmitPipelineWarpSpecialized) || inner == apiName(Api::Loop) ||
          inner == apiName(Api::When) || inner == apiName(Api::NdLoop) ||
          inner == apiName(Api::RunState))
        return factoryValue(n, inner, true);
    }
  }
  Args a = lowerArgs(args.list);
  return prim(n, api, a);
}

// A construct whose body is the call's own argument (`pl.run_scoped(body,
// ...)`): applied at once; without a body it is a factory.
mlir::Value Lowerer::applyBodyInCall(TSNode n, const std::string& api, TSNode body) {
  if (isNull(body))
    return factoryValue(n, api, false);
  Factory f{api, n, false, std::nullopt, true, std::nullopt};
  return applyFactory(n, f, callableOf(body));
}

// `lax.fori_loop(lower, upper, body_fun, init_val)`: a scope whose body gets
// the index and the carry.
mlir::Value Lowerer::lowerForiLoop(TSNode n, const CallArguments& args) {
  TSNode body = args.positionalOrKeyword(2, "body_fun");
  Args ops;
  for (auto [i, kw] :
       {std::pair<unsigned, const char*>{0, "lower"}, {1, "upper"}, {3, "init_val"}}) {
    TSNode a = args.positionalOrKeyword(i, kw);
    if (isNull(a))
      continue;
    ops.values.push_back(lowerExpr(a));
    ops.keywords.push_back(kw);
    ops.nodes.push_back(a);
  }
  return emitScope(n, std::string(apiName(Api::ForiLoop)), ops, {"value", "value"}, std::nullopt,
                   callableOf(body));
}

// `lax.while_loop(cond_fun, body_fun, init_val)`: a scope calling both.
mlir::Value Lowerer::lowerWhileLoop(TSNode n, const std::string& api, const CallArguments& args) {
  TSNode cond = args.positionalOrKeyword(0, "cond_fun"),
         body = args.positionalOrKeyword(1, "body_fun"),
         init = args.positionalOrKeyword(2, "init_val");
  Args ops;
  if (!isNull(init)) {
    ops.values.push_back(lowerExpr(init));
    ops.keywords.push_back("init_val");
  }
  CallableRef condRef = callableOf(cond);
  return emitScope(n, api, ops, {"value"}, std::nullopt, callableOf(body), {condRef});
}

// `lax.cond(pred, true_fun, false_fun, *operands)`: a scope calling both
// branches (JAX traces both) with the operands, so a branch's parameters are
// the caller's Refs and values.
mlir::Value Lowerer::lowerCond(TSNode n, const std::string& api, const CallArguments& args) {
  TSNode pred = args.positional(0), t = args.positional(1), f = args.positional(2);
  Args ops;
  if (!isNull(pred)) {
    ops.values.push_back(lowerExpr(pred));
    ops.keywords.push_back("");
  }
  CallableRef tRef = callableOf(t);
  CallableRef fRef = callableOf(f);
  Args operands = lowerArgs(args.list, 3);
  Args passed; // positional operands and splats; the old `operand=` keyword is one
  for (size_t i = 0; i < operands.values.size(); ++i) {
    const std::string& kw = operands.keywords[i];
    if (!kw.empty() && kw != "*" && kw != "operand")
      continue;
    passed.values.push_back(operands.values[i]);
    passed.keywords.push_back(kw == "operand" ? "" : kw);
    passed.nodes.push_back(operands.nodes[i]);
  }
  return emitScope(n, api, ops, {}, std::nullopt, tRef, {fRef}, &passed);
}

} // namespace pallas::analysis::lower
