// The path matrix of each Mosaic GPU launch: for compiled on Hopper
// (sm_90a), compiled on Blackwell (sm_100a), interpret=True and GPU
// interpret mode, whether that path can run the launch, and when not, the
// first primitive and error JAX stops it with. Every path is judged whatever
// the launch's own interpret= selects (the question is "could I run it
// this way?"), with the same traces and rules as the findings (the
// evaluator's runs of it, or the kernel walk's under PALLAS_LSP_ENGINE=walk;
// PathRules). Shown by `check --format json` ("launches") and the hover.
#include "CallContexts.h"
#include "EvalLaunches.h"
#include "KernelWalk.h"
#include "LaunchCache.h"
#include "PassKnowledge.h"
#include "PathRules.h"
#include "PathSelector.h"
#include "SmemBudget.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

LaunchFacts launchFactsOf(pd::LaunchOp launch) {
  LaunchFacts f;
  if (auto n = launch.getNumThreads())
    f.numThreads = static_cast<long>(*n);
  if (auto params = launch.getInterpretParamsAttr()) {
    for (mlir::NamedAttribute kv : params) {
      auto text = llvm::dyn_cast<mlir::StringAttr>(kv.getValue());
      llvm::StringRef v = text ? text.getValue().trim() : "";
      if (kv.getName() == "skip_floating_point_ops")
        f.skipFloatingPointOps = v == "True";
      if (kv.getName() == "inline_mgpu")
        f.inlineMgpuOptionGiven = true;
      if (kv.getName() == "num_cores_or_threads") {
        long n = 0;
        if (!v.getAsInteger(10, n) && n > 1)
          f.multiThreaded = true;
      }
    }
  }
  if (f.numThreads > 1)
    f.multiThreaded = true;
  return f;
}

