// Rules of GPU interpret mode that raise whatever the operands' values
// (docs/analysis.md 8.12, "Session 13").
//
// A pallas_call's blocks: the interpreter copies whole arrays in and out
// of the kernel, and asserts (a bare assert, no message) that every block
// is the whole array at the origin (`has_trivial_window`:
// interpret_pallas_call.py). The front end marks a launch one of whose
// BlockSpecs' index_map certainly returns something else
// (`pallas.moving_block`, LowerLaunches.cpp).
//
// The copy callback: the interpreter runs plgpu.copy_smem_to_gmem in a host callback that
// raises for a copy with a predicate or a reduction_op, whatever the
// operands ("predicate not supported", "reduction_op not supported", JAX
// 0.10.2 and 0.11.2: mosaic_gpu/interpret/gpu_callbacks.py). It raises when
// the kernel runs, after everything JAX checks while tracing.
//
// Two ways a kernel reaches it:
//   * a copy written with `predicate=` / `reduction_op=` that is not None;
//   * a pipeline (plgpu.emit_pipeline, emit_pipeline_warp_specialized) with
//     an output staged in SMEM whose index_map uses the step's indices: the
//     pipeline then copies that output out inside its loop, predicated on
//     "the block changed or this is the last step". An output whose block
//     does not move is copied once after the loop, unpredicated
//     (pipeline.py: `_is_index_invariant`, `copies_out_in_loop`).
#include "KernelWalkInternal.h"
#include "Syntax.h"

#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// "kernels.py:14" for an op's location.
std::string placeOf(mlir::Operation* op) {
  SourceLocation at = detail::sourceLocation(op->getLoc());
  return llvm::sys::path::filename(at.path).str() + ":" + std::to_string(at.range.start.line + 1);
}

// The operand of `op` passed as keyword `name`, or null.
mlir::Value keywordOperand(pd::CallOperandsOpInterface op, mlir::ArrayAttr keywords,
                           llvm::StringRef name) {
  mlir::OperandRange args = op.getArgs();
  for (unsigned i = 0; i < args.size(); ++i)
    if (strAt(keywords, i) == name)
      return args[i];
  return {};
}

// The operand at `position` among the positional ones, or the keyword `name`.
mlir::Value argument(pd::PrimOp op, unsigned position, llvm::StringRef name) {
  if (mlir::Value v = keywordOperand(op, op.getKeywords(), name))
    return v;
  unsigned seen = 0;
  for (unsigned i = 0; i < op.getArgs().size(); ++i)
    if (strAt(op.getKeywords(), i).empty() && seen++ == position)
      return op.getArgs()[i];
  return {};
}

bool isNoneConstant(mlir::Value v) {
  auto c = v ? v.getDefiningOp<pd::ConstantOp>() : pd::ConstantOp();
  return c && c.getKind() == pd::ConstantKind::None;
}

// A memory space that keeps a pipeline operand out of SMEM (pipeline.py
// `_in_smem`: only the default space and SMEM are staged).
bool notStagedInSmem(mlir::Value space) {
  auto g = space ? space.getDefiningOp<pd::GlobalOp>() : pd::GlobalOp();
  if (!g)
    return false;
  llvm::StringRef r = g.getResolved();
  return r.ends_with(".GMEM") || r.ends_with(".ANY") || r.ends_with(".TMEM") ||
         r.ends_with("MemorySpace.ANY");
}

} // namespace

