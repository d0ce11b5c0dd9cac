// The path-feasibility pass: for every kernel launch of the document and
// every execution path it may select (LaunchRuns), walk what the kernel runs
// (KernelWalk), decide with JAX's rules whether the path can run each
// primitive (PathRules), and report where it cannot: PLS001 for inline_mgpu
// regions (InlineMgpuOnPath.cpp), PLS002 for other primitives
// (PrimitiveOnPath.cpp). See docs/analysis.md.
#include "CallContexts.h"
#include "KernelWalk.h"
#include "LaunchCache.h"
#include "LaunchRuns.h"
#include "PassKnowledge.h"
#include "PathRules.h"
#include "PathSelector.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include <iterator>
#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// Where the launch selects its path: the context manager when that decides,
// else the `interpret=` argument written in the launch call (`written`, the
// expression the user edits to change the path), else the launch itself.
SourceLocation selector(const LaunchSite& launch, const GlobalMode* global,
                        const std::optional<SourceLocation>& written) {
  if (global)
    return detail::sourceLocation(global->call->getLoc());
  // A context manager selects elsewhere than the launch; else the written
  // argument, when there is one, is where the user changes the path.
  bool fromContext = launch.selector.range.start != launch.location.range.start;
  return !fromContext && written ? *written : launch.selector;
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
    // Code at a module's top level has no name of its own.
    const std::string& caller = via[i]->caller;
    out += (caller == "the module" ? caller : "`" + caller + "`") + " calls `" + via[i]->callee +
           "` (" + via[i]->argumentText + ")";
  }
  if (via.size() > 3)
    out += " and " + std::to_string(via.size() - 3) + " more callers";
  return out;
}

