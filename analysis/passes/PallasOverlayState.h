// What the Pallas overlay keeps while the program runs (PallasOverlay.h):
// its classes, the process-wide mode, the launch events, and the kernel
// being traced. Private to the overlay's files.
#pragma once

#include "PallasOverlay.h"

#include <deque>
#include <functional>
#include <map>
#include <set>

namespace pallas::analysis::passes {

using eval::Alt;
using eval::CallArgs;
using eval::ClassObj;
using eval::InstanceObj;
using eval::Interpreter;
using eval::Object;
using eval::Value;

struct ThreadRun;

// One kernel traced on one path (the overlay's KernelWalk).
struct Trace {
  ExecPath path;
  const LaunchEvent* event = nullptr;
  KernelTrace* out = nullptr;
  size_t stackBase = 0; // interpreter stack depth when the kernel was called
  size_t whyBase = 0;   // uncertainty depth then
  bool allDischarged = false;
  Phase allPhase = Phase::Lowering;
  bool cpuLowered = false;
  bool nestedMesh = false;
  std::vector<std::string> loweringSemantics, primitiveSemantics;
  unsigned order = 0;
  bool kernelSeen = false;
  // Inside a body JAX traces once for what runs several times or maybe not
  // at all (a loop, lax.cond, pl.when on a traced value, a pipeline step).
  unsigned unsure = 0;
  // GPU interpret mode's barrier protocol: the kernel traced again for one
  // thread (lax.axis_index of the thread axis is this index), recording its
  // barrier steps (PallasInterpretRules.cpp).
  ThreadRun* thread = nullptr;
};

// One thread's run of a plgpu.kernel for the barrier protocol check.
struct ThreadRun {
  int64_t index = 0;
  std::string axis; // the launch's thread_name
  std::vector<BarrierStep> steps;
  // The barrier each step names: (kernel parameter, index) -> number,
  // shared by the threads, with each barrier's arrival count.
  std::map<std::pair<int, int64_t>, unsigned>* ids = nullptr;
  std::vector<int>* arrivals = nullptr;
  bool followed = true; // false: something the check cannot follow ran
};

// An inline_mgpu-decorated function.
struct InlineRegion {
  Value fn;
  Value argTypes, returnType;
  mlir::Operation* decorator = nullptr;
};

// A pipeline built by plgpu.emit_pipeline* in a kernel.
struct Pipeline {
  std::string api;
  Value body;
  mlir::Operation* site = nullptr;
  CallArgs options;
  bool called = false;
};

// A function wrapped by a JAX transformation (jit, checkpoint, vmap, ...).
struct Wrapped {
  std::string api;
  Value fn;
  CallArgs options;
};

struct PallasOverlay::State {
  explicit State(const knowledge::KnowledgeBase& kb) : kb(kb) {}
  const knowledge::KnowledgeBase& kb;
  ClassObj* launchClass = nullptr;     // what pl.pallas_call(...) returns
  ClassObj* refClass = nullptr;        // a Ref in a kernel
  ClassObj* refAtClass = nullptr;      // ref.at
  ClassObj* inlineClass = nullptr;     // an inline_mgpu region
  ClassObj* pipelineClass = nullptr;   // plgpu.emit_pipeline(...)
  ClassObj* wrappedClass = nullptr;    // jax.jit(f), jax.checkpoint(f), ...
  ClassObj* modeClass = nullptr;       // force_gpu_interpret_mode(...)
  ClassObj* noneResultClass = nullptr; // what an inline_mgpu region without return_type returns
  InstanceObj* config = nullptr;       // holds the process-wide mode ("mode")
  InstanceObj* facts = nullptr;        // what branches established ("platforms")
  // The platform jax.default_backend() names on this machine: "gpu" when a
  // GPU was found, else "cpu" (PallasPlatform.cpp).
  std::string hostPlatform = "cpu";

  std::deque<RefInfo> refs;
  std::deque<InlineRegion> regions;
  std::deque<Pipeline> pipelines;
  std::deque<Wrapped> wrapped;
  struct NoneResultRef {
    KernelTrace* trace;
    size_t binding;
  };
  std::deque<NoneResultRef> noneResults;
  std::deque<LaunchEvent> launches;                // payload of launch objects (one per build)
  std::vector<std::unique_ptr<CallArgs>> deferred; // options of decorators not yet applied

  std::vector<LaunchRecord> records;
  std::vector<Trace*> traces; // the kernels being traced, innermost last
  Trace* trace() { return traces.empty() ? nullptr : traces.back(); }
  unsigned entryCounter = 0;
  std::function<std::string(mlir::Operation*)> sourceText; // PallasOverlay::setSourceText

