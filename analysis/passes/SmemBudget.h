// The shared memory a Mosaic GPU launch needs, computed the way JAX's
// lowering estimates it (jax/_src/pallas/mosaic_gpu/lowering.py,
// `_estimate_resources` and `Resources`; jax/experimental/mosaic/gpu/core.py,
// `_smem_tree_size` and the limit check in `_launch`):
//   * every SMEM allocation is prod(shape) * itemsize, rounded up to
//     SMEM_ALIGNMENT (Resources.__post_init__ aligns each one);
//   * the allocations of one run_scoped are summed, plus what its body needs;
//   * equations at one level take the maximum (Resources.or_): sibling
//     scopes, branches, loops, calls;
//   * reductions (jnp.sum/max/min) need reduction_scratch_bytes;
//   * barriers are counted apart (MBARRIER_BYTES each, after the aligned
//     scratch), identical barriers in siblings shared;
//   * plgpu.emit_pipeline and pl.pallas_call's own pipeline buffer every SMEM
//     in/out block max_concurrent_steps times (clamped to the steps of the
//     pipeline's grid) plus one barrier per step.
// The total is a lower bound when some size is unknown (`unknown` lists what).
#pragma once

#include "ShapeEval.h"
#include "SmemIndex.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/detail/Passes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pallas::analysis::detail {

// The numbers JAX's lowering uses (the knowledge table's `mosaicGpuResources`
// when it has them; these are JAX 0.10.2's).
struct SmemRules {
  int64_t alignment = 1024;     // gpu_core.SMEM_ALIGNMENT
  int64_t barrierBytes = 8;     // mosaic.gpu.utils.MBARRIER_BYTES
  int64_t tmemAddressBytes = 4; // TMEM allocation address slot
  // Blackwell tensor memory (tcgen05.py, lowering.py Resources): columns of
  // TMEM_ROWS lanes; each allocation aligned to tmemColAlignment, the total
  // rounded up to a power of two (at least tmemMinAllocCols) and compared
  // with TMEM_MAX_COLS.
  int64_t tmemRows = 128;                        // tcgen05.TMEM_ROWS
  int64_t tmemMaxCols = 512;                     // tcgen05.TMEM_MAX_COLS
  int64_t tmemColAlignment = 8;                  // Resources.__post_init__: 128x8 chunks
  int64_t tmemMinAllocCols = 32;                 // tcgen05.tmem_alloc_exact_ncols
  int64_t wsMaxConcurrentStepsDefault = 2;       // emit_pipeline_warp_specialized
  int64_t defaultLimit = 227 * 1024;             // _launch's default without a GPU
  int64_t defaultMaxConcurrentSteps = 1;         // CompilerParams.max_concurrent_steps
  int64_t defaultReductionScratch = 128 * 4 * 4; // CompilerParams.reduction_scratch_bytes
  int64_t maxThreads = 2048 / 128;               // Mesh: max_mosaic_threads
  std::string jaxVersion = "0.10.2";
  // > 0: every pipeline uses this max_concurrent_steps (what-if for the fix).
  int64_t overrideMaxConcurrentSteps = 0;
  // The table's "mosaicGpuSmemModel" (smem_model.py): the compute
  // capabilities JAX's default limit is for ("9.0", "10.x"), and, when a fact
  // of the arithmetic this budget implements (each allocation rounded,
  // siblings' maximum, nested scopes added, barriers after the buffers,
  // pipeline slots, `>` against the limit) reads differently in the installed
  // JAX, what differs: the budget is then reported as not known.
  std::vector<std::string> defaultLimitCapabilities = {"9.0", "10.x"};
  std::string modelMismatch;
  // Where each fact was read ("jax._src.pallas.mosaic_gpu.lowering:171"),
  // for the hover and PLS005's message.
  std::string limitCitation;
};

// The shared-memory limit JAX compares with on a GPU of compute capability
// `capability` ("9.0", "10.0"): the local GPU's when it is that GPU (JAX asks
// jax.local_devices()[0]), else JAX's default when its comment names that
// capability; nullopt when neither says.
std::optional<int64_t> smemLimitFor(const SmemRules& rules, const std::string& capability,
                                    const ProjectOptions& options);
// JAX 0.10.2's numbers (used where a knowledge table does not give them).
const SmemRules& smemRules();
// The numbers of the knowledge table the passes decide from (its
// "mosaicGpuResources"), falling back to smemRules() field by field.
SmemRules smemRulesFor(const ProjectOptions& options);

struct SmemPart {
  std::string name; // "q_smem", "x block (2 x (128, 64) float16)", "barriers"
  int64_t bytes = 0;
  SourceLocation at;
};

struct SmemBudget {
  bool analysed = false; // a pl.pallas_call / plgpu.kernel the budget applies to
  int64_t total = 0;     // bytes JAX requests (a lower bound when !unknown.empty())
  int64_t limit = 0;
  std::string limitSource; // "JAX's default without a GPU", "the local GPU (...)"
  std::vector<SmemPart> parts;
  std::vector<std::string> unknown;
  // Tensor memory (Blackwell): columns requested (aligned per allocation,
  // summed per scope, the maximum of siblings), the columns JAX allocates
  // (rounded up to a power of two) and its limit; parts name the allocations.
  struct Tmem {
    int64_t cols = 0;
    int64_t allocated = 0;
    int64_t limit = 0;
    bool mixesCollective = false; // collective and non-collective allocations
    std::vector<SmemPart> parts;  // bytes = columns
  } tmem;
  // The pipeline JAX buffers max_concurrent_steps times: where
  // max_concurrent_steps is written, its value, the per-step bytes and the
  // fixed bytes, so a fix can compute the largest value that fits.
  struct Pipelined {
    bool present = false;
    int64_t steps = 1;                // the value in effect (after clamping)
    int64_t written = 1;              // the value written (or the default)
    int64_t perStep = 0;              // aligned bytes per step (buffers + barrier)
    std::optional<SourceLocation> at; // the max_concurrent_steps=... value
    bool inPallasCall = false;
  } pipeline;
  // Trace-time errors the walk met in the kernel's pipelines (PLS009):
  // where, and the first line of JAX's ValueError.
  struct Issue {
    SourceLocation at;
    std::string firstLine;
  };
  std::vector<Issue> issues;
  bool exact() const { return unknown.empty(); }
  // "SMEM 264,248 / 232,448 B: q 32 KiB, k 96 KiB, ..." (the hover line).
  // Then "; TMEM 520 / 512 columns (1,024 allocated): acc ..." when the
  // kernel allocates tensor memory.
  std::string summary(size_t maxParts = 64) const;
  std::string tmemSummary() const;
};

// The budget of one launch (`index`: one shared by the run's launches; null:
// a fresh one).
SmemBudget smemBudget(const PassContext& ctx, dialect::LaunchOp launch, const SmemRules& rules,
                      const SmemIndex* index = nullptr);

// The budget as the launch matrix carries it (`check --format json`, hover);
// nullopt for launches the budget does not apply to.
std::optional<LaunchSmem> launchSmem(const PassContext& ctx, dialect::LaunchOp launch,
                                     const SmemIndex* index = nullptr);

// "264,248".
std::string withCommas(int64_t n);
// "32 KiB", "1.5 KiB", "512 B".
std::string bytesText(int64_t n);

} // namespace pallas::analysis::detail
