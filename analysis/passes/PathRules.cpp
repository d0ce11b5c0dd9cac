#include "PathRules.h"

#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

using knowledge::DischargeStatus;
using knowledge::GpuInterpretHandling;

std::string templ(const knowledge::KnowledgeBase& kb, const std::string& key,
                  const std::vector<std::string>& holes, std::string fallback) {
  auto text = kb.formatError(key, holes);
  return text ? *text : std::move(fallback);
}

std::string exceptionOf(const knowledge::KnowledgeBase& kb, const std::string& key,
                        const char* fallback) {
  const knowledge::ErrorTemplate* t = kb.errorTemplate(key);
  return t && !t->exception.empty() ? t->exception : fallback;
}

// A failure of an interpreter or lowering rule that raises whatever the
// operands are: JAX's exception and message from the table's template `key`
// (the fallbacks when the table lacks it), with why and what to do.
std::optional<Failure> ruleFailure(const knowledge::KnowledgeBase& kb, const std::string& key,
                                   const char* exception, const std::vector<std::string>& holes,
                                   std::string fallback, std::string reason, std::string advice) {
  Failure f;
  f.rule = RuleId::PrimitiveOnPath;
  f.phase = Phase::Lowering;
  f.exception = exceptionOf(kb, key, exception);
  f.jaxError = templ(kb, key, holes, std::move(fallback));
  f.reason = std::move(reason);
  f.advice = std::move(advice);
  return f;
}

// JAX's GPU interpreter runs inline_mgpu_p only with InterpretGPUParams(inline_mgpu=...).
bool isInline(const BoundPrimitive& b) {
  return b.prim->name == "inline_mgpu_p";
}

using knowledge::explain;
using knowledge::Outcome;

std::string advice(const BoundPrimitive& b, ExecPath path, const knowledge::KnowledgeBase& kb) {
  return pathCheckFor(b).advice(b, path, kb);
}

// `lowered` is the primitive XLA is asked to lower: the binding's own, or the
// functional form its discharge rule bound.
Failure missingLowering(const BoundPrimitive& b, ExecPath path, const knowledge::KnowledgeBase& kb,
                        std::string reason, const knowledge::PrimitiveFacts* lowered = nullptr) {
  const std::string& name = (lowered ? lowered : b.prim)->name;
  Failure f;
  f.rule = pathCheckFor(b).rule;
  f.phase = Phase::Lowering;
  f.exception = exceptionOf(kb, "missingLowering", "NotImplementedError");
  f.jaxError =
      templ(kb, "missingLowering", {name, "cpu"},
            "MLIR translation rule for primitive '" + name + "' not found for platform cpu");
  f.reason = std::move(reason);
  f.advice = advice(b, path, kb);
  return f;
}

// GPU interpret mode's fallback re-binds a primitive it has no arm for on
// its operands' values (a Ref is passed as its buffer's allocation key);
// an abstract-eval rule that asserts a Ref operand then raises a bare
// AssertionError while the interpreter traces the kernel (table
// `fallbackOutcome` "abstract-eval-asserts-ref"). A bare assert has no
// message: the predicted first line is empty, and the oracle compares the
// exception type and the (empty) message like any other.
Failure abstractEvalAssertsRef(const BoundPrimitive& b, ExecPath path,
                               const knowledge::KnowledgeBase& kb) {
  Failure f;
  f.rule = pathCheckFor(b).rule;
  f.phase = Phase::Lowering;
  f.exception = "AssertionError";
  f.jaxError = "";
  f.reason = "the GPU interpreter has no rule for " + b.prim->name +
             ": it re-binds the primitive on the buffers' values, and " + b.prim->name +
             "'s abstract evaluation asserts that its operand is a Ref";
  f.advice = advice(b, path, kb);
  return f;
}

// The semantics JAX's message names: the one the launch selects, else a
// `<...>` placeholder (the oracle's notation for what only JAX knows):
// compiler parameters passed through a variable are not visible.
std::string semanticsText(const std::vector<std::string>& s) {
  if (s.size() == 1)
    return s.front();
  std::string alternatives;
  for (const auto& x : s)
    alternatives += (alternatives.empty() ? "" : " or ") + x;
  return "<" + alternatives + ">";
}

