// Walks what one execution path of one kernel launch runs, in program order,
// through calls across functions and files, and records every primitive the
// kernel binds together with the discharge state of its Ref operands on that
// path. Deciding whether the path can run each binding is PathRules' job.
//
// Which Refs a path discharges (JAX 0.10 semantics, see docs/analysis.md):
//   interpret_hlo  every kernel Ref (inputs, outputs, pallas_call scratch) in
//                  the kernel discharge pass; scoped allocations (run_scoped,
//                  plgpu.kernel scratch, pipeline buffers, run_state refs)
//                  later, when their construct is lowered to XLA;
//   compiled       plgpu.ACC accumulators and the Refs pl.run_state builds
//                  from values, when Mosaic GPU lowers their construct;
//   interpret_gpu  none (the GPU interpreter keeps Refs as buffers), except
//                  the refs of a pl.run_state, which falls back to XLA.
// Inside a higher-order op that discharges all refs of its body (jax.jit,
// jax.checkpoint/remat, custom_vjp, custom_vmap) entered with a discharged
// Ref operand, every Ref is discharged.
#pragma once

#include "pallas/analysis/detail/Apis.h"
#include "pallas/analysis/detail/Passes.h"
#include "pallas/knowledge/KnowledgeBase.h"
#include "pallas/knowledge/PathFacts.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

using detail::Api;
// An API's canonical spelling from the catalogue (detail/Apis.def), as the
// dialect's StringRefs compare.
inline llvm::StringRef apiText(Api id) {
  return llvm::StringRef(detail::apiName(id));
}

// The knowledge table explains primitives per path (PathFacts.h) in the same terms.
using ExecPath = knowledge::ExecutionPath;

// When JAX processes a failing equation: errors of an earlier phase are
// raised first; within a phase the first equation in program order wins.
enum class Phase : uint8_t {
  Retrace = 0,         // interpret_hlo re-traces the kernel (run_scoped collective axes)
  KernelDischarge = 1, // interpret_hlo discharges the kernel's Refs
  // compiled: Mosaic GPU estimates the kernel's resources before it lowers
  // any equation (CompiledRules.cpp)
  ResourceEstimation = 2,
  Lowering = 3, // lowering (XLA or Mosaic GPU), including scoped discharges
  // The kernel runs: a host callback of GPU interpret mode raises
  // (GpuInterpretRules.cpp).
  Run = 4,
};

struct RefState {
  enum class Kind : uint8_t { NotRef, Ref, Discharged };
  Kind kind = Kind::NotRef;
  Phase phase = Phase::Lowering; // when Discharged
  const char* what = "";         // what the Ref is, for messages ("a kernel input/output Ref")
  bool accumulator = false;      // a plgpu.ACC: its Ref type overrides indexing
  bool refUnion = false;         // a plgpu.RefUnion: indexing it extracts a member
  bool unionMember = false;      // a member (or group of members) of a plgpu.RefUnion
  // A plgpu.Barrier scratch: its num_arrivals and num_barriers (0: unknown).
  bool barrier = false;
  int barrierArrivals = 0;
  int barrierCount = 0;
  bool isRef() const { return kind != Kind::NotRef; }
  bool discharged() const { return kind == Kind::Discharged; }
};

// An arrival at or a wait on barrier `barrier` (numbered per launch), one
// step of a thread in GPU interpret mode's barrier protocol.
struct BarrierStep {
  bool arrive = false;
  unsigned barrier = 0;
  mlir::Operation* op = nullptr;
};

// One function of the call chain, from the kernel to the primitive.
struct Hop {
  std::string name;          // Python name ("kernel", "helper", "<lambda>")
  SourceLocation definition; // its def
  SourceLocation callSite;   // where the previous hop calls it (empty for the kernel)
};
// A hop as a finding's call chain shows it: "helper (kernels.py:12)".
std::string hopText(const Hop& h);

