// Which executions of a kernel launch the checks judge, shared by every
// check that walks launches (PathFeasibility: PLS001/PLS002;
// InlineMgpuSignature: PLS004): the paths the launch may select (its own
// interpret=, a module-level set_gpu_interpret_mode, the callers that pass
// its interpret= parameter, `check --assume-path`), each walked with
// KernelWalk; and, for a kernel helper file without launches of its own, the
// launches in the files that call into it. See docs/analysis.md.
#pragma once

#include "CallContexts.h"
#include "KernelWalk.h"
#include "PathRules.h"
#include "pallas/analysis/detail/Passes.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

struct PathChoice {
  ExecPath path;
  bool may; // the launch may select another path too: report warnings
};

// A module-level `set_gpu_interpret_mode(InterpretGPUParams(...))` runs at
// import, before any function of the module: it sets the process-wide
// interpret value that a launch uses when its own `interpret` is absent or
// False (every entry point ORs the two).
struct GlobalMode {
  mlir::Operation* call = nullptr; // the call that sets the mode; null when none
  dialect::FuncOp after;           // the top-level statement holding it
  LaunchFacts facts;               // from its InterpretGPUParams(...) arguments
};

// One judgement of a launch: a path, the launch facts it runs with, and the
// caller contexts that select it (empty: the launch's own interpret=).
struct LaunchRun {
  PathChoice pc;
  LaunchFacts facts;
  std::vector<const CallContext*> via;
};

// Where a launch is and what it states itself, whichever engine found it.
struct LaunchSite {
  mlir::Operation* op = nullptr; // the op at the launch (a pallas.launch or a py.call)
  std::string api;               // pl.pallas_call, plgpu.kernel, ...
  SourceLocation location;       // where findings say the launch is
  SourceLocation selector;       // where the launch itself selects its path
  LaunchFacts facts;             // its own facts (thread count)
  // Exceptions (builtin names) that an except clause around every call
  // running the launch catches, and where that clause is: JAX's failure
  // there is handled by the program, not fatal.
  std::map<std::string, SourceLocation> caught;
  // The document is a program (`if __name__ == "__main__":`) that never
  // calls this launch: JAX raises only when something else does.
  bool programNeverCalls = false;
};
LaunchSite launchSiteOf(dialect::LaunchOp launch);

// Everything a check needs about one run of one launch, with its walk.
struct LaunchRunView {
  const std::string& doc;   // the document holding the launch
  dialect::LaunchOp launch; // the kernel walk's (null from the evaluator)
  const LaunchSite& site;
  const GlobalMode* global; // the module-level mode that selects the path; null: none
  const LaunchRun& run;
  const KernelWalk& walk;
  // The evaluator's trace of the same launch in GPU interpret mode (null
  // for the kernel walk, which walks it again when asked).
  const std::vector<BoundPrimitive>* gpuInterpretBindings = nullptr;
};

// The paths a run-time `interpret` value may select (the launch's own or a
// caller's): the common spellings are booleans, so both interpret=True and
// the compiled path are possible.
std::vector<ExecPath> runtimeChoicePaths();

// Calls `visit` for every run of every Mosaic GPU launch of `doc` whose walk
// finds the kernel body. The caller contexts live for the call.
void forEachLaunchRun(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                      const knowledge::KnowledgeBase& kb, CallIndex& calls,
                      const std::function<void(const LaunchRunView&)>& visit);

// forEachLaunchRun one launch at a time, for checks that keep each launch's
// result across edits (LaunchCache.h): `perLaunch(launch, planKey,
// walkRuns)` where `walkRuns(visit)` walks the launch's runs (the work a kept
// result saves) and `planKey` fingerprints what the runs were chosen from
// outside the launch's own code (caller contexts, the module's GPU
// interpret mode, the assumed path), so it belongs in the result's key.
using RunVisitor = std::function<void(const LaunchRunView&)>;
using LaunchVisitor = std::function<void(mlir::Operation* launch, uint64_t planKey,
                                         const std::function<void(const RunVisitor&)>& walkRuns)>;
void forEachLaunch(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                   const knowledge::KnowledgeBase& kb, CallIndex& calls,
                   const LaunchVisitor& perLaunch);

// Runs `check(doc, module, calls, out)` on the document findings are asked for
// and, when it is a kernel helper (GPU code, no launch), on every document
// whose launches reach it through calls, keeping the findings located in the
// asked document. Appends to ctx.findings.
using DocumentCheck = std::function<void(const std::string& doc, mlir::ModuleOp module,
                                         CallIndex& calls, std::vector<Finding>& out)>;
void checkDocumentAndCallers(detail::PassContext& ctx, const DocumentCheck& check);

} // namespace pallas::analysis::passes
