// The SMEM budget of a launch (SmemBudget.h): the dialect gives the structure
// (which scopes, calls and closures a kernel runs), ShapeEval the sizes.
#include "EvalLaunches.h"
#include "KernelParams.h"
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

// What a launch's call gives: its arguments (and a grid_spec's fields, which
// carry what the keywords would: pallas_call.py builds the same GridSpec
// from them), the scope they are evaluated in, and its document.
struct BudgetWalk::LaunchCall {
  TSNode call{};
  const syntax::ParsedSource* doc = nullptr;
  Scope scope;
  Evaluator::Args args;
  bool partial = false;
  std::optional<Value> gridSpec;
};

std::optional<Value> BudgetWalk::keyword(const LaunchCall& c, const std::string& k) {
  TSNode n = c.args.get(SIZE_MAX, k);
  if (isNull(n)) {
    if (c.gridSpec && c.gridSpec->isObject(apiName(Api::GridSpec)) && c.gridSpec->fields.count(k) &&
        (k == "grid" || k == "in_specs" || k == "out_specs" || k == "scratch_shapes"))
      return c.gridSpec->field(k);
    return std::nullopt;
  }
  return eval_.eval(n, c.scope);
}

// The kernel body: a function of the workspace, a closure, or the closure a
// factory call returns (`make_kernel(block)`), which sees the factory's
// parameters bound to the call's arguments (factoryScope_).
BudgetWalk::KernelBody BudgetWalk::kernelBody(pd::LaunchOp launch, const LaunchCall& c) {
  KernelBody k;
  k.path = ctx_.path;
  FunctionRef body = ctx_.workspace.resolveLaunchBody(ctx_.path, launch);
  if (body) {
    k.region = &body.func.getBody();
    k.path = body.path;
    k.def = defAt(body.path, body.func->getLoc());
    const syntax::ParsedSource* defDoc = eval_.docOf(body.path);
    if (defDoc && !isNull(k.def)) {
      TSNode bodyArgument =
          c.partial || c.args.positional.empty() ? TSNode{} : c.args.positional[0];
      k.params = passes::refParameters(*defDoc, k.def, c.doc,
                                       passes::partialCallOf(eval_, bodyArgument, c.scope));
    } else {
      for (auto n : body.func.getArgNames())
        k.params.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
    }
    kernelFunc_ = body.func;
    return k;
  }
  if (!launch.getBodyValue())
    return k;
  pd::ClosureOp clo = launch.getBodyValue().getDefiningOp<pd::ClosureOp>();
  if (auto factory = launch.getBodyValue().getDefiningOp<pd::CallOp>()) {
    FunctionRef f = ctx_.workspace.resolveCall(ctx_.path, factory);
    if (f)
      for (mlir::Operation& inner : f.func.getBody().front())
        if (auto ret = llvm::dyn_cast<pd::ReturnOp>(&inner); ret && ret.getValue())
          if (auto returned = ret.getValue().getDefiningOp<pd::ClosureOp>()) {
            clo = returned;
            k.path = f.path;
            Scope fs;
            fs.path = f.path;
            fs.function = defAt(f.path, f.func->getLoc());
            if (auto site = callOf(ctx_.path, factory->getLoc())) {
              Evaluator::Args fa = Evaluator::argsOf(*site, *c.doc);
              auto names = f.func.getArgNames();
              for (size_t i = 0; i < names.size(); ++i) {
                std::string n = llvm::cast<mlir::StringAttr>(names[i]).getValue().str();
                if (TSNode node = fa.get(fa.splat ? SIZE_MAX : i, n); !isNull(node))
                  fs.bound[n] = eval_.eval(node, c.scope);
              }
            }
            factoryScope_ = std::make_shared<Scope>(fs);
          }
  }
  if (clo) {
    k.region = &clo.getBody();
    k.def = defAt(k.path, clo->getLoc());
    for (auto n : clo.getArgNames())
      k.params.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
    kernelFunc_ = clo;
  }
  return k;
}

