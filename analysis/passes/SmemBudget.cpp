// The SMEM budget of a launch (SmemBudget.h): the dialect gives the structure
// (which scopes, calls and closures a kernel runs), ShapeEval the sizes.
#include "SmemBudget.h"

#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"

#include <algorithm>
#include <map>
#include <set>

namespace pallas::analysis::detail {

namespace pd = pallas::dialect;
using shape::Evaluator;
using shape::kBlockSpecObject;
using shape::Scope;
using shape::Value;
using syntax::field;
using syntax::is;
using syntax::isNull;

namespace {

int64_t alignUp(int64_t x, int64_t a) {
  return a > 0 && x % a ? x + a - x % a : x;
}

// JAX's Resources, restricted to what SMEM needs.
struct Res {
  int64_t smem = 0; // aligned scratch bytes
  // (num_arrivals, num_barriers, orders_tensor_core) -> count (a Counter)
  std::map<std::tuple<int64_t, int64_t, bool>, int64_t> barriers;
  std::vector<SmemPart> parts; // the allocations the maximum is made of
  std::vector<std::string> unknown;
  // TMEM columns (each allocation aligned), collective and not, apart.
  int64_t tmemCols = 0, tmemCollectiveCols = 0;
  std::vector<SmemPart> tmemParts;

  Res& add(const Res& o) {
    smem += o.smem;
    tmemCols += o.tmemCols;
    tmemCollectiveCols += o.tmemCollectiveCols;
    tmemParts.insert(tmemParts.end(), o.tmemParts.begin(), o.tmemParts.end());
    for (const auto& [k, n] : o.barriers)
      barriers[k] += n;
    parts.insert(parts.end(), o.parts.begin(), o.parts.end());
    unknown.insert(unknown.end(), o.unknown.begin(), o.unknown.end());
    return *this;
  }
  Res& orWith(const Res& o) {
    if (o.smem > smem) {
      // The parts of the larger side (barrier parts are recomputed at the end).
      smem = o.smem;
      parts = o.parts;
    }
    if (o.tmemCols + o.tmemCollectiveCols > tmemCols + tmemCollectiveCols)
      tmemParts = o.tmemParts;
    tmemCols = std::max(tmemCols, o.tmemCols);
    tmemCollectiveCols = std::max(tmemCollectiveCols, o.tmemCollectiveCols);
    for (const auto& [k, n] : o.barriers)
      barriers[k] = std::max(barriers[k], n);
    unknown.insert(unknown.end(), o.unknown.begin(), o.unknown.end());
    return *this;
  }
  int64_t barrierBytes(const SmemRules& r) const {
    int64_t b = 0;
    for (const auto& [k, n] : barriers)
      b += n * std::get<1>(k) * r.barrierBytes;
    return b;
  }
};

std::string shapeText(const Value& shape) {
  std::string s = shape.str();
  return s;
}

class BudgetWalk {
public:
  BudgetWalk(const PassContext& ctx, const SmemRules& rules, Evaluator& eval)
      : ctx_(ctx), rules_(rules), eval_(eval) {}

  SmemBudget run(pd::LaunchOp launch);

private:
  // One allocation expression's value -> Res.
  Res allocation(const Value& v, const std::string& name, const SourceLocation& at) {
    Res r;
    if (v.isObject(apiName(Api::Smem))) {
      Value shape = v.field("shape");
      Value dtype = v.field("dtype");
      auto dims = shape.ints();
      auto bits = dtype.kind == Value::Kind::DType ? shape::dtypeBits(dtype.s) : std::nullopt;
      if (!dims || !bits) {
        r.unknown.push_back(name + " (" + (dims ? dtype.unknownWhy() : shape.unknownWhy()) + ")");
        return r;
      }
      int64_t n = 1;
      for (int64_t d : *dims)
        n *= d;
      int64_t bytes = alignUp(n * *bits / 8, rules_.alignment);
      r.smem = bytes;
      r.parts.push_back({name + " " + shapeText(shape) + " " + dtype.s, bytes, at});
      return r;
    }
    if (v.isObject(apiName(Api::Barrier))) {
      Value a = v.field("num_arrivals"), b = v.field("num_barriers");
      Value o = v.field("orders_tensor_core");
      if (!a.isInt() || !b.isInt()) {
        r.unknown.push_back(name + " (" + (a.isInt() ? b.unknownWhy() : a.unknownWhy()) + ")");
        return r;
      }
      r.barriers[{a.i, b.i, o.kind == Value::Kind::Bool && o.i}] += 1;
      return r;
    }
    if (v.isObject(apiName(Api::Tmem)))
      return tmemAllocation(v, name, at);
    if (v.kind == Value::Kind::Object &&
        (v.s == apiName(Api::Acc) || v.s == apiName(Api::AccInit) || v.s == apiName(Api::Gmem) ||
         v.s == apiName(Api::Any) || v.s == apiName(Api::ShapeDtypeStruct)))
      return r; // registers or global memory: no SMEM
    if (v.kind == Value::Kind::Seq || (v.kind == Value::Kind::Object && v.s == "dict")) {
      for (size_t k = 0; k < v.items.size(); ++k)
        r.add(allocation(v.items[k], name + "[" + std::to_string(k) + "]", at));
      return r;
    }
    r.unknown.push_back(name + " (" + (v.known() ? v.str() : v.unknownWhy()) + ")");
    return r;
  }

