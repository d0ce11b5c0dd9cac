// Whether a launch runs on the compiled (Mosaic GPU) path: the resource and
// lowering checks (PLS005-PLS009) only apply there, since the interpreters
// allocate no shared memory and never lower.
#pragma once

#include "pallas/analysis/detail/Dialect.h"

#include "llvm/ADT/StringRef.h"

namespace pallas::analysis::passes {

// Certain: compiled is the only path the launch selects (an error).
// May: compiled among others, or the path is unknown (a warning).
// No: the launch never runs compiled.
enum class CompiledPath { No, Certain, May };

// `assumePath` is `check --assume-path`'s value; when set it replaces the
// launch's own paths.
CompiledPath compiledPathOf(dialect::LaunchOp launch, llvm::StringRef assumePath = {});

// The backend a launch targets, as far as the code says. Its own arguments
// first (compiler_params=, backend=, specs or scratch written for one
// backend), then its API (plgpu.kernel), then the Pallas backends its file
// imports: a plain pl.pallas_call in a file that imports only plgpu is a
// Mosaic GPU kernel; in a file of TPU kernels, or one that imports several
// backends, it is not known to be one; with no backend imported at all it
// is one on a GPU (JAX 0.10's default there) and a TPU kernel on a TPU.
enum class LaunchTarget {
  MosaicGpu,    // the code says Mosaic GPU
  Unstated,     // nothing says which: Mosaic GPU only when run on a GPU
  OtherBackend, // TPU or Triton, or a file written for several backends
};
LaunchTarget launchTargetOf(dialect::LaunchOp launch);

// compiledPathOf for the checks that only hold for Mosaic GPU's compiled
// path (shared memory, TMA copies, layouts: PLS005-PLS008): No unless the
// code says the launch is a Mosaic GPU kernel. A backend-neutral
// pl.pallas_call in a file that imports no backend is as likely a TPU
// kernel (JAX's own TPU docs and tests are written so); sizing it as a GPU
// one would flag correct code.
CompiledPath mosaicGpuCompiledPathOf(dialect::LaunchOp launch, llvm::StringRef assumePath = {});

} // namespace pallas::analysis::passes
