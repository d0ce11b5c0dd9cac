// PLS007: tiling and swizzle transforms. JAX checks them while the kernel is
// traced (jax/_src/pallas/mosaic_gpu/core.py): a `plgpu.SwizzleTransform`
// accepts only some swizzles when it is built (`__post_init__`); applied to
// a block or an SMEM allocation, a `TilingTransform` must divide the shape it
// tiles (a bare assert) and a swizzle of S bytes needs a minor dimension of
// S * 8 // bitwidth elements (`SwizzleTransform.transform_type`). Numbers from
// the knowledge table (MosaicLaunch.h `rule`).
#include "MosaicLaunch.h"
#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>

namespace pallas::analysis::passes::mosaic {

namespace {

const char* kAdvice =
    "Use a swizzle of 32, 64 or 128 bytes, a minor tile of swizzle // itemsize elements, and a "
    "tiling that divides the block.";

// The name of the def a node is in ("" at module level).
// The def around `n`, from the chain of nodes the evaluator finds from the
// document's top-level statement down (ts_node_parent walks from the root).
std::string enclosingDef(Session& s, const syntax::ParsedSource& doc, TSNode n) {
  std::vector<TSNode> chain = s.eval().path(&doc, n);
  for (size_t k = chain.size(); k-- > 0;)
    if (!ts_node_eq(chain[k], n) && is(chain[k], "function_definition")) {
      TSNode name = field(chain[k], "name");
      return isNull(name) ? "" : std::string(doc.textOf(name));
    }
  return "";
}

void collectCalls(TSNode n, std::vector<TSNode>& out, int depth) {
  if (depth > 200)
    return;
  if (is(n, "call"))
    out.push_back(n);
  for (TSNode c : syntax::namedChildren(n))
    collectCalls(c, out, depth + 1);
}

// Does the launch's function call (or is) the def named `def`?
bool launchReaches(const LaunchView& v, const std::string& def) {
  auto func = v.launch->getParentOfType<pd::FuncOp>();
  if (!func)
    return false;
  if (func.getSymName() == def)
    return true;
  bool found = false;
  func->walk([&](pd::CallOp call) {
    if (!call.getCalleeFile() && call.getCallee() == def)
      found = true;
  });
  return found;
}

// The shape a list of transforms makes of `dims`, or the first rule it
// breaks.
struct Applied {
  enum class Outcome { Ok, Unknown, TilingDoesNotDivide, SwizzleMinor } outcome = Outcome::Ok;
  std::vector<int64_t> shape;
  int64_t swizzle = 0, elems = 0;
};
Applied apply(std::vector<int64_t> dims, const std::vector<Transform>& ts,
              std::optional<int> bits) {
  Applied a;
  for (const Transform& t : ts) {
    if (t.kind == Transform::Kind::Tiling) {
      size_t n = t.tiling.size();
      if (n > dims.size() ||
          std::any_of(t.tiling.begin(), t.tiling.end(), [](int64_t x) { return x <= 0; })) {
        a.outcome = Applied::Outcome::Unknown;
        return a;
      }
      std::vector<int64_t> shape(dims.begin(), dims.end() - n);
      for (size_t k = 0; k < n; ++k) {
        int64_t d = dims[dims.size() - n + k];
        if (d % t.tiling[k]) {
          a.outcome = Applied::Outcome::TilingDoesNotDivide;
          a.shape = dims;
          return a;
        }
        shape.push_back(d / t.tiling[k]);
      }
      shape.insert(shape.end(), t.tiling.begin(), t.tiling.end());
      dims = shape;
    } else if (t.kind == Transform::Kind::Swizzle) {
      if (!bits || dims.empty()) {
        a.outcome = Applied::Outcome::Unknown;
        return a;
      }
      int64_t elems = t.swizzle * 8 / *bits;
      if (dims.back() != elems) {
        a.outcome = Applied::Outcome::SwizzleMinor;
        a.shape = dims;
        a.swizzle = t.swizzle;
        a.elems = elems;
        return a;
      }
    } else {
      a.outcome = Applied::Outcome::Unknown;
      return a;
    }
  }
  a.shape = dims;
  return a;
}

// The minor element of a `plgpu.TilingTransform((a, b))` written with a
// literal tuple equal to `tiling` inside the launch's call: the one place a
// fix may change (a named constant may be used elsewhere).
std::optional<SourceLocation> literalMinorTile(Session& s, const LaunchView& v,
                                               const std::vector<int64_t>& tiling) {
  const syntax::ParsedSource* doc = s.eval().docOf(v.path);
  auto call = s.callOf(v.path, v.launch->getLoc());
  if (!doc || !call || tiling.empty())
    return std::nullopt;
  std::vector<TSNode> calls;
  collectCalls(*call, calls, 0);
  std::optional<SourceLocation> found;
  for (TSNode c : calls) {
    shape::Scope scope = s.eval().scopeAt(v.path, c);
    if (s.eval().qualifiedName(field(c, "function"), scope) != apiName(Api::TilingTransform))
      continue;
    TSNode arg = Evaluator::argsOf(c, *doc).get(0, "tiling");
    if (!is(arg, "tuple"))
      continue;
    std::vector<TSNode> items = syntax::namedChildren(arg);
    if (items.size() != tiling.size() ||
        !std::all_of(items.begin(), items.end(), [](TSNode n) { return is(n, "integer"); }))
      continue;
    bool same = true;
    for (size_t k = 0; k < items.size(); ++k)
      same = same && std::string(doc->textOf(items[k])) == std::to_string(tiling[k]);
    if (!same)
      continue;
    if (found)
      return std::nullopt; // two candidates: not sure which one
    TSPoint a = ts_node_start_point(items.back()), b = ts_node_end_point(items.back());
    found = SourceLocation{v.path, {{a.row, a.column}, {b.row, b.column}}};
  }
  return found;
}

} // namespace

std::optional<std::vector<int64_t>> transformedShape(const Value& shape, const Value& dtype,
                                                     const Value& holder) {
  auto dims = shape.ints();
  auto ts = transformsOf(holder);
  if (!dims || !ts)
    return std::nullopt;
  Applied a = apply(*dims, *ts, bitsOf(dtype));
  if (a.outcome != Applied::Outcome::Ok)
    return std::nullopt;
  return a.shape;
}

void transformChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                     std::vector<Candidate>& out) {
  // 1. Swizzles JAX does not accept, where the transform is built (in the
  // launch's function or a helper it calls: that call raises first).
  Rule allowedRule = rule(kb, "swizzleAllowed");
  std::vector<int64_t> allowed = allowedRule.numbers("allowed");
  const syntax::ParsedSource* doc = s.eval().docOf(v.path);
  if (allowedRule.found && !allowed.empty() && doc) {
    for (TSNode call : s.swizzleCalls(v.path)) {
      shape::Scope scope = s.eval().scopeAt(v.path, call);
      if (s.eval().qualifiedName(field(call, "function"), scope) != apiName(Api::SwizzleTransform))
        continue;
      std::string def = enclosingDef(s, *doc, call);
      if (def.empty() || !launchReaches(v, def))
        continue;
      Evaluator::Args a = Evaluator::argsOf(call, *doc);
      TSNode arg = a.get(0, "swizzle");
      if (isNull(arg))
        continue;
      Value sw = s.eval().eval(arg, scope);
      if (!sw.isInt() || std::find(allowed.begin(), allowed.end(), sw.i) != allowed.end())
        continue;
      TSPoint p = ts_node_start_point(call);
      SourceLocation at{v.path, {{p.row, p.column}, {p.row, p.column}}};
      Candidate c = v.finding(
          RuleId::TilingSwizzleTransform, at,
          "plgpu.SwizzleTransform(" + std::to_string(sw.i) + ") is not a swizzle JAX accepts",
          allowedRule, allowedRule.render({{"self.swizzle", std::to_string(sw.i)}}), kAdvice, 0);
      c.order = 0;
      out.push_back(std::move(c));
    }
  }
  // 2. The transforms of each block and SMEM scratch buffer, applied to its
  // shape: the launch's (reported at the launch), and each pl.run_scoped
  // SMEM allocation's (reported at the run_scoped, where JAX raises).
  Rule divides = rule(kb, "tilingDivides"), minor = rule(kb, "swizzleMinorTile");
  auto check = [&](const Value& holder, const Value& shapeV, const Value& dtype,
                   const SourceLocation& at, const std::string& what, unsigned order) {
    auto dims = shapeV.ints();
    auto ts = transformsOf(holder);
    if (!dims || !ts || ts->empty())
      return;
    Applied a = apply(*dims, *ts, bitsOf(dtype));
    if (a.outcome == Applied::Outcome::TilingDoesNotDivide && divides.found) {
      Candidate c = v.finding(RuleId::TilingSwizzleTransform, at,
                              "A TilingTransform of this launch does not divide the shape " +
                                  tupleText(a.shape) + " it tiles",
                              divides, divides.render({}), kAdvice, 0);
      c.order = order;
      out.push_back(std::move(c));
    } else if (a.outcome == Applied::Outcome::SwizzleMinor && minor.found) {
      Candidate c = v.finding(RuleId::TilingSwizzleTransform, at,
                              "A swizzle of " + std::to_string(a.swizzle) + " bytes over " +
                                  dtype.s + " needs a minor tile of " + std::to_string(a.elems) +
                                  " elements, but this launch's " + what + " is tiled to " +
                                  tupleText(a.shape),
                              minor,
                              minor.render({{"self.swizzle", std::to_string(a.swizzle)},
                                            {"swizzle_elems", std::to_string(a.elems)},
                                            {"x.shape", tupleText(a.shape)}}),
                              kAdvice, 0);
      c.order = order;
      // The fix: a minor tile of the swizzle's width, where the tiling is a
      // literal tuple of this launch. Unsafe: it changes the SMEM layout,
      // which code that reads the tiles (reshapes, WGMMA) may rely on.
      std::vector<int64_t> tiling; // the one tiling of the holder, if one
      int tilings = 0;
      for (const Transform& t : *ts)
        if (t.kind == Transform::Kind::Tiling && ++tilings == 1)
          tiling = t.tiling;
      if (tilings == 1 && !tiling.empty())
        if (auto lit = literalMinorTile(s, v, tiling)) {
          Fix fix;
          fix.title = "Tile the minor dimension by " + std::to_string(a.elems) + " (" +
                      std::to_string(a.swizzle) + " bytes of " + dtype.s + ")";
          fix.safety = FixSafety::Unsafe;
          fix.edits.push_back({lit->path, lit->range, std::to_string(a.elems)});
          c.finding.fixes.push_back(std::move(fix));
        }
      out.push_back(std::move(c));
    }
  };
  for (size_t k = 0; k < v.params.size(); ++k) {
    const Param& p = v.params[k];
    if (p.kind == Param::Kind::Scratch) {
      if (p.array.isObject(apiName(Api::Smem)))
        check(p.array, p.array.field("shape"), p.array.field("dtype"), v.at, "scratch buffer",
              1 + static_cast<unsigned>(k));
    } else if (v.pallasCall && p.spec.isObject(kBlockSpecObject)) {
      Value block = p.spec.field("block_shape");
      check(p.spec, block.kind == Value::Kind::None ? p.array.field("shape") : block,
            p.array.field("dtype"), v.at, "block", 1 + static_cast<unsigned>(k));
    }
  }
  walkKernel(s, v, [&](mlir::Operation* op, const std::string& path, unsigned order) {
    auto scope = llvm::dyn_cast<pd::ScopeOp>(op);
    if (!scope || scope.getApi() != apiText(Api::RunScoped))
      return;
    for (const Value& alloc : s.runScopedAllocations(scope, path))
      if (alloc.isObject(apiName(Api::Smem)))
        check(alloc, alloc.field("shape"), alloc.field("dtype"),
              detail::sourceLocation(op->getLoc()), "scoped SMEM buffer",
              1 + static_cast<unsigned>(v.params.size()) + order);
  });
}

} // namespace pallas::analysis::passes::mosaic
