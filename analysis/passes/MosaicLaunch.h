// What the Mosaic GPU rule checks (issue 17: PLS006 WGMMA, PLS007 tiling and
// swizzle transforms, PLS008 copies) know about one launch: each kernel
// parameter's array (shape, dtype), its BlockSpec or SMEM allocation with its
// transforms, the launch's lowering semantics; and what a Ref operand of a
// primitive in the kernel is (which parameter or run_scoped allocation,
// transposed or not). Values come from the shape evaluator (ShapeEval.h);
// whatever it does not determine stays unknown, and the checks then say
// nothing. Also: the rules' numbers from the knowledge table, and the
// finding every check builds.
#pragma once

#include "KernelWalk.h"
#include "ShapeEval.h"
#include "SmemIndex.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Rules.h"
#include "pallas/analysis/detail/Passes.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pallas::knowledge {
class KnowledgeBase;
}

namespace pallas::analysis::passes::mosaic {

// What the checks read the source and the dialect with (one place, not a
// preamble per file).
namespace pd = pallas::dialect;
using detail::apiName;
using shape::Evaluator;
using shape::kBlockSpecObject;
using shape::Value;
using syntax::field;
using syntax::is;
using syntax::isNull;

// One rule of the knowledge table's "mosaicGpuRules" (extract_mosaic_rules.py).
struct Rule {
  bool found = false;
  std::string exception, tmpl; // the raise and its message template ("{n}" holes)
  const void* entry = nullptr; // the JSON entry (nlohmann::json), for numbers
  std::optional<int64_t> number(const char* role) const;
  std::vector<int64_t> numbers(const char* role) const; // a list ("allowed")
  // The template with holes filled by name; a hole not given stays "<hole>".
  std::string render(const std::map<std::string, std::string>& holes) const;
};
Rule rule(const knowledge::KnowledgeBase& kb, const char* key);
// The accumulator dtypes WGMMA accepts for an operand dtype ("bfloat16"),
// with the rule that reports a mismatch; found=false when the table does not say.
struct AccumulatorRule : Rule {
  std::vector<std::string> accumulators;
};
AccumulatorRule accumulatorRule(const knowledge::KnowledgeBase& kb, const std::string& operand);

// MLIR's name of a dtype as JAX's messages print it ("bfloat16" -> "bf16").
std::string mlirName(const std::string& dtype);
// Bits of a dtype (float16 -> 16), nullopt when not known.
std::optional<int> bitsOf(const Value& dtype);
// (1, 2, 3) as Python prints a tuple: "(1, 2, 3)", "(5,)".
std::string tupleText(const std::vector<int64_t>& v);

// A transform as written: TilingTransform(tiling) or SwizzleTransform(swizzle).
struct Transform {
  enum class Kind { Tiling, Swizzle, Other } kind = Kind::Other;
  std::vector<int64_t> tiling;
  int64_t swizzle = 0;
};
// The transforms of a BlockSpec / SMEM value: nullopt when any is unknown.
std::optional<std::vector<Transform>> transformsOf(const Value& specOrAlloc);

// The shape `transforms` (of `holder`) make of `shape`: tilings split the
// minor dimensions into (tiles..., tile); nullopt when something is unknown
// or a transform does not fit (TransformChecks.cpp reports that).
std::optional<std::vector<int64_t>> transformedShape(const Value& shape, const Value& dtype,
                                                     const Value& holder);

// A kernel parameter.
struct Param {
  enum class Kind { Input, Output, Scratch, Unknown } kind = Kind::Unknown;
  Value array; // Input/Output: the operand (shape, dtype); Scratch: the allocation
  Value spec;  // pallas_call: its BlockSpec (a default one when none is given)
};

// A Ref operand of a primitive, traced to where it comes from.
struct RefInfo {
  bool known = false;
  bool transposed = false; // passed through plgpu.transpose_ref / .T
  bool sliced = false;     // through .at[...] or another view
  Value shape, dtype;      // the Ref's (block) shape and dtype
  Value holder;            // the BlockSpec / SMEM / ACC value that gives its transforms
  Value array;             // for a kernel input/output: the GMEM array
  int param = -1;          // kernel parameter index, -1 for a run_scoped allocation
  Param::Kind kind = Param::Kind::Unknown;
};

struct Candidate {
  Finding finding;
  // When JAX raises it: 0 trace (transforms), 1 input copies, 2 kernel body,
  // 3 output copies; within a stage the order JAX lowers in (the kernel
  // walk's visit order), then source order.
  int stage = 2;
  unsigned order = 0;
  unsigned line = 0, column = 0;
};

class LaunchView;

// One pass run over one document: the evaluator and what it learned.
class Session {
public:
  // `index`: the run's one view of the workspace (SmemIndex.h), shared with
  // the SMEM budget.
  Session(const detail::PassContext& ctx, const detail::SmemIndex& index);
  ~Session();
  const detail::PassContext& ctx() const { return ctx_; }
  shape::Evaluator& eval() { return *eval_; }
  // The call node an op stands for (its location is the call's start).
  std::optional<TSNode> callOf(const std::string& path, mlir::Location loc) const;
  LaunchView view(dialect::LaunchOp launch);
  // The allocation values of a pl.run_scoped scope, by block argument.
  std::vector<Value> runScopedAllocations(dialect::ScopeOp scope, const std::string& path);
  // plgpu.emit_pipeline(body, in_specs=..., out_specs=...): the specs of the
  // buffers its body receives after the step indices, inputs then outputs;
  // empty when not known. Evaluated once per scope and run (each buffer of
  // a pipeline asks).
  const std::vector<Value>& pipelineSpecs(dialect::ScopeOp scope, const std::string& path,
                                          size_t* inputs = nullptr);
  // Every call in `path` whose callee is written `...SwizzleTransform`
  // (found once per document and run).
  const std::vector<TSNode>& swizzleCalls(const std::string& path);

private:
  const detail::PassContext& ctx_;
  shape::Evaluator* eval_; // the index's
  std::map<std::string, std::vector<TSNode>> swizzleCalls_;
  struct PipelineSpecs {
    std::vector<Value> specs;
    size_t inputs = 0;
  };
  std::map<std::pair<mlir::Operation*, std::string>, PipelineSpecs> pipelineSpecs_;
};

class LaunchView {
public:
  bool ok = false;
  bool pallasCall = false;
  dialect::LaunchOp launch;
  std::string path;                // the launch's document
  std::string bodyPath;            // the kernel body's document
  mlir::Operation* body = nullptr; // pallas.func or pallas.closure
  std::vector<Param> params;
  std::string loweringSemantics; // "Lane", "Warpgroup", "" unknown
  bool compiledCertain = false;  // compiled is the only path (else: may)
  SourceLocation at;

