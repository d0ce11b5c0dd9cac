// The interpreters' rules that raise whatever the values of a kernel's
// operands, read from the evaluator's trace (docs/analysis.md 8.10, 8.12).
// The old walk's InterpretRules.cpp, GpuInterpretRules.cpp and
// BarrierProtocol.cpp decide the same from the `pallas` dialect; each rule
// here keeps their rule names, message holes, sites and phases, and takes
// its inputs from what the program built: the launch's keyword arguments
// (LaunchEvent::options), its scratch objects, the Refs' RefInfo, the
// arguments of the API calls the kernel makes.
//
// interpret=True (the HLO interpreter):
//   * a scratch Ref allocated with plgpu transforms= ("ref_transform"): its
//     state discharge cannot undo them;
//   * a read or write through a plgpu.RefUnion member ("union_member"):
//     its ExtractAliasedRef transform is not one the discharge supports;
//   * a read or write through a transposed view (`.T`, `.transpose(...)`,
//     plgpu.transpose_ref: "hlo_ref_view"): discharge applies only the
//     transforms its `match` takes (table handledCases).
// GPU interpret mode:
//   * a pallas_call BlockSpec whose index_map moves the block
//     ("gpu_block_window"): decided by calling the index_map with markers
//     for the grid indices and looking for them in what it returns;
//   * scratch the interpreter fills with NaN whose dtype has no NaN
//     ("gpu_uninitialized_scratch": barriers of a pallas_call, cluster
//     barriers and semaphores of a kernel);
//   * a pl.run_scoped's collective_axes= against the launch's thread mesh
//     ("gpu_collective_axes"), and its register accumulators (plgpu.ACC)
//     mixed with other allocations or made collective ("gpu_register_scope");
//   * plgpu.copy_smem_to_gmem with predicate= / reduction_op=, and a
//     pipeline copying out an output whose block moves with the step
//     ("gpu_copy_option");
//   * a read, write or copy through a reshaped / transposed view or a
//     RefUnion member ("gpu_ref_view"), or a call whose callback reads the
//     transforms unchecked (plgpu.wgmma, the copy out: "gpu_unchecked_view");
//   * a barrier indexed twice, or an allocation of several barriers used
//     without an index ("gpu_barrier_indexing", "gpu_barrier_unindexed");
//   * the barrier protocol of a plgpu.kernel's threads
//     ("gpu_barrier_protocol"): the kernel is traced again once per thread
//     with lax.axis_index of the thread axis giving the thread's index, and
//     every interleaving of the threads' arrivals and waits is explored.
// Errors raised while the launch runs (a host callback, an assert before
// the kernel is interpreted) end their traceback at the call that runs the
// launch: placeRunErrors moves those bindings there once the program ran.
#include "GpuInterpretChecks.h"
#include "PallasOverlayState.h"
#include "PathRules.h"
#include "pallas/analysis/detail/Passes.h"
#include "pallas/py/Dialect.h"

#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

using eval::Kind;
using eval::ListObj;
using eval::StrObj;
using eval::TupleObj;
using eval::UnknownObj;
using RefKind = RefState::Kind;

namespace {

// The rules whose error JAX raises while the launch runs.
const std::set<std::string>& rulesRaisedAtRun() {
  static const std::set<std::string> rules = {"gpu_block_window",      "gpu_uninitialized_scratch",
                                              "gpu_collective_axes",   "gpu_register_scope",
                                              "gpu_copy_option",       "gpu_ref_view",
                                              "gpu_unchecked_view",    "hlo_ref_view",
                                              "union_member",          "gpu_barrier_indexing",
                                              "gpu_barrier_unindexed", "gpu_barrier_protocol"};
  return rules;
}

// What an index_map is called with to see what it does with its arguments.
constexpr const char* kProbe = "pallas-lsp: an index_map argument";

// "kernels.py:14" for an op's location.
std::string placeOf(mlir::Operation* op) {
  if (!op)
    return {};
  SourceLocation at = detail::sourceLocation(op->getLoc());
  return llvm::sys::path::filename(at.path).str() + ":" + std::to_string(at.range.start.line + 1);
}

RefState refState(RefKind kind, Phase phase, const char* what) {
  RefState s;
  s.kind = kind;
  s.phase = phase;
  s.what = what;
  return s;
}

// A JAX data object's keyword argument (PallasOverlay.cpp's makeData).
const Value* keywordOf(const Object* o, llvm::StringRef name) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  return inst ? inst->attrs.find(name) : nullptr;
}

// ... its argument: keyword `name`, else positional `index`.
const Value* dataArg(const Object* o, size_t index, llvm::StringRef name) {
  if (const Value* v = keywordOf(o, name))
    return v;
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  return inst ? inst->attrs.find("_" + std::to_string(index)) : nullptr;
}

// The canonical name of what an object is: a library class's instance, a
// library name.
std::string apiOf(Interpreter& in, const Object* o) {
  if (auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o))
    return in.canonical(inst->cls->external);
  return apiNameOf(in, o);
}

bool isNone(const Value& v) {
  return !v.isBottom() && llvm::all_of(v, [](const Alt& a) { return a.obj->kind == Kind::None; });
}

// The elements of a tuple or a list whose elements are all known.
std::optional<std::vector<Value>> sequenceOf(const Value& v) {
  Object* o = v.single();
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(o))
    return t->elems;
  if (auto* l = llvm::dyn_cast_or_null<ListObj>(o); l && l->kind == Kind::List && l->exact)
    return l->elems;
  return std::nullopt;
}