  // A plgpu.TMEM allocation in columns, as _run_scoped_resource_estimator
  // counts it: layout.cols_in_shape (prod(shape) / TMEM_ROWS / packing for
  // the layouts plgpu.TMEM infers), aligned to tmemColAlignment.
  Res tmemAllocation(const Value& v, const std::string& name, const SourceLocation& at) {
    Res r;
    Value shape = v.field("shape"), dtype = v.field("dtype");
    auto dims = shape.ints();
    auto bits = dtype.kind == Value::Kind::DType ? shape::dtypeBits(dtype.s) : std::nullopt;
    Value packed = v.fields.count("packed") ? v.field("packed") : Value{};
    Value collective = v.fields.count("collective") ? v.field("collective") : Value{};
    auto why = [&]() -> std::string {
      if (!dims)
        return shape.unknownWhy();
      if (!bits)
        return dtype.unknownWhy();
      if (v.fields.count("layout"))
        return "an explicit TMEM layout";
      if (dims->size() != 2)
        return "TMEM shape " + shape.str();
      if (v.fields.count("packed") && packed.kind != Value::Kind::Bool)
        return "packed=" + packed.str();
      if (v.fields.count("collective") && collective.kind != Value::Kind::Bool)
        return "collective=" + collective.str();
      return "";
    }();
    if (!why.empty()) {
      r.unknown.push_back(name + " TMEM columns (" + why + ")");
      return r;
    }
    // Narrower than 32 bits without packed= raises in plgpu.TMEM itself.
    int64_t packing = packed.kind == Value::Kind::Bool && packed.i && *bits < 32 ? 32 / *bits : 1;
    int64_t cols = (*dims)[0] * (*dims)[1] / std::max<int64_t>(rules_.tmemRows, 1) / packing;
    cols = alignUp(cols, rules_.tmemColAlignment);
    bool isCollective = collective.kind == Value::Kind::Bool && collective.i;
    (isCollective ? r.tmemCollectiveCols : r.tmemCols) = cols;
    r.tmemParts.push_back(
        {name + " " + shape.str() + " " + dtype.s + (isCollective ? " collective" : ""), cols, at});
    return r;
  }

  SourceLocation locOf(mlir::Location loc) const { return sourceLocation(loc); }

  // The def/lambda node a func or closure op stands for.
  TSNode defAt(const std::string& path, mlir::Location loc) const {
    const syntax::ParsedSource* doc = eval_.docOf(path);
    LineCol lc = lineCol(loc);
    if (!doc || !lc.line)
      return TSNode{};
    TSPoint p{lc.line - 1, lc.column ? lc.column - 1 : 0};
    std::vector<TSNode> chain = eval_.pathAt(doc, p);
    for (size_t k = chain.size(); k-- > 0;) {
      TSNode n = chain[k];
      if (is(n, "function_definition") || is(n, "lambda"))
        return n;
      if (is(n, "decorated_definition"))
        return field(n, "definition");
    }
    return TSNode{};
  }

  std::optional<TSNode> callOf(const std::string& path, mlir::Location loc) const {
    LineCol lc = lineCol(loc);
    if (!lc.line)
      return std::nullopt;
    return eval_.callAt(path, lc.line - 1, lc.column ? lc.column - 1 : 0);
  }

