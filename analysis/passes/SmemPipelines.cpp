// The SMEM a pipeline stages (SmemBudgetWalk.h): plgpu.emit_pipeline and
// plgpu.emit_pipeline_warp_specialized buffer their specs per concurrent step
// and add the barriers that order the copies.
#include "SmemBudgetWalk.h"

namespace pallas::analysis::detail::smem {

// One spec staged `slots` times: a (slots, *block) buffer of the ref's dtype,
// the block shape defaulting to the whole ref and squeezed dims dropped.
Res BudgetWalk::stagedBuffer(const Value& spec, const Value& ref, const std::string& name,
                             int64_t slots, const SourceLocation& at) const {
  Res r;
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
    return r;
  }
  int64_t n = slots;
  std::string shapeStr = "(";
  for (size_t d = 0; d < dims.size(); ++d) {
    n *= dims[d];
    shapeStr += (d ? ", " : "") + std::to_string(dims[d]);
  }
  shapeStr += dims.size() == 1 ? ",)" : ")";
  int64_t bytes = stagedBytes(slots, n / std::max<int64_t>(slots, 1), *bits, rules_.alignment);
  r.smem = bytes;
  r.parts.push_back(
      {name + " " + std::to_string(slots) + " x " + shapeStr + " " + dtype.s, bytes, at});
  return r;
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
    r.add(stagedBuffer(spec, ref, name, steps, at));
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
    bufs.barriers[{smemInputs, mcs, false, ""}] += 1;
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
        // The kernel's own parameter (a def, or a closure a factory made),
        // or a view of one (`x_gmem.at[rows]`): its dtype is the operand's.
        bool param =
            src.kind == RefSource::Kind::FuncArg || src.kind == RefSource::Kind::ClosureArg;
        if (param && src.owner == kernelFunc_ && src.index < kernelParams_.size())
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
  auto kw = [&](const char* k, const Value& fallback) -> Value {
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
    if (!spec.isObject(kBlockSpecObject)) {
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
    r.add(stagedBuffer(spec, ref, name, slots, at));
  }
  r.barriers[{static_cast<int64_t>(nIn), mcs, false, ""}] += 1;
  r.barriers[{wgs.i, mcs, false, ""}] += manual.i ? static_cast<int64_t>(nIn) : 1;
  notePipeline(r, mcs, mcsV.i, a.get(99, "max_concurrent_steps"), path);
  return r.add(walkRegion(op.getBody(), path, scope, depth));
}

} // namespace pallas::analysis::detail::smem
