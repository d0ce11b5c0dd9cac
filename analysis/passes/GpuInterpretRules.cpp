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
// The same callbacks read and write buffers through the Ref's transforms
// and accept only indexing (after the no-op untiling / unswizzling ones):
// a Ref viewed through `.reshape(...)`, `.T` / `.transpose(...)` or
// `plgpu.transpose_ref` raises "Unsupported transform: ..." when a read,
// a write or a copy goes through it; the callbacks that read transforms
// without that check (table gpuInterpret.transformsReadAsIndexing: JAX
// 0.10.2's copy_smem_to_gmem and wgmma) fail with AttributeError instead.
//
// Two ways a kernel reaches the copy's options:
//   * a copy written with `predicate=` / `reduction_op=` that is not None;
//   * a pipeline (plgpu.emit_pipeline, emit_pipeline_warp_specialized) with
//     an output staged in SMEM whose index_map uses the step's indices: the
//     pipeline then copies that output out inside its loop, predicated on
//     "the block changed or this is the last step". An output whose block
//     does not move is copied once after the loop, unpredicated
//     (pipeline.py: `_is_index_invariant`, `copies_out_in_loop`).
#include "GpuInterpretChecks.h"
#include "KernelWalkInternal.h"
#include "ParameterDefaults.h"
#include "Syntax.h"