// pallas_call's own pipeline over the sequential grid axes: each block spec
// buffered max_concurrent_steps times (clamped to the steps), plus the
// barrier of the SMEM inputs.
Res BudgetWalk::pallasCallPipeline(const LaunchCall& c, const Value& params, Value mcsV,
                                   const Operands& ops, const SourceLocation& launchAt) {
  Res pipelineRes;
  Value grid = keyword(c, "grid").value_or(Value::seq({}));
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
    return pipelineRes;
  }
  // Specs: given, or the whole array (default BlockSpec) per operand.
  auto specsFor = [&](const char* key, size_t count) {
    if (auto v = keyword(c, key)) {
      if (v->kind == Value::Kind::Seq || !v->known())
        return *v;
      return Value::seq({*v}); // a single spec
    }
    Value whole = Value::object(std::string(kBlockSpecObject));
    whole.fields["block_shape"] = Value::none();
    return Value::seq(std::vector<Value>(count, whole));
  };
  size_t nIns = ops.count >= ops.outs.size() ? ops.count - ops.outs.size() : 0;
  Value inSpecs = specsFor("in_specs", nIns);
  Value outSpecs = specsFor("out_specs", ops.outs.size());
  std::vector<Value> inRefs(kernelParams_.begin(),
                            kernelParams_.begin() + std::min(nIns, kernelParams_.size()));
  std::vector<std::string> inNames(ops.names.begin(),
                                   ops.names.begin() + std::min(nIns, ops.names.size()));
  std::vector<std::string> outNames;
  for (size_t k = nIns; k < ops.count && k < ops.names.size(); ++k)
    outNames.push_back(ops.names[k]);
  int64_t smemInputs = 0;
  pipelineRes = buffers(inSpecs, inRefs, inNames, mcs, true, launchAt, &smemInputs);
  pipelineRes.add(buffers(outSpecs, ops.outs, outNames, mcs, false, launchAt, &smemInputs));
  if (smemInputs > 0)
    pipelineRes.barriers[{smemInputs, mcs, false, ""}] += 1;
  if (pipelineRes.smem > 0 && mcs > 0)
    notePallasCallPipeline(c, pipelineRes.smem / mcs, mcs, mcsV.i);
  return pipelineRes;
}

// Where the "reduce max_concurrent_steps" fix edits a pallas_call's pipeline.
void BudgetWalk::notePallasCallPipeline(const LaunchCall& c, int64_t perStep, int64_t steps,
                                        int64_t written) {
  pipelined_.present = true;
  pipelined_.inPallasCall = true;
  pipelined_.steps = steps;
  pipelined_.written = written;
  pipelined_.perStep = perStep;
  TSNode n = c.args.get(SIZE_MAX, "compiler_params");
  if (isNull(n) || !is(n, "call"))
    return;
  Evaluator::Args pa = Evaluator::argsOf(n, *c.doc);
  if (TSNode m = pa.get(SIZE_MAX, "max_concurrent_steps"); !isNull(m)) {
    SourceLocation l;
    l.path = ctx_.path;
    TSPoint s = ts_node_start_point(m), e = ts_node_end_point(m);
    l.range = {{s.row, s.column}, {e.row, e.column}};
    pipelined_.at = l;
  }
}