// How JAX prints a transform it cannot apply ("Unsupported transform: ..."):
// its class name, literal, and its fields. A field the source writes as a
// literal is printed as JAX prints it; one only the running program knows
// (a value through a variable, a view's shape) is a `<...>` placeholder for
// that field alone: the oracle matches each placeholder with what it may
// stand for (test/oracle/test_agreement.py), never a name.
std::string literalOr(llvm::StringRef written, const std::string& placeholder) {
  written = written.trim();
  bool literal =
      !written.empty() && written.find_first_not_of("0123456789(), ") == llvm::StringRef::npos;
  return literal ? written.str() : placeholder;
}

// The transform the HLO interpreter's state discharge meets first when it
// undoes a scratch Ref's plgpu transforms= (`written`, as written: e.g.
// `plgpu.SwizzleTransform(128)` is undone by `UnswizzleRef(swizzle=128)`).
std::string undoingTransformText(llvm::StringRef written) {
  size_t open = written.find('(');
  llvm::StringRef name = written.take_front(open).rsplit('.').second;
  if (name.empty())
    name = written.take_front(open);
  llvm::StringRef arg =
      open == llvm::StringRef::npos
          ? ""
          : written.drop_front(open + 1).drop_back(written.ends_with(")") ? 1 : 0);
  if (name == "SwizzleTransform")
    return "UnswizzleRef(swizzle=" + literalOr(arg, "<its swizzle>") + ")";
  if (name == "TilingTransform")
    return "UntilingTransform(tiling=" + literalOr(arg, "<its tiling>") + ")";
  return "<the transform undoing " + written.str() +
         ">"; // no placeholder of the oracle's: fails there
}

// A view's transform as JAX prints it.
std::string viewTransformText(const std::string& transform) {
  if (transform == "TransposeTransform")
    return "TransposeTransform(permutation=<its permutation>)";
  if (transform == "ReshapeTransform")
    return "ReshapeTransform(shape=<its shape>)";
  return "ExtractAliasedRef(<its dtype, shape, offset, alias group and layout>)";
}

} // namespace

std::string viewTransformClass(const std::string& view) {
  if (view == "plgpu.RefUnion")
    return "ExtractAliasedRef";
  return view == "ref.reshape" ? "ReshapeTransform" : "TransposeTransform";
}