// An expression as written, else the value described.
std::string writtenOf(const PallasOverlay::State& s, const Alt& a) {
  std::string text = s.sourceText && a.origin ? s.sourceText(a.origin) : "";
  return text.empty() ? eval::describe(a.obj) : text;
}

// The launch's scratch allocations in the order the kernel receives them
// (a list, a tuple, a dict's values); nullopt when not known.
std::optional<std::vector<Value>> scratchItems(Interpreter& in, const LaunchEvent& e) {
  if (e.scratch.isBottom())
    return std::nullopt;
  if (auto* d = llvm::dyn_cast_or_null<eval::DictObj>(e.scratch.single())) {
    if (!d->exact)
      return std::nullopt;
    std::vector<Value> out;
    out.reserve(d->items.size());
    for (const auto& [k, v] : d->items)
      out.push_back(v);
    return out;
  }
  Interpreter::Elements items = in.elements(e.scratch, e.site);
  if (!items.exact)
    return std::nullopt;
  return items.items;
}

// A Python value that a parameter no caller pins down may hold.
bool unpinned(const Object* o) {
  if (o->kind == Kind::External)
    return true;
  auto* u = llvm::dyn_cast<UnknownObj>(o);
  return u && llvm::StringRef(u->why).starts_with("argument `");
}

// What an optional argument holds: None (or absent), something else, or
// not known here (a parameter no caller pins down).
enum class Given { None, Something, Unknown };
Given givenValue(const Value* v) {
  if (!v || v->isBottom())
    return Given::None;
  bool none = false, other = false, unknown = false;
  for (const Alt& a : *v) {
    if (a.obj->kind == Kind::None)
      none = true;
    else if (unpinned(a.obj))
      unknown = true;
    else
      other = true; // a value JAX traces, a constant, an object
  }
  if (unknown || (none && other))
    return Given::Unknown;
  return none ? Given::None : Given::Something;
}

// ---- index maps ---------------------------------------------------------------------------

// Calls `fn` with `n` arguments (markers, or zeros), outside any kernel
// trace, forgetting what it changes.
Value probeCall(Interpreter& in, PallasOverlay::State& s, const Value& fn, size_t n,
                mlir::Operation* site, bool zeros) {
  std::optional<Value> pending = in.takeRaised();
  std::vector<Trace*> traces;
  traces.swap(s.traces);
  CallArgs args;
  for (size_t i = 0; i < n; ++i)
    args.positional.push_back(zeros ? in.integer(0, site) : in.unknown(kProbe, site));
  in.heap().beginSide();
  Value r = in.call(fn, args, site);
  in.heap().endSide(true);
  in.takeRaised();
  traces.swap(s.traces);
  if (pending)
    in.raise(*pending);
  return r;
}

// How many grid indices an index_map is given: the grid's rank, else the
// function's positional parameters.
size_t indexArguments(const Value& fn, const Value* grid) {
  if (grid) {
    if (std::optional<std::vector<Value>> dims = sequenceOf(*grid))
      return dims->size();
    if (grid->single() && grid->single()->kind == Kind::Int)
      return 1;
  }
  auto* f = llvm::dyn_cast_or_null<eval::FunctionObj>(fn.single());
  auto def = f ? llvm::dyn_cast<py::DefOp>(f->def) : py::DefOp();
  if (!def)
    return 0;
  size_t n = 0;
  for (char k : def.getParamKinds())
    n += k == 'p' || k == 'n';
  return n;
}

// What each element of an index map's result is.
enum class Index { Zero, Literal, Depends, NotKnown };

bool fromProbe(const Object* o) {
  auto* u = llvm::dyn_cast<UnknownObj>(o);
  return u && llvm::StringRef(u->why).contains(kProbe);
}

std::vector<Value> elementsOf(const Value& r) {
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(r.single()))
    return t->elems;
  return {r};
}

// The elements of what a user-written index_map returns, each: a literal
// zero, another literal, computed from the indices (JAX traces it: not a
// literal), or not known. Empty when the function is not one of the
// program's (a partial, a bound method, a library callable).
std::vector<Index> indexMapElements(Interpreter& in, PallasOverlay::State& s, const Value& fn,
                                    const Value* grid, mlir::Operation* site) {
  if (!llvm::isa_and_nonnull<eval::FunctionObj>(fn.single()))
    return {};
  size_t n = indexArguments(fn, grid);
  std::vector<Value> probed = elementsOf(probeCall(in, s, fn, n, site, false));
  std::vector<Value> zeros;
  bool zerosRun = false;
  std::vector<Index> out;
  for (size_t i = 0; i < probed.size(); ++i) {
    const Value& e = probed[i];
    bool zero = true, literal = true, depends = true, unknown = false;
    for (const Alt& a : e) {
      auto* k = llvm::dyn_cast<eval::IntObj>(a.obj);
      zero = zero && k && k->v == 0;
      literal = literal && k;
      depends = depends && fromProbe(a.obj);
      unknown = unknown || a.obj->kind == Kind::Unknown;
    }
    if (e.isBottom()) {
      out.push_back(Index::NotKnown);
      continue;
    }
    if (zero || literal || depends) {
      out.push_back(zero ? Index::Zero : literal ? Index::Literal : Index::Depends);
      continue;
    }
    // Unknown without the marker (a library call of the indices): what
    // the same function returns for zeros says whether the indices made it.
    if (unknown && !zerosRun) {
      zeros = elementsOf(probeCall(in, s, fn, n, site, true));
      zerosRun = true;
    }
    bool concrete = unknown && i < zeros.size() && zeros.size() == probed.size() &&
                    !zeros[i].isBottom() && !zeros[i].mayBeUnknown();
    out.push_back(concrete ? Index::Depends : Index::NotKnown);
  }
  return out;
}