// One primitive bound by one call the kernel reaches.
struct BoundPrimitive {
  std::string api; // as written, canonical: "plgpu.copy_gmem_to_smem"
  const knowledge::PrimitiveFacts* prim = nullptr;
  mlir::Operation* site = nullptr;  // the call JAX blames (its location)
  RefState refs;                    // the most discharged Ref operand (earliest phase)
  bool cpuLowered = false;          // interpret_gpu: runs through XLA (inside pl.run_state)
  dialect::InlineMgpuOp inlineMgpu; // for inline_mgpu_p: the region's op
  // The same for the evaluator's traces (no pallas dialect op): the
  // region's name as the kernel calls it, its def, and its return_type as
  // written ("None" when it has none).
  std::string inlineName;
  SourceLocation inlineDef;
  std::optional<std::string> inlineReturnType;
  // PLS004 as the evaluator decides it at the call: the argument count
  // against arg_types, an array for a plgpu.RefType() slot (or a Ref for a
  // layout slot), a None result (no return_type) used as a value.
  struct Signature {
    enum class Problem { None, Count, ArrayForRef, RefForArray, NoneUsed } problem = Problem::None;
    size_t given = 0, declared = 0, index = 0;
    std::string noneUse; // the error of the use: "TypeError: ..."
  };
  std::optional<Signature> signature;
  mlir::Operation* inlineCall =
      nullptr;                     // for inline_mgpu_p: the call of the wrapper (null when direct)
  std::vector<RefState> argStates; // for inline_mgpu_p: each call argument's state
  // For other primitives: the state of each positional argument of the call,
  // taken as the primitive's operands in order (a full discharge rule's
  // written operands are looked up here).
  std::vector<RefState> operandStates;
  // The Mosaic GPU semantics the compiled path may lower this binding with:
  // lowering semantics ("Lane", "Warpgroup"; the first is the launch's when
  // known, else both) and user thread semantics ("Warpgroup", "Warp").
  std::vector<std::string> loweringSemantics;
  std::vector<std::string> primitiveSemantics;
  bool mayNotBind = false; // the API may return before binding (knowledge: returnsBeforeBind)
  std::vector<Hop> chain;
  unsigned order = 0;             // program order within the launch
  bool retraceCollective = false; // a run_scoped with collective axes (interpret_hlo)
  // A rule of the HLO interpreter (interpret_hlo) that raises whatever the
  // operands (docs/analysis.md 8.12): "unbound_axis" (lax.axis_index of a
  // Mosaic GPU mesh axis), "ref_transform" (a Ref allocated with plgpu
  // transforms=); `detail` is what JAX's message names (the axis, the
  // transform as written).
  std::string interpretRule;
  std::string detail;
  // Reached through a call whose callee is one of several the source allows
  // (`self.kernel` in a base class whose subclasses override it): the
  // binding happens only for some receivers, so its failure is a "may"
  // (docs/analysis.md 8.14). The text says which choice leads here.
  std::string unknownDispatch;
  // The rule applies only for some values the source does not pin down (a
  // parameter no caller fixes, an output spec not known here): a "may".
  bool ruleMayNotApply = false;
  // Where the rule's cause is written ("kernels.py:14"), when JAX blames
  // another place (a run-time callback's error ends at the launch).
  std::string causeAt;
  // What fills the holes of the rule's message template, in order (the
  // thread and phases of a barrier protocol failure; a collective axis and
  // the mesh's axes).
  std::vector<std::string> messageHoles;
};

// A kernel a caller passes to the function around a launch whose body is
// that function's parameter (CallContexts.h, launchBodyArguments).
struct LaunchBodyArgument {
  mlir::Value value;
  std::string doc;       // the caller's document
  std::string caller;    // the calling function's name
  std::string parameter; // the launching function's parameter
  // The call passing it: the launching function's call, or for a decorator
  // factory's closure the factory's call whose result is applied (8.64).
  mlir::Operation* via = nullptr;
  // The body is this attribute of what the caller passes (`spec.body` with
  // `spec` the parameter, 8.88); empty: the argument itself.
  std::string attribute;
};

class KernelWalk {
public:
  KernelWalk(const detail::Workspace& workspace, const knowledge::KnowledgeBase& knowledge,
             ExecPath path, dialect::LaunchOp launch, std::string launchPath)
      : ws_(workspace), kb_(knowledge), path_(path), launch_(launch),
        launchPath_(std::move(launchPath)) {}

