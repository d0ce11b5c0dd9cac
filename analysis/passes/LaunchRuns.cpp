#include "LaunchRuns.h"

#include "EvalLaunches.h"
#include "LaunchCache.h"

#include "llvm/Support/xxhash.h"

#include <memory>
#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// The front end records set_gpu_interpret_mode calls only within one
// function (its lowering is per function), so the module's top-level
// statements are read here.
GlobalMode globalInterpretMode(mlir::ModuleOp module) {
  GlobalMode mode;
  for (pd::FuncOp f : module.getOps<pd::FuncOp>()) {
    if (f.getKind() != pd::FuncKind::Module)
      continue;
    f.getBody().walk([&](pd::PrimOp p) {
      if (p.getApi() != apiText(Api::SetGpuInterpretMode) || p.getArgs().empty())
        return;
      auto params = p.getArgs()[0].getDefiningOp<pd::PrimOp>();
      if (!params || params.getApi() != apiText(Api::InterpretGpuParams)) {
        mode = {}; // set_gpu_interpret_mode(None / something else): not GPU interpret
        return;
      }
      mode.call = p;
      mode.after = f;
      mode.facts = {};
      for (unsigned i = 0; i < params.getArgs().size() && i < params.getKeywords().size(); ++i) {
        auto kw = llvm::cast<mlir::StringAttr>(params.getKeywords()[i]).getValue();
        auto c = params.getArgs()[i].getDefiningOp<pd::ConstantOp>();
        llvm::StringRef v = c ? c.getValue() : "";
        long n = 0;
        if (kw == "skip_floating_point_ops")
          mode.facts.skipFloatingPointOps = v == "True";
        if (kw == "inline_mgpu")
          mode.facts.inlineMgpuOptionGiven = true;
        if (kw == "num_cores_or_threads" && !v.getAsInteger(10, n) && n > 1)
          mode.facts.multiThreaded = true;
      }
    });
  }
  return mode;
}

// JAX 0.10.2 computes `config_value or interpret` and InterpretGPUParams()
// is true: the process-wide mode wins over any interpret= of the launch
// (issue 36), unless the launch is built where a `force_gpu_interpret_mode(
// None)` hides it.
bool usesGlobalMode(pd::LaunchOp launch, const GlobalMode& mode) {
  if (!mode.call || launch->hasAttr("pallas.gpu_mode_hidden"))
    return false;
  // A top-level launch before the call runs before the mode is set.
  auto owner = launch->getParentOfType<pd::FuncOp>();
  if (owner && owner.getKind() == pd::FuncKind::Module && owner->isBeforeInBlock(mode.after))
    return false;
  if (owner != mode.after)
    return true;
  mlir::Operation* call = mode.call;
  return call->getBlock() != launch->getBlock() || call->isBeforeInBlock(launch);
}

} // namespace

LaunchSite launchSiteOf(pd::LaunchOp launch) {
  LaunchSite site;
  site.op = launch;
  site.api = launch.getApi().str();
  site.location = detail::sourceLocation(launch.getLoc());
  site.selector = site.location;
  if (launch.getInterpretSource() == pd::InterpretSource::Context && launch.getContextLine()) {
    site.selector.range.start = {
        static_cast<uint32_t>(*launch.getContextLine() - 1),
        static_cast<uint32_t>(launch.getContextColumn() ? *launch.getContextColumn() - 1 : 0)};
    site.selector.range.end = site.selector.range.start;
  }
  site.facts = launchFactsOf(launch);
  return site;
}

std::vector<ExecPath> runtimeChoicePaths() {
#if PALLAS_LSP_MUTANT == 4 // mutant (test/mutation): a run-time interpret= loses its compiled path
  return {ExecPath::InterpretHlo};
#else
  return {ExecPath::InterpretHlo, ExecPath::Compiled};
#endif
}