Finding makeFinding(const BoundPrimitive& b, const Failure& f, const PathChoice& pc,
                    const LaunchSite& launch, const GlobalMode* global,
                    const std::optional<SourceLocation>& written, const KernelWalk& walk,
                    const knowledge::KnowledgeBase& kb, bool first,
                    const std::vector<const CallContext*>& via = {}) {
  const PathCheck& check = pathCheckFor(b);
  Finding out;
  out.code = ruleCode(f.rule);
  out.severity = pc.may || f.uncertain ? Severity::Warning : Severity::Error;
#if PALLAS_LSP_MUTANT == 2 // mutant (test/mutation): PLS001/PLS002 demoted to warnings
  out.severity = Severity::Warning;
#endif
  out.location = detail::sourceLocation(b.site->getLoc());
  std::string path = pathLabel(pc.path);
  out.message = check.what(b) + " cannot run on " + path + viaText(via) +
                (pc.may ? " (which the launch may select at run time)" : "") + ": JAX " +
                kb.jaxVersion() + " will raise " + f.exception +
                (f.jaxError.empty() ? "" : ": " + f.jaxError) + " (" + f.reason + "). " + f.advice;
  // The program catches what JAX raises (a fallback after the kernel fails):
  // the failure is real but handled, a warning.
  auto caught = launch.caught.find(f.exception);
  if (caught != launch.caught.end()) {
    out.severity = Severity::Warning;
    out.message += " The `except` at line " + std::to_string(caught->second.range.start.line + 1) +
                   " catches it and the program goes on.";
    out.related.push_back({caught->second, "catches the " + f.exception + " this launch raises"});
  } else if (launch.programNeverCalls) {
    out.message += " The program (its `if __name__ == \"__main__\":` block) never calls this "
                   "launch: JAX raises this only when something else calls it.";
  } else if (first) {
    out.message += " This is the first error JAX raises for this launch.";
  }
  out.subject = check.subject(b);
  // The expression that decides the path: the caller's argument when a
  // caller's value selects it, else what the launch itself writes.
  out.selectedAt = via.empty() ? selector(launch, global, written) : via.front()->selector;
  out.jaxException = f.exception;
  out.jaxErrorFirstLine = f.jaxError.substr(0, f.jaxError.find('\n'));
  out.executionPath = path;
  out.launch = launch.location;
  if (via.empty())
    out.related.push_back({selector(launch, global, written),
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
  LaunchFacts facts = launchFactsOf(launch);
  for (const BoundPrimitive& b : walk.bindings())
    if (b.retraceCollective || decide(b, ExecPath::InterpretGpu, facts, kb))
      return false;
  return true;
}

bool gpuInterpretRuns(const std::vector<BoundPrimitive>& bindings, const LaunchSite& launch,
                      const knowledge::KnowledgeBase& kb) {
  LaunchFacts facts = launch.facts;
  for (const BoundPrimitive& b : bindings)
    if (b.retraceCollective || decide(b, ExecPath::InterpretGpu, facts, kb))
      return false;
  return true;
}

// One run of one launch: its failing bindings, the first error JAX raises,
// and one finding per failing call.
void analyzeRun(detail::PassContext& ctx, const LaunchRunView& v,
                const knowledge::KnowledgeBase& kb, std::vector<Finding>& out) {
  const PathChoice& pc = v.run.pc;
  struct Hit {
    const BoundPrimitive* binding;
    Failure failure;
  };
  std::vector<Hit> hits;
  std::set<mlir::Operation*> sites; // JAX stops at a call's first failing primitive
  for (const BoundPrimitive& b : v.walk.bindings()) {
    auto failure = decide(b, pc.path, v.run.facts, kb);
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
  bool gpuRuns = !hits.empty() && pc.path == ExecPath::InterpretHlo && !pc.may && !v.global &&
                 v.run.via.empty() &&
                 (v.gpuInterpretBindings ? gpuInterpretRuns(*v.gpuInterpretBindings, v.site, kb)
                                         : gpuInterpretRunsLaunch(ctx, v.doc, v.launch, kb));
  std::optional<SourceLocation> written;
  if (!hits.empty())
    written = interpretArgumentOf(ctx.workspace, v.doc, v.site.location);
  for (const Hit& h : hits) {
#if PALLAS_LSP_MUTANT == 3 // mutant (test/mutation): findings in a helper file are dropped
    if (detail::sourceLocation(h.binding->site->getLoc()).path != v.doc)
      continue;
#endif
    out.push_back(makeFinding(*h.binding, h.failure, pc, v.site, v.global, written, v.walk, kb,
                              &h == first && !pc.may, v.run.via));
    out.back().gpuInterpretRunsLaunch = gpuRuns;
  }
}

void runDischarge(detail::PassContext& ctx) {
  auto kb = knowledgeFor(ctx.options);
  if (!kb || !ctx.module)
    return;
  checkDocumentAndCallers(ctx, [&](const std::string& doc, mlir::ModuleOp module, CallIndex& calls,
                                   std::vector<Finding>& out) {
    // Each launch's findings are kept across edits (LaunchCache.h): the
    // walks of launches whose code and plan did not change are not run again.
    forEachLaunch(
        ctx, doc, module, *kb, calls,
        [&](mlir::Operation* launch, uint64_t planKey,
            const std::function<void(const RunVisitor&)>& walkRuns) {
          std::vector<Finding> found = detail::perLaunch<std::vector<Finding>>(
              ctx, launch, detail::LaunchCache::Kind::PathFindings, planKey, [&] {
                std::vector<Finding> launchFindings;
                walkRuns([&](const LaunchRunView& v) { analyzeRun(ctx, v, *kb, launchFindings); });
                return launchFindings;
              });
          out.insert(out.end(), std::make_move_iterator(found.begin()),
                     std::make_move_iterator(found.end()));
        });
  });
}

} // namespace

// ---- the pass (Passes.td: pallas-discharge) -----------------------------------
#define GEN_PASS_DECL_PALLASDISCHARGE
#define GEN_PASS_DEF_PALLASDISCHARGE
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasDischarge, runDischarge)
} // namespace pallas::analysis::passes
