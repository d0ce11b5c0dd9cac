"""Which JAX modules, registries and error sites both extractors read: the
configuration of the knowledge table (no JAX imported here)."""

from __future__ import annotations

import re


SCHEMA_VERSION = 1


TRANSITIVE_DEPTH = 3


# Only code in these packages is followed when computing transitive binds: a
# call into lax/numpy would pull in every arithmetic primitive.
FOLLOW_PREFIXES = ("jax._src.pallas", "jax._src.state")


# JAX's higher-order APIs whose callable argument the kernel walk follows
# (docs/analysis.md 3) and whose bound primitive the table records under
# "higherOrderApis" ({api: {"binds": [...]}}): compiled Mosaic GPU
# kernels need a resource estimator for it ("mosaicGpuResourceEstimators").
# name as users write it -> (module, attribute) of the installed JAX. The
# scan follows, besides FOLLOW_PREFIXES, the functions of the API's own
# module (jax.remat calls checkpoint beside it).
# A class (jax.custom_jvp, jax.custom_vjp) binds in its __call__.
HIGHER_ORDER_APIS = {
    "jax.checkpoint": ("jax", "checkpoint"),
    "jax.remat": ("jax", "remat"),
    "jax.custom_jvp": ("jax", "custom_jvp"),
    "jax.custom_vjp": ("jax", "custom_vjp"),
}

PUBLIC_MODULES = {
    "pl": "jax.experimental.pallas",
    "plgpu": "jax.experimental.pallas.mosaic_gpu",
}


# Modules whose module-level Primitive objects are always described, whether
# or not a public API binds them (kernels reach them through ref indexing,
# accumulators, run_scoped, ...).
PRIMITIVE_MODULES = (
    "jax._src.pallas.primitives",
    "jax._src.pallas.core",
    "jax._src.pallas.pallas_call",
    "jax._src.pallas.mpmd",
    "jax._src.pallas.mosaic_gpu.primitives",
    "jax._src.pallas.mosaic_gpu.core",
    "jax._src.state.primitives",
    "jax._src.state.discharge",
)


# Higher-order primitives kernels commonly contain; described because their
# discharge rules decide which refs of their bodies get discharged.
EXTRA_PRIMITIVES = (
    ("jax._src.lax.control_flow.conditionals", "cond_p"),
    ("jax._src.lax.control_flow.loops", "scan_p"),
    ("jax._src.lax.control_flow.loops", "while_p"),
    ("jax._src.pjit", "jit_p"),
    ("jax._src.pjit", "pjit_p"),
    ("jax._src.ad_checkpoint", "remat_p"),
    ("jax._src.custom_derivatives", "custom_vjp_call_p"),
    ("jax._src.custom_derivatives", "custom_jvp_call_p"),
    ("jax._src.custom_batching", "custom_vmap_p"),
    ("jax._src.lax.parallel", "axis_index_p"),
    ("jax._src.lax.lax", "iota_p"),
)


INTERPRET_MODULES = (
    "jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret",
)


INTERPRET_PARAMS_PATHS = (
    ("jax.experimental.pallas.mosaic_gpu", "InterpretGPUParams"),
    ("jax.experimental.pallas", "InterpretGPUParams"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "InterpretGPUParams"),
)


GPU_MODE_CONTEXTS = (
    ("jax.experimental.pallas.mosaic_gpu", "force_gpu_interpret_mode"),
    ("jax.experimental.pallas.mosaic_gpu", "set_gpu_interpret_mode"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "force_gpu_interpret_mode"),
    ("jax._src.pallas.mosaic_gpu.interpret.params", "set_gpu_interpret_mode"),
)