namespace {

// Mosaic GPU lowers equation by equation and raises for a primitive without
// a rule for the launch's (lowering, user thread) semantics. Only a table
// that lists the primitive's rules (an empty list: none) decides.
std::optional<Failure> mosaicLoweringVerdict(const BoundPrimitive& b,
                                             const knowledge::PrimitiveFacts& lowered,
                                             const knowledge::KnowledgeBase& kb,
                                             const std::string& how) {
  static const std::vector<std::string> anyLowering{"Lane", "Warpgroup"};
  static const std::vector<std::string> anyPrimitive{"Warpgroup", "Warp"};
  const auto& lowering = b.loweringSemantics.empty() ? anyLowering : b.loweringSemantics;
  const auto& primitive = b.primitiveSemantics.empty() ? anyPrimitive : b.primitiveSemantics;
  std::optional<bool> has =
      knowledge::KnowledgeBase::hasMosaicGpuRule(lowered, lowering, primitive);
  if (!has || *has)
    return std::nullopt;
  std::string ls = "LoweringSemantics." + semanticsText(lowering);
  std::string ps = "PrimitiveSemantics." + semanticsText(primitive);
  Failure f;
  f.rule = pathCheckFor(b).rule;
  f.phase = Phase::Lowering;
  f.exception = exceptionOf(kb, "mosaicGpuUnimplemented", "NotImplementedError");
  f.jaxError = templ(kb, "mosaicGpuUnimplemented", {lowered.name, ls, ps},
                     "Unimplemented primitive in Pallas Mosaic GPU lowering: " + lowered.name +
                         " for lowering semantics " + ls + " and user thread semantics " + ps);
  std::string rules;
  for (const auto& r : lowered.mosaicGpuSemantics)
    rules += (rules.empty() ? "" : ", ") + r;
  f.reason = how + ", and Mosaic GPU has no lowering rule for " + lowered.name +
             (lowering.size() > 1 ? " under either lowering semantics"
                                  : " under " + lowering.front() + " lowering semantics") +
             (rules.empty() ? std::string(" (it has none at all)") : " (it has: " + rules + ")");
  if (rules.empty())
    f.advice = "Compute this with jnp/lax operations instead of " + b.api +
               " in a kernel compiled by Mosaic GPU (" + b.api +
               " is meant for other Pallas back ends or the interpreters).";
  else
    f.advice = "Call " + b.api + " only where Mosaic GPU has a rule for " + lowered.name + " (" +
               rules +
               ", as <lowering>x<user thread> semantics): a pl.core_map over plgpu.WarpMesh "
               "gives its body Warp user thread semantics, and "
               "compiler_params=plgpu.CompilerParams(lowering_semantics=...) selects the "
               "lowering semantics.";
  f.uncertain = b.mayNotBind;
  if (b.mayNotBind)
    f.reason += " (when " + b.api + " binds it at all: it may return its input unchanged)";
  return f;
}

// A discharge rule that exists ran: a full rule that writes back an operand
// that is not being discharged fails; otherwise the functional primitives it
// binds are lowered in the equation's place.
std::optional<Failure> dischargedRuleVerdict(const BoundPrimitive& b, ExecPath path,
                                             const knowledge::KnowledgeBase& kb,
                                             const std::string& by) {
  const auto& p = *b.prim;
  if (!p.partialDischarge && p.dischargeWrites) {
    for (int w : *p.dischargeWrites) {
      if (w < 0 || static_cast<size_t>(w) >= b.operandStates.size())
        continue;
      const RefState& s = b.operandStates[static_cast<size_t>(w)];
      if (!s.isRef() || (s.discharged() && s.phase == b.refs.phase))
        continue;
      Failure f;
      f.rule = pathCheckFor(b).rule;
      f.phase = b.refs.phase;
      f.exception = exceptionOf(kb, "dischargedUnflaggedInput", "ValueError");
      f.jaxError = templ(kb, "dischargedUnflaggedInput",
                         {"<operand " + std::to_string(w) + " of " + p.name + ": " + s.what + ">",
                          "<its new value>"},
                         "Did not ask for inval to be discharged but it was.");
      f.reason = by + " discharges " + b.refs.what + " given to " + b.api + " while " + s.what +
                 " (operand " + std::to_string(w) + ") is " +
                 (s.discharged() ? "discharged only later" : "not discharged") + ", and " + p.name +
                 "'s full discharge rule returns a new value for that operand anyway";
      f.advice = advice(b, path, kb);
      return f;
    }
  }
  for (const std::string& key : p.dischargeBinds) {
    const knowledge::PrimitiveFacts* fn = kb.primitive(key);
    if (!fn)
      continue;
    std::string how = by + " discharges " + b.refs.what + " given to " + b.api + ", and " + p.name +
                      "'s discharge rule binds " + fn->name + " on the values instead";
    if (path == ExecPath::Compiled) {
      if (auto f = mosaicLoweringVerdict(b, *fn, kb, how))
        return f;
      continue;
    }
    if (!fn->cpuLowering)
      return missingLowering(b, path, kb,
                             how + ", which is then lowered to XLA for the CPU, which has no "
                                   "rule for it",
                             fn);
  }
  return std::nullopt;
}

// The equation has a discharged Ref operand: its discharge rule decides.
std::optional<Failure> dischargeVerdict(const BoundPrimitive& b, ExecPath path,
                                        const knowledge::KnowledgeBase& kb) {
  const auto& p = *b.prim;
  std::string by =
      path == ExecPath::Compiled ? "Mosaic GPU lowering" : std::string(pathLabel(path));
  Failure f;
  f.rule = pathCheckFor(b).rule;
  f.phase = b.refs.phase;
  switch (p.discharge) {
  case DischargeStatus::Exists:
    return dischargedRuleVerdict(b, path, kb, by);
  case DischargeStatus::None:
    f.exception = exceptionOf(kb, "noDischargeRule", "NotImplementedError");
    f.jaxError = templ(kb, "noDischargeRule", {p.name},
                       "No state discharge rule implemented for primitive: " + p.name);
    f.reason = by + " discharges " + b.refs.what + " given to " + b.api + ", and " + p.name +
               " has no state discharge rule";
    break;
  case DischargeStatus::Raises:
    f.exception = p.dischargeException.empty() ? "NotImplementedError" : p.dischargeException;
    f.jaxError = !p.dischargeMessage.empty() ? p.dischargeMessage
                                             : templ(kb, "inlineMgpuDischarge", {},
                                                     p.name + " does not support discharge.");
    f.reason = by + " discharges " + b.refs.what + " given to " + b.api + ", and " + p.name +
               "'s discharge rule always raises";
    break;
  }
  f.advice = advice(b, path, kb);
  return f;
}

// skip_floating_point_ops=True: the GPU interpreter skips an equation whose
// outputs are all floating point, or that has none. Only inline_mgpu's
// outputs are known statically (its return_type).
enum class Skip { Yes, No, Unknown };
Skip skippedAsFloat(const BoundPrimitive& b) {
  pd::InlineMgpuOp op = b.inlineMgpu;
  std::optional<llvm::StringRef> rt;
  if (op)
    if (auto t = op.getReturnType())
      rt = *t;
  if (b.inlineReturnType)
    rt = llvm::StringRef(*b.inlineReturnType);
  if (!op && !b.inlineReturnType)
    return Skip::Unknown;
  if (!rt || rt->trim() == "None")
    return Skip::Yes; // no outputs
  llvm::StringRef t = *rt;
  bool floaty = t.contains("float") || t.contains("bfloat16");
  bool other = t.contains("int") || t.contains("bool") || t.contains("complex");
  if (floaty && !other)
    return Skip::Yes;
  if (other && !floaty)
    return Skip::No;
  return Skip::Unknown;
}

} // namespace

