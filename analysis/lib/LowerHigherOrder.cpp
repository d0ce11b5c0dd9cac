// Lowering of higher-order constructs: parameters and function scopes,
// closures, pallas.scope regions for bodies given to an API, factories applied
// to their body, nested decorators, and the inline_mgpu wrapper with its
// declared argument kinds.
#include "Lowerer.h"

namespace pallas::analysis::lower {

// ---- higher-order constructs -------------------------------------------------

std::vector<std::string> Lowerer::paramNames(TSNode def) {
  std::vector<std::string> out;
  TSNode params = field(def, "parameters");
  if (isNull(params))
    return out;
  for (TSNode p : syntax::namedChildren(params)) {
    std::string_view t = syntax::type(p);
    if (t == "identifier")
      out.push_back(text(p));
    else if (t == "default_parameter" || t == "typed_default_parameter")
      out.push_back(text(field(p, "name")));
    else if (t == "typed_parameter") {
      TSNode id = ts_node_named_child(p, 0);
      std::string name = text(id);
      if (is(id, "list_splat_pattern"))
        name = "*" + text(ts_node_named_child(id, 0));
      if (is(id, "dictionary_splat_pattern"))
        name = "**" + text(ts_node_named_child(id, 0));
      out.push_back(name);
    } else if (t == "list_splat_pattern")
      out.push_back("*" + text(ts_node_named_child(p, 0)));
    else if (t == "dictionary_splat_pattern")
      out.push_back("**" + text(ts_node_named_child(p, 0)));
  }
  return out;
}

// Bind a def's (or lambda's) parameters to the block arguments in a new
// function scope; `argOrigins` empty means "arg" (a function's own params).
void Lowerer::bindParams(TSNode def, mlir::Block* block,
                         const std::vector<std::string>& argOrigins) {
  scopes_.emplace_back();
  scopes_.back().def = def;
  std::vector<std::string> names = paramNames(def);
  TSNode params = field(def, "parameters");
  std::unordered_map<std::string, TSNode> defaults;
  if (!isNull(params))
    for (TSNode p : syntax::namedChildren(params)) {
      if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
        defaults[text(field(p, "name"))] = field(p, "value");
    }
  for (unsigned i = 0; i < names.size() && i < block->getNumArguments(); ++i) {
    std::string name = names[i];
    while (!name.empty() && name[0] == '*')
      name.erase(0, 1);
    mlir::Value arg = block->getArgument(i);
    ValInfo& vi = info_[arg];
    if (argOrigins.empty())
      vi.prov = Prov{pd::origin::kArg, static_cast<int>(i)};
    else {
      llvm::StringRef o =
          i < argOrigins.size() ? llvm::StringRef(argOrigins[i]) : llvm::StringRef("value");
      // Keep the attribute storage alive: origins are string constants.
      for (const char* k : {pd::origin::kValue, pd::origin::kRunScoped, pd::origin::kAcc,
                            pd::origin::kRunState, pd::origin::kPipeline, pd::origin::kRef})
        if (o == k)
          vi.prov = Prov{k, -1};
    }
    vi.isParam = true;
    if (auto d = defaults.find(names[i]); d != defaults.end())
      vi.paramDefault = d->second;
    scopes_.back().vars[name] = Var{arg, regionDepth_};
  }
}

void Lowerer::lowerDefInto(mlir::Block* block, TSNode def,
                           const std::vector<std::string>& argOrigins,
                           llvm::ArrayRef<mlir::Value>) {
  inRegion(block, [&] {
    bindParams(def, block, argOrigins);
    TSNode body = field(def, "body");
    if (is(def, "lambda")) {
      mlir::Value v = lowerExpr(body);
      pd::ReturnOp::create(b_, loc(body), v);
    } else {
      lowerBlock(body);
      emitLateBindings(body);
    }
    scopes_.pop_back();
  });
}

mlir::Value Lowerer::closure(TSNode def, std::optional<Factory> inlineMgpu) {
  std::vector<std::string> names = paramNames(def);
  // An inline_mgpu wrapper is called without the launch context.
  if (inlineMgpu && !names.empty())
    names.erase(names.begin());
  std::string name = is(def, "lambda") ? "<lambda>" : text(field(def, "name"));
  auto op = pd::ClosureOp::create(
      b_, loc(def), valueTy_, name,
      is(def, "lambda") ? pd::ClosureKind::Lambda : pd::ClosureKind::Def, strArray(names));
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  for (size_t i = 0; i < names.size(); ++i)
    block->addArgument(valueTy_, loc(def));
  if (inlineMgpu) {
    inRegion(block, [&] { emitInlineMgpu(def, def, &*inlineMgpu, block); });
  } else {
    lowerDefInto(block, def, {}, {});
  }
  info_[op.getResult()].closureDef = def;
  return op.getResult();
}

// Inside the wrapper (func or closure) of an inline_mgpu-decorated def: the
// inline_mgpu op binds the wrapper's parameters after the context.
void Lowerer::emitInlineMgpu(TSNode site, TSNode def, const Factory* f, mlir::Block* wrapper) {
  // The wrapper's parameters are what the caller passes; all become operands.
  llvm::SmallVector<mlir::Value> operands;
  for (unsigned i = 0; i < wrapper->getNumArguments(); ++i) {
    operands.push_back(wrapper->getArgument(i));
    info_[wrapper->getArgument(i)].prov = Prov{pd::origin::kArg, static_cast<int>(i)};
  }
  std::vector<std::string> names = paramNames(def);
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(operands, origins, indices);
  mlir::StringAttr argTypes, returnType;
  mlir::ArrayAttr kinds;
  int64_t count = -1;
  if (f && !isNull(f->call)) {
    TSNode args = field(f->call, "arguments");
    std::vector<TSNode> all = syntax::namedChildren(args);
    for (size_t i = 0; i < all.size(); ++i) {
      TSNode a = all[i];
      TSNode v;
      std::string k;
      if (is(a, "keyword_argument")) {
        k = text(field(a, "name"));
        v = field(a, "value");
      } else {
        k = i == 0 ? "arg_types" : i == 1 ? "return_type" : "";
        v = a;
      }
      if (k == "arg_types") {
        argTypes = b_.getStringAttr(text(v));
        if (auto ks = typeSequenceKinds(v)) {
          count = static_cast<int64_t>(ks->size());
          kinds = enumArray<pd::ArgTypeKindAttr>(*ks, pd::ArgTypeKind::Array);
        }
      } else if (k == "return_type") {
        returnType = b_.getStringAttr(text(v));
      }
    }
  }
  if (!argTypes) {
    count = 0; // arg_types defaults to ()
    kinds = strArray({});
  }
  auto op = pd::InlineMgpuOp::create(b_, loc(site), valueTy_, operands, origins, indices, argTypes,
                                     kinds, returnType, b_.getI64IntegerAttr(count));
  mlir::Block* body = new mlir::Block();
  op.getBody().push_back(body);
  for (size_t i = 0; i < names.size(); ++i)
    body->addArgument(valueTy_, loc(def));
  lowerDefInto(body, def, {}, {});
  pd::ReturnOp::create(b_, loc(site), op.getResult());
}

mlir::Value Lowerer::emitScope(TSNode site, const std::string& api, const Args& operands,
                               const std::vector<std::string>& argOrigins,
                               const std::optional<std::vector<std::string>>& allocations,
                               const CallableRef& body, llvm::ArrayRef<CallableRef> extraBodies,
                               const Args* bodyArgs) {
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(operands.values, origins, indices);
  std::vector<std::string> blockOrigins = argOrigins;
  // The body's parameters are the block arguments, when its def is known
  // (written in place, or a closure of this function).
  TSNode bodyDef = body.def;
  if (isNull(bodyDef) && body.value)
    if (ValInfo* vi = infoOf(body.value))
      bodyDef = vi->closureDef;
  if (!isNull(bodyDef) && (!body.value || argOrigins.empty() || api == apiName(Api::RunState))) {
    size_t n = paramNames(bodyDef).size();
    if (isPipelineApi(api)) {
      blockOrigins.assign(n, pd::origin::kPipeline);
      if (n)
        blockOrigins[0] = pd::origin::kValue;
    } else if (api == apiName(Api::RunState)) {
      blockOrigins.assign(n, pd::origin::kRunState);
    } else {
      blockOrigins.resize(n, pd::origin::kValue);
    }
  }
  std::optional<std::vector<std::string>> allocs = allocations;
  if (allocs && allocs->size() != blockOrigins.size())
    allocs.reset();
  auto op =
      pd::ScopeOp::create(b_, loc(site), valueTy_, api, operands.values,
                          strArray(operands.keywords), origins, indices, originArray(blockOrigins),
                          allocs ? allocArray(*allocs) : mlir::ArrayAttr(), mlir::StringAttr());
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  for (const std::string& o : blockOrigins)
    block->addArgument(o == pd::origin::kValue ? valueTy_ : refTy_, loc(site));
  if (!isNull(body.def) && !body.value) {
    lowerDefInto(block, body.def, blockOrigins, {});
    return op.getResult();
  }
  inRegion(block, [&] {
    for (unsigned i = 0; i < block->getNumArguments(); ++i) {
      Prov p;
      for (const char* k : {pd::origin::kValue, pd::origin::kRunScoped, pd::origin::kAcc,
                            pd::origin::kRunState, pd::origin::kPipeline, pd::origin::kRef})
        if (blockOrigins[i] == k)
          p = Prov{k, -1};
      info_[block->getArgument(i)].prov = p;
    }
    auto callOne = [&](const CallableRef& c) {
      if (c.symbol.empty() && c.value == nullptr)
        return;
      // The body gets the scope's block arguments, or the operands the
      // construct passes it (`lax.cond(p, t, f, x_ref, o_ref)` calls the
      // branch with x_ref and o_ref themselves).
      llvm::SmallVector<mlir::Value> args(block->getArguments().begin(),
                                          block->getArguments().end());
      std::vector<std::string> kws(args.size(), "");
      if (bodyArgs) {
        args.assign(bodyArgs->values.begin(), bodyArgs->values.end());
        kws = bodyArgs->keywords;
      }
      mlir::ArrayAttr o;
      mlir::DenseI64ArrayAttr idx;
      operandInfo(args, o, idx);
      // The call is located at the scope, with the body's place as callee.
      mlir::Location l = loc(site);
      // A module function through `functools.partial(f, a, ...)` is called
      // through the partial, which passes its bound arguments first.
      if (!c.symbol.empty() && !c.value) {
        pd::CallOp::create(b_, l, valueTy_, c.symbol,
                           c.file.empty() ? mlir::StringAttr() : b_.getStringAttr(c.file), args,
                           strArray(kws), o, idx);
      } else {
        if (auto* def = c.value.getDefiningOp())
          l = mlir::CallSiteLoc::get(def->getLoc(), loc(site));
        pd::CallIndirectOp::create(b_, l, valueTy_, c.value, args, strArray(kws), o, idx);
      }
    };
    for (const CallableRef& c : extraBodies)
      callOne(c);
    callOne(body);
  });
  return op.getResult();
}

// The kernel `functools.partial(pl.pallas_call, kernel, ...)` binds (also
// `kernel=`, or `body=` of plgpu.kernel); null when the partial leaves it to
// the call that applies it.
TSNode Lowerer::partialBoundKernel(TSNode partialCall, const std::string& api) {
  if (isNull(partialCall) || !is(partialCall, "call") || api == apiName(Api::CoreMap))
    return TSNode{};
  CallArguments args = callArguments(field(partialCall, "arguments"));
  return args.positionalOrKeyword(1, api == apiName(Api::Kernel) ? "body" : "kernel");
}

// The kernel a module-level partial binds, by name: a function of the
// partial's own file.
CallableRef Lowerer::partialBindingKernel(const Binding& partial) {
  CallableRef c;
  c.text = partial.partialKernel;
  if (!partial.file.empty() && partial.file != in_.path) {
    c.symbol = partial.partialKernel;
    c.file = partial.file;
  } else if (auto b = findGlobal(partial.partialKernel);
             b && b->kind == Binding::Kind::Function && !b->launched) {
    c.symbol = b->target;
    c.file = b->file == in_.path ? "" : b->file;
  }
  return c;
}

mlir::Value Lowerer::applyFactory(TSNode site, const Factory& f, const CallableRef& body) {
  const std::string& api = f.api;
  if (isLaunchApi(api)) {
    // A partial of the launch API applied by a call of its own
    // (`launch(kernel, interpret=True)`, `call()`): that call's keywords are
    // the launch's too, after the partial's (Python merges them so), and a
    // kernel the partial binds (`partial(pl.pallas_call, kernel, ...)`) is
    // the body (8.35). A decorator applies the partial without a call.
    TSNode applied =
        f.viaPartial && is(site, "call") && !ts_node_eq(site, f.call) ? site : TSNode{};
    CallableRef kernel = body;
    if (TSNode bound =
            f.viaPartial && !f.partial && !f.wrapper ? partialBoundKernel(f.call, api) : TSNode{};
        !isNull(bound))
      kernel = callableOf(bound);
    else if (f.partial && !f.partial->partialKernel.empty() && isNull(body.def) && !body.value &&
             body.symbol.empty())
      kernel = partialBindingKernel(*f.partial);
    return emitLaunch(site, api, f.partial ? "partial" : "decorator", f.partial ? TSNode{} : f.call,
                      f.partial ? &*f.partial : nullptr, kernel, f.wrapper ? &*f.wrapper : nullptr,
                      applied);
  }
  // The factory call's own arguments (minus the function for partials).
  TSNode argList = isNull(f.call) ? TSNode{} : field(f.call, "arguments");
  // functools.partial(api, ...) and api(body, ...) both have one positional
  // argument that is not the construct's own.
  unsigned skip = f.viaPartial || f.bodyInCall ? 1 : 0;
  Args ops = lowerArgs(argList, skip);
  if (api == apiName(Api::When) || api == apiName(Api::Loop) || api == apiName(Api::NdLoop)) {
    std::vector<std::string> origins;
    if (api != apiName(Api::When))
      origins = {"value"};
    return emitScope(site, api, ops, origins, std::nullopt, body);
  }
  if (api == apiName(Api::RunScoped))
    return applyRunScoped(site, api, ops, body);
  if (api == apiName(Api::RunState)) {
    size_t n = 1;
    if (!isNull(body.def))
      n = paramNames(body.def).size();
    return emitScope(site, api, ops, std::vector<std::string>(n, pd::origin::kRunState),
                     std::nullopt, body);
  }
  if (isPipelineApi(api)) {
    std::vector<std::string> origins;
    if (!isNull(body.def)) {
      size_t n = paramNames(body.def).size();
      origins.assign(n, pd::origin::kPipeline);
      if (n)
        origins[0] = pd::origin::kValue;
    }
    return emitScope(site, api, ops, origins, std::nullopt, body);
  }
  if (api == apiName(Api::InlineMgpu)) {
    // plgpu.inline_mgpu(...)(fn): wrap the def (a lambda, or a nested def
    // seen earlier) like the decorator form does.
    TSNode def = body.def;
    if (isNull(def) && body.value)
      if (ValInfo* vi = infoOf(body.value))
        def = vi->closureDef;
    if (!isNull(def))
      return closure(def, f);
    return body.value ? body.value : opaque(site, "function", {});
  }
  return opaque(site, "factory_application", ops.values);
}

// pl.run_scoped applied to its body: one block argument per allocation,
// positional first, then keywords in the body's parameter order when the body
// is in place.
mlir::Value Lowerer::applyRunScoped(TSNode site, const std::string& api, const Args& ops,
                                    const CallableRef& body) {
  std::vector<std::string> kinds, origins;
  std::vector<std::pair<std::string, std::string>> byKeyword;
  for (size_t i = 0; i < ops.values.size(); ++i) {
    std::string kind = names::allocationKind(ops.nodes[i], doc_, globals_);
    if (ops.keywords[i] == "collective_axes")
      continue;
    if (ops.keywords[i].empty())
      kinds.push_back(kind);
    else
      byKeyword.emplace_back(ops.keywords[i], kind);
  }
  if (!isNull(body.def) && !body.value) {
    std::vector<std::string> params = paramNames(body.def);
    for (size_t i = kinds.size(); i < params.size(); ++i) {
      std::string k = "other";
      for (auto& [kw, kind] : byKeyword)
        if (kw == params[i])
          k = kind;
      kinds.push_back(k);
    }
  } else {
    for (auto& [kw, kind] : byKeyword)
      kinds.push_back(kind);
  }
  for (auto& k : kinds)
    origins.push_back(k == "acc" ? pd::origin::kAcc : pd::origin::kRunScoped);
  const CallableRef& b2 = body;
  if (!isNull(b2.def) && !b2.value) {
    // In place: emitScope sizes the block from the def; keep our origins.
    mlir::ArrayAttr o;
    mlir::DenseI64ArrayAttr idx;
    operandInfo(ops.values, o, idx);
    auto op =
        pd::ScopeOp::create(b_, loc(site), valueTy_, api, ops.values, strArray(ops.keywords), o,
                            idx, originArray(origins), allocArray(kinds), mlir::StringAttr());
    mlir::Block* block = new mlir::Block();
    op.getBody().push_back(block);
    for (auto& org : origins)
      block->addArgument(org == pd::origin::kValue ? valueTy_ : refTy_, loc(site));
    lowerDefInto(block, b2.def, origins, {});
    return op.getResult();
  }
  return emitScope(site, api, ops, origins, kinds, body);
}

// The kinds ("ref" for plgpu.RefType(...), "array" otherwise) of the types an
// inline_mgpu `arg_types=` declares, evaluating what Python would: a tuple or
// list literal, `+` of sequences, `*` by an integer literal, None (no
// argument), a single type (one argument). nullopt when the source does not
// determine it (a name bound elsewhere, a splat): then nothing is checked.
std::optional<std::vector<std::string>> Lowerer::typeSequenceKinds(TSNode expr, unsigned depth) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  if (isNull(expr) || depth > 16)
    return std::nullopt;
  auto single = [&](TSNode el) -> std::optional<std::string> {
    TSNode callee = is(el, "call") ? field(el, "function") : el;
    auto b = resolveBinding(callee);
    std::string api = b && b->file.empty() ? names::canonicalApi(b->target) : "";
    if (api == apiName(Api::RefType))
      return std::string("ref");
    if (is(el, "call") || (b && names::isJaxName(b->target)))
      return std::string("array");
    return std::nullopt;
  };
  if (is(expr, "none"))
    return std::vector<std::string>{};
  if (is(expr, "tuple") || is(expr, "list")) {
    std::vector<std::string> ks;
    for (TSNode el : syntax::namedChildren(expr)) {
      if (is(el, "comment"))
        continue;
      auto k = single(el);
      if (!k)
        return std::nullopt;
      ks.push_back(*k);
    }
    return ks;
  }
  if (is(expr, "binary_operator")) {
    std::string_view op = doc_.textOf(field(expr, "operator"));
    TSNode l = field(expr, "left"), r = field(expr, "right");
    auto strip = [](TSNode n) {
      while (is(n, "parenthesized_expression"))
        n = ts_node_named_child(n, 0);
      return n;
    };
    auto isSeq = [&](TSNode n) {
      n = strip(n);
      return is(n, "tuple") || is(n, "list") || is(n, "binary_operator");
    };
    if (op == "+") {
      if (!isSeq(l) || !isSeq(r))
        return std::nullopt;
      auto a = typeSequenceKinds(l, depth + 1), b = typeSequenceKinds(r, depth + 1);
      if (!a || !b)
        return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return a;
    }
    if (op == "*") {
      l = strip(l);
      r = strip(r);
      if (is(l, "integer"))
        std::swap(l, r);
      int64_t n = 0;
      if (!isSeq(l) || !is(r, "integer") || llvm::StringRef(doc_.textOf(r)).getAsInteger(0, n) ||
          n < 0)
        return std::nullopt;
      auto a = typeSequenceKinds(l, depth + 1);
      if (!a)
        return std::nullopt;
      std::vector<std::string> out;
      for (int64_t i = 0; i < n && out.size() < 4096; ++i)
        out.insert(out.end(), a->begin(), a->end());
      return out;
    }
    return std::nullopt;
  }
  if (auto k = single(expr))
    return std::vector<std::string>{*k};
  return std::nullopt;
}

