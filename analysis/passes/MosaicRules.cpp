// The pass of issue 17's Mosaic GPU rules: PLS006 (WgmmaChecks.cpp), PLS007
// (TransformChecks.cpp) and PLS008 (CopyChecks.cpp) for every launch that
// runs compiled. The checks only propose findings; this orders each launch's
// the way JAX meets them (trace, input copies, kernel body, output copies)
// and marks the first as the first error JAX raises for the launch.
#include "CompiledPath.h"
#include "LaunchCache.h"
#include "MosaicLaunch.h"
#include "PassKnowledge.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>
#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

constexpr const char* kFirst = " This is the first error JAX raises for this launch.";

bool sameLocation(const std::optional<SourceLocation>& a, const SourceLocation& b) {
  return a && a->path == b.path && a->range.start == b.range.start;
}

void runMosaicRules(detail::PassContext& ctx) {
  if (!ctx.module)
    return;
  auto kb = knowledgeFor(ctx.options);
  if (!kb || !kb->mosaicGpuRules())
    return; // a table without the rules: nothing is guessed
  std::vector<pd::LaunchOp> launches = mosaic::compiledLaunches(ctx);
  if (launches.empty())
    return;
  std::unique_ptr<detail::SmemIndex> own;
  mosaic::Session session(ctx, detail::runIndex(ctx, own));
  for (pd::LaunchOp launch : launches) {
    // The candidates of one launch, in the order JAX meets them (kept
    // across edits: LaunchCache.h).
    std::vector<mosaic::Candidate> found = detail::perLaunch<std::vector<mosaic::Candidate>>(
        ctx, launch, detail::LaunchCache::Kind::MosaicCandidates, 0, [&] {
          std::vector<mosaic::Candidate> out;
          mosaic::LaunchView v = session.view(launch);
          if (!v.ok)
            return out;
          v.jaxVersion = kb->jaxVersion();
          mosaic::transformChecks(session, v, *kb, out);
          mosaic::copyChecks(session, v, *kb, out);
          mosaic::wgmmaChecks(session, v, *kb, out);
          std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
            return std::tie(a.stage, a.order, a.line, a.column) <
                   std::tie(b.stage, b.order, b.line, b.column);
          });
          return out;
        });
    if (found.empty())
      continue;
    SourceLocation at = detail::sourceLocation(launch.getLoc());
    bool compiledCertain =
        mosaicGpuCompiledPathOf(launch, ctx.options.assumePath) == CompiledPath::Certain;
    // Another pass may already have named the launch's first error.
    std::string label = pathLabel(ExecPath::Compiled);
    bool firstTaken = std::any_of(ctx.findings.begin(), ctx.findings.end(), [&](const Finding& f) {
      return f.executionPath == label && sameLocation(f.launch, at) &&
             f.message.find(kFirst + 1) != std::string::npos;
    });
    std::set<std::pair<std::string, unsigned>> seen; // one finding per code and line
    for (mosaic::Candidate& c : found) {
      if (!seen.insert({c.finding.code, c.line}).second)
        continue;
      if (!firstTaken && compiledCertain && c.finding.severity == Severity::Error) {
        c.finding.message += kFirst;
        firstTaken = true;
      }
      ctx.findings.push_back(std::move(c.finding));
    }
  }
}

} // namespace

// ---- the pass (Passes.td: pallas-mosaic-rules) ------------------------------------
#define GEN_PASS_DECL_PALLASMOSAICRULES
#define GEN_PASS_DEF_PALLASMOSAICRULES
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasMosaicRules, runMosaicRules)
} // namespace pallas::analysis::passes