namespace {

std::vector<PathChoice> pathsOf(pd::LaunchOp launch) {
  std::set<std::string> s;
  for (mlir::Attribute a : launch.getPaths())
    s.insert(pd::enumName(a).str());
  bool unknown = s.count(pd::path::kUnknown) > 0;
  // Several paths are each taken (a loop over the values, 8.26), else one
  // of them is: a run-time choice.
  bool may = unknown || (s.size() > 1 && !launch->hasAttr("pallas.every_path"));
  std::set<ExecPath> chosen;
  if (s.count(pd::path::kInterpretHlo))
    chosen.insert(ExecPath::InterpretHlo);
  if (s.count(pd::path::kInterpretGpu))
    chosen.insert(ExecPath::InterpretGpu);
  if (s.count(pd::path::kCompiled))
    chosen.insert(ExecPath::Compiled);
  if (unknown)
    for (ExecPath p : runtimeChoicePaths())
      chosen.insert(p);
  std::vector<PathChoice> out;
  for (ExecPath p : {ExecPath::InterpretHlo, ExecPath::InterpretGpu, ExecPath::Compiled})
    if (chosen.count(p))
      out.push_back({p, may});
  return out;
}

// Per caller context when the launch's interpret= is a parameter whose
// callers are known; else the launch's own paths.
std::vector<LaunchRun> runsOf(pd::LaunchOp launch, const LaunchFacts& facts,
                              const std::vector<PathChoice>& own,
                              const std::vector<CallContext>& contexts) {
  std::vector<LaunchRun> runs;
  if (contexts.empty()) {
    for (const PathChoice& pc : own)
      runs.push_back({pc, facts, {}});
    return runs;
  }
  auto add = [&](ExecPath p, bool may, const CallContext& c) {
    for (LaunchRun& r : runs)
      if (r.pc.path == p && r.pc.may == may) {
        r.via.push_back(&c);
        return;
      }
    LaunchFacts f = facts;
    if (p == ExecPath::InterpretGpu && !c.usesDefault) {
      f = c.facts;
      f.numThreads = facts.numThreads;
      f.multiThreaded = f.multiThreaded || facts.numThreads > 1;
    }
    runs.push_back({{p, may}, f, {&c}});
  };
  for (const CallContext& c : contexts) {
    if (c.paths.empty())
      for (ExecPath p : runtimeChoicePaths())
        add(p, true, c);
    for (ExecPath p : c.paths)
      add(p, c.paths.size() > 1, c);
  }
  // A path some caller certainly selects is reported once, as certain.
  std::vector<LaunchRun> kept;
  for (LaunchRun& r : runs) {
    bool certainToo = false;
    for (const LaunchRun& o : runs)
      certainToo |= r.pc.may && !o.pc.may && o.pc.path == r.pc.path;
    if (!certainToo)
      kept.push_back(std::move(r));
  }
  (void)launch;
  return kept;
}

// The runs of one launch, with the caller contexts they point into.
struct LaunchPlan {
  const GlobalMode* global = nullptr;
  std::vector<CallContext> contexts;
  std::vector<LaunchRun> runs;
  // A kernel body computed from the function's parameters (`KERNELS[name]`)
  // is what its callers pass (KernelWalk::keyText): their constant arguments.
  std::vector<std::string> bodyCallers;
};

// The callers' sites and constant arguments, when the launch's body is a
// value inside a def with parameters (not part of the launch's code).
std::vector<std::string> bodyCallersOf(CallIndex& calls, const std::string& doc,
                                       pd::LaunchOp launch) {
  std::vector<std::string> out;
  auto owner = launch->getParentOfType<pd::FuncOp>();
  if (!launch.getBodyValue() || !owner || owner.getKind() != pd::FuncKind::Def ||
      owner.getArgNames().empty())
    return out;
  for (const detail::CallEdge& e : calls.callersOf(doc, owner.getSymName())) {
    detail::LineCol at = detail::lineCol(e.site->getLoc());
    std::string s = e.caller.path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
    detail::CallArguments a = detail::edgeArguments(calls.workspace(), e);
    for (unsigned i = 0; i < a.values.size(); ++i) {
      s += "|" + a.keywords[i] + "=";
      if (auto c = a.values[i].getDefiningOp<pd::ConstantOp>())
        s += c.getValue().str();
    }
    out.push_back(std::move(s));
  }
  return out;
}

// A pl.core_map written in the kernel of other launches of this module runs
// where they run. Compiled, Mosaic GPU lowers it as part of the kernel (its
// runs here, with its body's own thread semantics); interpreted, the outer
// launch's walk judges it (KernelWalk::recordNestedCoreMap). So it keeps only
// its compiled run, and that only when an enclosing launch may compile.
void restrictNestedRuns(const detail::PassContext& ctx, pd::LaunchOp launch, const GlobalMode& mode,
                        LaunchPlan& plan) {
  if (launch.getApi() != apiText(Api::CoreMap))
    return;
  mlir::ModuleOp module = launch->getParentOfType<mlir::ModuleOp>();
  if (!module)
    return;
  std::vector<pd::LaunchOp> enclosing =
      enclosingLaunches(detail::moduleScan(ctx, module).launches, launch);
  if (enclosing.empty())
    return; // a kernel of its own, or one launched elsewhere: as written
  bool mayCompile = llvm::any_of(enclosing, [&](pd::LaunchOp outer) {
    if (!ctx.options.assumePath.empty())
      return ctx.options.assumePath == "compiled";
    if (usesGlobalMode(outer, mode))
      return false;
    return llvm::any_of(pathsOf(outer),
                        [](const PathChoice& c) { return c.path == ExecPath::Compiled; });
  });
  llvm::erase_if(plan.runs, [&](const LaunchRun& r) {
    return !mayCompile || r.pc.path != ExecPath::Compiled;
  });
}

void planLaunch(detail::PassContext& ctx, const std::string& doc, pd::LaunchOp launch,
                const GlobalMode& mode, CallIndex& calls, LaunchPlan& plan) {
  LaunchFacts facts = launchFactsOf(launch);
  std::vector<PathChoice> paths = pathsOf(launch);
  if (usesGlobalMode(launch, mode)) {
    plan.global = &mode;
    long threads = facts.numThreads;
    facts = mode.facts;
    facts.numThreads = threads;
    facts.multiThreaded = facts.multiThreaded || threads > 1;
    paths = {{ExecPath::InterpretGpu, false}};
  } else if (ctx.options.assumePath.empty()) {
    plan.contexts = interpretCallContexts(calls, doc, launch);
    if (plan.contexts.empty())
      plan.contexts = gpuModeCallContexts(calls, doc, launch);
  }
  // `check --assume-path`: every launch judged as if that path were chosen.
  if (const std::string& assumed = ctx.options.assumePath; !assumed.empty()) {
    ExecPath p = assumed == "interpret"       ? ExecPath::InterpretHlo
                 : assumed == "gpu-interpret" ? ExecPath::InterpretGpu
                                              : ExecPath::Compiled;
    plan.global = nullptr;
    plan.contexts.clear();
    paths = {{p, false}};
    if (p == ExecPath::InterpretHlo) {
      facts.skipFloatingPointOps = facts.inlineMgpuOptionGiven = false;
      facts.multiThreaded = facts.numThreads > 1;
    }
  }
  plan.runs = runsOf(launch, facts, paths, plan.contexts);
  restrictNestedRuns(ctx, launch, mode, plan);
  plan.bodyCallers = bodyCallersOf(calls, doc, launch);
}

std::vector<pd::LaunchOp> launchesOf(const detail::PassContext& ctx, mlir::ModuleOp module) {
  std::vector<pd::LaunchOp> launches;
  for (pd::LaunchOp l : detail::moduleScan(ctx, module).launches)
    if (isMosaicGpuLaunch(l) && isStaticallyReachable(l))
      launches.push_back(l);
  return launches;
}

// A helper file: no launch of its own, but code that only some paths can
// run. Its findings come from launches in the files that call into it.
bool isKernelHelper(mlir::ModuleOp module) {
  bool launch = false, gpuOnly = false;
  // The first launch settles it: stop there (this ran over every op of a
  // 10k-line file on each keystroke).
  module.walk([&](mlir::Operation* op) {
    auto p = llvm::dyn_cast<pd::PrimOp>(op);
    if (llvm::isa<pd::LaunchOp>(op)) {
      launch = true;
      return mlir::WalkResult::interrupt();
    }
    if (llvm::isa<pd::InlineMgpuOp>(op) || (p && p.getApi().starts_with("plgpu.")))
      gpuOnly = true;
    return mlir::WalkResult::advance();
  });
  return gpuOnly && !launch;
}

} // namespace