// The first BlockSpec of `specs` (a spec, or a list / tuple of them, nested)
// whose index_map certainly moves the block: GPU interpret mode runs only
// whole-array blocks at the origin. Its text as written; "" when none.
std::string movingBlockSpec(Interpreter& in, PallasOverlay::State& s, const Value& specs,
                            const Value* grid, mlir::Operation* site, unsigned depth = 0) {
  if (depth > 4)
    return "";
  if (std::optional<std::vector<Value>> items = sequenceOf(specs)) {
    for (const Value& item : *items)
      if (std::string moving = movingBlockSpec(in, s, item, grid, site, depth + 1); !moving.empty())
        return moving;
    return "";
  }
  Object* spec = specs.single();
  if (!spec || !llvm::StringRef(apiOf(in, spec)).ends_with("BlockSpec"))
    return "";
  const Value* indexMap = dataArg(spec, 1, "index_map");
  if (!indexMap)
    return "";
  for (Index i : indexMapElements(in, s, *indexMap, grid, site))
    if (i == Index::Literal || i == Index::Depends)
      return writtenOf(s, specs[0]);
  return "";
}

// Whether the output block `spec` gives a pipeline changes with the step:
// its index_map uses its arguments. Not in SMEM, or no index_map: it never
// moves. nullopt when not known.
std::optional<bool> specMovesWithStep(Interpreter& in, PallasOverlay::State& s, const Value& spec,
                                      const Value* grid, mlir::Operation* site) {
  Object* o = spec.single();
  std::string api = o ? apiOf(in, o) : "";
  if (api != apiText(Api::BlockSpec) && api != apiText(Api::GpuBlockSpec))
    return std::nullopt;
  // A memory space that keeps the operand out of SMEM (pipeline.py
  // `_in_smem`: only the default space and SMEM are staged).
  if (const Value* space = keywordOf(o, "memory_space"))
    if (llvm::all_of(*space, [&](const Alt& a) {
          std::string name = apiOf(in, a.obj);
          llvm::StringRef r(name);
          return r.ends_with(".GMEM") || r.ends_with(".ANY") || r.ends_with(".TMEM") ||
                 r.ends_with("MemorySpace.ANY");
        }))
      return false;
  const Value* indexMap = dataArg(o, 1, "index_map");
  if (!indexMap || isNone(*indexMap))
    return false;
  std::vector<Index> elements = indexMapElements(in, s, *indexMap, grid, site);
  if (elements.empty())
    return std::nullopt;
  if (llvm::is_contained(elements, Index::Depends))
    return true;
  if (llvm::is_contained(elements, Index::NotKnown))
    return std::nullopt;
  return false;
}

// Whether a grid may be a value JAX traces (a Ref read, a pl / jnp result)
// rather than Python numbers.
bool computedInKernel(const Value& v, unsigned depth = 0) {
  if (depth > 8)
    return false;
  for (const Alt& a : v) {
    if (a.obj->kind == Kind::Unknown && !unpinned(a.obj))
      return true;
    if (auto* t = llvm::dyn_cast<TupleObj>(a.obj))
      for (const Value& e : t->elems)
        if (computedInKernel(e, depth + 1))
          return true;
    if (auto* l = llvm::dyn_cast<ListObj>(a.obj))
      for (const Value& e : l->elems)
        if (computedInKernel(e, depth + 1))
          return true;
  }
  return false;
}

// ---- the launch's thread mesh ------------------------------------------------------------

// The names a collective_axes= / cluster_names= value holds: a string, a
// tuple or list of them (None: none); nullopt when not known.
std::optional<std::vector<std::string>> constantNames(const Value& v) {
  if (isNone(v))
    return std::vector<std::string>{};
  if (auto* s = llvm::dyn_cast_or_null<StrObj>(v.single()); s && s->kind == Kind::Str)
    return std::vector<std::string>{s->v};
  std::optional<std::vector<Value>> items = sequenceOf(v);
  if (!items)
    return std::nullopt;
  std::vector<std::string> out;
  for (const Value& item : *items) {
    auto* s = llvm::dyn_cast_or_null<StrObj>(item.single());
    if (!s || s->kind != Kind::Str)
      return std::nullopt;
    out.push_back(s->v);
  }
  return out;
}

// The axis names of a mesh given as keywords (plgpu.kernel's, a
// plgpu.Mesh's): the cluster names, then the thread name ("" when there is
// none); nullopt when a name is not known.
std::optional<std::vector<std::string>>
meshAxesOf(llvm::function_ref<const Value*(llvm::StringRef)> keyword) {
  std::vector<std::string> axes;
  if (const Value* names = keyword("cluster_names")) {
    if (!sequenceOf(*names))
      return std::nullopt;
    std::optional<std::vector<std::string>> cluster = constantNames(*names);
    if (!cluster)
      return std::nullopt;
    axes = *cluster;
  }
  const Value* thread = keyword("thread_name");
  if (!thread) {
    axes.push_back("");
    return axes;
  }
  auto* name = llvm::dyn_cast_or_null<StrObj>(thread->single());
  if (!name || name->kind != Kind::Str)
    return std::nullopt;
  axes.push_back(name->v);
  return axes;
}