  // Walk the launch's kernel body; false when the body cannot be found.
  // The kernels the launch's callers pass, for a body that is a parameter
  // of the function around the launch (set before run()).
  void setBodyArguments(std::vector<LaunchBodyArgument> args) { bodyArguments_ = std::move(args); }
  // What a parameter of the function around the launch holds in the caller
  // context this walk judges (set before run()).
  void bindParameter(mlir::Value parameter, mlir::Value value, std::string doc) {
    argValues_[parameter] = {value, std::move(doc)};
  }
  bool run();
  // Take what another engine (the evaluator's trace) recorded instead of walking.
  void adopt(std::vector<BoundPrimitive> bindings, Hop kernel) {
    bindings_ = std::move(bindings);
    kernelHop_ = std::move(kernel);
  }
  const std::vector<BoundPrimitive>& bindings() const { return bindings_; }
  // The kernel body's name and definition (the first hop).
  const Hop& kernelHop() const { return kernelHop_; }
  // A constant as the dialect writes it (a string with its quotes).
  struct Literal {
    dialect::ConstantKind kind;
    std::string text;
  };

private:
  struct Callable {
    mlir::Block* block = nullptr; // the body to walk
    std::string path;             // document holding it
    std::string name;
    mlir::Operation* defOp = nullptr;
    dialect::InlineMgpuOp inlineMgpu; // set when the callable is an inline_mgpu wrapper
    bool dischargesAllRefs = false;   // reached through jax.jit / checkpoint / custom_vjp ...
    std::string higherOrderApi;       // that wrapper's API ("jax.checkpoint"), innermost
    // Arguments bound before the call's own: a functools.partial's, or the
    // instance / class of a bound method. Keywords "" are positional.
    llvm::SmallVector<mlir::Value> boundArgs;
    std::vector<std::string> boundKeywords, boundOrigins;
    // Several callables the value may be (a method of the receiver's class
    // or of one of its subclasses): each is walked, its failures are "may".
    std::vector<Callable> alternatives;
    std::string dispatchText; // "`self.kernel` is `Child.kernel`" for an alternative
    // What the parameters of the functions around the body hold: a callable
    // returned by a decorator or factory applied to arguments (`log_calls(
    // kernel)` returning its nested `wrapper`, which calls `fn`) sees the
    // arguments of that application (8.20).
    std::vector<std::pair<mlir::Value, std::pair<mlir::Value, std::string>>> captured;
    // The parameters of those functions the application left out (no splat
    // could fill them): each holds its default, read in the given document.
    std::vector<std::pair<mlir::Value, std::string>> leftOut;
  };
  // A class of the workspace: the document defining it and its name there.
  struct ClassRef {
    std::string path;
    std::string name;
  };