namespace {

uint64_t mixKey(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4));
}
uint64_t keyOf(llvm::StringRef s) {
  return llvm::xxh3_64bits(s);
}
uint64_t keyOf(const LaunchFacts& f) {
  uint64_t h = mixKey(f.skipFloatingPointOps, f.multiThreaded);
  h = mixKey(h, f.inlineMgpuOptionGiven);
  return mixKey(h, static_cast<uint64_t>(f.numThreads));
}
uint64_t keyOf(const SourceLocation& at) {
  uint64_t h = mixKey(keyOf(at.path), at.range.start.line);
  h = mixKey(h, at.range.start.column);
  h = mixKey(h, at.range.end.line);
  return mixKey(h, at.range.end.column);
}

// Everything of a launch's plan a walk or a finding reads: its runs (path,
// facts) and the caller contexts and module-level mode that select them,
// with their places and texts (they are not in the launch's code).
uint64_t planKeyOf(const LaunchPlan& plan) {
  uint64_t h = 0x5eed;
  if (plan.global) {
    h = mixKey(h, keyOf(detail::sourceLocation(plan.global->call->getLoc())));
    h = mixKey(h, keyOf(plan.global->facts));
  }
  for (const LaunchRun& run : plan.runs) {
    h = mixKey(mixKey(h, static_cast<uint64_t>(run.pc.path) + 1), run.pc.may);
    h = mixKey(h, keyOf(run.facts));
    for (const CallContext* c : run.via) {
      for (ExecPath p : c->paths)
        h = mixKey(h, static_cast<uint64_t>(p) + 7);
      h = mixKey(h, keyOf(c->facts));
      h = mixKey(h, keyOf(c->selector));
      h = mixKey(h, keyOf(c->caller));
      h = mixKey(h, keyOf(c->callee));
      h = mixKey(h, keyOf(c->argumentText));
      h = mixKey(h, c->usesDefault);
    }
    h = mixKey(h, run.via.size());
  }
  for (const std::string& c : plan.bodyCallers)
    h = mixKey(h, keyOf(c));
  return mixKey(h, plan.runs.size());
}

} // namespace