  Res walkRegion(mlir::Region& region, const std::string& path, const Scope& scope, int depth);
  Res walkOp(mlir::Operation* op, const std::string& path, const Scope& scope, int depth);
  Res runScoped(pd::ScopeOp op, const std::string& path, const Scope& scope, int depth);
  Res pipeline(pd::ScopeOp op, const std::string& path, const Scope& scope, int depth);
  Res warpSpecializedPipeline(pd::ScopeOp op, const std::string& path, const Scope& scope,
                              int depth);
  // The refs a pipeline op is called with and its body's buffer names.
  std::vector<Value> pipelineRefs(pd::ScopeOp op);
  std::vector<std::string> pipelineBufferNames(pd::ScopeOp op);
  // Record the pipeline a "reduce max_concurrent_steps" fix edits.
  void notePipeline(const Res& bufs, int64_t mcs, int64_t written, TSNode mcsNode,
                    const std::string& path);
  Res callee(mlir::Region& body, TSNode def, const std::string& path,
             const std::vector<std::pair<std::string, Value>>& args, const Scope& outer,
             bool closure, int depth);
  // Buffers of a pipeline: each SMEM spec `steps` times, plus the barrier.
  Res buffers(const Value& specs, const std::vector<Value>& refs,
              const std::vector<std::string>& names, int64_t steps, bool inputs,
              const SourceLocation& at, int64_t* smemInputs);