#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// The operand of `op` passed as keyword `name`, or null.
mlir::Value keywordOperand(pd::CallOperandsOpInterface op, mlir::ArrayAttr keywords,
                           llvm::StringRef name) {
  mlir::OperandRange args = op.getArgs();
  for (unsigned i = 0; i < args.size(); ++i)
    if (strAt(keywords, i) == name)
      return args[i];
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

// Where JAX's traceback ends for an error raised while the launch runs: the
// call that runs it. A launch applied at once (`pl.pallas_call(k, ...)(x)`)
// or a decorated def called once where it is defined has one such call; a
// def decorated at module level is called elsewhere, and the launch stands
// for its calls.
mlir::Operation* KernelWalk::runSite() const {
  mlir::Operation* only = nullptr;
  for (mlir::Operation* user : launch_->getResult(0).getUsers()) {
    auto c = llvm::dyn_cast<pd::CallIndirectOp>(user);
    if (!c || c.getCallee() != launch_->getResult(0))
      continue;
    if (only)
      return launch_;
    only = c;
  }
  return only ? only : launch_.getOperation();
}

// Whether parameter `param` of a def / lambda of `doc` defaults to None: a
// parameter the caller leaves out holds its default (Python raises
// otherwise).
bool KernelWalk::defaultsToNone(mlir::BlockArgument param, const std::string& doc) const {
  const syntax::ParsedSource* source = nullptr;
  TSNode value =
      parameterDefaultNode(ws_, doc, param.getOwner()->getParentOp(), param.getArgNumber(), source);
  return !syntax::isNull(value) && source && source->textOf(value) == "None";
}

void KernelWalk::recordGpuInterpretBlockWindows() {
  if (path_ != ExecPath::InterpretGpu)
    return;
  auto moving = launch_->getAttrOfType<mlir::StringAttr>("pallas.moving_block");
  const knowledge::PrimitiveFacts* p = kb_.primitive("pallas_call");
  if (!moving || !p || !kb_.errorTemplate("gpuInterpretBlockWindows"))
    return;
  // Asserted before the kernel's equations are interpreted.
  record(ruleBindingOf(apiText(Api::PallasCall).str(), p, runSite(),
                       {Kind::NotRef, Phase::KernelDischarge, "a block that moves with the grid"},
                       "gpu_block_window", moving.getValue().str()));
}

void KernelWalk::recordGpuInterpretUninitializedScratch() {
  if (path_ != ExecPath::InterpretGpu)
    return;
  auto dtypes = launch_->getAttrOfType<mlir::StringAttr>("pallas.uninitialized_scratch");
  const knowledge::PrimitiveFacts* p = kb_.primitive("run_scoped");
  if (!dtypes || !p || !kb_.errorTemplate("gpuInterpretUninitializedValue"))
    return;
  // InterpretGPUParams(uninitialized_memory="zero") fills with zeros (and
  // then fails otherwise for some dtypes: not modelled).
  if (auto params = launch_.getInterpretParamsAttr())
    if (params.get("uninitialized_memory"))
      return;
  // The dtypes the interpreter allocates itself for this kind of launch
  // (plgpu.kernel's barriers; 0.11's cluster barriers too): unknown -> no
  // finding.
  bool pallasCall = launch_.getApi() == llvm::StringRef(apiName(Api::PallasCall));
  auto own = kb_.gpuInterpretAllocates(pallasCall ? "pallasCall" : "kernel");
  if (!own)
    return;
  llvm::SmallVector<llvm::StringRef> kinds;
  dtypes.getValue().split(kinds, ',', -1, false);
  for (llvm::StringRef dtype : kinds) {
    if (llvm::is_contained(*own, dtype.str()))
      continue;
    // Allocated before the kernel's equations are interpreted.
    record(ruleBindingOf(apiText(Api::RunScoped).str(), p, runSite(),
                         {Kind::NotRef, Phase::KernelDischarge, "a scratch allocation"},
                         "gpu_uninitialized_scratch", dtype.str()));
    return;
  }
}

// The strings a collective_axes= value holds: a string, or a literal tuple
// / list of them; nullopt when not known.
std::optional<std::vector<std::string>> KernelWalk::constantNames(mlir::Value v) const {
  auto [held, doc] = follow(v, doc_);
  auto text = [&](mlir::Value x) -> std::optional<std::string> {
    auto c = follow(x, doc).first.getDefiningOp<pd::ConstantOp>();
    if (!c || c.getKind() != pd::ConstantKind::Str || c.getValue().size() < 2)
      return std::nullopt;
    return c.getValue().drop_front().drop_back().str();
  };
  if (isNoneConstant(held))
    return std::vector<std::string>{};
  if (std::optional<std::string> one = text(held))
    return std::vector<std::string>{*one};
  auto seq = held ? held.getDefiningOp<pd::OpaqueOp>() : pd::OpaqueOp();
  if (!seq || (seq.getWhat() != "tuple" && seq.getWhat() != "list"))
    return std::nullopt;
  std::vector<std::string> out;
  for (mlir::Value item : seq.getArgs()) {
    std::optional<std::string> name = text(item);
    if (!name)
      return std::nullopt;
    out.push_back(*name);
  }
  return out;
}

std::string collectiveAxesFailure(const std::vector<std::string>& axes,
                                  const std::vector<std::string>& collective, std::string& axis) {
  std::string thread = axes.empty() ? "" : axes.back(); // "" when the mesh names no thread axis
  // The order of JAX's checks (jaxpr_interpret.py): every name must be an
  // axis; then, without a thread axis nothing may be collective; else no
  // cluster axis may be, and the thread axis must be.
  for (const std::string& c : collective)
    if (c.empty() || llvm::find(axes, c) == axes.end()) {
      axis = c;
      return "gpuInterpretCollectiveAxisNotFound";
    }
  if (thread.empty())
    return collective.empty() ? "" : "gpuInterpretCollectiveNoThreadAxis";
  for (const std::string& c : collective)
    if (c != thread)
      return "gpuInterpretCollectiveClusterAxes";
  if (llvm::find(collective, thread) == collective.end())
    return "gpuInterpretCollectiveThreadAxis";
  return "";
}

std::string listedAxes(const std::vector<std::string>& axes) {
  std::string listed = "[";
  for (size_t i = 0; i < axes.size(); ++i)
    listed += (i ? ", " : "") + (axes[i].empty() ? "<object>" : "'" + axes[i] + "'");
  return listed + "]";
}

void KernelWalk::recordGpuInterpretScopedCollectives(pd::ScopeOp scope) {
  if (path_ != ExecPath::InterpretGpu || cpuLowered_ || nestedMesh_ ||
      scope.getApi() != apiText(Api::RunScoped))
    return;
  auto meshAxes = launch_->getAttrOfType<mlir::ArrayAttr>("pallas.mesh_axes");
  const knowledge::PrimitiveFacts* p = kb_.primitive("run_scoped");
  if (!meshAxes || meshAxes.empty() || !p)
    return;
  // Register allocations (plgpu.ACC) are checked otherwise.
  if (auto kinds = scope.getAllocationsAttr())
    for (mlir::Attribute k : kinds)
      if (pd::enumName(k) == "acc")
        return;
  std::vector<std::string> collective;
  if (mlir::Value given = keywordOperand(scope, scope.getKeywords(), "collective_axes")) {
    std::optional<std::vector<std::string>> names = constantNames(given);
    if (!names)
      return;
    collective = *names;
  }
  std::vector<std::string> axes;
  for (mlir::Attribute a : meshAxes)
    axes.push_back(llvm::cast<mlir::StringAttr>(a).getValue().str());
  std::string detail;
  std::string key = collectiveAxesFailure(axes, collective, detail);
  if (key.empty() || !kb_.errorTemplate(key))
    return;
  std::string listed = listedAxes(axes);
  BoundPrimitive b = ruleBindingOf(apiText(Api::RunScoped).str(), p, runSite(),
                                   {Kind::NotRef, Phase::Lowering, "a scoped allocation"},
                                   "gpu_collective_axes", key);
  b.causeAt = placeOf(scope);
  b.messageHoles = {detail, listed}; // the axis, and the mesh's axes
  record(std::move(b));
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
    BoundPrimitive b = ruleBindingOf(apiText(Api::CopySmemToGmem).str(), p, runSite(),
                                     strongest(prim), "gpu_copy_option", option);
    b.causeAt = placeOf(prim);
    b.ruleMayNotApply = g == Given::Unknown;
    record(std::move(b));
    return; // the callback checks the predicate first
  }
}