// The axis names of the launch's thread mesh as GPU interpret mode lists
// them for a scoped allocation's collective axes. A pallas_call has one
// unnamed thread axis. nullopt when not known.
std::optional<std::vector<std::string>> meshAxes(Interpreter& in, const LaunchEvent& e) {
  if (e.api == apiText(Api::PallasCall))
    return std::vector<std::string>{""};
  if (e.api == apiText(Api::GpuKernel)) {
    if (e.options.moreKeywords)
      return std::nullopt;
    return meshAxesOf([&](llvm::StringRef k) { return e.options.keyword(k); });
  }
  if (e.api != apiText(Api::CoreMap))
    return std::nullopt;
  const Value* mesh = e.options.get(0, "mesh");
  Object* m = mesh ? mesh->single() : nullptr;
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(m);
  if (!inst || apiOf(in, inst) != apiText(Api::Mesh) || inst->attrs.find("_0") ||
      inst->attrs.find("_incomplete"))
    return std::nullopt;
  return meshAxesOf([&](llvm::StringRef k) { return inst->attrs.find(k); });
}

// ---- Refs ---------------------------------------------------------------------------------

// The view (other than indexing) a Ref is reached through, as the API
// catalogue spells it ("ref.reshape"), or "plgpu.RefUnion" for a member of
// a RefUnion (the union's buffer through an ExtractAliasedRef transform);
// "" when there is none or another one.
std::string refViewOf(const PallasOverlay::State& s, const Value& ref) {
  std::string view;
  bool first = true;
  for (const Alt& a : ref) {
    RefInfo* r = s.refOf(a.obj);
    std::string v;
    if (r && r->state.unionMember)
      v = "plgpu.RefUnion";
    else if (r && (r->view == apiText(Api::RefReshape) || r->view == apiText(Api::RefT) ||
                   r->view == apiText(Api::RefTranspose) || r->view == apiText(Api::TransposeRef)))
      v = r->view;
    if (!first && v != view)
      return "";
    view = v;
    first = false;
  }
  return view;
}

// Whether the transforms JAX applies where `templateKey` is raised take the
// view's (table handledCases; JAX 0.11.2's GPU interpreter applies
// transposes): such a view does not raise there.
bool viewHandled(const PallasOverlay::State& s, const char* templateKey, const std::string& view) {
  const knowledge::ErrorTemplate* e = s.kb.errorTemplate(templateKey);
  return e && e->handledCases && llvm::is_contained(*e->handledCases, viewTransformClass(view));
}

bool holdsBarrier(const PallasOverlay::State& s, const Value& v) {
  return llvm::any_of(v, [&](const Alt& a) {
    RefInfo* r = s.refOf(a.obj);
    return r && r->state.barrier;
  });
}

bool passesBarrier(const PallasOverlay::State& s, const CallArgs& args) {
  return llvm::any_of(args.positional, [&](const Value& v) { return holdsBarrier(s, v); }) ||
         llvm::any_of(args.keywords, [&](const auto& kv) { return holdsBarrier(s, kv.second); });
}

// ---- the rules ------------------------------------------------------------------------------

void recordRefTransforms(Interpreter& in, PallasOverlay::State& s, const Trace& t) {
  if (t.path != ExecPath::InterpretHlo)
    return;
  // The fact holds for the JAX whose state discharge raises this message.
  const knowledge::PrimitiveFacts* prim = s.kb.primitive("get");
  if (!prim || !s.kb.errorTemplate("unsupportedRefTransform"))
    return;
  std::optional<std::vector<Value>> items = scratchItems(in, *t.event);
  if (!items)
    return;
  for (const Value& item : *items)
    for (const Alt& a : item) {
      const Value* transforms = keywordOf(a.obj, "transforms");
      std::optional<std::vector<Value>> each = transforms ? sequenceOf(*transforms) : std::nullopt;
      if (!each || each->empty() || each->back().isBottom())
        continue;
      // The transform JAX undoes first: the last one.
      s.record(in, ruleBinding("scratch_shapes", prim, t.event->site,
                               refState(RefKind::Discharged, Phase::Lowering,
                                        "a scratch Ref with plgpu transforms"),
                               "ref_transform", writtenOf(s, each->back()[0])));
      return;
    }
}

void recordBlockWindows(Interpreter& in, PallasOverlay::State& s, const Trace& t) {
  const LaunchEvent& e = *t.event;
  if (t.path != ExecPath::InterpretGpu || e.api != apiText(Api::PallasCall))
    return;
  const knowledge::PrimitiveFacts* p = s.kb.primitive("pallas_call");
  if (!p || !s.kb.errorTemplate("gpuInterpretBlockWindows"))
    return;
  for (const char* key : {"in_specs", "out_specs"}) {
    const Value* specs = e.options.keyword(key);
    std::string moving =
        specs ? movingBlockSpec(in, s, *specs, e.options.keyword("grid"), e.site) : "";
    if (moving.empty())
      continue;
    // Asserted before the kernel's equations are interpreted.
    s.record(in, ruleBinding(apiText(Api::PallasCall).str(), p, e.site,
                             refState(RefKind::NotRef, Phase::KernelDischarge,
                                      "a block that moves with the grid"),
                             "gpu_block_window", moving));
    return;
  }
}

// The dtype of a barrier-like scratch allocation as JAX prints it
// ("barrier", "cluster_barrier", "semaphore"): GPU interpret mode fills
// scratch with its uninitialised value ("nan": a value only for float,
// int and bool dtypes) unless it allocates that dtype itself. A
// pallas_call's semaphores fail otherwise (not modelled). "" for any other
// allocation.
std::string barrierLikeDtype(const std::string& allocation, bool pallasCall) {
  llvm::StringRef a(allocation);
  if (a.ends_with("ClusterBarrier"))
    return "cluster_barrier";
  if (a.ends_with("Barrier"))
    return "barrier";
  if (a.contains("Semaphore"))
    return pallasCall ? "" : "semaphore";
  return "";
}

