// What the Pallas overlay keeps while the program runs (PallasOverlay.h):
// its classes, the process-wide mode, the launch events, and the kernel
// being traced. Private to the overlay's files.
#pragma once

#include "PallasOverlay.h"

#include <deque>
#include <set>

namespace pallas::analysis::passes {

using eval::Alt;
using eval::CallArgs;
using eval::ClassObj;
using eval::InstanceObj;
using eval::Interpreter;
using eval::Object;
using eval::Value;

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
  ClassObj* launchClass = nullptr;   // what pl.pallas_call(...) returns
  ClassObj* refClass = nullptr;      // a Ref in a kernel
  ClassObj* refAtClass = nullptr;    // ref.at
  ClassObj* inlineClass = nullptr;   // an inline_mgpu region
  ClassObj* pipelineClass = nullptr; // plgpu.emit_pipeline(...)
  ClassObj* wrappedClass = nullptr;  // jax.jit(f), jax.checkpoint(f), ...
  ClassObj* modeClass = nullptr;     // force_gpu_interpret_mode(...)
  ClassObj* noneResultClass = nullptr; // what an inline_mgpu region without return_type returns
  InstanceObj* config = nullptr;     // holds the process-wide mode ("mode")

  std::deque<RefInfo> refs;
  std::deque<InlineRegion> regions;
  std::deque<Pipeline> pipelines;
  std::deque<Wrapped> wrapped;
  struct NoneResultRef {
    KernelTrace* trace;
    size_t binding;
  };
  std::deque<NoneResultRef> noneResults;
  std::deque<LaunchEvent> launches; // payload of launch objects (one per build)
  std::vector<std::unique_ptr<CallArgs>> deferred; // options of decorators not yet applied

  std::vector<LaunchRecord> records;
  std::vector<Trace*> traces; // the kernels being traced, innermost last
  Trace* trace() { return traces.empty() ? nullptr : traces.back(); }
  unsigned entryCounter = 0;

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
Value callWrappedInKernel(Interpreter& in, Wrapped& w, const CallArgs& args,
                          mlir::Operation* site);
// In a kernel: a call of a JAX / Pallas API (PallasKernel.cpp).
Value kernelApiCall(Interpreter& in, const std::string& api, const CallArgs& args,
                    mlir::Operation* site);

// Installs the kernel-side natives (PallasKernel.cpp).
void installKernelNatives(Interpreter& in, PallasOverlay::State& s);

} // namespace pallas::analysis::passes