// The kernel's operands, inputs (when called in place, or as the evaluator
// saw it run elsewhere) then outputs, against its parameters: the last
// len(scratch) parameters are scratch, and `def kernel(q_ref, ..., *rest)`'s
// star parameter takes whatever operands and scratch refs come after the
// named ones. Sets kernelParams_.
BudgetWalk::Operands BudgetWalk::operands(pd::LaunchOp launch, const LaunchCall& c,
                                          const KernelBody& k, size_t nScratch) {
  Operands ops;
  ops.names = k.params;
  Value outShape = keyword(c, "out_shape")
                       .value_or(keyword(c, "out_type").value_or(Value::unknown("out_shape")));
  ops.outs = outShape.kind == Value::Kind::Seq ? outShape.items : std::vector<Value>{outShape};
  std::vector<Value> ins =
      c.partial ? std::vector<Value>{} : callOperands(eval_, ctx_.path, c.call, c.scope);
  // Built here, run elsewhere: the operands the evaluator saw it run with.
  if (ins.empty() && !c.partial)
    if (auto kb = passes::knowledgeFor(ctx_.options))
      if (std::optional<std::vector<Value>> ran = passes::evaluatedOperands(
              ctx_, *kb, ctx_.path, detail::sourceLocation(launch.getLoc())))
        ins = std::move(*ran);
  const std::vector<std::string>& names = k.params;
  ops.count = names.size() >= nScratch ? names.size() - nScratch : 0;
  ops.starred = std::any_of(names.begin(), names.end(), [](const std::string& p) {
    return p.rfind('*', 0) == 0 && p.rfind("**", 0) != 0;
  });
  if (ops.starred && ins.size() + ops.outs.size() + nScratch + 1 >= names.size())
    ops.count = ins.size() + ops.outs.size();
  kernelParams_.clear();
  if (ins.size() + ops.outs.size() == ops.count) {
    kernelParams_ = ins;
    kernelParams_.insert(kernelParams_.end(), ops.outs.begin(), ops.outs.end());
  } else {
    for (size_t i = 0; i < ops.count; ++i)
      kernelParams_.push_back(i + ops.outs.size() >= ops.count
                                  ? ops.outs[i + ops.outs.size() - ops.count]
                                  : Value::unknown("input operand"));
  }
  return ops;
}

// The totals of the parts, with barriers and the TMEM address after them.
void BudgetWalk::finish(SmemBudget& b, Res& total, const SourceLocation& launchAt) {
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
}

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
  LaunchCall c;
  c.doc = eval_.docOf(ctx_.path);
  if (!call || !c.doc) {
    b.unknown.push_back("launch arguments");
    return b;
  }
  c.call = *call;
  c.scope = eval_.scopeAt(ctx_.path, *call);
  c.args = Evaluator::argsOf(*call, *c.doc);
  c.partial = eval_.qualifiedName(field(*call, "function"), c.scope) == apiName(Api::Partial);
  if (TSNode n = c.args.get(SIZE_MAX, "grid_spec"); pallasCall && !isNull(n)) {
    c.gridSpec = eval_.eval(n, c.scope);
    if (!c.gridSpec->isObject(apiName(Api::GridSpec)) || c.gridSpec->fields.count("<splat>"))
      b.unknown.push_back("grid_spec (" + c.gridSpec->unknownWhy() + ")");
  }
  Value params = keyword(c, "compiler_params")
                     .value_or(Value::object(std::string(apiName(Api::CompilerParams))));
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
  KernelBody k = kernelBody(launch, c);
  if (!k.region)
    b.unknown.push_back("kernel body " + launch.getBodyText().str());
  Value scratch =
      keyword(c, "scratch_shapes").value_or(keyword(c, "scratch_types").value_or(Value::seq({})));
  size_t nScratch = scratch.kind == Value::Kind::Seq ? scratch.items.size() : 0;
  Operands ops = operands(launch, c, k, nScratch);
  Res scratchRes;
  if (scratch.kind == Value::Kind::Seq) {
    for (size_t i = 0; i < scratch.items.size(); ++i) {
      // `def kernel(x_ref, o_ref, *scratch)`: a star parameter takes several
      // Refs, so names past it do not line up.
      std::string n = !ops.starred && ops.count + i < k.params.size()
                          ? k.params[ops.count + i]
                          : "scratch " + std::to_string(i);
      scratchRes.add(allocation(scratch.items[i], n, launchAt));
    }
  } else {
    scratchRes.unknown.push_back("scratch_shapes (" + scratch.unknownWhy() + ")");
  }
  Res pipelineRes = pallasCall ? pallasCallPipeline(c, params, mcsV, ops, launchAt) : Res{};
  Res bodyRes;
  if (k.region) {
    Scope s;
    s.path = k.path;
    s.function = k.def;
    for (const std::string& n : k.params)
      s.bound[n] = Value::unknown(n);
    s.parent = factoryScope_;
    bodyRes = walkRegion(*k.region, k.path, s, 0);
  }
  // Nesting: scratch run_scoped > pipeline run_scoped > body.
  Res total = scratchRes;
  total.add(pipelineRes);
  total.add(bodyRes);
  finish(b, total, launchAt);
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
