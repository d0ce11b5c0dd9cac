// PLS009: launch configurations JAX rejects while tracing, whatever the path.
//   * plgpu.kernel builds a plgpu.Mesh (jax/_src/pallas/mosaic_gpu/core.py,
//     Mesh.__post_init__): cluster at most 3D, grid_names / cluster_names as
//     long as grid / cluster, num_threads and thread_name both set or both
//     None, num_threads at most 2048 // 128 warpgroups;
//   * plgpu.emit_pipeline (pipeline.py): every grid element strictly
//     positive, max_concurrent_steps greater than every delay_release.
// Each raises ValueError at the call, before anything is lowered.
#include "CompiledPath.h"
#include "KernelWalk.h"
#include "LaunchCache.h"
#include "SmemBudget.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/Rules.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/PallasPass.h"

#include <map>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;
using detail::PassContext;
using shape::Value;

namespace {

std::string launchPathLabel(pd::LaunchOp launch) {
  std::string only;
  unsigned n = 0;
  for (mlir::Attribute a : launch.getPaths())
    if (llvm::StringRef name = pd::enumName(a); !name.empty()) {
      ++n;
      only = name.str();
    }
  if (n == 1 && only == pd::path::kCompiled)
    return pathLabel(ExecPath::Compiled);
  if (n == 1 && only == pd::path::kInterpretHlo)
    return pathLabel(ExecPath::InterpretHlo);
  if (n == 1 && only == pd::path::kInterpretGpu)
    return pathLabel(ExecPath::InterpretGpu);
  return pathLabel(ExecPath::Compiled);
}

// Mesh.__post_init__'s checks on plgpu.kernel's keyword arguments, in its
// order; the first that fails, "" when none certainly does.
std::string meshError(const PassContext& ctx, pd::LaunchOp launch, const detail::SmemRules& rules,
                      const detail::SmemIndex& index) {
  if (launch.getApi() != apiText(Api::GpuKernel) || launch->hasAttr("pallas.wrapper_takes_kernel"))
    return {};
  auto s = ctx.workspace.syntaxOf(ctx.path);
  if (!s.doc)
    return {};
  detail::LineCol lc = detail::lineCol(launch->getLoc());
  if (!lc.line)
    return {};
  shape::Evaluator& eval = index.evaluator();
  auto call = eval.callAt(ctx.path, lc.line - 1, lc.column ? lc.column - 1 : 0);
  if (!call)
    return {};
  shape::Scope scope = eval.scopeAt(ctx.path, *call);
  auto args = shape::Evaluator::argsOf(*call, *s.doc);
  if (args.splat)
    return {};
  auto kw = [&](const char* k) -> Value {
    TSNode n = args.get(SIZE_MAX, k);
    if (syntax::isNull(n)) {
      Value none;
      none.kind = Value::Kind::None;
      return none;
    }
    return eval.eval(n, scope);
  };
  auto len = [](const Value& v) -> int64_t {
    if (v.kind == Value::Kind::None)
      return 0;
    return v.kind == Value::Kind::Seq ? static_cast<int64_t>(v.items.size()) : -1;
  };
  Value grid = kw("grid"), gridNames = kw("grid_names"), cluster = kw("cluster"),
        clusterNames = kw("cluster_names"), numThreads = kw("num_threads"),
        threadName = kw("thread_name");
  if (len(cluster) > 3)
    return "cluster= must be at most 3D, got <mesh>.";
  if (len(grid) >= 0 && len(gridNames) >= 0 && len(grid) != len(gridNames))
    return "grid_names must have the same length as grid, got <mesh>.";
  if (len(cluster) >= 0 && len(clusterNames) >= 0 && len(cluster) != len(clusterNames))
    return "cluster_names must have the same length as cluster, got <mesh>.";
  bool threadsKnown = numThreads.kind == Value::Kind::None || numThreads.isInt();
  bool nameKnown = threadName.kind == Value::Kind::None || threadName.kind == Value::Kind::Str;
  if (threadsKnown && nameKnown &&
      (numThreads.kind == Value::Kind::None) != (threadName.kind == Value::Kind::None))
    return "num_threads and thread_name must be either both set or both None, got <mesh>";
  if (numThreads.isInt() && numThreads.i > rules.maxThreads)
    return "Requested too many CUDA threads per block. Each Mosaic thread corresponds to 128 "
           "CUDA threads. At most " +
           std::to_string(rules.maxThreads) + " are supported, got <mesh>";
  return {};
}

Finding emit(const detail::SmemRules& rules, pd::LaunchOp launch, const SourceLocation& at,
             const std::string& firstLine, const std::string& what, const std::string& advice) {
  Finding f;
  f.code = ruleCode(RuleId::LaunchConfigurationRejected);
  f.severity = Severity::Error;
  f.location = at;
  f.subject = what;
  f.executionPath = launchPathLabel(launch);
  f.launch = detail::sourceLocation(launch.getLoc());
  f.jaxVersion = rules.jaxVersion;
  f.jaxException = "ValueError";
  f.jaxErrorFirstLine = firstLine;
  f.message = what + ": JAX " + rules.jaxVersion + " will raise ValueError: " + firstLine +
              " It is raised while the kernel is traced, on every path. This is the first error "
              "JAX raises for this launch. " +
              advice;
  if (!(at.range.start == f.launch->range.start))
    f.related.push_back({*f.launch, "the launch"});
  return f;
}

// The PLS009 finding of one launch: its Mesh, then (when `pipelines`, a
// pipeline in its module or its body's) the pipelines' configuration.
std::vector<Finding> configuration(const PassContext& ctx, pd::LaunchOp launch,
                                   const detail::SmemRules& rules, const detail::SmemIndex& index,
                                   bool pipelines) {
  if (std::string e = meshError(ctx, launch, rules, index); !e.empty())
    return {emit(rules, launch, detail::sourceLocation(launch.getLoc()), e, "launch configuration",
                 "plgpu.kernel runs num_threads warpgroups of 128 CUDA threads each (at most " +
                     std::to_string(rules.maxThreads) +
                     "); give num_threads and thread_name together, and one name per "
                     "grid/cluster axis.")}; // nothing after the Mesh is traced
  if (!pipelines)
    return {};
  detail::SmemBudget b = detail::smemBudget(ctx, launch, rules, &index);
  if (b.issues.empty())
    return {};
  return {emit(rules, launch, b.issues.front().at, b.issues.front().firstLine,
               "pipeline configuration",
               "Give plgpu.emit_pipeline a grid of positive sizes and a max_concurrent_steps above "
               "every delay_release.")};
}

void runLaunchConfig(PassContext& ctx) {
  if (!ctx.module)
    return;
  std::map<mlir::Operation*, bool> pipelines; // per module, in this run
  auto hasPipeline = [&](mlir::ModuleOp m) {
    auto [it, fresh] = pipelines.try_emplace(m.getOperation(), false);
    if (fresh)
      it->second = detail::moduleScan(ctx, m).pipeline;
    return it->second;
  };
  std::vector<pd::LaunchOp> launches;
  for (pd::LaunchOp l : detail::moduleScan(ctx, ctx.module).launches)
    // Raised while tracing, on every path: only another backend is exempt.
    if (launchTargetOf(l) != LaunchTarget::OtherBackend && isStaticallyReachable(l))
      launches.push_back(l);
  const detail::SmemRules rules = detail::smemRulesFor(ctx.options);
  std::unique_ptr<detail::SmemIndex> own;
  const detail::SmemIndex& index = detail::runIndex(ctx, own);
  for (pd::LaunchOp launch : launches) {
    // The pipeline checks need the budget walk; only where a pipeline exists
    // (this module or the kernel body's), since it costs an evaluation of
    // the whole launch.
    detail::FunctionRef body = ctx.workspace.resolveLaunchBody(ctx.path, launch);
    mlir::ModuleOp bodyModule = body ? ctx.workspace.module(body.path) : ctx.module;
    bool anyPipeline = hasPipeline(ctx.module) || (bodyModule && hasPipeline(bodyModule));
    std::vector<Finding> found = detail::perLaunch<std::vector<Finding>>(
        ctx, launch, detail::LaunchCache::Kind::LaunchConfigFindings, anyPipeline,
        [&] { return configuration(ctx, launch, rules, index, anyPipeline); });
    for (Finding& f : found)
      ctx.findings.push_back(std::move(f));
  }
}

} // namespace

// ---- the pass (Passes.td: pallas-launch-config) ----------------------------------
#define GEN_PASS_DECL_PALLASLAUNCHCONFIG
#define GEN_PASS_DEF_PALLASLAUNCHCONFIG
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasLaunchConfig, runLaunchConfig)
} // namespace pallas::analysis::passes