  // ---- helpers shared by the overlay's files --------------------------------
  Value makeRef(Interpreter& in, RefInfo info, mlir::Operation* site);
  RefInfo* refOf(Object* o) const;
  // The strongest Ref state among a value's alternatives (KernelWalk::strongest).
  RefState stateOf(const Value& v) const;
  RefState strongest(const CallArgs& args) const;
  void record(Interpreter& in, BoundPrimitive b);
  std::vector<Hop> chain(Interpreter& in) const;
  // The primitives an API binds (KernelWalk::primitivesOf).
  std::vector<const knowledge::PrimitiveFacts*> primitivesOf(llvm::StringRef api,
                                                             bool& direct) const;
  // A kernel parameter's state on the path traced (KernelWalk::kernelParamState).
  RefState kernelParamState(const std::string& origin) const;
  RefState scopedState(llvm::StringRef origin) const;
  // Trace the event's kernel on `path`.
  void traceKernel(Interpreter& in, LaunchEvent& event, ExecPath path, KernelTrace& out);
};

// The canonical name of a library callee (`plgpu.copy_gmem_to_smem`), or "".
std::string apiNameOf(Interpreter& in, const Object* o);
// An instance's class, by the canonical name of a library class.
bool isInstanceOfApi(Interpreter& in, const Object* o, llvm::StringRef api);

// Natives shared by the overlay's files.
Value nLowerCall(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object* self);
Value nIdentityDecorator(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                         const Object* self);
Value nTransformLater(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                      const Object* self);
Value makeWrapped(Interpreter& in, const std::string& api, const Value& fn, const CallArgs& args,
                  mlir::Operation* site);
// In a kernel: a call of a transformed function (PallasKernel.cpp).
Value callWrappedInKernel(Interpreter& in, Wrapped& w, const CallArgs& args, mlir::Operation* site);
// In a kernel: a call of a JAX / Pallas API (PallasKernel.cpp).
Value kernelApiCall(Interpreter& in, const std::string& api, const CallArgs& args,
                    mlir::Operation* site);

// The platform the program runs on (PallasPlatform.cpp): which platforms the
// code running now may run on, and the natives that answer it.
std::set<std::string> platformsOf(Interpreter& in);
void installPlatformNatives(Interpreter& in, PallasOverlay::State& s);

// JAX's configuration (PallasConfig.cpp): `jax_pallas_use_mosaic_gpu` now
// (false: a pallas_call without compiler params compiles with Triton).
Value mosaicGpuFlag(Interpreter& in);
void installConfigNatives(Interpreter& in, PallasOverlay::State& s);

// Arrays and dtypes outside kernels (PallasArrays.cpp): the value of a call
// of a library function that makes one (jnp.arange, np.dtype, ...), nullopt
// for other functions; and the natives of the array class.
std::optional<Value> arrayApiCall(Interpreter& in, const std::string& api, const CallArgs& args,
                                  mlir::Operation* site);
void installArrayNatives(Interpreter& in);
// jax.tree_util.tree_leaves / tree_map over the containers JAX flattens (PallasTrees.cpp).
void installTreeNatives(Interpreter& in);
// What a function JAX traces receives for an argument given as a
// jax.ShapeDtypeStruct (`jax.jit(f).trace(spec)`, `.lower(spec)`): an array
// of that shape and dtype; tuples are looked into; anything else as given.
Value tracedArgument(Interpreter& in, const Value& v, mlir::Operation* site, unsigned depth = 0);

// Installs the kernel-side natives (PallasKernel.cpp).
void installKernelNatives(Interpreter& in, PallasOverlay::State& s);

// The binding of one interpreter rule: `api` at `site` binds `prim`, whose
// operands are in state `refs`; `detail` is what JAX's message names.
inline BoundPrimitive ruleBinding(std::string api, const knowledge::PrimitiveFacts* prim,
                                  mlir::Operation* site, RefState refs, std::string rule,
                                  std::string detail) {
  BoundPrimitive b;
  b.api = std::move(api);
  b.prim = prim;
  b.site = site;
  b.refs = refs;
  b.interpretRule = std::move(rule);
  b.detail = std::move(detail);
  return b;
}

// ---- interpreter rules that raise whatever the operands' values ------------------------
// (PallasInterpretRules.cpp; the old walk's InterpretRules.cpp,
// GpuInterpretRules.cpp and BarrierProtocol.cpp, read from the evaluator's
// values.)

// When the kernel's trace starts: scratch allocated with plgpu transforms=
// (interpret=True), a pallas_call block that moves with the grid and
// scratch GPU interpret mode cannot fill (GPU interpret mode).
void recordLaunchRules(Interpreter& in, PallasOverlay::State& s, const Trace& t);
// A pl.run_scoped in the kernel: its collective axes against the launch's
// thread mesh, its register accumulators mixed with other allocations or
// made collective (GPU interpret mode).
void recordScopedAllocationRules(Interpreter& in, PallasOverlay::State& s, const CallArgs& args,
                                 mlir::Operation* site);
// A call of a kernel API, before what it binds: a copy's predicate= /
// reduction_op=, a Ref view a copy goes through, how a barrier is indexed;
// and, in a thread's run, its barrier steps.
void recordApiRules(Interpreter& in, PallasOverlay::State& s, const std::string& api,
                    const CallArgs& args, mlir::Operation* site);
// A Ref read (`ref[...]`) or written: a view the access goes through.
void recordAccessRules(Interpreter& in, PallasOverlay::State& s, const std::string& api,
                       const CallArgs& args, mlir::Operation* site);
// A pipeline run: an output whose block moves with the step is copied out
// predicated (GPU interpret mode).
void recordPipelineRules(Interpreter& in, PallasOverlay::State& s, const Pipeline& p,
                         mlir::Operation* site);
// After a plgpu.kernel's trace on GPU interpret mode: its barrier protocol,
// the kernel traced once per thread with the same Refs.
void recordBarrierProtocol(Interpreter& in, PallasOverlay::State& s, Trace& t, const Value& kernel,
                           const CallArgs& refs);
// Something a thread's run cannot follow (the protocol check gives up).
inline void threadRunLost(PallasOverlay::State& s) {
  if (Trace* t = s.trace(); t && t->thread)
    t->thread->followed = false;
}
// After the program ran: the rules whose error is raised while the launch
// runs are blamed on the call running it.
void placeRunErrors(std::vector<LaunchRecord>& records);

} // namespace pallas::analysis::passes