  Callable fromBodyArguments() const;
  // The truth of a condition this walk determines (a literal, a module
  // constant, `not` of one, through the parameters it binds); nullopt when
  // it does not.
  std::optional<bool> truthOf(mlir::Value v, unsigned depth = 0) const;
  void walkBlock(mlir::Block& block);
  void visit(mlir::Operation& op);
  void onPrim(dialect::PrimOp prim);
  void onCall(mlir::Operation* site, const Callable& callee, mlir::ValueRange args,
              mlir::ArrayAttr keywords, mlir::ArrayAttr origins);
  void onScope(dialect::ScopeOp scope);
  void onPipelineRun(dialect::ScopeOp pipeline, mlir::Operation* call, mlir::ValueRange args,
                     mlir::ArrayAttr origins);
  void walkScopeBody(dialect::ScopeOp scope);
  void recordInline(mlir::Operation* site, dialect::InlineMgpuOp op, mlir::Operation* call,
                    RefState refs);
  void record(BoundPrimitive b);
  // HLO interpreter rules that raise whatever the operands (InterpretRules.cpp).
  void recordInterpretRefTransforms();
  bool recordUnboundAxis(dialect::PrimOp prim);
  // Interpreted paths: a pl.core_map nested in the kernel that JAX keeps has
  // no interpreter rule: the HLO interpreter's state discharge has none for
  // a plgpu.WarpMesh using the kernel's Refs, and GPU interpret mode re-binds
  // it, which raises for a primitive holding an open jaxpr. (Its compiled
  // path is its own launch's.)
  // `kept`: JAX keeps the core_map whatever its body does (plgpu.warp_map
  // reads the warp's axis index).
  void recordNestedCoreMap(mlir::Region& body, bool warpMesh, llvm::StringRef api, bool kept);
  struct NestedBodyUse {
    bool kept = false; // an effect JAX keeps: a Ref written, an axis index read
    bool refs = false; // a Ref of the kernel read or written
  };
  NestedBodyUse nestedBodyUse(mlir::Region& body) const;
  void notePrimUse(dialect::PrimOp p, NestedBodyUse& use) const;
  // `plgpu.warp_map(f)` in the kernel: a WarpMesh core_map of f. Compiled,
  // f runs with Warp user thread semantics; interpreted, recordNestedCoreMap.
  void onWarpMap(mlir::Operation* call, mlir::ValueRange args);
  // GPU interpret mode: a call of a function wrapped by a higher-order API
  // whose primitive the interpreter re-binds (jax.checkpoint: remat2).
  void recordGpuInterpretHigherOrder(const std::string& api);
  // GPU interpret mode's pallas_call asserts whole-array blocks at the
  // origin (GpuInterpretRules.cpp).
  void recordGpuInterpretBlockWindows();
  // ... and fills scratch buffers with NaN, which barrier / semaphore
  // dtypes have no value for.
  void recordGpuInterpretUninitializedScratch();
  mlir::Operation* runSite() const;
  // ... and checks a scoped allocation's collective axes against the
  // launch's thread mesh.
  void recordGpuInterpretScopedCollectives(dialect::ScopeOp scope);
  std::optional<std::vector<std::string>> constantNames(mlir::Value v) const;
  bool nestedMesh_ = false; // walking a pl.core_map nested in the kernel
  // GPU interpret mode's copy callback raises for a predicated copy or one
  // with a reduction_op (GpuInterpretRules.cpp): a copy written with one,
  // a pipeline whose output block moves with its step.
  void recordGpuInterpretCopyOptions(dialect::PrimOp prim);
  // A read, write or copy through a reshaped / transposed view of a Ref.
  void recordGpuInterpretRefViews(dialect::PrimOp prim);
  std::string refViewOf(mlir::Value ref) const;
  void recordPredicatedPipelineCopies(dialect::ScopeOp pipeline, mlir::Operation* site);
  std::optional<bool> specMovesWithStep(mlir::Value spec, const std::string& doc) const;
  bool computedInKernel(mlir::Value v, const std::string& doc, unsigned depth) const;
  // What an optional argument holds: None (or absent), something else, or
  // not known here (a parameter no caller pins down).
  enum class Given { None, Something, Unknown };
  Given givenValue(mlir::Value v) const;
  bool defaultsToNone(mlir::BlockArgument param, const std::string& doc) const;
  bool gpuInterpretRebinds(const knowledge::PrimitiveFacts* p) const;
  // Compiled: a call of a function wrapped by a higher-order API whose
  // primitive Mosaic GPU's resource estimation rejects (CompiledRules.cpp).
  void recordResourceEstimation(mlir::Operation* site, const std::string& api);
  // Compiled: a call of a public JAX function the table says binds a
  // custom-derivative primitive (jax.nn.relu); true when recorded.
  bool recordCustomDerivative(dialect::PrimOp prim);