// The dtypes GPU interpret mode allocates itself: plgpu.kernel's scoped
// allocation makes plain barriers (JAX 0.10.2); a pallas_call makes none.
// (The table says this per JAX version once it has gpuInterpretAllocates:
// the resources branch's KnowledgeBase::gpuInterpretAllocates.)
bool allocatedItself(const std::string& dtype, bool pallasCall) {
  return !pallasCall && dtype == "barrier";
}

void recordUninitializedScratch(Interpreter& in, PallasOverlay::State& s, const Trace& t) {
  const LaunchEvent& e = *t.event;
  if (t.path != ExecPath::InterpretGpu)
    return;
  const knowledge::PrimitiveFacts* p = s.kb.primitive("run_scoped");
  if (!p || !s.kb.errorTemplate("gpuInterpretUninitializedValue"))
    return;
  // InterpretGPUParams(uninitialized_memory="zero") fills with zeros (and
  // then fails otherwise for some dtypes: not modelled).
  for (const Value* params : {&e.mode, &e.interpret})
    for (const Alt& a : *params)
      if (keywordOf(a.obj, "uninitialized_memory"))
        return;
  std::optional<std::vector<Value>> items = scratchItems(in, e);
  if (!items)
    return;
  bool pallasCall = e.api == apiText(Api::PallasCall);
  for (const Value& item : *items) {
    Object* o = item.single();
    std::string dtype = o ? barrierLikeDtype(apiOf(in, o), pallasCall) : "";
    if (dtype.empty() || allocatedItself(dtype, pallasCall))
      continue;
    // Allocated before the kernel's equations are interpreted.
    s.record(in,
             ruleBinding(apiText(Api::RunScoped).str(), p, e.site,
                         refState(RefKind::NotRef, Phase::KernelDischarge, "a scratch allocation"),
                         "gpu_uninitialized_scratch", dtype));
    return;
  }
}

void recordCopyOptions(PallasOverlay::State& s, Interpreter& in, const Trace& t,
                       const std::string& api, const CallArgs& args, mlir::Operation* site) {
  if (t.path != ExecPath::InterpretGpu || api != apiText(Api::CopySmemToGmem))
    return;
  const knowledge::PrimitiveFacts* p = s.kb.primitive("copy_smem_to_gmem");
  if (!p)
    return;
  for (const char* option : {"predicate", "reduction_op"}) {
    std::string key = std::string(option) == "predicate" ? "gpuInterpretCopyPredicate"
                                                         : "gpuInterpretCopyReduction";
    if (!s.kb.errorTemplate(key))
      continue;
    Given g = givenValue(args.keyword(option));
    if (g == Given::None)
      continue;
    // The callback's error ends its traceback at the launch.
    BoundPrimitive b =
        ruleBinding(api, p, t.event->site, s.strongest(args), "gpu_copy_option", option);
    b.causeAt = placeOf(site);
    b.ruleMayNotApply = g == Given::Unknown;
    s.record(in, std::move(b));
    return; // the callback checks the predicate first
  }
}

// A call GPU interpret mode runs in a host callback through its Refs'
// transforms, given a Ref through a view: the copies' callbacks accept only
// indexing ("gpu_ref_view"), and a callback that reads the transforms as
// indexing unchecked (table gpuInterpret.transformsReadAsIndexing: JAX
// 0.10.2's plgpu.wgmma and copy out) fails on another line
// ("gpu_unchecked_view").
void recordCallbackViews(PallasOverlay::State& s, Interpreter& in, const Trace& t,
                         const std::string& api, const CallArgs& args, mlir::Operation* site) {
  if (t.path != ExecPath::InterpretGpu)
    return;
  bool toSmem = api == apiText(Api::CopyGmemToSmem);
  bool copy = toSmem || api == apiText(Api::CopySmemToGmem);
  const knowledge::PrimitiveFacts* p = nullptr;
  std::vector<const Value*> refs;
  if (copy) {
    if (!s.kb.errorTemplate("gpuInterpretUnsupportedTransform"))
      return;
    p = s.kb.primitive(toSmem ? "copy_gmem_to_smem" : "copy_smem_to_gmem");
    refs = {args.get(0, "src"), args.get(1, "dst")};
  } else if (const knowledge::ApiFacts* facts = s.kb.api(api)) {
    for (const std::string& key : facts->binds)
      if (const knowledge::PrimitiveFacts* q = s.kb.primitive(key);
          q && !q->gpuInterpretIndexingAttribute.empty())
        p = q;
    refs.reserve(args.positional.size() + args.keywords.size());
    for (const Value& v : args.positional)
      refs.push_back(&v);
    for (const auto& [name, v] : args.keywords)
      refs.push_back(&v);
  }
  if (!p)
    return;
  bool unchecked = !p->gpuInterpretIndexingAttribute.empty();
  for (const Value* ref : refs) {
    std::string view = ref ? refViewOf(s, *ref) : "";
    if (view.empty() || (!unchecked && viewHandled(s, "gpuInterpretUnsupportedTransform", view)))
      continue;
    BoundPrimitive b = ruleBinding(api, p, t.event->site, s.strongest(args),
                                   unchecked ? "gpu_unchecked_view" : "gpu_ref_view", view);
    b.causeAt = placeOf(site);
    s.record(in, std::move(b));
    return;
  }
}