  const PassContext& ctx_;
  const SmemRules& rules_;
  Evaluator& eval_;
  std::set<const void*> active_; // recursion guard
  int64_t reductionScratch_ = 0;
  std::vector<Value> kernelParams_; // ShapeDtypeStruct-like values of the launch's operands
  mlir::Operation* kernelFunc_ = nullptr;
  SmemBudget::Pipelined pipelined_;
  std::shared_ptr<Scope> factoryScope_; // the kernel's factory call, when it has one

public:
  std::vector<SmemBudget::Issue> issues_;
};

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

Res BudgetWalk::buffers(const Value& specs, const std::vector<Value>& refs,
                        const std::vector<std::string>& names, int64_t steps, bool inputs,
                        const SourceLocation& at, int64_t* smemInputs) {
  Res r;
  if (specs.kind != Value::Kind::Seq) {
    r.unknown.push_back(std::string(inputs ? "in_specs" : "out_specs") + " (" + specs.unknownWhy() +
                        ")");
    return r;
  }
  for (size_t k = 0; k < specs.items.size(); ++k) {
    const Value& spec = specs.items[k];
    std::string name =
        k < names.size() ? names[k] : (inputs ? "input " : "output ") + std::to_string(k);
    if (!spec.isObject(kBlockSpecObject)) {
      r.unknown.push_back(name + " spec (" + spec.unknownWhy() + ")");
      continue;
    }
    Value space = spec.field("memory_space");
    if (space.kind == Value::Kind::Object &&
        (space.s == apiName(Api::Gmem) || space.s == apiName(Api::Any) ||
         space.s == apiName(Api::Tmem) || space.s == apiName(Api::MemorySpaceAny)))
      continue; // not buffered in SMEM
    if (space.known() && space.kind != Value::Kind::None &&
        !(space.kind == Value::Kind::Object && space.s == apiName(Api::Smem))) {
      r.unknown.push_back(name + " memory space");
      continue;
    }
    if (inputs)
      ++*smemInputs;
    Value ref = k < refs.size() ? refs[k] : Value::unknown(name);
    Value block = spec.field("block_shape");
    if (block.kind == Value::Kind::None)
      block = ref.field("shape");
    std::vector<int64_t> dims;
    bool ok = block.kind == Value::Kind::Seq;
    for (const Value& d : block.items) {
      if (d.kind == Value::Kind::None ||
          (d.kind == Value::Kind::Object &&
           (d.s == apiName(Api::SqueezedValue) || d.s == apiName(Api::Squeezed))))
        continue;
      if (!d.isInt()) {
        ok = false;
        break;
      }
      dims.push_back(d.i);
    }
    Value dtype = ref.field("dtype");
    auto bits = dtype.kind == Value::Kind::DType ? shape::dtypeBits(dtype.s) : std::nullopt;
    if (!ok || !bits) {
      r.unknown.push_back(name + " block (" + (ok ? dtype.unknownWhy() : block.unknownWhy()) + ")");
      continue;
    }
    int64_t n = steps;
    std::string shapeStr = "(";
    for (size_t d = 0; d < dims.size(); ++d) {
      n *= dims[d];
      shapeStr += (d ? ", " : "") + std::to_string(dims[d]);
    }
    shapeStr += dims.size() == 1 ? ",)" : ")";
    int64_t bytes = alignUp(n * *bits / 8, rules_.alignment);
    r.smem += bytes;
    r.parts.push_back(
        {name + " " + std::to_string(steps) + " x " + shapeStr + " " + dtype.s, bytes, at});
  }
  return r;
}

Res BudgetWalk::pipeline(pd::ScopeOp op, const std::string& path, const Scope& scope, int depth) {
  Res r;
  auto call = callOf(path, op->getLoc());
  const syntax::ParsedSource* doc = eval_.docOf(path);
  SourceLocation at = locOf(op->getLoc());
  if (!call || !doc) {
    r.unknown.push_back("emit_pipeline buffers");
    return r.add(walkRegion(op.getBody(), path, scope, depth));
  }
  Evaluator::Args a = Evaluator::argsOf(*call, *doc);
  Value grid =
      isNull(a.get(99, "grid")) ? Value::unknown("grid") : eval_.eval(a.get(99, "grid"), scope);
  Value mcsV = isNull(a.get(99, "max_concurrent_steps"))
                   ? Value::integer(1)
                   : eval_.eval(a.get(99, "max_concurrent_steps"), scope);
  Value inSpecs =
      isNull(a.get(99, "in_specs")) ? Value::seq({}) : eval_.eval(a.get(99, "in_specs"), scope);
  Value outSpecs =
      isNull(a.get(99, "out_specs")) ? Value::seq({}) : eval_.eval(a.get(99, "out_specs"), scope);
  // emit_pipeline's own checks (pipeline.py), before it allocates anything.
  if (grid.kind == Value::Kind::Seq)
    for (const Value& g : grid.items)
      if (g.isInt() && g.i <= 0) {
        issues_.push_back(
            {at, "All elements in the grid must be strictly positive, but got grid=" + grid.str()});
        break;
      }
  if (mcsV.isInt() && inSpecs.kind == Value::Kind::Seq) {
    std::set<int64_t> levels;
    bool known = true;
    for (const Value& s : inSpecs.items) {
      Value d = s.fields.count("delay_release") ? s.field("delay_release") : Value::integer(0);
      if (!s.isObject(kBlockSpecObject) || !d.isInt())
        known = false;
      else
        levels.insert(d.i);
    }
    if (levels.empty())
      levels.insert(0);
    if (known && mcsV.i <= *levels.begin()) {
      std::string list = "[";
      for (int64_t l : levels)
        list += (list.size() > 1 ? ", " : "") + std::to_string(l);
      issues_.push_back({at, "max_concurrent_steps must be greater than all delay_release values, "
                             "but max_concurrent_steps=" +
                                 std::to_string(mcsV.i) + " and delay_release_levels=" + list +
                                 "]."});
    }
  }
  int64_t steps = -1;
  if (auto g = grid.ints()) {
    steps = 1;
    for (int64_t d : *g)
      steps *= d;
  }
  if (!mcsV.isInt()) {
    r.unknown.push_back("max_concurrent_steps (" + mcsV.unknownWhy() + ")");
    return r.add(walkRegion(op.getBody(), path, scope, depth));
  }
  int64_t mcs = rules_.overrideMaxConcurrentSteps > 0 ? rules_.overrideMaxConcurrentSteps : mcsV.i;
  if (steps >= 0 && mcs > steps)
    mcs = steps;
  if (steps < 0)
    r.unknown.push_back("grid (" + grid.unknownWhy() + ")");
  std::vector<Value> refs = pipelineRefs(op);
  std::vector<std::string> names = pipelineBufferNames(op);
  size_t nIn = inSpecs.kind == Value::Kind::Seq ? inSpecs.items.size() : 0;
  std::vector<Value> inRefs(refs.begin(), refs.begin() + std::min(nIn, refs.size()));
  std::vector<Value> outRefs(refs.begin() + std::min(nIn, refs.size()), refs.end());
  std::vector<std::string> inNames(names.begin(), names.begin() + std::min(nIn, names.size()));
  std::vector<std::string> outNames(names.begin() + std::min(nIn, names.size()), names.end());
  int64_t smemInputs = 0;
  Res bufs = buffers(inSpecs, inRefs, inNames, mcs, true, at, &smemInputs);
  bufs.add(buffers(outSpecs, outRefs, outNames, mcs, false, at, &smemInputs));
  if (smemInputs > 0)
    bufs.barriers[{smemInputs, mcs, false}] += 1;
  notePipeline(bufs, mcs, mcsV.i, a.get(99, "max_concurrent_steps"), path);
  return bufs.add(walkRegion(op.getBody(), path, scope, depth));
}

std::vector<Value> BudgetWalk::pipelineRefs(pd::ScopeOp op) {
  // The call_indirect of the pipeline's result.
  std::vector<Value> refs;
  for (mlir::Operation* user : op->getResult(0).getUsers())
    if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(user);
        ci && ci.getCallee() == op->getResult(0)) {
      for (mlir::Value v : ci.getArgs()) {
        RefSource src = traceRef(v);
        if (src.kind == RefSource::Kind::FuncArg && src.owner == kernelFunc_ &&
            src.index < kernelParams_.size())
          refs.push_back(kernelParams_[src.index]);
        else
          refs.push_back(Value::unknown("pipeline operand"));
      }
      break;
    }
  return refs;
}

std::vector<std::string> BudgetWalk::pipelineBufferNames(pd::ScopeOp op) {
  // The body's parameters after the indices.
  std::vector<std::string> names;
  for (mlir::Operation& inner : op.getBody().front())
    if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(&inner))
      if (auto clo = ci.getCallee().getDefiningOp<pd::ClosureOp>())
        for (auto n : clo.getArgNames())
          names.push_back(llvm::cast<mlir::StringAttr>(n).getValue().str());
  if (!names.empty())
    names.erase(names.begin());
  return names;
}