  Callable resolve(mlir::Value callee, unsigned depth = 0, const std::string& doc = "") const;
  // Containers of callables (KernelWalkContainers.cpp). `container[key]`: a
  // dict / list / tuple, a module-level registry with the items its module
  // stores and its decorators register; a key not known statically is any
  // of the values (alternatives, "may"). `fallback`: dict.get's default,
  // the callable when the key is certainly absent.
  struct Item {
    mlir::Value key; // null: not known statically
    mlir::Value value;
    std::string doc;
    unsigned line = 0, column = 0; // where it is put in (module order)
    // A key known without a constant op (`fn.__name__` in a comprehension
    // or a registering decorator, a module constant or Enum member), as
    // keyText / constantKey write it; empty: `key` says.
    std::string keyString;
    // What the names the value is read with hold (a comprehension's
    // target, one element of its iterable): bound while it resolves.
    std::vector<std::pair<mlir::Value, std::pair<mlir::Value, std::string>>> captured;
  };
  // An item's value as a callable, read with the names it was put in with.
  Callable resolveItem(const Item& item, unsigned depth) const;
  Callable lookupItem(mlir::Value container, mlir::Value key, unsigned depth,
                      const std::string& doc, mlir::Value fallback = {}) const;
  // What `container` holds, in the order it was put in; false when not
  // known. `sequence`: a list or tuple (keys are indices).
  bool itemsOf(mlir::Value container, const std::string& doc, std::vector<Item>& items,
               bool& sequence) const;
  // The items a module-level registry `name` of `doc` gets from its module's
  // statements and decorators after `base`; false when something else may
  // put items in.
  bool registeredItems(const std::string& doc, llvm::StringRef name, mlir::Operation* base,
                       std::vector<Item>& items) const;
  // `{k: v for t in seq}` / `[v for t in seq]` (8.61): one item per element
  // of seq, t bound to it; false when not known (an `if` clause: items
  // that may be left out).
  bool comprehensionItems(dialect::OpaqueOp comp, const std::string& doc,
                          std::vector<Item>& items) const;
  // The elements a `for` clause goes through, each split over the target's
  // names; false when not known.
  bool iterationElements(mlir::Value iterable, const std::string& doc, size_t names,
                         std::vector<std::vector<mlir::Value>>& elements,
                         std::string& elementDoc) const;
  // The constant text a key holds (quotes normalised), following parameters
  // and, for a parameter of the function around the launch, what every
  // caller passes when they agree; nullopt when not known.
  std::optional<std::string> keyText(mlir::Value key, const std::string& doc) const;
  // The string a key holds (keyText's "s:" spelling, without the prefix):
  // a name `getattr` / `globals()` looks up; nullopt for any other key.
  std::optional<std::string> stringKey(mlir::Value key, const std::string& doc) const;
  // Parameters (KernelWalkParameters.cpp): a literal or module constant's
  // value; a parameter's literal default; what a parameter of the def
  // around the launch holds (every caller's constant, else, with no caller,
  // its default), nullopt when not known.
  std::optional<Literal> literalValue(mlir::Value v) const;
  std::optional<Literal> parameterDefault(dialect::FuncOp owner, unsigned index,
                                          const std::string& doc) const;
  std::optional<Literal> launchParameterLiteral(mlir::BlockArgument arg,
                                                const std::string& doc) const;
  // A parameter a call left out holds its default (defaulted_): the literal
  // it is written with, or the module function a module-level def's default
  // names (`epilogue=fence_epilogue`); nullopt / an empty Callable when the
  // parameter is not left out or its default is something else.
  std::optional<Literal> defaultLiteral(mlir::BlockArgument arg) const;
  Callable defaultCallable(mlir::BlockArgument arg, unsigned depth) const;
  // What a loop target over every element is (8.26, 8.45, 8.87): the
  // elements of the literal or generator `iter` goes over (their `item`
  // when the target is a pattern of names), each an alternative.
  Callable overLoopElements(dialect::OpaqueOp iter, std::optional<unsigned> item, unsigned depth,
                            const std::string& doc) const;
  // The parameters of `defOp` (in `doc`) that only a keyword can fill: those
  // after a bare `*` or a `*args` (a launch passes its Refs positionally,
  // so a kernel's keyword-only parameters keep their defaults).
  std::vector<unsigned> keywordOnlyParameters(mlir::Operation* defOp, const std::string& doc) const;
  // `lax.switch(index, branches, *operands)`: JAX traces every branch.
  void onSwitch(dialect::PrimOp prim);
  Callable resolveMethod(mlir::Value object, llvm::StringRef attr, unsigned depth,
                         const std::string& doc) const;
  // `super().attr` in a method (8.90): the bases' method, bound to self.
  Callable superMethod(dialect::CallIndirectOp super, llvm::StringRef attr,
                       const std::string& doc) const;
  Callable attributeOf(mlir::Value object, llvm::StringRef attr, unsigned depth,
                       const std::string& doc) const;
  // `getattr(obj, f"_{name}_kernel")`: each method of obj's class the
  // f-string's literal pieces may spell, an alternative ("may"; 8.89).
  Callable methodsSpelled(mlir::Value object, const std::vector<std::string>& pieces,
                          unsigned depth, const std::string& doc) const;
  // `sys.modules[__name__]` in `doc`: the module itself.
  bool isOwnModule(mlir::Value object, const std::string& doc) const;
  // The function a module-level name of `doc` is bound to (a def, or one
  // imported from another workspace file).
  Callable moduleFunction(const std::string& doc, llvm::StringRef name) const;
  // The callable a function of the workspace returns when applied to these
  // arguments (its parameters bound to them while its returns resolve).
  Callable resolveApplied(const Callable& f, mlir::ValueRange args, mlir::ArrayAttr keywords,
                          unsigned depth, const std::string& doc) const;
  // Binds the parameters of `block` that receive a `*pack` of the launch's
  // Refs (8.20); true when the pack was one.
  bool bindRefPack(mlir::Block& block, mlir::ArrayAttr names, unsigned firstParam,
                   mlir::Value splat, std::vector<std::pair<mlir::Value, RefState>>& bound);
  Callable fromFunction(const detail::FunctionRef& f) const;
  // Classes (KernelWalkClasses.cpp): bases as written (resolved through the
  // module's names), a method found along the bases (depth first, leftmost
  // base first), the subclasses of a class in its own document.
  std::vector<ClassRef> basesOf(const ClassRef& cls) const;
  detail::FunctionRef lookupMethod(const ClassRef& cls, llvm::StringRef attr,
                                   unsigned depth = 0) const;
  std::vector<ClassRef> subclassesOf(const ClassRef& cls) const;
  std::optional<ClassRef> classNamed(const std::string& doc, llvm::StringRef localName) const;
  // `attr` of the object `constructor` builds (8.16, 8.88): the argument
  // the call gives for it (by keyword, by a dataclass / NamedTuple field's
  // place, or the `__init__` parameter stored as `self.attr`), or a module
  // function the class's default names; empty when not known.
  Callable constructedAttribute(dialect::CallIndirectOp constructor, llvm::StringRef attr,
                                unsigned depth, const std::string& doc) const;
  // The value a module-level name holds once the module has run: the last
  // top-level assignment of it, when nothing else binds it (no nested
  // assignment, def, import, `global` rebinding); null otherwise.
  // With `itemStores`, also the value of a name the module then changes by
  // item assignments (`KERNELS["x"] = fn`), which itemsOf() applies.
  mlir::Value moduleValue(const std::string& doc, llvm::StringRef name,
                          bool itemStores = false) const;
  // A value with module-level names and parameters replaced by what they
  // hold (the caller's argument, with the document it lives in).
  std::pair<mlir::Value, std::string> follow(mlir::Value v, const std::string& doc) const;
  // What a nested def's read of a name its enclosing def binds later holds.
  mlir::Value lateBinding(dialect::GlobalOp read) const;
  void walkKernel(const Callable& body);
  RefState stateOf(mlir::Value v, llvm::StringRef origin) const;
  std::optional<RefState> unionMemberState(mlir::Value v) const;
  bool extractsUnionMember(dialect::PrimOp prim) const;
  void markBarrierScratch(RefState& s, unsigned index, unsigned count) const;
  void recordGpuInterpretBarrierIndexing(dialect::PrimOp prim);
  void recordGpuInterpretBarrierProtocol(mlir::Block& body);
  std::optional<int64_t> threadInteger(mlir::Value v, int64_t thread) const;
  std::optional<bool> threadCondition(mlir::Value cond, int64_t thread) const;
  bool barrierSteps(mlir::Block& block, int64_t thread, bool top,
                    std::map<std::pair<unsigned, int64_t>, unsigned>& ids,
                    std::vector<int>& arrivals, std::vector<BarrierStep>& out) const;
  RefState strongest(mlir::ValueRange args, mlir::ArrayAttr origins) const;
  // The same over the operands of a prim/call/scope/inline_mgpu/... op.
  RefState strongest(dialect::CallOperandsOpInterface op) const;
  RefState kernelParamState(unsigned index, unsigned count) const;
  RefState kernelParamStateOf(unsigned index, unsigned count) const; // + accumulator
  RefState scopedState(llvm::StringRef origin) const;
  std::vector<const knowledge::PrimitiveFacts*> primitivesOf(llvm::StringRef api,
                                                             bool& direct) const;