// Whether parameter `param` of a def / lambda of `doc` defaults to None: a
// parameter the caller leaves out holds its default (Python raises
// otherwise).
bool KernelWalk::defaultsToNone(mlir::BlockArgument param, const std::string& doc) const {
  mlir::Operation* owner = param.getOwner()->getParentOp();
  if (!llvm::isa_and_nonnull<pd::FuncOp, pd::ClosureOp>(owner))
    return false;
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  if (!s.doc)
    return false;
  SourceLocation at = detail::sourceLocation(owner->getLoc());
  TSPoint point{at.range.start.line, at.range.start.column};
  TSNode n = ts_node_named_descendant_for_point_range(s.doc->root(), point, point);
  while (!syntax::isNull(n) && !syntax::is(n, "function_definition") && !syntax::is(n, "lambda"))
    n = ts_node_parent(n);
  if (syntax::isNull(n))
    return false;
  std::vector<TSNode> params = syntax::namedChildren(syntax::field(n, "parameters"));
  unsigned i = param.getArgNumber();
  if (i >= params.size())
    return false;
  TSNode p = params[i];
  if (!syntax::is(p, "default_parameter") && !syntax::is(p, "typed_default_parameter"))
    return false;
  return s.doc->textOf(syntax::field(p, "value")) == "None";
}

void KernelWalk::recordGpuInterpretBlockWindows() {
  if (path_ != ExecPath::InterpretGpu)
    return;
  auto moving = launch_->getAttrOfType<mlir::StringAttr>("pallas.moving_block");
  const knowledge::PrimitiveFacts* p = kb_.primitive("pallas_call");
  if (!moving || !p || !kb_.errorTemplate("gpuInterpretBlockWindows"))
    return;
  // Asserted before the kernel's equations are interpreted.
  record(ruleBindingOf(apiText(Api::PallasCall).str(), p, launch_,
                       {Kind::NotRef, Phase::KernelDischarge, "a block that moves with the grid"},
                       "gpu_block_window", moving.getValue().str()));
}

// What a value that should be None or not holds: certainly None, certainly
// something else, or not known here (a parameter no caller pins down).
KernelWalk::Given KernelWalk::givenValue(mlir::Value v) const {
  if (!v)
    return Given::None;
  auto [held, doc] = follow(v, doc_);
  if (isNoneConstant(held))
    return Given::None;
  if (auto param = llvm::dyn_cast<mlir::BlockArgument>(held)) {
    // Inside a helper the walk entered, a parameter no argument was bound to
    // is one its caller left out.
    bool leftOut = !argValues_.count(held) && chain_.size() > 1;
    return leftOut && defaultsToNone(param, doc) ? Given::None : Given::Unknown;
  }
  if (auto g = held.getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "?")
    return Given::Unknown;
  return Given::Something;
}

void KernelWalk::recordGpuInterpretCopyOptions(pd::PrimOp prim) {
  if (path_ != ExecPath::InterpretGpu || prim.getApi() != apiText(Api::CopySmemToGmem))
    return;
  const knowledge::PrimitiveFacts* p = kb_.primitive("copy_smem_to_gmem");
  if (!p)
    return;
  for (const char* option : {"predicate", "reduction_op"}) {
    std::string key = std::string(option) == "predicate" ? "gpuInterpretCopyPredicate"
                                                         : "gpuInterpretCopyReduction";
    if (!kb_.errorTemplate(key))
      continue;
    Given g = givenValue(keywordOperand(prim, prim.getKeywords(), option));
    if (g == Given::None)
      continue;
    // The callback's error ends its traceback at the launch.
    BoundPrimitive b = ruleBindingOf(apiText(Api::CopySmemToGmem).str(), p, launch_,
                                     strongest(prim), "gpu_copy_option", option);
    b.causeAt = placeOf(prim);
    b.ruleMayNotApply = g == Given::Unknown;
    record(std::move(b));
    return; // the callback checks the predicate first
  }
}