// GPU interpret mode finds the barrier a barrier op names from at most one
// index (`barrier.at[i]`), and from none only when the allocation holds a
// single barrier. It raises as it interprets the op.
void recordBarrierIndexing(PallasOverlay::State& s, Interpreter& in, const Trace& t,
                           const std::string& api, const CallArgs& args, mlir::Operation* site) {
  if (t.path != ExecPath::InterpretGpu)
    return;
  const Value* barrier = nullptr;
  const char* key = nullptr;
  if (api == "plgpu.barrier_arrive" || api == "plgpu.barrier_wait") {
    barrier = args.get(0, "barrier");
    key = api == "plgpu.barrier_arrive" ? "barrier_arrive" : "barrier_wait";
  } else if (api == apiText(Api::CopyGmemToSmem)) {
    barrier = args.get(2, "barrier");
    key = "copy_gmem_to_smem";
  }
  const knowledge::PrimitiveFacts* p = key ? s.kb.primitive(key) : nullptr;
  RefInfo* r = barrier ? s.refOf(barrier->single()) : nullptr;
  if (!p || !r)
    return;
  RefState st = s.stateOf(*barrier);
  BoundPrimitive b;
  if (r->indexings >= 2 && s.kb.errorTemplate("gpuInterpretBarrierIndexing"))
    b = ruleBinding(api, p, t.event->site, st, "gpu_barrier_indexing",
                    std::to_string(r->indexings));
  else if (r->indexings == 0 && st.barrier && st.barrierCount > 1 &&
           s.kb.errorTemplate("gpuInterpretBarrierNotIndexed"))
    b = ruleBinding(api, p, t.event->site, st, "gpu_barrier_unindexed",
                    std::to_string(st.barrierCount));
  else
    return;
  b.causeAt = placeOf(site);
  s.record(in, std::move(b));
}

// ---- the barrier protocol -----------------------------------------------------------------

// The barrier a barrier op names in a thread's run: a barrier of the
// kernel's scratch, directly or through one integer `.at[i]`; nullopt when
// the check cannot tell.
std::optional<unsigned> barrierOf(const PallasOverlay::State& s, ThreadRun& run, const Value& v) {
  RefInfo* r = s.refOf(v.single());
  if (!r || r->param < 0 || !r->view.empty() || r->indexings > 1)
    return std::nullopt;
  int64_t index = 0;
  if (r->indexings == 1) {
    if (!r->atIndex)
      return std::nullopt;
    index = *r->atIndex;
  }
  const RefState& st = r->state;
  if (!st.barrier || st.barrierArrivals < 1 || st.barrierCount < 1 || index < 0 ||
      index >= st.barrierCount)
    return std::nullopt;
  auto [pos, added] = run.ids->try_emplace({r->param, index}, unsigned(run.arrivals->size()));
  if (added)
    run.arrivals->push_back(st.barrierArrivals);
  return pos->second;
}

// A thread's barrier steps: arrivals and waits that surely run once, in
// order; anything else touching a barrier, or another wait, ends what the
// check can follow.
void recordThreadStep(PallasOverlay::State& s, Interpreter& in, const Trace& t,
                      const std::string& api, const CallArgs& args, mlir::Operation* site) {
  ThreadRun& run = *t.thread;
  if (!run.followed)
    return;
  bool arrive = api == "plgpu.barrier_arrive";
  if ((arrive || api == "plgpu.barrier_wait") && args.positional.size() == 1 &&
      args.keywords.empty() && !args.morePositional && !args.moreKeywords) {
    std::optional<unsigned> id = barrierOf(s, run, args.positional[0]);
    bool once = t.unsure == 0 && in.uncertainty().size() <= t.whyBase;
    if (!id || !once) {
      run.followed = false;
      return;
    }
    run.steps.push_back({arrive, *id, site});
    return;
  }
  if (llvm::StringRef(api).contains("wait") || passesBarrier(s, args))
    run.followed = false;
}

} // namespace

void recordLaunchRules(Interpreter& in, PallasOverlay::State& s, const Trace& t) {
  recordRefTransforms(in, s, t);
  recordBlockWindows(in, s, t);
  recordUninitializedScratch(in, s, t);
}

namespace {

// The memory spaces a pl.run_scoped's allocation types ask for: register
// accumulators (plgpu.ACC, plgpu.REGS(...): MemorySpace.REGS), any other
// JAX allocation (SMEM, TMEM, barriers, unions), or something not known.
// The types are a pytree: tuples, lists and dicts are looked into.
struct ScopedSpaces {
  bool regs = false, other = false, unknown = false;
};

void addSpaces(Interpreter& in, const Value& v, ScopedSpaces& out, unsigned depth = 0) {
  if (v.isBottom() || depth > 4) {
    out.unknown = true;
    return;
  }
  if (std::optional<std::vector<Value>> items = sequenceOf(v)) {
    for (const Value& item : *items)
      addSpaces(in, item, out, depth + 1);
    return;
  }
  for (const Alt& a : v) {
    if (auto* d = llvm::dyn_cast<eval::DictObj>(a.obj); d && d->exact) {
      for (const auto& [k, item] : d->items)
        addSpaces(in, item, out, depth + 1);
      continue;
    }
    auto* inst = llvm::dyn_cast<InstanceObj>(a.obj);
    std::string api = inst ? in.canonical(inst->cls->external) : "";
    if (api.empty())
      out.unknown = true;
    else if (api == "plgpu.ACC" || llvm::StringRef(api).ends_with(".REGS"))
      out.regs = true;
    else
      out.other = true;
  }
}

ScopedSpaces scopedSpaces(Interpreter& in, const CallArgs& args) {
  ScopedSpaces spaces;
  for (size_t i = 1; i < args.positional.size(); ++i)
    addSpaces(in, args.positional[i], spaces);
  for (const auto& [k, v] : args.keywords)
    if (k != "collective_axes")
      addSpaces(in, v, spaces);
  spaces.unknown = spaces.unknown || args.morePositional || args.moreKeywords;
  return spaces;
}

// GPU interpret mode allocates a scope's register accumulators per thread
// and everything else for all threads alike (jaxpr_interpret.py
// `_interpret_run_scoped_p`): a scope may not mix the two, and its
// accumulators may not be collective. "" when neither is certain.
std::string registerScopeFailure(const ScopedSpaces& spaces,
                                 const std::optional<std::vector<std::string>>& collective) {
  if (!spaces.regs)
    return "";
  if (spaces.other)
    return "gpuInterpretRegsMixed";
  if (spaces.unknown || !collective)
    return "";
  return collective->empty() ? "" : "gpuInterpretRegsCollective";
}

} // namespace