namespace {

// One run's verdict on one path: the first failure JAX raises (earliest
// phase, then program order), or a hardware gate for the compiled columns.
LaunchPathVerdict judgeBindings(const std::vector<BoundPrimitive>& bindings, ExecPath path,
                                const char* name, llvm::StringRef capability,
                                const knowledge::KnowledgeBase& kb, LaunchFacts facts) {
  LaunchPathVerdict v;
  v.path = name;
  v.verdict = "yes";
  const BoundPrimitive* first = nullptr;
  const BoundPrimitive* uncertain = nullptr;
  std::optional<Failure> firstFailure, uncertainFailure;
  for (const BoundPrimitive& b : bindings) {
    auto f = decide(b, path, facts, kb);
    if (!f)
      continue;
    if (f->uncertain) {
      if (!uncertain) {
        uncertain = &b;
        uncertainFailure = f;
      }
      continue;
    }
    if (!first || std::pair(f->phase, b.order) < std::pair(firstFailure->phase, first->order)) {
      first = &b;
      firstFailure = f;
    }
  }
  auto fill = [&](const BoundPrimitive& b, const Failure& f, const char* verdict) {
    v.verdict = verdict;
    v.primitive = b.prim ? b.prim->name : "";
    v.api = b.api;
    // A bare `assert` in JAX has no message: say what it asserts (the
    // failure's reason) instead of "AssertionError: ".
    v.error =
        f.jaxError.empty() ? f.exception + " (" + f.reason + ")" : f.exception + ": " + f.jaxError;
    v.at = detail::sourceLocation(b.site->getLoc());
  };
  if (first)
    fill(*first, *firstFailure, "no");
  else if (uncertain)
    fill(*uncertain, *uncertainFailure, "may");
  if (!capability.empty() && v.verdict != "no") {
    for (const BoundPrimitive& b : bindings) {
      if (!b.prim)
        continue;
      std::string needs = hardwareBlocks(kb, b.prim->key, capability);
      if (needs.empty())
        continue;
      v.verdict = "no";
      v.primitive = b.prim->name;
      v.api = b.api;
      v.error = "needs " + needs;
      v.at = detail::sourceLocation(b.site->getLoc());
      break;
    }
  }
  return v;
}

// The verdicts of the runs of one launch as one: JAX runs each of them (a
// loop's kernels, each caller's), so the first that fails stops it; else a
// "may" if one may fail.
LaunchPathVerdict merged(const std::vector<LaunchPathVerdict>& runs) {
  for (const char* verdict : {"no", "may"})
    for (const LaunchPathVerdict& v : runs)
      if (v.verdict == verdict)
        return v;
  return runs.front();
}

LaunchPathVerdict judge(detail::PassContext& ctx, pd::LaunchOp launch, ExecPath path,
                        const char* name, llvm::StringRef capability,
                        const knowledge::KnowledgeBase& kb,
                        const std::vector<LaunchBodyArgument>& bodies,
                        const std::vector<const LaunchRecord*>& evaluated) {
  LaunchFacts facts = launchFactsOf(launch);
  if (path == ExecPath::InterpretHlo) { // interpret=True has no GPU options
    facts.skipFloatingPointOps = facts.inlineMgpuOptionGiven = false;
    facts.multiThreaded = facts.numThreads > 1;
  }
  std::vector<LaunchPathVerdict> runs;
  for (const LaunchRecord* r : evaluated)
    if (auto t = r->traces.find(path); t != r->traces.end() && t->second.kernelKnown)
      runs.push_back(judgeBindings(t->second.bindings, path, name, capability, kb, facts));
  if (!runs.empty())
    return merged(runs);
  if (evaluated.empty()) {
    KernelWalk walk(ctx.workspace, kb, path, launch, ctx.path);
    // A kernel that is a parameter of the launching function (or `spec.body`
    // of one): the kernels its callers pass, as the findings read them.
    walk.setBodyArguments(bodies);
    if (walk.run())
      return judgeBindings(walk.bindings(), path, name, capability, kb, facts);
  }
  LaunchPathVerdict v;
  v.path = name;
  v.verdict = "may"; // the kernel body is not known
  v.error = "the kernel body is not known statically";
  return v;
}

// JAX checks a kernel's shared memory when it creates the GPU launch,
// before the kernel body is lowered into it (jax/experimental/mosaic/gpu/
// core.py, _launch: `smem_bytes > max_smem_bytes` raises ValueError). So a
// launch whose exact budget is over the limit fails on the compiled paths
// there, unless a failure the matrix already found stops it. (A budget
// with unknown parts is a lower bound: the number JAX prints is not known,
// and the SMEM pass says what it can.)
void failOverBudget(LaunchPaths& lp) {
  if (!lp.smem || !lp.smem->unknown.empty() || lp.smem->limit <= 0 ||
      lp.smem->total <= lp.smem->limit)
    return;
  for (LaunchPathVerdict& v : lp.paths) {
    // A hardware gate ("needs Hopper sm_90a") fails later, in the body or
    // when the kernel is compiled for the GPU: the check here comes first.
    bool hardwareOnly = v.verdict == "no" && v.error.rfind("needs ", 0) == 0;
    if (v.path.rfind("compiled", 0) != 0 || (v.verdict == "no" && !hardwareOnly))
      continue;
    v.verdict = "no";
    v.primitive.clear();
    v.api = lp.api;
    v.error = "ValueError: Mosaic GPU kernel exceeds available shared memory: smem_bytes=" +
              std::to_string(lp.smem->total) +
              " > max_smem_bytes=" + std::to_string(lp.smem->limit);
    v.at = lp.launch;
  }
}

std::vector<LaunchPaths> matrix(detail::PassContext& ctx) {
  std::vector<LaunchPaths> out;
  auto kb = knowledgeFor(ctx.options);
  if (!kb || !ctx.module)
    return out;
  std::vector<pd::LaunchOp> launches;
  for (pd::LaunchOp l : detail::moduleScan(ctx, ctx.module).launches)
    if (isMosaicGpuLaunch(l) && isStaticallyReachable(l))
      launches.push_back(l);
  detail::SmemIndex smemIndex(ctx); // shared by the launches' SMEM budgets
  std::unique_ptr<CallIndex> calls; // built for the first launch whose kernel is a parameter
  for (pd::LaunchOp launch : launches) {
    std::vector<LaunchBodyArgument> bodies;
    if (mlir::Value body = launch.getBodyValue(); body && !launch.getBody()) {
      if (!calls)
        calls = std::make_unique<CallIndex>(ctx.workspace);
      bodies = launchBodyArguments(*calls, ctx.path, launch).arguments;
    }
    LaunchPaths lp;
    lp.launch = detail::sourceLocation(launch.getLoc());
    lp.api = launch.getApi().str();
    for (mlir::Attribute a : launch.getPaths())
      lp.selects.push_back(pd::enumName(a).str());
    lp.selectedAt = interpretArgumentOf(ctx.workspace, ctx.path, lp.launch);
    // The evaluator's runs of this launch (its own, and its callers').
    std::vector<const LaunchRecord*> evaluated =
        evaluatorEngine() && ctx.workspace.pyModule(ctx.path)
            ? evaluatedRecordsAt(ctx, *kb, ctx.path, lp.launch)
            : std::vector<const LaunchRecord*>{};
    lp.paths.push_back(
        judge(ctx, launch, ExecPath::Compiled, "compiled_sm90a", "9.0", *kb, bodies, evaluated));
    lp.paths.push_back(
        judge(ctx, launch, ExecPath::Compiled, "compiled_sm100a", "10.0", *kb, bodies, evaluated));
    lp.paths.push_back(
        judge(ctx, launch, ExecPath::InterpretHlo, "interpret", "", *kb, bodies, evaluated));
    lp.paths.push_back(
        judge(ctx, launch, ExecPath::InterpretGpu, "gpu_interpret", "", *kb, bodies, evaluated));
    lp.smem = detail::launchSmem(ctx, launch, &smemIndex);
    failOverBudget(lp);
    out.push_back(std::move(lp));
  }
  return out;
}

} // namespace