std::string gpuInterpretAlternative(const BoundPrimitive& b) {
  bool gpuRuns = b.prim->gpuInterpret == GpuInterpretHandling::Arm ||
                 b.prim->gpuInterpret == GpuInterpretHandling::ArmNoop ||
                 (b.prim->gpuInterpret == GpuInterpretHandling::Fallback && b.prim->cpuLowering);
  return gpuRuns ? ", or use GPU interpret mode (interpret=InterpretGPUParams()), which runs " +
                       b.prim->name
                 : std::string();
}

std::string compiledDischargeAdvice(const BoundPrimitive& b) {
  return "Do not hand " + std::string(b.refs.what) + " to " + b.api +
         ": load its value (acc_ref[...]) and pass an SMEM/GMEM Ref or an array instead.";
}

const PathCheck& pathCheckFor(const BoundPrimitive& b) {
  return b.prim && isInline(b) && !b.retraceCollective ? inlineMgpuOnPathCheck()
                                                       : primitiveOnPathCheck();
}

namespace {
std::optional<Failure> decideCertain(const BoundPrimitive& b, ExecPath path,
                                     const LaunchFacts& launch, const knowledge::KnowledgeBase& kb);
} // namespace

// A binding reached through one of several possible callees (the walk's
// `unknownDispatch`, docs/analysis.md 8.14) fails only when that callee is
// the one that runs: a "may".
std::optional<Failure> decide(const BoundPrimitive& b, ExecPath path, const LaunchFacts& launch,
                              const knowledge::KnowledgeBase& kb) {
  std::optional<Failure> f = decideCertain(b, path, launch, kb);
  if (f && !b.unknownDispatch.empty()) {
    f->uncertain = true;
    f->reason += " (" + b.unknownDispatch + ")";
  }
  if (f && b.ruleMayNotApply)
    f->uncertain = true;
  return f;
}