void BudgetWalk::notePipeline(const Res& bufs, int64_t mcs, int64_t written, TSNode mcsNode,
                              const std::string& path) {
  if (pipelined_.present || bufs.smem <= 0 || mcs <= 0)
    return;
  pipelined_.present = true;
  pipelined_.steps = mcs;
  pipelined_.written = written;
  pipelined_.perStep = bufs.smem / mcs; // before alignment splits; refined by the pass
  if (!isNull(mcsNode)) {
    SourceLocation l;
    l.path = path;
    TSPoint s = ts_node_start_point(mcsNode), e = ts_node_end_point(mcsNode);
    l.range = {{s.row, s.column}, {e.row, e.column}};
    pipelined_.at = l;
  }
}

// plgpu.emit_pipeline_warp_specialized (pipeline.py `_get_scoped_allocs`):
// one run_scoped holding, for EVERY in/out spec (whatever its memory space),
// an SMEM buffer of (slots, *block) where slots is max_concurrent_steps
// (default 2, clamped to the grid's steps) or 1 for an output whose index
// map ignores the grid; a Barrier(len(in_specs), max_concurrent_steps) the
// memory warpgroup signals; and the consumed barriers the compute
// warpgroups arrive on: one Barrier(num_compute_wgs, max_concurrent_steps),
// or one per input with manual_consumed_barriers=True.
Res BudgetWalk::warpSpecializedPipeline(pd::ScopeOp op, const std::string& path, const Scope& scope,
                                        int depth) {
  Res r;
  auto call = callOf(path, op->getLoc());
  const syntax::ParsedSource* doc = eval_.docOf(path);
  SourceLocation at = locOf(op->getLoc());
  if (!call || !doc) {
    r.unknown.push_back("emit_pipeline_warp_specialized buffers");
    return r.add(walkRegion(op.getBody(), path, scope, depth));
  }
  Evaluator::Args a = Evaluator::argsOf(*call, *doc);
  auto kw = [&](const char* k, Value fallback) {
    TSNode n = a.get(99, k);
    return isNull(n) ? fallback : eval_.eval(n, scope);
  };
  Value grid = kw("grid", Value::unknown("grid"));
  Value mcsV = kw("max_concurrent_steps", Value::integer(rules_.wsMaxConcurrentStepsDefault));
  Value inSpecs = kw("in_specs", Value::seq({}));
  Value outSpecs = kw("out_specs", Value::seq({}));
  Value wgs = kw("num_compute_wgs", Value::unknown("num_compute_wgs"));
  Value falseV;
  falseV.kind = Value::Kind::Bool;
  Value manual = kw("manual_consumed_barriers", falseV);
  if (inSpecs.kind == Value::Kind::Object)
    inSpecs = Value::seq({inSpecs});
  if (outSpecs.kind == Value::Kind::Object)
    outSpecs = Value::seq({outSpecs});
  if (!mcsV.isInt() || !wgs.isInt() || manual.kind != Value::Kind::Bool ||
      inSpecs.kind != Value::Kind::Seq || outSpecs.kind != Value::Kind::Seq) {
    r.unknown.push_back("emit_pipeline_warp_specialized (" +
                        (!mcsV.isInt()  ? "max_concurrent_steps " + mcsV.unknownWhy()
                         : !wgs.isInt() ? wgs.unknownWhy()
                         : inSpecs.kind != Value::Kind::Seq ? "in_specs " + inSpecs.unknownWhy()
                         : outSpecs.kind != Value::Kind::Seq
                             ? "out_specs " + outSpecs.unknownWhy()
                             : "manual_consumed_barriers " + manual.str()) +
                        ")");
    return r.add(walkRegion(op.getBody(), path, scope, depth));
  }
  int64_t mcs = rules_.overrideMaxConcurrentSteps > 0 ? rules_.overrideMaxConcurrentSteps : mcsV.i;
  if (auto g = grid.ints()) {
    int64_t steps = 1;
    for (int64_t d : *g)
      steps *= d;
    mcs = std::min(mcs, steps);
  } else {
    r.unknown.push_back("grid (" + grid.unknownWhy() + ")");
  }
  std::vector<Value> refs = pipelineRefs(op);
  std::vector<std::string> names = pipelineBufferNames(op);
  size_t nIn = inSpecs.items.size();
  for (size_t k = 0; k < nIn + outSpecs.items.size(); ++k) {
    bool input = k < nIn;
    const Value& spec = input ? inSpecs.items[k] : outSpecs.items[k - nIn];
    std::string name = k < names.size() ? names[k]
                                        : (input ? "input " + std::to_string(k)
                                                 : "output " + std::to_string(k - nIn));
    if (!spec.isObject("BlockSpec")) {
      r.unknown.push_back(name + " spec (" + spec.unknownWhy() + ")");
      continue;
    }
    Value inv = spec.field("index_map_invariant");
    if (!input && inv.kind != Value::Kind::Bool) {
      r.unknown.push_back(name + " index map");
      continue;
    }
    int64_t slots = !input && inv.i ? 1 : mcs;
    Value ref = k < refs.size() ? refs[k] : Value::unknown(name);
    Value block = spec.field("block_shape");
    if (block.kind == Value::Kind::None)
      block = ref.field("shape");
    std::vector<int64_t> dims;
    bool ok = block.kind == Value::Kind::Seq;
    for (const Value& d : block.items) {
      if (d.kind == Value::Kind::None ||
          (d.kind == Value::Kind::Object &&
           (d.s == apiName(Api::SqueezedValue) || d.s == apiName(Api::Squeezed))))
        continue;
      if (!d.isInt()) {
        ok = false;
        break;
      }
      dims.push_back(d.i);
    }
    Value dtype = ref.field("dtype");
    auto bits = dtype.kind == Value::Kind::DType ? shape::dtypeBits(dtype.s) : std::nullopt;
    if (!ok || !bits) {
      r.unknown.push_back(name + " block (" + (ok ? dtype.unknownWhy() : block.unknownWhy()) + ")");
      continue;
    }
    int64_t n = slots;
    std::string shapeStr = "(";
    for (size_t d = 0; d < dims.size(); ++d) {
      n *= dims[d];
      shapeStr += (d ? ", " : "") + std::to_string(dims[d]);
    }
    shapeStr += dims.size() == 1 ? ",)" : ")";
    int64_t bytes = alignUp(n * *bits / 8, rules_.alignment);
    r.smem += bytes;
    r.parts.push_back(
        {name + " " + std::to_string(slots) + " x " + shapeStr + " " + dtype.s, bytes, at});
  }
  r.barriers[{static_cast<int64_t>(nIn), mcs, false}] += 1;
  r.barriers[{wgs.i, mcs, false}] += manual.i ? static_cast<int64_t>(nIn) : 1;
  notePipeline(r, mcs, mcsV.i, a.get(99, "max_concurrent_steps"), path);
  return r.add(walkRegion(op.getBody(), path, scope, depth));
}

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
      bool starred = std::any_of(paramNames.begin(), paramNames.end(),
                                 [](const std::string& p) { return p.rfind('*', 0) == 0; });
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
        pipelineRes.barriers[{smemInputs, mcs, false}] += 1;
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

} // namespace

SmemBudget smemBudget(const PassContext& ctx, pd::LaunchOp launch, const SmemRules& rules,
                      const SmemIndex* index) {
  if (!index) {
    SmemIndex own(ctx);
    return smemBudget(ctx, launch, rules, &own);
  }
  BudgetWalk walk(ctx, rules, index->evaluator());
  return walk.run(launch);
}

} // namespace pallas::analysis::detail