// ---- the pass (Passes.td: pallas-path-matrix) ---------------------------------
#define GEN_PASS_DECL_PALLASPATHMATRIX
#define GEN_PASS_DEF_PALLASPATHMATRIX
#include "pallas/analysis/detail/Passes.h.inc"
namespace {

mlir::Location locationOf(mlir::MLIRContext* context, const SourceLocation& at) {
  return mlir::FileLineColLoc::get(context, at.path, at.range.start.line + 1,
                                   at.range.start.column + 1);
}

// On a .mlir file: one remark per launch, one note per path of its matrix.
void emitMatrix(mlir::MLIRContext* context, const LaunchPaths& lp) {
  mlir::InFlightDiagnostic diag = mlir::emitRemark(locationOf(context, lp.launch));
  diag << "path matrix of " << lp.api << " (selects";
  for (const std::string& s : lp.selects)
    diag << " " << s;
  diag << ")";
  for (const LaunchPathVerdict& v : lp.paths) {
    mlir::Diagnostic& note = diag.attachNote(locationOf(context, v.at ? *v.at : lp.launch))
                             << v.path << ": " << v.verdict;
    if (v.verdict != "yes")
      note << " (" << v.primitive << " from " << v.api << ": " << v.error << ")";
  }
}

struct PathMatrixPass : detail::PallasPass<PathMatrixPass, impl::PallasPathMatrixBase> {
  using PallasPass::PallasPass;
  void run(detail::PassContext& ctx) {
    std::vector<LaunchPaths> launches = matrix(ctx);
    if (product_ && product_->launchPaths) {
      *product_->launchPaths = std::move(launches);
      return;
    }
    for (const LaunchPaths& lp : launches)
      emitMatrix(getOperation().getContext(), lp);
  }
};

} // namespace
} // namespace pallas::analysis::passes

namespace pallas::analysis::detail {
std::unique_ptr<mlir::Pass> createPathMatrixPass(ProductRun* run) {
  auto pass = std::make_unique<passes::PathMatrixPass>();
  pass->setProductRun(run);
  return pass;
}
} // namespace pallas::analysis::detail