void forEachLaunch(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                   const knowledge::KnowledgeBase& kb, CallIndex& calls,
                   const LaunchVisitor& perLaunch) {
  // A document with Python source runs under the evaluator; a pallas
  // module given as .mlir (pallas-opt) has none, and is walked.
  if (evaluatorEngine() && ctx.workspace.pyModule(doc)) {
    forEachEvaluatedLaunch(ctx, doc, module, kb, perLaunch);
    return;
  }
  GlobalMode mode = globalInterpretMode(module);
  for (pd::LaunchOp launch : launchesOf(ctx, module)) {
    if (ctx.stopRequested())
      return; // the findings are thrown away: stop between launches
    LaunchPlan plan;
    planLaunch(ctx, doc, launch, mode, calls, plan);
    LaunchSite site = launchSiteOf(launch);
    perLaunch(launch, planKeyOf(plan), [&](const RunVisitor& visit) {
      // A body that is a parameter: the kernels its callers pass. Asked of
      // the run's index too, so a kept result is keyed on those callers'
      // statements and what they reach (the kernels' code among them).
      LaunchBodyArguments bodies = launchBodyArguments(calls, doc, launch);
      if (!bodies.function.empty() && ctx.launchCache && ctx.launchCache->running())
        (void)ctx.launchCache->index().get().callersOf(doc, bodies.function);
      for (const LaunchRun& run : plan.runs) {
        KernelWalk walk(ctx.workspace, kb, run.pc.path, launch, doc);
        // The kernels passed by the calls that select this run's path: a
        // call passes both (`launch(x, fenced, interpret=True)`, a
        // factory's keywords and the function its result is applied to).
        // Only when each of those calls passes one; else every kernel.
        std::vector<LaunchBodyArgument> paired;
        bool eachPasses = !run.via.empty();
        for (const CallContext* c : run.via)
          eachPasses &= c->site && llvm::any_of(bodies.arguments, [&](const LaunchBodyArgument& a) {
                          return a.via == c->site;
                        });
        for (const LaunchBodyArgument& a : bodies.arguments)
          if (eachPasses &&
              llvm::any_of(run.via, [&](const CallContext* c) { return c->site == a.via; }))
            paired.push_back(a);
        walk.setBodyArguments(paired.empty() ? bodies.arguments : std::move(paired));
        // The caller's constant for the launch function's parameter, when
        // every context of this run passes the same one.
        if (!run.via.empty() && run.via.front()->parameter &&
            llvm::all_of(run.via, [&](const CallContext* c) {
              return c->parameter == run.via.front()->parameter &&
                     c->argumentText == run.via.front()->argumentText;
            }))
          walk.bindParameter(run.via.front()->parameter, run.via.front()->argument,
                             run.via.front()->argumentDoc);
        if (!walk.run())
          continue;
        visit({doc, launch, site, plan.global, run, walk});
      }
    });
  }
}