// The view transform (other than indexing) `ref` is reached through, as
// written ("x_ref.reshape(16, 8)"); "" when there is none or it is not
// known. Follows `.at[...]` and the values parameters were given.
std::string KernelWalk::refViewOf(mlir::Value ref) const {
  std::string doc = doc_;
  for (unsigned guard = 0; ref && guard < 32; ++guard) {
    auto [held, d] = follow(ref, doc);
    // A member of a plgpu.RefUnion is the union's buffer viewed through
    // an ExtractAliasedRef transform.
    if (std::optional<RefState> member = unionMemberState(held ? held : ref))
      return "plgpu.RefUnion";
    auto prim = held ? held.getDefiningOp<pd::PrimOp>() : pd::PrimOp();
    if (!prim || !detail::isRefTransform(prim.getApi()) || prim.getArgs().empty())
      return "";
    llvm::StringRef api = prim.getApi();
    if (api == apiText(Api::RefReshape) || api == apiText(Api::RefT) ||
        api == apiText(Api::RefTranspose) || api == apiText(Api::TransposeRef))
      return api.str();
    if (api != apiText(Api::RefAt))
      return ""; // a view whose interpretation is not read here
    ref = prim.getArgs()[0];
    doc = d;
  }
  return "";
}

void KernelWalk::recordGpuInterpretRefViews(pd::PrimOp prim) {
  // interpret=True's state discharge also rejects a plgpu.RefUnion member's
  // ExtractAliasedRef (as it rejects the transforms recordInterpretRefTransforms
  // reads), when it discharges the read or write itself.
  bool gpu =
      path_ == ExecPath::InterpretGpu && kb_.errorTemplate("gpuInterpretUnsupportedTransform");
  bool hlo = path_ == ExecPath::InterpretHlo && kb_.errorTemplate("unsupportedRefTransform");
  if (!gpu && !hlo)
    return;
  llvm::StringRef api = prim.getApi();
  const char* key = nullptr;
  std::vector<mlir::Value> refs;
  bool item = api == apiText(Api::RefGetItem) || api == "value.__getitem__";
  if (item || api == apiText(Api::RefSetItem) || api == "value.__setitem__") {
    key = item ? "get" : "swap";
    // Indexing an array (not a Ref) binds neither; taking a member of a
    // plgpu.RefUnion reads nothing.
    RefState base = prim.getArgs().empty()
                        ? RefState()
                        : stateOf(prim.getArgs()[0], strAt(prim.getOrigins(), 0));
    if (base.isRef() && !(item && extractsUnionMember(prim)) &&
        (api.starts_with("ref.") || base.unionMember))
      refs.push_back(prim.getArgs()[0]);
  } else if (gpu && (api == apiText(Api::CopyGmemToSmem) || api == apiText(Api::CopySmemToGmem))) {
    key = api == apiText(Api::CopyGmemToSmem) ? "copy_gmem_to_smem" : "copy_smem_to_gmem";
    auto kwAt = [&](unsigned i) { return strAt(prim.getKeywords(), i); };
    refs = {argumentFor(prim.getArgs(), kwAt, 0, "src"),
            argumentFor(prim.getArgs(), kwAt, 1, "dst")};
  }
  const knowledge::PrimitiveFacts* p = key ? kb_.primitive(key) : nullptr;
  if (!p)
    return;
  // A member read through `value[...]` is Ref indexing all the same.
  std::string shown = api.str();
  if (llvm::StringRef(shown).consume_front("value."))
    shown = "ref." + shown.substr(6);
  for (mlir::Value r : refs) {
    std::string view = r ? refViewOf(r) : "";
    if (view.empty() || (hlo && view != "plgpu.RefUnion"))
      continue;
    if (hlo) {
      // Raised by the discharge rule of the read or write; its traceback
      // carries no source of the kernel and ends at the launch's call.
      RefState st = stateOf(r, strAt(prim.getOrigins(), 0));
      if (!st.discharged())
        return;
      BoundPrimitive b = ruleBindingOf(shown, p, runSite(), st, "union_member", view);
      b.causeAt = placeOf(prim);
      record(std::move(b));
      return;
    }
    // The callback's error ends its traceback at the launch (a callback
    // that reads transforms unchecked fails on another line).
    BoundPrimitive b = ruleBindingOf(
        shown, p, runSite(), strongest(prim),
        p->gpuInterpretIndexingAttribute.empty() ? "gpu_ref_view" : "gpu_unchecked_view", view);
    b.causeAt = placeOf(prim);
    record(std::move(b));
    return;
  }
}

