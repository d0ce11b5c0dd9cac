// The analysis passes, as MLIR passes over one `builtin.module` of the
// `pallas` dialect (one Python file). `mlir-tblgen -gen-pass-decls` makes
// their base classes, `createPallasX()` factories and `registerPallasPasses()`
// (analysis/CMakeLists.txt); `pallas-opt` runs any of them on a .mlir file and
// `Project::findings` runs them in the language server.
//
// Adding a pass (analysis/docs/dialect.md, "Adding a pass"): one entry here
// with `let options = PallasPassOptions;` and one analysis/passes/Foo.cpp that
// defines the pass class on `detail::PallasPass` and registers it for the
// product with `detail::FindingsPassRegistration` (both:
// `PALLAS_FINDINGS_PASS(PallasFoo, runFoo)`, detail/PallasPass.h).
#ifndef PALLAS_PASSES_TD
#define PALLAS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Every pass reads the same ProjectOptions; on a .mlir file (pallas-opt)
// these options stand for them. In the product they are ignored: the
// Project's options are used.
defvar PallasPassOptions = [
  Option<"knowledgePath", "knowledge", "std::string", /*default=*/"\"\"",
         "knowledge table (JSON of analysis/knowledge/extract_knowledge.py); "
         "empty: the bundled table of the pinned JAX">,
  Option<"gpuComputeCapability", "gpu-cc", "std::string", /*default=*/"\"\"",
         "compute capability of the local GPU (\"9.0\"); empty: unknown">,
  Option<"assumePath", "assume-path", "std::string", /*default=*/"\"\"",
         "judge every launch as if this path were chosen: interpret, "
         "gpu-interpret, compiled; empty: the paths each launch selects">,
];

def PallasDischarge : Pass<"pallas-discharge", "::mlir::ModuleOp"> {
  let summary = "PLS001/PLS002: primitives an execution path cannot run";
  let description = [{
    For every kernel launch and every execution path it may select, walks
    what the kernel runs (across files through the workspace) and decides
    with JAX's rules whether the path can run each primitive. On a .mlir
    file the workspace is that one module. Findings are emitted as
    diagnostics by pallas-opt (`PLS001: ...`).
  }];
  let options = PallasPassOptions;
}

def PallasInlineMgpuSignature : Pass<"pallas-inline-mgpu-signature", "::mlir::ModuleOp"> {
  let summary = "PLS004: inline_mgpu calls that do not match arg_types / return_type";
  let description = [{
    Walks the same launch runs as pallas-discharge (LaunchRuns) and checks
    each inline_mgpu call the kernels reach once: JAX raises while tracing
    it, on every path.
  }];
  let options = PallasPassOptions;
}

def PallasHardware : Pass<"pallas-hardware", "::mlir::ModuleOp"> {
  let summary = "PLS003: primitives a compiled kernel reaches that the local GPU lacks";
  let description = [{
    Runs only when the GPU's compute capability is known (`gpu-cc=9.0`).
  }];
  let options = PallasPassOptions;
}

def PallasPathMatrix : Pass<"pallas-path-matrix", "::mlir::ModuleOp"> {
  let summary = "the path matrix of each Mosaic GPU launch (compiled sm_90a/sm_100a, interpret, GPU interpret)";
  let description = [{
    Not a findings pass: `Project::launchPaths` runs it for `check --format
    json` and the hover. pallas-opt prints one remark per launch.
  }];
  let options = PallasPassOptions;
}

def PallasSharedMemory : Pass<"pallas-shared-memory", "::mlir::ModuleOp"> {
  let summary = "PLS005: compiled launches whose shared memory is over the limit JAX allows";
  let description = [{
    Sizes each pl.pallas_call / plgpu.kernel launch's SMEM the way JAX's
    Mosaic GPU lowering does (analysis/passes/SmemBudget.h) and compares it
    with the local GPU's opt-in limit, else JAX's default. Sizes are read from
    the Python source (analysis/passes/ShapeEval.h): on a .mlir file without
    its source there is nothing to size.
  }];
  let options = PallasPassOptions;
}

def PallasLaunchConfig : Pass<"pallas-launch-config", "::mlir::ModuleOp"> {
  let summary = "PLS009: launch and pipeline configurations JAX rejects while tracing";
  let description = [{
    plgpu.kernel's mesh (num_threads, thread_name, grid_names, cluster) and
    plgpu.emit_pipeline's grid and max_concurrent_steps, evaluated from the
    Python source.
  }];
  let options = PallasPassOptions;
}

def PallasMosaicRules : Pass<"pallas-mosaic-rules", "::mlir::ModuleOp"> {
  let summary = "PLS006/PLS007/PLS008: WGMMA shapes and dtypes, tiling and swizzle transforms, copies the Mosaic GPU lowering rejects";
  let description = [{
    For each launch that runs compiled: the plgpu.ACC / plgpu.wgmma rules,
    the transforms of blocks and SMEM buffers, and the GMEM <-> SMEM copies
    (the pipeline's and explicit ones), with the numbers and messages of the
    knowledge table's mosaicGpuRules (analysis/knowledge/extract_mosaic_rules.py).
    Shapes and dtypes are read from the Python source
    (analysis/passes/ShapeEval.h): on a .mlir file without its source there
    is nothing to check.
  }];
  let options = PallasPassOptions;
}
#endif // PALLAS_PASSES_TD
