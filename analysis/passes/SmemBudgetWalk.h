// Internal to the SMEM budget (SmemBudget.cpp, SmemPipelines.cpp): the walk
// over one launch's kernel and the resources it accumulates, in the shape of
// JAX's Mosaic GPU resource estimator.
#pragma once

#include "KernelParams.h"
#include "SmemArithmetic.h"
#include "SmemBudget.h"
#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace pallas::analysis::detail::smem {

namespace pd = pallas::dialect;
using shape::Evaluator;
using shape::kBlockSpecObject;
using shape::Scope;
using shape::Value;
using syntax::field;
using syntax::is;
using syntax::isNull;

// JAX's Resources, restricted to what SMEM needs.
struct Res {
  int64_t smem = 0; // aligned scratch bytes
  // (num_arrivals, num_barriers, orders_tensor_core, cluster axes) -> count
  // (a Counter; a plgpu.ClusterBarrier is another kind of barrier, keyed by
  // its collective axes as written, "" for a plgpu.Barrier)
  std::map<std::tuple<int64_t, int64_t, bool, std::string>, int64_t> barriers;
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
      b += mbarrierTotalBytes(n * std::get<1>(k), r.barrierBytes);
    return b;
  }
};

inline std::string shapeText(const Value& shape) {
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
      int64_t bytes = allocationBytes(n, *bits, rules_.alignment);
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
      r.barriers[{a.i, b.i, o.kind == Value::Kind::Bool && o.i, ""}] += 1;
      return r;
    }
    if (v.isObject(apiName(Api::ClusterBarrier))) {
      Value a = v.field("num_arrivals"), b = v.field("num_barriers");
      Value axes = v.field("collective_axes");
      if (!a.isInt() || !b.isInt()) {
        r.unknown.push_back(name + " (" + (a.isInt() ? b.unknownWhy() : a.unknownWhy()) + ")");
        return r;
      }
      // Identical cluster barriers of sibling scopes are shared: keyed by
      // their axes as written (unknown axes: never shared).
      r.barriers[{a.i, b.i, false,
                  "cluster:" + (axes.known()
                                    ? axes.str()
                                    : name + "@" + std::to_string(at.range.start.line))}] += 1;
      return r;
    }
    if (v.kind == Value::Kind::None)
      return r; // pl.run_scoped flattens its allocations as a pytree: None has no leaves
    if (v.isObject(apiName(Api::RefUnion)))
      return refUnion(v, name, at);
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

  // A plgpu.RefUnion of SMEM groups (jax/_src/pallas/mosaic_gpu/core.py
  // RefUnion, _ref_group_size): each group lays its allocations out one
  // after the other, each starting at SMEM_ALIGNMENT; the union is its
  // largest group, rounded as one allocation.
  Res refUnion(const Value& v, const std::string& name, const SourceLocation& at) {
    Res r;
    Value groups = v.field("refs");
    if (v.fields.count("<splat>") || groups.kind != Value::Kind::Seq) {
      r.unknown.push_back(name + " (RefUnion members)");
      return r;
    }
    std::vector<std::vector<std::pair<int64_t, int64_t>>> sizes; // (elements, bits) per member
    for (const Value& g : groups.items) {
      std::vector<Value> leaves = g.kind == Value::Kind::Seq ? g.items : std::vector<Value>{g};
      if (g.kind == Value::Kind::Object && g.s == "dict")
        leaves = g.items;
      auto& group = sizes.emplace_back();
      for (const Value& leaf : leaves) {
        Value shape = leaf.field("shape"), dtype = leaf.field("dtype");
        auto dims = shape.ints();
        auto bits = dtype.kind == Value::Kind::DType ? shape::dtypeBits(dtype.s) : std::nullopt;
        if (!leaf.isObject(apiName(Api::Smem)) || !dims || !bits) {
          r.unknown.push_back(name + " (RefUnion member " +
                              (leaf.known() ? leaf.str() : leaf.unknownWhy()) + ")");
          return r;
        }
        int64_t n = 1;
        for (int64_t d : *dims)
          n *= d;
        group.emplace_back(n, *bits);
      }
    }
    r.smem = refUnionBytes(sizes, rules_.alignment);
    r.parts.push_back(
        {name + " RefUnion of " + std::to_string(groups.items.size()) + " groups", r.smem, at});
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
    return passes::defNodeAt(eval_, path, loc);
  }

  std::optional<TSNode> callOf(const std::string& path, mlir::Location loc) const {
    LineCol lc = lineCol(loc);
    if (!lc.line)
      return std::nullopt;
    return eval_.callAt(path, lc.line - 1, lc.column ? lc.column - 1 : 0);
  }

  // The parts of run() (SmemBudget.cpp).
  struct LaunchCall;
  struct KernelBody {
    mlir::Region* region = nullptr;
    std::string path; // its document
    TSNode def{};
    std::vector<std::string> params;
  };
  struct Operands {
    std::vector<Value> outs;
    std::vector<std::string> names; // the kernel's parameters
    size_t count = 0;               // operands (inputs and outputs) among them
    bool starred = false;           // a *rest parameter takes the remaining ones
  };
  std::optional<Value> keyword(const LaunchCall& c, const std::string& k);
  KernelBody kernelBody(pd::LaunchOp launch, const LaunchCall& c);
  Operands operands(pd::LaunchOp launch, const LaunchCall& c, const KernelBody& k, size_t nScratch);
  Res pallasCallPipeline(const LaunchCall& c, const Value& params, Value mcsV, const Operands& ops,
                         const SourceLocation& launchAt);
  void notePallasCallPipeline(const LaunchCall& c, int64_t perStep, int64_t steps, int64_t written);
  void finish(SmemBudget& b, Res& total, const SourceLocation& launchAt);

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
  Res stagedBuffer(const Value& spec, const Value& ref, const std::string& name, int64_t slots,
                   const SourceLocation& at) const;
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

} // namespace pallas::analysis::detail::smem