bool Lowerer::innermostIsInlineMgpu(TSNode decorated) {
  TSNode last{};
  for (TSNode d : syntax::namedChildren(decorated))
    if (is(d, "decorator"))
      last = d;
  if (isNull(last))
    return false;
  TSNode e = ts_node_named_child(last, 0);
  TSNode callee = is(e, "call") ? field(e, "function") : e;
  auto b = resolveBinding(callee);
  return b && b->file.empty() && names::isJaxName(b->target) &&
         names::canonicalApi(b->target) == apiName(Api::InlineMgpu);
}

// Apply a nested def's decorators (innermost first). Returns the value the
// def's name is bound to.
mlir::Value Lowerer::decorate(TSNode decorated, TSNode def) {
  std::vector<TSNode> decorators;
  for (TSNode d : syntax::namedChildren(decorated)) {
    if (is(d, "decorator"))
      decorators.push_back(ts_node_named_child(d, 0));
  }
  // Decorators that run the body in place or wrap it take the def itself
  // when they are innermost.
  mlir::Value current;
  bool first = true;
  for (auto it = decorators.rbegin(); it != decorators.rend(); ++it, first = false) {
    TSNode expr = *it;
    mlir::Value dec = lowerExpr(expr);
    ValInfo* vi = infoOf(dec);
    if (vi && vi->factory) {
      Factory f = *vi->factory;
      CallableRef body;
      body.text = text(field(def, "name"));
      if (first && f.api == apiName(Api::InlineMgpu)) {
        current = closure(def, f);
        continue;
      }
      if (first && (runsBodyInPlace(f.api) || isPipelineApi(f.api))) {
        body.def = def;
      } else {
        body.value = current ? current : closure(def);
      }
      current = applyFactory(expr, f, body);
      continue;
    }
    if (!current)
      current = closure(def);
    Args a;
    a.values.push_back(current);
    a.keywords.push_back("");
    a.nodes.push_back(def);
    current = callValue(expr, dec, a);
  }
  if (!current)
    current = closure(def);
  return current;
}

} // namespace pallas::analysis::lower