void recordScopedAllocationRules(Interpreter& in, PallasOverlay::State& s, const CallArgs& args,
                                 mlir::Operation* site) {
  Trace* t = s.trace();
  if (!t || t->path != ExecPath::InterpretGpu || t->cpuLowered || t->nestedMesh)
    return;
  const knowledge::PrimitiveFacts* p = s.kb.primitive("run_scoped");
  if (!p)
    return;
  std::optional<std::vector<std::string>> collective = std::vector<std::string>{};
  if (const Value* given = args.keyword("collective_axes"))
    collective = constantNames(*given);
  auto bind = [&](const std::string& key, std::vector<std::string> holes) {
    BoundPrimitive b = ruleBinding(
        apiText(Api::RunScoped).str(), p, t->event->site,
        refState(RefKind::NotRef, Phase::Lowering, "a scoped allocation"),
        key.rfind("gpuInterpretRegs", 0) == 0 ? "gpu_register_scope" : "gpu_collective_axes", key);
    b.causeAt = placeOf(site);
    b.messageHoles = std::move(holes);
    s.record(in, std::move(b));
  };
  // Register allocations (plgpu.ACC) have their own two rules, checked
  // first; a scope with one is not checked against the mesh.
  ScopedSpaces spaces = scopedSpaces(in, args);
  if (spaces.regs) {
    std::string key = registerScopeFailure(spaces, collective);
    if (!key.empty() && s.kb.errorTemplate(key))
      bind(key, {});
    return;
  }
  std::optional<std::vector<std::string>> axes = meshAxes(in, *t->event);
  if (!axes || axes->empty() || !collective)
    return;
  std::string axis;
  std::string key = collectiveAxesFailure(*axes, *collective, axis);
  if (key.empty() || !s.kb.errorTemplate(key))
    return;
  bind(key, {axis, listedAxes(*axes)}); // the axis, and the mesh's axes
}

void recordApiRules(Interpreter& in, PallasOverlay::State& s, const std::string& api,
                    const CallArgs& args, mlir::Operation* site) {
  Trace* t = s.trace();
  if (!t)
    return;
  if (t->thread)
    recordThreadStep(s, in, *t, api, args, site);
  recordCopyOptions(s, in, *t, api, args, site);
  recordCallbackViews(s, in, *t, api, args, site);
  recordBarrierIndexing(s, in, *t, api, args, site);
}

void recordAccessRules(Interpreter& in, PallasOverlay::State& s, const std::string& api,
                       const CallArgs& args, mlir::Operation* site) {
  Trace* t = s.trace();
  if (!t || args.positional.empty())
    return;
  if (t->thread && passesBarrier(s, args))
    t->thread->followed = false; // a barrier read or written as a buffer
  // interpret=True's state discharge also rejects a plgpu.RefUnion member's
  // ExtractAliasedRef (as it rejects scratch transforms), when it
  // discharges the read or write itself.
  bool gpu =
      t->path == ExecPath::InterpretGpu && s.kb.errorTemplate("gpuInterpretUnsupportedTransform");
  bool hlo = t->path == ExecPath::InterpretHlo && s.kb.errorTemplate("unsupportedRefTransform");
  if (!gpu && !hlo)
    return;
  bool item = api == "ref.__getitem__";
  const knowledge::PrimitiveFacts* p = s.kb.primitive(item ? "get" : "swap");
  const Value& ref = args.positional[0];
  if (!p || !s.stateOf(ref).isRef())
    return;
  std::string view = refViewOf(s, ref);
  if (view.empty())
    return;
  if (hlo) {
    // Raised by the discharge rule of the read or write; its traceback
    // carries no source of the kernel and ends at the launch's call. State
    // discharge applies only the transforms its `match` takes (table
    // unsupportedRefTransform.handledCases): a transpose view raises too.
    const knowledge::ErrorTemplate* e = s.kb.errorTemplate("unsupportedRefTransform");
    bool member = view == "plgpu.RefUnion";
    bool unhandled =
        e && e->handledCases && !llvm::is_contained(*e->handledCases, viewTransformClass(view));
    RefState st = s.stateOf(ref);
    if ((!member && !unhandled) || !st.discharged())
      return;
    BoundPrimitive b =
        ruleBinding(api, p, t->event->site, st, member ? "union_member" : "hlo_ref_view", view);
    b.causeAt = placeOf(site);
    s.record(in, std::move(b));
    return;
  }
  // The callback's error ends its traceback at the launch.
  if (viewHandled(s, "gpuInterpretUnsupportedTransform", view))
    return;
  BoundPrimitive b = ruleBinding(api, p, t->event->site, s.strongest(args), "gpu_ref_view", view);
  b.causeAt = placeOf(site);
  s.record(in, std::move(b));
}

