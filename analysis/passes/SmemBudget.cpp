// The SMEM budget of a launch (SmemBudget.h): the dialect gives the structure
// (which scopes, calls and closures a kernel runs), ShapeEval the sizes.
#include "EvalLaunches.h"
#include "PassKnowledge.h"
#include "SmemBudgetWalk.h"

namespace pallas::analysis::detail {

namespace pd = pallas::dialect;
namespace smem {

Res BudgetWalk::walkRegion(mlir::Region& region, const std::string& path, const Scope& scope,
                           int depth) {
  Res r;
  if (depth > 48)
    return r;
  for (mlir::Block& block : region)
    for (mlir::Operation& op : block)
      r.orWith(walkOp(&op, path, scope, depth + 1));
  return r;
}

Res BudgetWalk::walkOp(mlir::Operation* op, const std::string& path, const Scope& scope,
                       int depth) {
  Res r;
  if (auto ifOp = llvm::dyn_cast<pd::IfOp>(op)) {
    auto sc = ifOp.getStaticCond();
    if (!sc || *sc)
      r.orWith(walkRegion(ifOp.getThenRegion(), path, scope, depth));
    if (!sc || !*sc)
      r.orWith(walkRegion(ifOp.getElseRegion(), path, scope, depth));
    return r;
  }
  if (auto s = llvm::dyn_cast<pd::ScopeOp>(op)) {
    llvm::StringRef api = s.getApi();
    if (api == llvm::StringRef(apiName(Api::RunScoped)))
      return runScoped(s, path, scope, depth);
    if (api == llvm::StringRef(apiName(Api::EmitPipeline)))
      return pipeline(s, path, scope, depth);
    if (api == llvm::StringRef(apiName(Api::EmitPipelineWarpSpecialized)))
      return warpSpecializedPipeline(s, path, scope, depth);
    return walkRegion(s.getBody(), path, scope, depth);
  }
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(op)) {
    llvm::StringRef api = prim.getApi();
    if (hasApiRole(api, kReduction)) {
      r.smem = alignUp(reductionScratch_, rules_.alignment);
      if (r.smem)
        r.parts.push_back({"reduction scratch", r.smem, locOf(op->getLoc())});
    }
    return r;
  }
  if (auto call = llvm::dyn_cast<pd::CallOp>(op)) {
    FunctionRef f = ctx_.workspace.resolveCall(path, call);
    if (!f)
      return r;
    TSNode def = defAt(f.path, f.func->getLoc());
    std::vector<std::pair<std::string, Value>> args;
    auto site = callOf(path, call->getLoc());
    const syntax::ParsedSource* doc = eval_.docOf(path);
    const syntax::ParsedSource* fdoc = eval_.docOf(f.path);
    if (site && doc && fdoc && !isNull(def)) {
      Evaluator::Args a = Evaluator::argsOf(*site, *doc);
      auto names = f.func.getArgNames();
      for (size_t k = 0; k < names.size(); ++k) {
        std::string n = llvm::cast<mlir::StringAttr>(names[k]).getValue().str();
        TSNode node = a.get(a.splat ? SIZE_MAX : k, n);
        if (!isNull(node))
          args.emplace_back(n, eval_.eval(node, scope));
      }
    }
    Scope none;
    return callee(f.func.getBody(), def, f.path, args, none, false, depth);
  }
  if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(op)) {
    auto clo = ci.getCallee().getDefiningOp<pd::ClosureOp>();
    if (!clo)
      return r;
    TSNode def = defAt(path, clo->getLoc());
    std::vector<std::pair<std::string, Value>> args;
    auto site = callOf(path, ci->getLoc());
    const syntax::ParsedSource* doc = eval_.docOf(path);
    auto names = clo.getArgNames();
    if (site && doc && !isNull(def)) {
      Evaluator::Args a = Evaluator::argsOf(*site, *doc);
      for (size_t k = 0; k < names.size(); ++k) {
        std::string n = llvm::cast<mlir::StringAttr>(names[k]).getValue().str();
        TSNode node = a.get(a.splat ? SIZE_MAX : k, n);
        if (!isNull(node))
          args.emplace_back(n, eval_.eval(node, scope));
      }
    }
    // Parameters given Refs by a construct (run_scoped, pipelines) are Refs.
    for (size_t k = args.size(); k < names.size(); ++k)
      args.emplace_back(llvm::cast<mlir::StringAttr>(names[k]).getValue().str(),
                        Value::unknown("ref"));
    return callee(clo.getBody(), def, path, args, scope, true, depth);
  }
  return r;
}