// GPU interpret mode finds the barrier a barrier op names from at most one
// index (`barrier.at[i]`), and from none only when the allocation holds a
// single barrier. It raises as it interprets the op, before the kernel runs.
void KernelWalk::recordGpuInterpretBarrierIndexing(pd::PrimOp prim) {
  if (path_ != ExecPath::InterpretGpu)
    return;
  llvm::StringRef api = prim.getApi();
  auto kwAt = [&](unsigned i) { return strAt(prim.getKeywords(), i); };
  mlir::Value barrier;
  const char* key = nullptr;
  if (api == "plgpu.barrier_arrive" || api == "plgpu.barrier_wait") {
    barrier = argumentFor(prim.getArgs(), kwAt, 0, "barrier");
    key = api == "plgpu.barrier_arrive" ? "barrier_arrive" : "barrier_wait";
  } else if (api == apiText(Api::CopyGmemToSmem)) {
    barrier = argumentFor(prim.getArgs(), kwAt, 2, "barrier");
    key = "copy_gmem_to_smem";
  }
  const knowledge::PrimitiveFacts* p = key ? kb_.primitive(key) : nullptr;
  if (!barrier || !p)
    return;
  unsigned indexings = 0;
  std::string doc = doc_;
  mlir::Value base = barrier;
  for (unsigned guard = 0; base && guard < 16; ++guard) {
    auto [held, d] = follow(base, doc);
    auto at = held ? held.getDefiningOp<pd::PrimOp>() : pd::PrimOp();
    if (!at || at.getApi() != apiText(Api::RefAt) || at.getArgs().empty()) {
      base = held ? held : base;
      break;
    }
    ++indexings;
    base = at.getArgs()[0];
    doc = d;
  }
  RefState st = stateOf(base, pd::origin::kArg);
  BoundPrimitive b;
  if (indexings >= 2 && kb_.errorTemplate("gpuInterpretBarrierIndexing"))
    b = ruleBindingOf(api.str(), p, runSite(), st, "gpu_barrier_indexing",
                      std::to_string(indexings));
  else if (indexings == 0 && st.barrier && st.barrierCount > 1 &&
           kb_.errorTemplate("gpuInterpretBarrierNotIndexed"))
    b = ruleBindingOf(api.str(), p, runSite(), st, "gpu_barrier_unindexed",
                      std::to_string(st.barrierCount));
  else
    return;
  b.causeAt = placeOf(prim);
  record(std::move(b));
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
  BoundPrimitive b = ruleBindingOf(pipeline.getApi().str(), p, runSite(),
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
  mlir::Value indexMap = argumentFor(
      make.getArgs(), [&](unsigned i) { return strAt(make.getKeywords(), i); }, 1, "index_map");
  if (!indexMap || isNoneConstant(follow(indexMap, d).first))
    return false;
  Callable f = resolve(indexMap, 0, d);
  if (!f.block || !f.boundArgs.empty())
    return std::nullopt;
  return llvm::any_of(f.block->getArguments(),
                      [](mlir::BlockArgument a) { return !a.use_empty(); });
}

} // namespace pallas::analysis::passes