  // Follows a Ref operand back to its parameter or run_scoped allocation.
  RefInfo ref(Session& s, mlir::Value value) const;
  // The finding of a rule at `where` for this launch.
  Candidate finding(RuleId code, const SourceLocation& where, const std::string& what,
                    const Rule& rule, const std::string& firstLine, const std::string& advice,
                    int stage) const;
  std::string jaxVersion;
};

// Every Mosaic GPU launch of the document that may run compiled.
std::vector<dialect::LaunchOp> compiledLaunches(const detail::PassContext& ctx);

// The checks (WgmmaChecks.cpp, TransformChecks.cpp, CopyChecks.cpp); each
// appends candidates for one launch.
void wgmmaChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                 std::vector<Candidate>& out);
void transformChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                     std::vector<Candidate>& out);
void copyChecks(Session& s, const LaunchView& v, const knowledge::KnowledgeBase& kb,
                std::vector<Candidate>& out);

// Walks the kernel body in the order JAX lowers it: each op, then the
// regions of scopes, the closures they (or the body) call, and the module
// functions called; `visit` gets each op, its document and its visit index.
void walkKernel(
    Session& s, const LaunchView& v,
    const std::function<void(mlir::Operation*, const std::string& path, unsigned order)>& visit);

} // namespace pallas::analysis::passes::mosaic