Res BudgetWalk::callee(mlir::Region& body, TSNode def, const std::string& path,
                       const std::vector<std::pair<std::string, Value>>& args, const Scope& outer,
                       bool closure, int depth) {
  if (active_.count(&body) || depth > 40)
    return {};
  active_.insert(&body);
  Scope s;
  s.path = path;
  s.function = def;
  for (const auto& [n, v] : args)
    s.bound[n] = v;
  if (closure && !isNull(outer.function))
    s.parent = std::make_shared<Scope>(outer);
  Res r = walkRegion(body, path, s, depth);
  active_.erase(&body);
  return r;
}

Res BudgetWalk::runScoped(pd::ScopeOp op, const std::string& path, const Scope& scope, int depth) {
  Res allocs;
  auto call = callOf(path, op->getLoc());
  const syntax::ParsedSource* doc = eval_.docOf(path);
  // The allocations are named after the body's parameters.
  std::vector<std::string> names;
  mlir::Block& entry = op.getBody().front();
  for (mlir::Operation& inner : entry)
    if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(&inner))
      if (auto clo = ci.getCallee().getDefiningOp<pd::ClosureOp>())
        for (auto n : clo.getArgNames())
          names.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
  if (!call || !doc) {
    allocs.unknown.push_back("run_scoped allocations");
  } else {
    TSNode c = *call;
    Evaluator::Args a = Evaluator::argsOf(c, *doc);
    // @functools.partial(pl.run_scoped, x=...): the allocations follow the API.
    std::string api = eval_.qualifiedName(field(c, "function"), scope);
    if (api != apiName(Api::Partial) && api != apiName(Api::RunScoped)) {
      // `@pl.run_scoped` is not a call; the decorator form holds no allocations
      // we can read.
      allocs.unknown.push_back("run_scoped allocations");
    }
    SourceLocation at = locOf(op->getLoc());
    // Positional 0 is the body (or pl.run_scoped in functools.partial).
    for (size_t idx = 1; idx < a.positional.size(); ++idx) {
      std::string n = idx - 1 < names.size() ? names[idx - 1] : "allocation " + std::to_string(idx);
      allocs.add(allocation(eval_.eval(a.positional[idx], scope), n, at));
    }
    for (const auto& [k, node] : a.keywords)
      if (k != "collective_axes")
        allocs.add(allocation(eval_.eval(node, scope), k, at));
    if (a.splat)
      allocs.unknown.push_back("run_scoped *args");
  }
  return allocs.add(walkRegion(op.getBody(), path, scope, depth));
}

namespace {

// Shape and dtype of the operands a launch is called with, when the launch
// is called in place (`pl.pallas_call(...)(x, y)`).
std::vector<Value> callOperands(Evaluator& eval, const std::string& path, TSNode launchCall,
                                const Scope& scope) {
  std::vector<Value> out;
  const syntax::ParsedSource* doc = eval.docOf(path);
  if (!doc)
    return out;
  std::vector<TSNode> chain = eval.path(doc, launchCall);
  TSNode parent = chain.size() >= 2 ? chain[chain.size() - 2] : TSNode{};
  if (!is(parent, "call") || !ts_node_eq(field(parent, "function"), launchCall))
    return out;
  Evaluator::Args a = Evaluator::argsOf(parent, *doc);
  if (a.splat)
    return out;
  for (TSNode n : a.positional)
    out.push_back(eval.eval(n, scope));
  return out;
}

} // namespace