void forEachLaunchRun(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                      const knowledge::KnowledgeBase& kb, CallIndex& calls,
                      const std::function<void(const LaunchRunView&)>& visit) {
  // Every launch's runs, nothing kept: forEachLaunch with each walked at once.
  forEachLaunch(ctx, doc, module, kb, calls,
                [&](mlir::Operation*, uint64_t,
                    const std::function<void(const RunVisitor&)>& walkRuns) { walkRuns(visit); });
}

void checkDocumentAndCallers(detail::PassContext& ctx, const DocumentCheck& check) {
  // One index of the workspace's calls for the run's passes (PLS001/PLS002
  // and PLS004 ask the same questions of it).
  std::unique_ptr<CallIndex> own;
  CallIndex& calls =
      ctx.launchCache && ctx.launchCache->running()
          ? ctx.launchCache->shared<CallIndex>(
                "CallIndex", [&] { return std::make_unique<CallIndex>(ctx.workspace); })
          : *(own = std::make_unique<CallIndex>(ctx.workspace));
  check(ctx.path, ctx.module, calls, ctx.findings);
  if (!isKernelHelper(ctx.module))
    return;
  // The files whose launches reach this helper (through any chain of calls),
  // so an editor showing only the helper still gets its findings. One walk
  // of the workspace's call edges; only helper files pay for it.
  std::set<std::string> reaching{ctx.path};
  std::vector<detail::CallEdge> edges = ctx.workspace.callEdges();
  for (bool grew = true; grew;) {
    grew = false;
    for (const detail::CallEdge& e : edges)
      if (reaching.count(e.calleePath) && reaching.insert(e.caller.path).second)
        grew = true;
  }
  for (const std::string& doc : reaching) {
    if (doc == ctx.path)
      continue;
    mlir::ModuleOp module = ctx.workspace.module(doc);
    if (!module)
      continue;
    std::vector<Finding> found;
    check(doc, module, calls, found);
    for (Finding& f : found)
      if (f.location.path == ctx.path)
        ctx.findings.push_back(std::move(f));
  }
}

} // namespace pallas::analysis::passes
