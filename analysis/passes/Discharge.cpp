// The discharge-feasibility pass: for every kernel launch of the document and
// every execution path it may select, walk what the kernel runs (KernelWalk),
// decide with JAX's rules whether the path can run each primitive
// (PathRules), and report PLS001 (inline_mgpu) / PLS002 (other primitives)
// where it cannot, and PLS004 where an inline_mgpu call does not match its
// declared types. See docs/analysis.md.
#include "CallContexts.h"
#include "InlineMgpuSignature.h"
#include "KernelWalk.h"
#include "PassKnowledge.h"
#include "PathRules.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

struct PathChoice {
  ExecPath path;
  bool may; // the launch may select another path too: report warnings
};

// A module-level `set_gpu_interpret_mode(InterpretGPUParams(...))` runs at
// import, before any function of the module: it sets the process-wide
// interpret value that a launch uses when its own `interpret` is absent or
// False (every entry point ORs the two). The front end records such calls
// only within one function (its lowering is per function), so the pass
// looks at the module's top-level statements itself.
struct GlobalMode {
  pd::PrimOp call;   // the set_gpu_interpret_mode call; null when none
  pd::FuncOp after;  // the top-level statement holding it
  LaunchFacts facts; // from its InterpretGPUParams(...) arguments
};

GlobalMode globalInterpretMode(mlir::ModuleOp module) {
  GlobalMode mode;
  for (pd::FuncOp f : module.getOps<pd::FuncOp>()) {
    if (f.getKind() != pd::FuncKind::Module)
      continue;
    f.getBody().walk([&](pd::PrimOp p) {
      if (p.getApi() != "interpret.set_gpu_interpret_mode" || p.getArgs().empty())
        return;
      auto params = p.getArgs()[0].getDefiningOp<pd::PrimOp>();
      if (!params || params.getApi() != "interpret.InterpretGPUParams") {
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

bool usesGlobalMode(pd::LaunchOp launch, const GlobalMode& mode) {
  if (!mode.call)
    return false;
  llvm::StringRef source = pd::stringifyEnum(launch.getInterpretSource());
  bool own = source == "absent" || (source == "literal" && launch.getInterpretText() &&
                                    launch.getInterpretText()->trim() == "False");
  if (!own)
    return false;
  // A top-level launch before the call runs before the mode is set.
  auto owner = launch->getParentOfType<pd::FuncOp>();
  if (owner && owner.getKind() == pd::FuncKind::Module && owner->isBeforeInBlock(mode.after))
    return false;
  if (owner != mode.after)
    return true;
  pd::PrimOp call = mode.call;
  return call->getBlock() != launch->getBlock() || call->isBeforeInBlock(launch);
}

// The paths a run-time `interpret` value may select (the launch's own or a
// caller's): the common spellings are booleans, so both interpret=True and
// the compiled path are possible.
std::vector<ExecPath> runtimeChoicePaths() {
#if PALLAS_LSP_MUTANT == 4 // mutant (test/mutation): a run-time interpret= loses its compiled path
  return {ExecPath::InterpretHlo};
#else
  return {ExecPath::InterpretHlo, ExecPath::Compiled};
#endif
}

std::vector<PathChoice> pathsOf(pd::LaunchOp launch) {
  std::set<std::string> s;
  for (mlir::Attribute a : launch.getPaths())
    s.insert(pd::enumName(a).str());
  bool unknown = s.count(pd::path::kUnknown) > 0;
  bool may = unknown || s.size() > 1;
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

LaunchFacts factsOf(pd::LaunchOp launch) {
  return launchFactsOf(launch);
}

std::string hopText(const Hop& h) {
  return h.name + " (" + llvm::sys::path::filename(h.definition.path).str() + ":" +
         std::to_string(h.definition.range.start.line + 1) + ")";
}

// Where the launch selects its path: the context manager when that decides,
// else the launch itself.
SourceLocation selector(pd::LaunchOp launch, const GlobalMode* global) {
  if (global)
    return detail::sourceLocation(global->call->getLoc());
  SourceLocation at = detail::sourceLocation(launch.getLoc());
  if (launch.getInterpretSource() == pd::InterpretSource::Context && launch.getContextLine()) {
    at.range.start = {
        static_cast<uint32_t>(*launch.getContextLine() - 1),
        static_cast<uint32_t>(launch.getContextColumn() ? *launch.getContextColumn() - 1 : 0)};
    at.range.end = at.range.start;
  }
  return at;
}

std::string whatIsBound(const Binding& b) {
  if (b.prim->name == "inline_mgpu_p") {
    std::string name = b.chain.empty() ? "" : "";
    if (auto call = llvm::dyn_cast_or_null<pd::CallOp>(b.inlineCall))
      name = call.getCallee().str();
    else if (auto ci = llvm::dyn_cast_or_null<pd::CallIndirectOp>(b.inlineCall))
      if (auto c = ci.getCallee().getDefiningOp<pd::ClosureOp>())
        name = c.getName().str();
    return name.empty() ? "This inline_mgpu region" : "The inline_mgpu region `" + name + "`";
  }
  if (b.retraceCollective)
    return "This " + b.api;
  return "`" + b.api + "` (primitive " + b.prim->name + ")";
}

// The short name of what fails, for the headline: "region 'touch'".
std::string subjectOf(const Binding& b) {
  std::string what = whatIsBound(b);
  if (b.prim->name == "inline_mgpu_p") {
    size_t open = what.find('`');
    return open == std::string::npos
               ? std::string("an inline_mgpu region")
               : "region '" + what.substr(open + 1, what.rfind('`') - open - 1) + "'";
  }
  return "`" + b.api + "`";
}

// The callers that select the path, for the message: "when `run` calls
// `square` (interpret=True)".
std::string viaText(const std::vector<const CallContext*>& via) {
  if (via.empty())
    return {};
  std::string out = " when ";
  for (size_t i = 0; i < via.size() && i < 3; ++i) {
    if (i)
      out += i + 1 == via.size() || i == 2 ? " or " : ", ";
    out += "`" + via[i]->caller + "` calls `" + via[i]->callee + "` (" + via[i]->argumentText + ")";
  }
  if (via.size() > 3)
    out += " and " + std::to_string(via.size() - 3) + " more callers";
  return out;
}

Finding makeFinding(const Binding& b, const Failure& f, const PathChoice& pc, pd::LaunchOp launch,
                    const GlobalMode* global, const KernelWalk& walk,
                    const knowledge::KnowledgeBase& kb, bool first,
                    const std::vector<const CallContext*>& via = {}) {
  Finding out;
  out.code = f.code;
  out.severity = pc.may || f.uncertain ? Severity::Warning : Severity::Error;
#if PALLAS_LSP_MUTANT == 2 // mutant (test/mutation): PLS001/PLS002 demoted to warnings
  out.severity = Severity::Warning;
#endif
  out.location = detail::sourceLocation(b.site->getLoc());
  std::string path = pathLabel(pc.path);
  out.message = whatIsBound(b) + " cannot run on " + path + viaText(via) +
                (pc.may ? " (which the launch may select at run time)" : "") + ": JAX " +
                kb.jaxVersion() + " will raise " + f.exception + ": " + f.jaxError + " (" +
                f.reason + "). " + f.advice;
  if (first)
    out.message += " This is the first error JAX raises for this launch.";
  out.subject = subjectOf(b);
  out.selectedAt = selector(launch, global);
  out.jaxException = f.exception;
  out.jaxErrorFirstLine = f.jaxError.substr(0, f.jaxError.find('\n'));
  out.executionPath = path;
  out.launch = detail::sourceLocation(launch.getLoc());
  if (via.empty())
    out.related.push_back({selector(launch, global),
                           std::string(pc.may ? "may select " : "selects ") + path + " here"});
  for (const CallContext* c : via)
    out.related.push_back({c->selector, std::string(pc.may ? "may select " : "selects ") + path +
                                            " here: `" + c->caller + "` calls `" + c->callee +
                                            "` with " + c->argumentText});
  const Hop& kernel = walk.kernelHop();
  if (!kernel.definition.path.empty())
    out.related.push_back({kernel.definition, "kernel body `" + kernel.name + "`"});
  for (size_t i = 1; i < b.chain.size(); ++i)
    out.related.push_back({b.chain[i].callSite, "calls `" + b.chain[i].name + "`"});
  for (const Hop& h : b.chain)
    out.callChain.push_back(hopText(h));
  out.jaxVersion = kb.jaxVersion();
  return out;
}

// Would GPU interpret mode (interpret=InterpretGPUParams(), no options) run
// everything this launch reaches? Decided by the same walk and rules as that
// path's findings, so "Use GPU interpret mode" is offered exactly where the
// switch leaves no finding behind.
bool gpuInterpretRunsLaunch(detail::PassContext& ctx, const std::string& launchDoc,
                            pd::LaunchOp launch, const knowledge::KnowledgeBase& kb) {
  KernelWalk walk(ctx.workspace, kb, ExecPath::InterpretGpu, launch, launchDoc);
  if (!walk.run())
    return false;
  // The launch's own facts: its thread count; no InterpretGPUParams options
  // (interpret=True has none, and the fix writes InterpretGPUParams()).
  LaunchFacts facts = factsOf(launch);
  for (const Binding& b : walk.bindings())
    if (b.retraceCollective || decide(b, ExecPath::InterpretGpu, facts, kb))
      return false;
  return true;
}

// One judgement of a launch: a path, the launch facts it runs with, and the
// caller contexts that select it (empty: the launch's own interpret=).
struct Run {
  PathChoice pc;
  LaunchFacts facts;
  std::vector<const CallContext*> via;
};

// Per caller context when the launch's interpret= is a parameter whose
// callers are known; else the launch's own paths.
std::vector<Run> runsOf(pd::LaunchOp launch, const LaunchFacts& facts,
                        const std::vector<PathChoice>& own,
                        const std::vector<CallContext>& contexts) {
  std::vector<Run> runs;
  if (contexts.empty()) {
    for (const PathChoice& pc : own)
      runs.push_back({pc, facts, {}});
    return runs;
  }
  auto add = [&](ExecPath p, bool may, const CallContext& c) {
    for (Run& r : runs)
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
  std::vector<Run> kept;
  for (Run& r : runs) {
    bool certainToo = false;
    for (const Run& o : runs)
      certainToo |= r.pc.may && !o.pc.may && o.pc.path == r.pc.path;
    if (!certainToo)
      kept.push_back(std::move(r));
  }
  (void)launch;
  return kept;
}

void analyzeLaunch(detail::PassContext& ctx, const std::string& launchDoc, pd::LaunchOp launch,
                   const knowledge::KnowledgeBase& kb, const GlobalMode& mode, CallIndex& calls,
                   llvm::DenseSet<mlir::Operation*>& signatureChecked, std::vector<Finding>& out) {
  LaunchFacts facts = factsOf(launch);
  std::vector<PathChoice> paths = pathsOf(launch);
  const GlobalMode* global = nullptr;
  std::vector<CallContext> contexts;
  if (usesGlobalMode(launch, mode)) {
    global = &mode;
    long threads = facts.numThreads;
    facts = mode.facts;
    facts.numThreads = threads;
    facts.multiThreaded = facts.multiThreaded || threads > 1;
    paths = {{ExecPath::InterpretGpu, false}};
  } else if (ctx.options.assumePath.empty()) {
    contexts = interpretCallContexts(calls, launchDoc, launch);
    if (contexts.empty())
      contexts = gpuModeCallContexts(calls, launchDoc, launch);
  }
  // `check --assume-path`: every launch judged as if that path were chosen.
  if (const std::string& assumed = ctx.options.assumePath; !assumed.empty()) {
    ExecPath p = assumed == "interpret"       ? ExecPath::InterpretHlo
                 : assumed == "gpu-interpret" ? ExecPath::InterpretGpu
                                              : ExecPath::Compiled;
    global = nullptr;
    contexts.clear();
    paths = {{p, false}};
    if (p == ExecPath::InterpretHlo) {
      facts.skipFloatingPointOps = facts.inlineMgpuOptionGiven = false;
      facts.multiThreaded = facts.numThreads > 1;
    }
  }
  for (const Run& run : runsOf(launch, facts, paths, contexts)) {
    const PathChoice& pc = run.pc;
    const LaunchFacts& runFacts = run.facts;
    KernelWalk walk(ctx.workspace, kb, pc.path, launch, launchDoc);
    if (!walk.run())
      continue;
    struct Hit {
      const Binding* binding;
      Failure failure;
    };
    std::vector<Hit> hits;
    std::set<mlir::Operation*> sites; // JAX stops at a call's first failing primitive
    for (const Binding& b : walk.bindings()) {
      if (b.inlineCall && signatureChecked.insert(b.inlineCall).second)
        checkInlineMgpuSignature(b, kb, out);
      auto failure = decide(b, pc.path, runFacts, kb);
      if (!failure || !sites.insert(b.site).second)
        continue;
      hits.push_back({&b, std::move(*failure)});
    }
    // The error JAX reports: earliest phase, then program order.
    const Hit* first = nullptr;
    for (const Hit& h : hits)
#if PALLAS_LSP_MUTANT ==                                                                           \
    5 // mutant (test/mutation): the first error by program order, phases ignored
      if (!h.failure.uncertain && (!first || h.binding->order < first->binding->order))
#else
      if (!h.failure.uncertain &&
          (!first || std::pair(h.failure.phase, h.binding->order) <
                         std::pair(first->failure.phase, first->binding->order)))
#endif
        first = &h;
    // The quick fix to GPU interpret mode replaces a literal interpret=True;
    // a run-time value ("may") or a process-wide mode is not the launch's to
    // rewrite.
    bool gpuRuns = !hits.empty() && pc.path == ExecPath::InterpretHlo && !pc.may && !global &&
                   run.via.empty() && gpuInterpretRunsLaunch(ctx, launchDoc, launch, kb);
    for (const Hit& h : hits) {
#if PALLAS_LSP_MUTANT == 3 // mutant (test/mutation): findings in a helper file are dropped
      if (detail::sourceLocation(h.binding->site->getLoc()).path != launchDoc)
        continue;
#endif
      out.push_back(makeFinding(*h.binding, h.failure, pc, launch, global, walk, kb,
                                &h == first && !pc.may, run.via));
      out.back().gpuInterpretRunsLaunch = gpuRuns;
    }
  }
}

std::vector<pd::LaunchOp> launchesOf(mlir::ModuleOp module) {
  std::vector<pd::LaunchOp> launches;
  module.walk([&](pd::LaunchOp l) {
    if (isMosaicGpuLaunch(l) && isStaticallyReachable(l))
      launches.push_back(l);
  });
  return launches;
}

// A helper file: no launch of its own, but code that only some paths can
// run. Its findings come from launches in the files that call into it.
bool isKernelHelper(mlir::ModuleOp module) {
  bool launch = false, gpuOnly = false;
  module.walk([&](mlir::Operation* op) {
    if (llvm::isa<pd::LaunchOp>(op))
      launch = true;
    else if (llvm::isa<pd::InlineMgpuOp>(op))
      gpuOnly = true;
    else if (auto p = llvm::dyn_cast<pd::PrimOp>(op); p && p.getApi().starts_with("plgpu."))
      gpuOnly = true;
  });
  return gpuOnly && !launch;
}

void analyzeDocument(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                     const knowledge::KnowledgeBase& kb, CallIndex& calls,
                     std::vector<Finding>& out) {
  llvm::DenseSet<mlir::Operation*> signatureChecked;
  GlobalMode mode = globalInterpretMode(module);
  for (pd::LaunchOp l : launchesOf(module))
    analyzeLaunch(ctx, doc, l, kb, mode, calls, signatureChecked, out);
}

void runDischarge(detail::PassContext& ctx) {
  auto kb = knowledgeFor(ctx.options);
  if (!kb || !ctx.module)
    return;
  CallIndex calls(ctx.workspace);
  analyzeDocument(ctx, ctx.path, ctx.module, *kb, calls, ctx.findings);
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
    analyzeDocument(ctx, doc, module, *kb, calls, found);
    for (Finding& f : found)
      if (f.location.path == ctx.path)
        ctx.findings.push_back(std::move(f));
  }
}

} // namespace

} // namespace pallas::analysis::passes

// ---- the pass (Passes.td: pallas-discharge) -----------------------------------
namespace pallas::analysis::passes {
#define GEN_PASS_DECL_PALLASDISCHARGE
#define GEN_PASS_DEF_PALLASDISCHARGE
#include "pallas/analysis/detail/Passes.h.inc"
namespace {
struct DischargePass : detail::PallasPass<DischargePass, impl::PallasDischargeBase> {
  using PallasPass::PallasPass;
  void run(detail::PassContext& ctx) { runDischarge(ctx); }
};
const detail::FindingsPassRegistration<DischargePass> registration;
} // namespace
} // namespace pallas::analysis::passes