SmemBudget BudgetWalk::run(pd::LaunchOp launch) {
  SmemBudget b;
  llvm::StringRef api = launch.getApi();
  bool pallasCall = api == llvm::StringRef(apiName(Api::PallasCall));
  if (!pallasCall && api != llvm::StringRef(apiName(Api::GpuKernel)))
    return b;
  b.analysed = true;
  b.limit = ctx_.options.gpuSharedMemoryPerBlockOptin > 0
                ? ctx_.options.gpuSharedMemoryPerBlockOptin
                : rules_.defaultLimit;
  b.limitSource = ctx_.options.gpuSharedMemoryPerBlockOptin > 0
                      ? "the local GPU's shared_memory_per_block_optin"
                      : "JAX " + rules_.jaxVersion + "'s default without a GPU";
  if (!rules_.modelMismatch.empty())
    b.unknown.push_back("JAX " + rules_.jaxVersion + "'s shared-memory arithmetic (" +
                        rules_.modelMismatch + ")");
  SourceLocation launchAt = locOf(launch->getLoc());
  auto call = callOf(ctx_.path, launch->getLoc());
  const syntax::ParsedSource* doc = eval_.docOf(ctx_.path);
  if (!call || !doc) {
    b.unknown.push_back("launch arguments");
    return b;
  }
  Scope scope = eval_.scopeAt(ctx_.path, *call);
  Evaluator::Args a = Evaluator::argsOf(*call, *doc);
  std::string callee = eval_.qualifiedName(field(*call, "function"), scope);
  bool partial = callee == apiName(Api::Partial);
  // `grid_spec=pl.GridSpec(grid, in_specs, out_specs, scratch_shapes)`
  // carries what the keywords would (pallas_call.py builds the same GridSpec
  // from them).
  std::optional<Value> gridSpec;
  if (TSNode n = a.get(SIZE_MAX, "grid_spec"); pallasCall && !isNull(n)) {
    gridSpec = eval_.eval(n, scope);
    if (!gridSpec->isObject(apiName(Api::GridSpec)) || gridSpec->fields.count("<splat>"))
      b.unknown.push_back("grid_spec (" + gridSpec->unknownWhy() + ")");
  }
  auto kw = [&](const std::string& k) -> std::optional<Value> {
    TSNode n = a.get(SIZE_MAX, k);
    if (isNull(n)) {
      if (gridSpec && gridSpec->isObject(apiName(Api::GridSpec)) && gridSpec->fields.count(k) &&
          (k == "grid" || k == "in_specs" || k == "out_specs" || k == "scratch_shapes"))
        return gridSpec->field(k);
      return std::nullopt;
    }
    return eval_.eval(n, scope);
  };
  // compiler_params
  Value params =
      kw("compiler_params").value_or(Value::object(std::string(apiName(Api::CompilerParams))));
  if (!params.isObject(apiName(Api::CompilerParams))) {
    b.unknown.push_back("compiler_params (" + params.unknownWhy() + ")");
    params = Value::object(std::string(apiName(Api::CompilerParams)));
  }
  Value red = params.fields.count("reduction_scratch_bytes")
                  ? params.field("reduction_scratch_bytes")
                  : Value::integer(rules_.defaultReductionScratch);
  reductionScratch_ = red.isInt() ? red.i : 0;
  Value mcsV = params.fields.count("max_concurrent_steps")
                   ? params.field("max_concurrent_steps")
                   : Value::integer(rules_.defaultMaxConcurrentSteps);
  // The kernel's operands: inputs (when called in place) then outputs.
  Value outShape = kw("out_shape").value_or(kw("out_type").value_or(Value::unknown("out_shape")));
  std::vector<Value> outs =
      outShape.kind == Value::Kind::Seq ? outShape.items : std::vector<Value>{outShape};
  std::vector<Value> ins =
      partial ? std::vector<Value>{} : callOperands(eval_, ctx_.path, *call, scope);
  // Built here, run elsewhere: the operands the evaluator saw it run with.
  if (ins.empty() && !partial)
    if (auto kb = passes::knowledgeFor(ctx_.options))
      if (std::optional<std::vector<Value>> ran = passes::evaluatedOperands(
              ctx_, *kb, ctx_.path, detail::sourceLocation(launch.getLoc())))
        ins = std::move(*ran);
  // The kernel body.
  FunctionRef body = ctx_.workspace.resolveLaunchBody(ctx_.path, launch);
  mlir::Region* region = nullptr;
  std::string bodyPath = ctx_.path;
  TSNode def{};
  std::vector<std::string> paramNames;
  if (body) {
    region = &body.func.getBody();
    bodyPath = body.path;
    def = defAt(body.path, body.func->getLoc());
    for (auto n : body.func.getArgNames())
      paramNames.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
    kernelFunc_ = body.func;
  } else if (launch.getBodyValue()) {
    pd::ClosureOp clo = launch.getBodyValue().getDefiningOp<pd::ClosureOp>();
    // A factory: `make_kernel(block)` returning a closure it defines. The
    // closure sees the factory's parameters bound to the call's arguments.
    if (auto factory = launch.getBodyValue().getDefiningOp<pd::CallOp>()) {
      FunctionRef f = ctx_.workspace.resolveCall(ctx_.path, factory);
      if (f)
        for (mlir::Operation& inner : f.func.getBody().front())
          if (auto ret = llvm::dyn_cast<pd::ReturnOp>(&inner); ret && ret.getValue())
            if (auto c = ret.getValue().getDefiningOp<pd::ClosureOp>()) {
              clo = c;
              bodyPath = f.path;
              Scope fs;
              fs.path = f.path;
              fs.function = defAt(f.path, f.func->getLoc());
              if (auto site = callOf(ctx_.path, factory->getLoc())) {
                Evaluator::Args fa = Evaluator::argsOf(*site, *doc);
                auto names = f.func.getArgNames();
                for (size_t k = 0; k < names.size(); ++k) {
                  std::string n = llvm::cast<mlir::StringAttr>(names[k]).getValue().str();
                  if (TSNode node = fa.get(fa.splat ? SIZE_MAX : k, n); !isNull(node))
                    fs.bound[n] = eval_.eval(node, scope);
                }
              }
              factoryScope_ = std::make_shared<Scope>(fs);
            }
    }
    if (clo) {
      region = &clo.getBody();
      def = defAt(bodyPath, clo->getLoc());
      for (auto n : clo.getArgNames())
        paramNames.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
      kernelFunc_ = clo;
    }
  }
  if (!region) {
    b.unknown.push_back("kernel body " + launch.getBodyText().str());
  }
  // Scratch: the last len(scratch) parameters.
  Value scratch = kw("scratch_shapes").value_or(kw("scratch_types").value_or(Value::seq({})));
  size_t nScratch = scratch.kind == Value::Kind::Seq ? scratch.items.size() : 0;
  size_t nOperands = paramNames.size() >= nScratch ? paramNames.size() - nScratch : 0;
  // `def kernel(q_ref, k_ref, v_ref, o_ref, *rest)`: the star parameter
  // takes whatever operands and scratch refs come after the named ones.
  bool starred = std::any_of(paramNames.begin(), paramNames.end(), [](const std::string& p) {
    return p.rfind('*', 0) == 0 && p.rfind("**", 0) != 0;
  });
  if (starred && ins.size() + outs.size() + nScratch + 1 >= paramNames.size())
    nOperands = ins.size() + outs.size();
  bool insKnown = ins.size() + outs.size() == nOperands;
  kernelParams_.clear();
  if (insKnown) {
    kernelParams_ = ins;
    kernelParams_.insert(kernelParams_.end(), outs.begin(), outs.end());
  } else {
    for (size_t k = 0; k < nOperands; ++k)
      kernelParams_.push_back(k + outs.size() >= nOperands ? outs[k + outs.size() - nOperands]
                                                           : Value::unknown("input operand"));
  }
  Res scratchRes;
  if (scratch.kind == Value::Kind::Seq) {
    for (size_t k = 0; k < scratch.items.size(); ++k) {
      // `def kernel(x_ref, o_ref, *scratch)`: a star parameter takes several
      // Refs, so names past it do not line up.
      std::string n = !starred && nOperands + k < paramNames.size()
                          ? paramNames[nOperands + k]
                          : "scratch " + std::to_string(k);
      scratchRes.add(allocation(scratch.items[k], n, launchAt));
    }
  } else {
    scratchRes.unknown.push_back("scratch_shapes (" + scratch.unknownWhy() + ")");
  }
  Res pipelineRes;
  if (pallasCall) {
    // pallas_call's own pipeline over the sequential grid axes.
    Value grid = kw("grid").value_or(Value::seq({}));
    if (grid.isInt())
      grid = Value::seq({grid});
    Value sem =
        params.fields.count("dimension_semantics") ? params.field("dimension_semantics") : Value{};
    int64_t steps = 1;
    bool stepsKnown = true;
    if (sem.kind == Value::Kind::Seq) {
      for (size_t k = 0; k < sem.items.size(); ++k) {
        const Value& s = sem.items[k];
        bool sequential = s.kind == Value::Kind::Str && (s.s == "sequential" || s.s == "arbitrary");
        if (!s.known() || (s.kind != Value::Kind::Str && s.kind != Value::Kind::Object))
          stepsKnown = false;
        if (s.kind == Value::Kind::Object)
          sequential = s.s.find("SEQUENTIAL") != std::string::npos ||
                       s.s.find("sequential") != std::string::npos;
        if (!sequential)
          continue;
        if (grid.kind != Value::Kind::Seq || k >= grid.items.size() || !grid.items[k].isInt())
          stepsKnown = false;
        else
          steps *= grid.items[k].i;
      }
    } else if (sem.known() && sem.kind != Value::Kind::None) {
      stepsKnown = false;
    }
    if (rules_.overrideMaxConcurrentSteps > 0)
      mcsV = Value::integer(rules_.overrideMaxConcurrentSteps);
    int64_t mcs = mcsV.isInt() ? std::min(mcsV.i, steps) : -1;
    if (!mcsV.isInt() || !stepsKnown) {
      pipelineRes.unknown.push_back("max_concurrent_steps (" +
                                    (mcsV.isInt() ? std::string("grid") : mcsV.unknownWhy()) + ")");
    } else {
      // Specs: given, or the whole array (default BlockSpec) per operand.
      auto specsFor = [&](const char* key, size_t count) {
        if (auto v = kw(key)) {
          if (v->kind == Value::Kind::Seq || !v->known())
            return *v;
          return Value::seq({*v}); // a single spec
        }
        std::vector<Value> items(count, [] {
          Value s = Value::object(std::string(kBlockSpecObject));
          Value none;
          none.kind = Value::Kind::None;
          s.fields["block_shape"] = none;
          return s;
        }());
        return Value::seq(items);
      };
      size_t nIns = nOperands >= outs.size() ? nOperands - outs.size() : 0;
      Value inSpecs = specsFor("in_specs", nIns);
      Value outSpecs = specsFor("out_specs", outs.size());
      std::vector<Value> inRefs(kernelParams_.begin(),
                                kernelParams_.begin() + std::min(nIns, kernelParams_.size()));
      std::vector<std::string> inNames(paramNames.begin(),
                                       paramNames.begin() + std::min(nIns, paramNames.size()));
      std::vector<std::string> outNames;
      for (size_t k = nIns; k < nOperands && k < paramNames.size(); ++k)
        outNames.push_back(paramNames[k]);
      int64_t smemInputs = 0;
      pipelineRes = buffers(inSpecs, inRefs, inNames, mcs, true, launchAt, &smemInputs);
      pipelineRes.add(buffers(outSpecs, outs, outNames, mcs, false, launchAt, &smemInputs));
      if (smemInputs > 0)
        pipelineRes.barriers[{smemInputs, mcs, false, ""}] += 1;
      if (pipelineRes.smem > 0 && mcs > 0) {
        pipelined_.present = true;
        pipelined_.inPallasCall = true;
        pipelined_.steps = mcs;
        pipelined_.written = mcsV.i;
        pipelined_.perStep = pipelineRes.smem / mcs;
        TSNode n = syntax::isNull(a.get(SIZE_MAX, "compiler_params"))
                       ? TSNode{}
                       : a.get(SIZE_MAX, "compiler_params");
        if (!isNull(n) && is(n, "call")) {
          Evaluator::Args pa = Evaluator::argsOf(n, *doc);
          if (TSNode m = pa.get(SIZE_MAX, "max_concurrent_steps"); !isNull(m)) {
            SourceLocation l;
            l.path = ctx_.path;
            TSPoint s = ts_node_start_point(m), e = ts_node_end_point(m);
            l.range = {{s.row, s.column}, {e.row, e.column}};
            pipelined_.at = l;
          }
        }
      }
    }
  }
  Res bodyRes;
  if (region) {
    Scope s;
    s.path = bodyPath;
    s.function = def;
    for (const std::string& n : paramNames)
      s.bound[n] = Value::unknown(n);
    s.parent = factoryScope_;
    bodyRes = walkRegion(*region, bodyPath, s, 0);
  }
  // Nesting: scratch run_scoped > pipeline run_scoped > body.
  Res total = scratchRes;
  total.add(pipelineRes);
  total.add(bodyRes);
  int64_t barrierBytes = total.barrierBytes(rules_);
  b.total = total.smem + barrierBytes;
  b.parts = total.parts;
  if (barrierBytes > 0)
    b.parts.push_back({"barriers", barrierBytes, launchAt});
  // TMEM: one allocation of all columns (lowering.py), whose address JAX
  // keeps in SMEM after the barriers (mosaic/gpu/core.py _smem_tree_size).
  b.tmem.cols = total.tmemCols + total.tmemCollectiveCols;
  b.tmem.limit = rules_.tmemMaxCols;
  b.tmem.mixesCollective = total.tmemCols > 0 && total.tmemCollectiveCols > 0;
  b.tmem.parts = total.tmemParts;
  if (b.tmem.cols > 0) {
    int64_t p = 1;
    while (p < b.tmem.cols)
      p *= 2;
    b.tmem.allocated = std::max(p, rules_.tmemMinAllocCols);
    b.total += rules_.tmemAddressBytes;
    b.parts.push_back({"TMEM address", rules_.tmemAddressBytes, launchAt});
  }
  std::set<std::string> seen;
  for (std::string& u : total.unknown)
    if (seen.insert(u).second)
      b.unknown.push_back(u);
  b.pipeline = pipelined_;
  b.issues = issues_;
  return b;
}

} // namespace smem

SmemBudget smemBudget(const PassContext& ctx, pd::LaunchOp launch, const SmemRules& rules,
                      const SmemIndex* index) {
  if (!index) {
    SmemIndex own(ctx);
    return smemBudget(ctx, launch, rules, &own);
  }
  smem::BudgetWalk walk(ctx, rules, index->evaluator());
  return walk.run(launch);
}

} // namespace pallas::analysis::detail