namespace {
std::optional<Failure> decideCertain(const BoundPrimitive& b, ExecPath path,
                                     const LaunchFacts& launch,
                                     const knowledge::KnowledgeBase& kb) {
  if (!b.prim)
    return std::nullopt;
  const auto& p = *b.prim;

  if (b.interpretRule == "unbound_axis" && path == ExecPath::InterpretHlo)
    return ruleFailure(kb, "unboundAxisName", "NameError", {b.detail, "axis_index"},
                       "Found an unbound axis name: " + b.detail,
                       "interpret=True runs the body without the mesh's named axes (grid, "
                       "cluster, thread), so lax.axis_index finds its axis unbound",
                       "Run this kernel compiled on a GPU, or use GPU interpret mode "
                       "(interpret=InterpretGPUParams()), which binds the mesh's axes.");
  if (b.interpretRule == "ref_transform" && path == ExecPath::InterpretHlo)
    return ruleFailure(
        kb, "unsupportedRefTransform", "NotImplementedError", {undoingTransformText(b.detail)},
        "Unsupported transform: " + undoingTransformText(b.detail),
        "interpret=True discharges a scratch Ref allocated with transforms= (" + b.detail +
            "), and its state discharge supports only indexing, bitcast and "
            "reshape transforms",
        "Run this kernel compiled on a GPU, or use GPU interpret mode "
        "(interpret=InterpretGPUParams()), or drop transforms= while debugging "
        "with interpret=True.");
  if (b.interpretRule == "union_member" && path == ExecPath::InterpretHlo) {
    std::optional<Failure> f = ruleFailure(
        kb, "unsupportedRefTransform", "NotImplementedError",
        {viewTransformText("ExtractAliasedRef")},
        "Unsupported transform: " + viewTransformText("ExtractAliasedRef"),
        "interpret=True discharges the kernel's Refs, and a member of a plgpu.RefUnion is "
        "the union's buffer seen through an ExtractAliasedRef transform, which state "
        "discharge does not support",
        "Run this kernel compiled on a GPU, or allocate the members as separate scratch "
        "buffers (plgpu.SMEM) while debugging with interpret=True.");
    f->phase = b.refs.phase;
    return f;
  }
  if (b.interpretRule == "hlo_ref_view" && path == ExecPath::InterpretHlo) {
    std::string transform = viewTransformClass(b.detail);
    std::optional<Failure> f = ruleFailure(
        kb, "unsupportedRefTransform", "NotImplementedError", {viewTransformText(transform)},
        "Unsupported transform: " + viewTransformText(transform),
        "interpret=True discharges the kernel's Refs, and state discharge applies only "
        "indexing, bitcasts and reshapes to what a Ref reads, while the " +
            b.api + " at " + b.causeAt + " goes through a " + b.detail + " view (a " + transform +
            ")",
        "Read the Ref without the view and transpose the value (`x_ref[...].T`) while "
        "debugging with interpret=True, or run this kernel compiled on a GPU.");
    f->phase = b.refs.phase;
    return f;
  }
  if (b.interpretRule == "core_map_mesh" && path == ExecPath::InterpretHlo)
    return ruleFailure(kb, "coreMapMeshUnsupported", "NotImplementedError",
                       {"<class 'jax._src.pallas.mosaic_gpu.core." + b.detail + "'>"},
                       "Mesh type " + b.detail + " not supported.",
                       "interpret=True discharges the kernel's state, and the discharge rule of "
                       "a pl.core_map nested in it has no case for a plgpu." +
                           b.detail + " mesh",
                       "Run this kernel compiled on a GPU, or keep the warp-specialised "
                       "pl.core_map out of the kernel while debugging with interpret=True.");
  if (b.interpretRule == "gpu_higher_order" && path == ExecPath::InterpretGpu)
    return ruleFailure(kb, "gpuInterpretHigherOrder", "NotImplementedError", {b.detail},
                       "Higher-order primitive " + b.detail,
                       "GPU interpret mode interprets the kernel equation by equation and has "
                       "no case for " +
                           b.detail + " (bound by " + b.api +
                           "): it binds the equation again, which raises for a primitive "
                           "holding an open jaxpr",
                       "Run this kernel compiled on a GPU or with interpret=True, or call the "
                       "function without " +
                           b.api + " inside the kernel while debugging in GPU interpret mode.");
  if (b.interpretRule == "gpu_block_window" && path == ExecPath::InterpretGpu) {
    std::optional<Failure> f = ruleFailure(
        kb, "gpuInterpretBlockWindows", "AssertionError", {}, "",
        "GPU interpret mode copies each operand of a pallas_call into the kernel whole and "
        "asserts that every block is the whole array at the origin; " +
            b.detail + " moves its block with the grid",
        "Run this kernel compiled on a GPU or with interpret=True, or write it with whole-array "
        "blocks (index the Refs with pl.program_id / pl.ds in the body) while debugging in GPU "
        "interpret mode.");
    f->phase = Phase::KernelDischarge;
    return f;
  }
  if (b.interpretRule == "gpu_collective_axes" && path == ExecPath::InterpretGpu) {
    const std::string& at = b.causeAt;
    std::string axis = b.messageHoles.size() > 0 ? b.messageHoles[0] : "";
    std::string axes = b.messageHoles.size() > 1 ? b.messageHoles[1] : "";
    std::string fallback =
        b.detail == "gpuInterpretCollectiveAxisNotFound"
            ? "Collective axis `" + axis + "` not found among axes `" + axes + "`"
            : "";
    std::vector<std::string> holes;
    if (b.detail == "gpuInterpretCollectiveAxisNotFound")
      holes = {axis, axes};
    std::optional<Failure> f = ruleFailure(
        kb, b.detail, "ValueError", holes, fallback,
        "GPU interpret mode allocates the pl.run_scoped at " + at +
            " for the threads its collective_axes= name, and checks them against the launch's "
            "thread mesh (" +
            axes + ")",
        "Give the allocation collective_axes= naming the launch's thread axis (and no cluster "
        "axis), or run this kernel compiled on a GPU.");
    return f;
  }
  if (b.interpretRule == "gpu_register_scope" && path == ExecPath::InterpretGpu) {
    bool mixed = b.detail == "gpuInterpretRegsMixed";
    return ruleFailure(
        kb, b.detail, "ValueError", {},
        mixed ? "Scoped allocations in MemorySpace.REGS cannot be mixed with scoped allocations "
                "in other memory spaces."
              : "Scoped allocations in MemorySpace.REGS cannot be collective allocations.",
        "GPU interpret mode gives each thread its own register accumulators (plgpu.ACC) and "
        "allocates the rest of a scope for all threads alike; the pl.run_scoped at " +
            b.causeAt +
            (mixed ? " allocates an accumulator together with other buffers"
                   : " makes its accumulator collective"),
        mixed ? "Allocate the accumulator in a pl.run_scoped of its own, nested inside the one "
                "that allocates the other buffers (the compiled path accepts both forms)."
              : "Leave collective_axes= out of the pl.run_scoped that allocates the accumulator, "
                "and allocate shared buffers in a separate one.");
  }
  if (b.interpretRule == "gpu_uninitialized_scratch" && path == ExecPath::InterpretGpu) {
    std::optional<Failure> f =
        ruleFailure(kb, "gpuInterpretUninitializedValue", "NotImplementedError", {"nan", b.detail},
                    "nan + " + b.detail,
                    "GPU interpret mode fills each scratch buffer it allocates with its "
                    "uninitialized_memory value (\"nan\" by default), which exists only for float, "
                    "integer and bool dtypes, and this launch allocates a " +
                        b.detail + " that way",
                    "Run this kernel compiled on a GPU, or debug it with interpret=True.");
    f->phase = Phase::KernelDischarge;
    return f;
  }
  if (b.interpretRule == "gpu_ref_view" && path == ExecPath::InterpretGpu) {
    bool member = b.detail == "plgpu.RefUnion";
    std::string transform = viewTransformClass(b.detail);
    std::optional<Failure> f = ruleFailure(
        kb, "gpuInterpretUnsupportedTransform", "ValueError", {viewTransformText(transform)},
        "Unsupported transform: " + viewTransformText(transform),
        "GPU interpret mode reads and writes buffers in host callbacks that accept only "
        "indexing of a Ref, and the " +
            b.api + " at " + b.causeAt +
            (member ? " goes through a member of a plgpu.RefUnion, a view of the union's "
                      "shared buffer"
                    : " goes through a " + b.detail + " view"),
        member ? "Run this kernel compiled on a GPU, or allocate the members as separate "
                 "scratch buffers (plgpu.SMEM) while debugging in GPU interpret mode."
               : "Run this kernel compiled on a GPU or with interpret=True, or index the Ref "
                 "without the " +
                     b.detail + " view while debugging in GPU interpret mode.");
    f->phase = Phase::Run;
    return f;
  }
  if (b.interpretRule == "gpu_unchecked_view" && path == ExecPath::InterpretGpu) {
    // The callback reads every transform as indexing (table
    // gpuInterpret.transformsReadAsIndexing): the view's has no such field.
    std::string transform = viewTransformClass(b.detail);
    Failure f;
    f.rule = RuleId::PrimitiveOnPath;
    f.phase = Phase::Run;
    f.exception = "AttributeError";
    f.jaxError = "'" + transform + "' object has no attribute '" +
                 b.prim->gpuInterpretIndexingAttribute + "'";
    f.reason = "GPU interpret mode runs " + b.api +
               " in a host callback that reads each Ref's transforms as indexing, and the " +
               b.api + " at " + b.causeAt + " is given a Ref through a " + b.detail +
               " view (under jax.jit the callback's error surfaces as JaxRuntimeError: "
               "CpuCallback error)";
    f.advice = "Run this kernel compiled on a GPU, or give " + b.api +
               " a Ref stored in the layout it needs (without the " + b.detail +
               " view) while debugging in GPU interpret mode.";
    return f;
  }
  if (b.interpretRule == "gpu_barrier_unindexed" && path == ExecPath::InterpretGpu)
    return ruleFailure(
        kb, "gpuInterpretBarrierNotIndexed", "ValueError", {b.detail},
        "Attempting to operate on barrier without indexing, but `num_barriers = " + b.detail + "`",
        "GPU interpret mode finds the barrier a barrier op names from its index, and the " + b.api +
            " at " + b.causeAt + " names an allocation of " + b.detail + " barriers without one",
        "Index the barrier (`barrier.at[i]`), or allocate a single barrier "
        "(plgpu.Barrier(num_barriers=1)).");
  if (b.interpretRule == "gpu_barrier_indexing" && path == ExecPath::InterpretGpu)
    return ruleFailure(
        kb, "gpuInterpretBarrierIndexing", "NotImplementedError", {"<the barrier's indexers>"},
        "Indexing barrier with <the barrier's indexers> not supported in GPU interpret mode",
        "GPU interpret mode finds the barrier a barrier op names from a single index, and "
        "the " +
            b.api + " at " + b.causeAt + " indexes it " + b.detail + " times (`.at[...].at[...]`)",
        "Index the barrier once (`barrier.at[i]`) while debugging in GPU interpret mode.");
  if (b.interpretRule == "gpu_barrier_protocol" && path == ExecPath::InterpretGpu) {
    // Every interleaving of the threads raises this (BarrierProtocol.cpp).
    const std::vector<std::string>& h = b.messageHoles;
    std::string fallback, why;
    if (b.detail == "gpuInterpretBarrierCompletedAgain") {
      fallback = "Barrier arrival was completed again before previous completion was observed "
                 "by a thread.";
      why = "a barrier completes its arrival count again before any thread waited for the "
            "previous completion";
    } else if (b.detail == "gpuInterpretBarrierPhasePassed" && h.size() == 4) {
      fallback = "Thread " + h[0] + " is awaiting phase " + h[1] +
                 ", but barrier is already at phase " + h[2] + ".";
      why = "thread " + h[0] + " waits for phase " + h[1] + " of a barrier that has already " +
            "completed phase " + h[2];
    } else if (h.size() == 4) {
      fallback = "Thread " + h[0] + " did not observe all phases (" + h[1] +
                 ") for barrier (but observed " + h[2] + " " + h[3] + ").";
      why = "thread " + h[0] + " ends having waited for " + h[2] + " of the barrier's " + h[1] +
            " phases";
    }
    std::optional<Failure> f = ruleFailure(
        kb, b.detail, "ValueError", h, fallback,
        "GPU interpret mode checks each barrier's phases as the kernel runs, and whatever "
        "order the threads' arrivals and waits take, " +
            why + " (at " + b.causeAt + ")",
        "Make every thread that waits on a barrier wait once per completion, and complete it "
        "again only after a wait (plgpu.barrier_wait); num_arrivals counts the arrivals per "
        "phase.");
    f->phase = Phase::Run;
    return f;
  }
  if (b.interpretRule == "gpu_copy_option" && path == ExecPath::InterpretGpu) {
    bool predicate = b.detail == "predicate";
    bool pipeline = b.api != apiText(Api::CopySmemToGmem);
    std::optional<Failure> f = ruleFailure(
        kb, predicate ? "gpuInterpretCopyPredicate" : "gpuInterpretCopyReduction",
        "NotImplementedError", {}, b.detail + " not supported",
        pipeline ? "GPU interpret mode runs each SMEM -> GMEM copy in a host callback that "
                   "rejects a predicate, and the " +
                       b.api + " run at " + b.causeAt +
                       " copies an output whose block moves with the step inside its loop, "
                       "predicated on the block having changed"
                 : "GPU interpret mode runs plgpu.copy_smem_to_gmem in a host callback that "
                   "rejects a copy given " +
                       b.detail + "= (the copy at " + b.causeAt + ")",
        pipeline ? "Run this kernel compiled on a GPU or with interpret=True, or give the "
                   "pipeline's outputs an index_map that does not depend on the step while "
                   "debugging in GPU interpret mode."
                 : "Run this kernel compiled on a GPU or with interpret=True, or drop " + b.detail +
                       "= while debugging in GPU interpret mode.");
    f->phase = Phase::Run;
    return f;
  }
  if (b.interpretRule == "resource_estimation" && path == ExecPath::Compiled) {
    bool custom = !b.messageHoles.empty(); // a public function built on a custom derivative
    bool wrapper = b.detail == "custom_jvp_call" || b.detail == "custom_vjp_call";
    std::string why =
        "before lowering, Mosaic GPU estimates the kernel's resources equation by equation, "
        "and has no estimator for " +
        b.detail +
        (custom ? ": " + b.messageHoles[0] + ", whose equation holds it traced"
                : ", whose equation holds the function " + b.api + " traced");
    std::string fix =
        custom    ? (b.messageHoles.size() > 1
                         ? "Write " + b.messageHoles[1] + " instead inside the kernel"
                         : "Compute it inside the kernel with jnp / lax operations that are not "
                           "wrapped in a custom derivative") +
                        ", or apply " + b.api +
                        " outside the launch. The custom derivative only matters under "
                        "differentiation; both interpret modes run the call, only the compiled "
                        "path rejects it."
        : wrapper ? "Call the undecorated function inside the kernel (keep the plain def and "
                    "wrap a separate name with " +
                        b.api +
                        " for use outside kernels): the custom derivative only matters under "
                        "differentiation, which does not reach inside a Mosaic GPU kernel."
                  : "Call the function without " + b.api +
                        " inside the kernel (rematerialisation changes nothing in a kernel "
                        "body), or apply " +
                        b.api + " outside the launch.";
    std::optional<Failure> f =
        ruleFailure(kb, "resourceEstimationUnsupported", "NotImplementedError", {b.detail},
                    "Resource estimation does not support " + b.detail, why, fix);
    f->phase = Phase::ResourceEstimation;
    return f;
  }
  if (!b.interpretRule.empty())
    return std::nullopt;

  if (b.retraceCollective)
    return retraceCollectiveFailure(b, launch, kb);

  switch (path) {
  case ExecPath::InterpretHlo:
    if (b.refs.discharged())
      return dischargeVerdict(b, path, kb);
    if (explain(p, path).onValues == Outcome::Runs)
      return std::nullopt;
    return missingLowering(
        b, path, kb,
        b.api + " takes no Ref that interpret=True discharges, so " + p.name +
            " survives discharge and is lowered to XLA for the CPU, which has no rule for it");
  case ExecPath::Compiled:
    if (b.refs.discharged())
      return dischargeVerdict(b, path, kb);
    // Runs: never lowered (resolved at bind), or possibly discharged first
    // by a construct the walk does not see; else the launch's semantics decide.
    if (explain(p, path).onValues == Outcome::Runs)
      return std::nullopt;
    return mosaicLoweringVerdict(b, p, kb, "Mosaic GPU lowers the kernel equation by equation");
  case ExecPath::InterpretGpu: {
    if (b.cpuLowered) {
      // Inside pl.run_state: XLA discharges and lowers the body.
      if (b.refs.discharged())
        return dischargeVerdict(b, ExecPath::InterpretHlo, kb);
      if (explain(p, ExecPath::InterpretHlo).onValues == Outcome::Runs)
        return std::nullopt;
      return missingLowering(
          b, path, kb,
          "the GPU interpreter has no rule for pl.run_state and lowers it to XLA for the CPU, "
          "which has no rule for " +
              p.name);
    }
    if (isInline(b) && launch.inlineMgpuOptionGiven)
      return std::nullopt;
    // Runs: an interpreter arm, or re-bound with a CPU lowering rule.
    if (explain(p, path).onValues == Outcome::Runs)
      return std::nullopt;
    if (p.gpuInterpret == GpuInterpretHandling::ArmRaises) {
      Failure f;
      f.rule = pathCheckFor(b).rule;
      f.exception = "NotImplementedError";
      f.jaxError = p.gpuInterpretMessage.empty()
                       ? p.name + " is not supported by the GPU interpreter"
                       : p.gpuInterpretMessage;
      f.reason = "the GPU interpreter's rule for " + p.name + " raises";
      f.advice = advice(b, path, kb);
      return f;
    }
    if (p.gpuInterpretFallbackAssertsRef) {
      Skip s = launch.skipFloatingPointOps ? skippedAsFloat(b) : Skip::No;
      if (s == Skip::Yes)
        return std::nullopt;
      Failure f = abstractEvalAssertsRef(b, path, kb);
      f.uncertain = s == Skip::Unknown;
      return f;
    }
    bool uncertain = false;
    if (launch.skipFloatingPointOps) {
      Skip s = skippedAsFloat(b);
      if (s == Skip::Yes)
        return std::nullopt;
      uncertain = s == Skip::Unknown;
    }
    std::string reason =
        "the GPU interpreter has no rule for " + p.name +
        ": it re-binds the primitive, which is then lowered to XLA for the CPU, which has no rule "
        "for it";
    if (uncertain)
      reason +=
          " (unless skip_floating_point_ops=True skips it: only when all its outputs are floats)";
    Failure f = missingLowering(b, path, kb, reason);
    if (launch.multiThreaded && !p.effects.empty()) {
      // Several threads: each thread's body is traced and compiled inside a
      // host callback, where the primitive's effects fail first.
      f.exception = "ValueError";
      f.jaxError = "Cannot lower jaxpr with effects: {<the thread body's effects, " + p.name +
                   "'s among them>}";
      f.reason = "with several threads the GPU interpreter compiles each thread's body in a host "
                 "callback, and " +
                 p.name + " (which it does not interpret) cannot be lowered there with its effects";
    }
    f.uncertain = uncertain;
    return f;
  }
  }
  return std::nullopt;
}
} // namespace

} // namespace pallas::analysis::passes