void KernelWalk::recordPredicatedPipelineCopies(pd::ScopeOp pipeline, mlir::Operation* site) {
  if (path_ != ExecPath::InterpretGpu || !kb_.errorTemplate("gpuInterpretCopyPredicate"))
    return;
  const knowledge::PrimitiveFacts* p = kb_.primitive("copy_smem_to_gmem");
  if (!p)
    return;
  mlir::Value outSpecs = keywordOperand(pipeline, pipeline.getKeywords(), "out_specs");
  if (!outSpecs)
    return; // no outputs: nothing is copied out
  // Each output spec: moves with the step (true), does not (false), unknown.
  std::vector<std::optional<bool>> moves;
  auto [specs, doc] = follow(outSpecs, doc_);
  auto seq = specs.getDefiningOp<pd::OpaqueOp>();
  if (seq && (seq.getWhat() == "list" || seq.getWhat() == "tuple")) {
    for (mlir::Value s : seq.getArgs())
      moves.push_back(specMovesWithStep(s, doc));
  } else if (specs.getDefiningOp<pd::PrimOp>()) {
    moves.push_back(specMovesWithStep(specs, doc));
  } else {
    moves.push_back(std::nullopt);
  }
  bool certain = llvm::any_of(moves, [](const std::optional<bool>& m) { return m && *m; });
  bool maybe = llvm::any_of(moves, [](const std::optional<bool>& m) { return !m; });
  if (!certain && !maybe)
    return;
  // A grid computed in the kernel (read from a Ref, pl.num_programs) may
  // have no steps when it runs, and then nothing is copied.
  if (mlir::Value grid = keywordOperand(pipeline, pipeline.getKeywords(), "grid");
      grid && computedInKernel(grid, doc_, 0))
    certain = false;
  BoundPrimitive b = ruleBindingOf(pipeline.getApi().str(), p, launch_,
                                   {Kind::Ref, Phase::Lowering, "a pipeline output staged in SMEM"},
                                   "gpu_copy_option", "predicate");
  b.causeAt = placeOf(site);
  b.ruleMayNotApply = !certain;
  record(std::move(b));
}

// Whether `v` may be a value JAX traces (a Ref read, a jnp / lax / pl
// result) rather than a Python number: through tuples and arithmetic.
bool KernelWalk::computedInKernel(mlir::Value v, const std::string& doc, unsigned depth) const {
  auto [held, d] = follow(v, doc);
  if (!held || depth > 8)
    return false;
  if (auto prim = held.getDefiningOp<pd::PrimOp>()) {
    llvm::StringRef api = prim.getApi();
    return api.starts_with("ref.") || api.starts_with("jnp.") || api.starts_with("lax.") ||
           api.starts_with("jax.") || api.starts_with("pl.") || api.starts_with("plgpu.");
  }
  if (auto op = held.getDefiningOp<pd::OpaqueOp>())
    return llvm::any_of(op.getArgs(),
                        [&](mlir::Value a) { return computedInKernel(a, d, depth + 1); });
  return false;
}

// Whether the output block `spec` gives a pipeline changes with the step:
// its index_map reads its arguments (JAX traces it and keeps the arguments
// its outputs depend on; reading one is how that happens in source). Not in
// SMEM, or no index_map: it never moves. nullopt when not known.
std::optional<bool> KernelWalk::specMovesWithStep(mlir::Value spec, const std::string& doc) const {
  auto [held, d] = follow(spec, doc);
  auto make = held ? held.getDefiningOp<pd::PrimOp>() : pd::PrimOp();
  if (!make || (make.getApi() != apiText(Api::BlockSpec) && make.getApi() != "plgpu.BlockSpec"))
    return std::nullopt;
  if (mlir::Value space = keywordOperand(make, make.getKeywords(), "memory_space");
      notStagedInSmem(follow(space, d).first))
    return false;
  mlir::Value indexMap = argument(make, 1, "index_map");
  if (!indexMap || isNoneConstant(follow(indexMap, d).first))
    return false;
  Callable f = resolve(indexMap, 0, d);
  if (!f.block || !f.boundArgs.empty())
    return std::nullopt;
  return llvm::any_of(f.block->getArguments(),
                      [](mlir::BlockArgument a) { return !a.use_empty(); });
}

} // namespace pallas::analysis::passes
