// The evaluator's overlay for JAX, Pallas and Mosaic GPU (docs/analysis.md
// §8, "Overlays: Pallas"): what the launch APIs do when the program calls
// them, which execution path each call selects (its `interpret=`, the
// process-wide GPU interpret mode, JAX's precedence between them and the
// moment each API reads the mode), and what a kernel binds on each path when
// JAX traces it: the evaluator calls the kernel with Refs as its arguments
// and this overlay records every primitive an API call binds, with the
// discharge state of its Ref operands (KernelWalk.h's RefState) and the call
// chain from the kernel. PathRules then decides each binding.
#pragma once

#include "KernelWalk.h"
#include "PathRules.h"
#include "pallas/eval/Interpreter.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

// What an abstract Ref is (a kernel parameter, a scoped allocation, a
// pipeline buffer ...) and its state on the path being traced.
struct RefInfo {
  RefState state;
  std::string origin; // "kernel_param", "scratch", "acc", "run_scoped", "pipeline", "run_state"
  // The last transform other than indexing the Ref is viewed through, as
  // the API catalogue spells it ("ref.reshape", "ref.T", "ref.transpose",
  // "plgpu.transpose_ref", "ref.bitcast" ...); empty for the Ref itself.
  std::string view;
  // `.at[...]` applied since that transform (or since the Ref), and the
  // index the last one gave when it is an integer (barrier.at[i]).
  unsigned indexings = 0;
  std::optional<int64_t> atIndex;
  // The kernel parameter it comes from (its position among the Refs the
  // launch passes), -1 for another Ref.
  int param = -1;
};

// Where a path is decided: the expression the user wrote (`interpret=True`,
// a caller's argument, `with force_gpu_interpret_mode():`).
struct PathSelector {
  mlir::Operation* at = nullptr;
  std::string text; // "interpret=True", "force_gpu_interpret_mode()", ...
};

// One time the program builds (or, for plgpu.kernel, calls) a launch.
struct LaunchEvent {
  mlir::Operation* site = nullptr; // the py.call of the launch API
  // Where the checked document makes the launch: the site, or (a launch
  // wrapper in another file) the call in the document that reaches it.
  mlir::Operation* reportedAt = nullptr;
  std::string doc;
  std::string api; // pl.pallas_call, plgpu.kernel, pl.kernel, pl.core_map
  eval::Value kernel;
  eval::Value interpret; // bottom: not given
  eval::Value mode;      // the process-wide GPU interpret mode JAX reads (None: unset)
  eval::Value scratch;   // the scratch_shapes / scratch list as given
  long numThreads = 1;
  bool threadName = false;
  std::vector<std::string> loweringSemantics; // from compiler_params
  std::vector<std::string> primitiveSemantics{"Warpgroup"};
  std::string otherBackend; // the launch targets TPU / Triton: not judged
  // Its compiled path is Mosaic GPU's: the code building it may run on a GPU
  // (a test that skips itself on GPUs does not), and a pallas_call without
  // compiler params is not sent to Triton (jax_pallas_use_mosaic_gpu off).
  bool mosaicCompiles = true;
  unsigned entry = 0; // the entry-point run that reached it (0: module code)
  mlir::Operation* entryDef = nullptr;
  eval::CallArgs options; // the launch's keyword arguments
  // The calls that led here (callee name, call site), outermost first.
  std::vector<std::pair<std::string, mlir::Operation*>> calls;
  bool calledSomewhere = false; // plgpu.kernel: its result was called
  // The launch API itself is one of several callees the call may have
  // (`LAUNCHERS[backend](kernel, ...)`): every path it selects is a "may".
  bool apiChosenAtRunTime = false;
  // The event as the launch API built it (the overlay's own copy, which
  // every later copy points to), and the calls that ran what it built
  // (each op once): JAX's traceback for an error raised while the launch
  // runs ends at the call running it when there is one such call.
  LaunchEvent* built = nullptr;
  std::vector<mlir::Operation*> runCalls;
  // The builtin exceptions (by name) that an except clause around every
  // call running the launch catches, with that clause: a failure JAX raises
  // there does not stop the program (`try: kernel(x) except
  // NotImplementedError: fallback`). Kept on the built event.
  std::map<std::string, mlir::Operation*> caught;
};

// A path one event selects, and how surely.
struct SelectedPath {
  ExecPath path;
  bool may = false;
  LaunchFacts facts;
  PathSelector selector;
};

// The kernel traced on one path.
struct KernelTrace {
  std::vector<BoundPrimitive> bindings;
  Hop kernelHop;
  bool kernelKnown = true;
  std::string unknownKernel; // why not, for the "may" warning
};

struct LaunchRecord {
  // Moved, never copied, when a vector of them grows (some member's move is
  // not declared noexcept, and copying a record's traces was a tenth of an
  // edit's CPU on a 10k-line file).
  LaunchRecord() = default;
  LaunchRecord(const LaunchRecord&) = default;
  LaunchRecord(LaunchRecord&&) noexcept = default;
  LaunchRecord& operator=(const LaunchRecord&) = default;
  LaunchRecord& operator=(LaunchRecord&&) noexcept = default;
  ~LaunchRecord() = default;

  LaunchEvent event;
  std::vector<SelectedPath> selected;
  std::map<ExecPath, KernelTrace> traces; // every path is traced (the path matrix)
};

class PallasOverlay final : public eval::Overlay {
public:
  explicit PallasOverlay(const knowledge::KnowledgeBase& kb);
  ~PallasOverlay() override;
  const char* name() const override { return "pallas"; }
  void install(eval::Interpreter& in) override;

  // After the program ran: every launch event with its paths and traces,
  // those of entry points that some caller also ran left out.
  std::vector<LaunchRecord> finish(eval::Interpreter& in);

  struct State; // the kernel being traced and what it recorded
  State& state() { return *state_; }
  // The source text of an op as written (a BlockSpec, a transform a rule's
  // message names); without it the overlay describes the value instead.
  void setSourceText(std::function<std::string(mlir::Operation*)> text);
  // The platform JAX picks on the machine the program runs on: "gpu" when
  // one was found here, else "cpu" (what jax.default_backend() returns).
  void setHostPlatform(std::string platform);

private:
  std::unique_ptr<State> state_;
};

} // namespace pallas::analysis::passes