# Error texts the analysis repeats to the user, located by a distinctive
# substring inside the module that raises them. The template is read from
# that module's AST (f-string placeholders become {source expression}).
ERROR_ANCHORS = {
    "noDischargeRule": ("jax._src.state.discharge", "No state discharge rule implemented"),
    "dischargedUnflaggedInput": ("jax._src.state.discharge", "Did not ask for inval to be discharged"),
    "missingLowering": ("jax._src.interpreters.mlir", "MLIR translation rule for primitive"),
    "cpuRequiresInterpret": ("jax._src.pallas.pallas_call", "Only interpret mode is supported on CPU"),
    "runScopedCollectiveAxes": ("jax._src.pallas.hlo_interpreter", "run_scoped interpret rule does not support collective axes"),
    "inlineMgpuDischarge": ("jax._src.pallas.mosaic_gpu.primitives", "does not support discharge"),
    "getGlobalDischarge": ("jax._src.pallas.primitives", "get_global discharge is not supported"),
    "mosaicGpuUnimplemented": ("jax._src.pallas.mosaic_gpu.lowering", "Unimplemented primitive in Pallas Mosaic GPU lowering"),
    "runStateNoAccumulator": ("jax._src.pallas.mosaic_gpu.lowering", "Expected at least one accumulator"),
    "gpuInterpretHigherOrder": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "Higher-order primitive"),
    "gpuInterpretNotSupported": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "is not supported on GPU yet"),
    "gpuInterpretCollectiveAxes": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "collective"),
    "mpmdMultiPlatform": ("jax._src.pallas.mpmd", "multi-platform lowering"),
    "coreMapNotDischarged": ("jax._src.pallas.core", "without discharging"),
    "evaluationRuleMissing": ("jax._src.core", "Evaluation rule for"),
    "inlineMgpuReturnTypes": ("jax._src.pallas.mosaic_gpu.primitives", "only supports plgpu.ShapeDtypeStruct"),
    "inlineMgpuArgTypes": ("jax._src.pallas.mosaic_gpu.primitives", "only supports only SomeLayout and RefType"),
    "inlineMgpuTypeMismatch": ("jax._src.pallas.mosaic_gpu.primitives", "Mismatched type"),
    # Facts the HLO interpreter (interpret=True) and Mosaic GPU's resource
    # estimation raise for (docs/analysis.md 8.12).
    "unboundAxisName": ("jax._src.lax.parallel", "Found an unbound axis name"),
    "unsupportedRefTransform": ("jax._src.state.discharge", "Unsupported transform: "),
    "resourceEstimationUnsupported": ("jax._src.pallas.mosaic_gpu.lowering", "Resource estimation does not support"),
    # The core_map discharge rule (interpret=True) for a mesh type without a
    # registered rule: plgpu.WarpMesh in JAX 0.10.2 (docs/analysis.md 8.12).
    "coreMapMeshUnsupported": ("jax._src.pallas.core", "Mesh type"),
    # GPU interpret mode's SMEM -> GMEM copy callback, at run time
    # (docs/analysis.md 8.12, session 13).
    "gpuInterpretCopyPredicate": ("jax._src.pallas.mosaic_gpu.interpret.gpu_callbacks", "predicate not supported"),
    "gpuInterpretCopyReduction": ("jax._src.pallas.mosaic_gpu.interpret.gpu_callbacks", "reduction_op not supported"),
    "gpuInterpretUnsupportedTransform": ("jax._src.pallas.mosaic_gpu.interpret.gpu_callbacks", "Unsupported transform: "),
    # GPU interpret mode fills scratch buffers with `uninitialized_memory`
    # ("nan" by default), which has no value for barrier / semaphore dtypes.
    "gpuInterpretUninitializedValue": ("jax._src.pallas.mosaic.interpret.utils", " + "),
    # GPU interpret mode checks a scoped allocation's collective axes against
    # the launch's thread mesh.
    "gpuInterpretCollectiveAxisNotFound": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "not found among axes"),
    "gpuInterpretCollectiveNoThreadAxis": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "no explicit thread axis"),
    "gpuInterpretCollectiveClusterAxes": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "along cluster axes are not supported"),
    # ... and allocates register accumulators (MemorySpace.REGS) per thread:
    # a scope may not mix them with other allocations, nor make them collective.
    "gpuInterpretRegsMixed": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "cannot be mixed with"),
    "gpuInterpretRegsCollective": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "cannot be collective allocations"),
    "gpuInterpretCollectiveThreadAxis": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "must have the thread axis"),
    # GPU interpret mode runs a pallas_call only over whole-array blocks
    # whose index_map returns zeros: a bare assert (no message).
    "gpuInterpretBlockWindows": ("jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call", "assert:has_trivial_window"),
    # GPU interpret mode finds a barrier's allocation from at most one
    # index: none is allowed only for a single barrier.
    "gpuInterpretBarrierNotIndexed": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "Attempting to operate on barrier without indexing"),
    "gpuInterpretBarrierIndexing": ("jax._src.pallas.mosaic_gpu.interpret.jaxpr_interpret", "Indexing barrier with "),
    # A barrier completes its arrival count again before any thread waited
    # for the previous completion (checked as the kernel runs).
    "gpuInterpretBarrierCompletedAgain": ("jax._src.pallas.mosaic_gpu.interpret.shared_memory", "Barrier arrival was completed again"),
    # A thread waits for a phase its barrier has already passed, or ends
    # having observed some but not all of its barrier's phases.
    "gpuInterpretBarrierPhasePassed": ("jax._src.pallas.mosaic_gpu.interpret.shared_memory", "but barrier is already at phase"),
    "gpuInterpretBarrierUnobservedPhases": ("jax._src.pallas.mosaic_gpu.interpret.shared_memory", "did not observe all phases"),
}


# Allocations (as the analysis names them) whose Ref type may override
# indexing, and where to find them.
REF_INDEXING = {
    "plgpu.ACC": ("jax.experimental.pallas.mosaic_gpu", "ACC"),
}


EFFECT_NAME = re.compile(r"(^|_)(Read|Write|Accum)Effect$|_effect$|Effect$")