  const detail::Workspace& ws_;
  const knowledge::KnowledgeBase& kb_;
  ExecPath path_;
  mutable dialect::LaunchOp launch_; // MLIR op handles have non-const accessors
  std::string launchPath_;

  std::string doc_; // document of the block being walked
  std::vector<Hop> chain_;
  Hop kernelHop_;
  std::vector<LaunchBodyArgument> bodyArguments_;
  llvm::DenseMap<mlir::Value, RefState> states_; // block arguments in scope
  bool allDischarged_ = false;                   // inside an all-refs discharge region
  Phase allPhase_ = Phase::Lowering;
  bool cpuLowered_ = false;
  std::vector<std::string> loweringSemantics_;               // of the launch (see BoundPrimitive)
  std::vector<std::string> primitiveSemantics_{"Warpgroup"}; // Warp inside a WarpMesh core_map
  llvm::DenseSet<mlir::Block*> onStack_;
  llvm::DenseSet<llvm::hash_code> walked_; // (callee, argument states) already walked
  std::vector<BoundPrimitive> bindings_;
  unsigned order_ = 0;
  // The value each parameter of the functions being walked was given (the
  // caller's argument and its document): a callable passed to a helper
  // (`apply(fence, o_ref)`) is what the helper calls.
  // Mutable: resolving a decorator's result binds its parameters while its
  // returns are resolved (resolveApplied), then restores them.
  mutable llvm::DenseMap<mlir::Value, std::pair<mlir::Value, std::string>> argValues_;
  // The parameters of the functions being walked that their call left out,
  // with the document their def is in: each holds its default (8.86).
  mutable llvm::DenseMap<mlir::Value, std::string> defaulted_;
  // A `*args` parameter that holds the launch's Refs from this index on (a
  // kernel written `def wrapper(*args)`): `fn(*args)` passes them on.
  llvm::DenseMap<mlir::Value, unsigned> refPacks_;
  std::vector<std::string> dispatch_;                       // the uncertain dispatches being walked
  mutable std::map<std::string, mlir::Value> moduleValues_; // moduleValue(), per "doc\nname"
  // basesOf(), per "path\nclass": subclassesOf asks it of every class of a
  // file for every class, and each answer scanned the module's statements.
  mutable std::map<std::string, std::vector<ClassRef>> bases_;
};

// A launch the Mosaic GPU analysis applies to: not one whose arguments select
// another Pallas backend (TPU compiler/interpret params or mesh, Triton).
bool isMosaicGpuLaunch(dialect::LaunchOp launch);
// False for an op inside a region that cannot run: a `pallas.if` branch its
// static condition excludes (code after raise / return / skipTest is lowered
// into such a region).
bool isStaticallyReachable(mlir::Operation* op);
// A pl.core_map launch whose mesh is written in the call as plgpu.WarpMesh.
bool isWarpMeshCoreMap(dialect::LaunchOp launch);
// The launches of `all` whose kernel is the function (a module-level def or
// a closure) that `nested` is written in: a pl.core_map in a kernel runs on
// the paths those launches take.
std::vector<dialect::LaunchOp> enclosingLaunches(llvm::ArrayRef<dialect::LaunchOp> all,
                                                 dialect::LaunchOp nested);

const char* pathLabel(ExecPath p);
const char* pathShortName(ExecPath p);

} // namespace pallas::analysis::passes