void recordPipelineRules(Interpreter& in, PallasOverlay::State& s, const Pipeline& p,
                         mlir::Operation* site) {
  Trace* t = s.trace();
  if (!t || t->path != ExecPath::InterpretGpu || !s.kb.errorTemplate("gpuInterpretCopyPredicate"))
    return;
  const knowledge::PrimitiveFacts* prim = s.kb.primitive("copy_smem_to_gmem");
  const Value* outSpecs = p.options.keyword("out_specs");
  if (!prim || !outSpecs)
    return; // no outputs: nothing is copied out
  const Value* grid = p.options.keyword("grid");
  // Each output spec: moves with the step (true), does not (false), unknown.
  std::vector<std::optional<bool>> moves;
  if (std::optional<std::vector<Value>> specs = sequenceOf(*outSpecs))
    for (const Value& spec : *specs)
      moves.push_back(specMovesWithStep(in, s, spec, grid, p.site));
  else
    moves.push_back(specMovesWithStep(in, s, *outSpecs, grid, p.site));
  bool certain = llvm::any_of(moves, [](const std::optional<bool>& m) { return m && *m; });
  bool maybe = llvm::any_of(moves, [](const std::optional<bool>& m) { return !m; });
  if (!certain && !maybe)
    return;
  // A grid computed in the kernel (read from a Ref, pl.num_programs) may
  // have no steps when it runs, and then nothing is copied.
  if (grid && computedInKernel(*grid))
    certain = false;
  BoundPrimitive b =
      ruleBinding(p.api, prim, t->event->site,
                  refState(RefKind::Ref, Phase::Lowering, "a pipeline output staged in SMEM"),
                  "gpu_copy_option", "predicate");
  b.causeAt = placeOf(site);
  b.ruleMayNotApply = !certain;
  s.record(in, std::move(b));
}

// See the file comment. Reported at the launch's run (a host callback
// raises), naming the step that raises or the barrier's first use.
void recordBarrierProtocol(Interpreter& in, PallasOverlay::State& s, Trace& t, const Value& kernel,
                           const CallArgs& refs) {
  const LaunchEvent& e = *t.event;
  if (t.path != ExecPath::InterpretGpu || e.api != apiText(Api::GpuKernel) || t.thread)
    return;
  for (const char* key : {"gpuInterpretBarrierCompletedAgain", "gpuInterpretBarrierPhasePassed",
                          "gpuInterpretBarrierUnobservedPhases"})
    if (!s.kb.errorTemplate(key))
      return; // another interpreter: its protocol is not this one
  const knowledge::PrimitiveFacts* p = s.kb.primitive("barrier_arrive");
  int64_t threads = e.numThreads;
  if (!p || threads < 1 || threads > 32 ||
      !llvm::any_of(refs.positional, [&](const Value& v) { return holdsBarrier(s, v); }))
    return;
  const Value* threadName = e.options.keyword("thread_name");
  auto* axis = threadName ? llvm::dyn_cast_or_null<StrObj>(threadName->single()) : nullptr;
  if (std::optional<Value> raised = in.takeRaised()) { // the kernel does not run to its end
    in.raise(*raised);
    return;
  }
  std::map<std::pair<int, int64_t>, unsigned> ids;
  std::vector<int> arrivals;
  std::vector<std::vector<BarrierStep>> steps(static_cast<size_t>(threads));
  KernelTrace aside; // what each thread's run binds is the main trace's already
  KernelTrace* out = t.out;
  t.out = &aside;
  size_t pipelines = s.pipelines.size();
  bool followed = true;
  for (int64_t i = 0; i < threads && followed; ++i) {
    ThreadRun run;
    run.index = i;
    run.axis = axis ? axis->v : "";
    run.ids = &ids;
    run.arrivals = &arrivals;
    t.thread = &run;
    in.heap().beginSide();
    in.call(kernel, refs, e.site);
    in.heap().endSide(true);
    followed = run.followed && !in.takeRaised();
    t.thread = nullptr;
    steps[static_cast<size_t>(i)] = std::move(run.steps);
  }
  t.out = out;
  for (size_t i = pipelines; i < s.pipelines.size(); ++i)
    s.pipelines[i].called = true; // bound by the main trace, not again
  if (!followed || arrivals.empty())
    return;
  mlir::Operation* firstUse = nullptr;
  for (const auto& thread : steps)
    if (!firstUse && !thread.empty())
      firstUse = thread.front().op;
  std::optional<BarrierProtocolFailure> f = exploreBarrierProtocol(steps, arrivals);
  if (!f)
    return;
  BoundPrimitive b =
      ruleBinding("plgpu.barrier_arrive", p, e.site, {}, "gpu_barrier_protocol", f->key);
  b.messageHoles = f->holes;
  b.causeAt = placeOf(f->at ? f->at : firstUse);
  s.record(in, std::move(b));
}

// Where JAX's traceback ends for an error raised while the launch runs:
// the call that runs what the launch API built, when the program makes one
// such call; otherwise the launch stands for its calls.
void placeRunErrors(std::vector<LaunchRecord>& records) {
  for (LaunchRecord& r : records) {
    const LaunchEvent* built = r.event.built;
    if (!built || built->runCalls.size() != 1)
      continue;
    mlir::Operation* run = built->runCalls.front();
    for (auto& [path, trace] : r.traces)
      for (BoundPrimitive& b : trace.bindings)
        if (b.site == r.event.site && rulesRaisedAtRun().count(b.interpretRule))
          b.site = run;
  }
}

} // namespace pallas::analysis::passes
