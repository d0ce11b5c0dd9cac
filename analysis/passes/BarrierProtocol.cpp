// GPU interpret mode's barrier protocol (docs/analysis.md 8.10, session 14). JAX's GPU
// interpreter models each plgpu.Barrier as a phase counter and checks, as
// the kernel runs, that every completion is observed before the next one,
// that no thread waits for a phase already passed, and that no thread ends
// having observed only some phases. The source decides that for a
// plgpu.kernel whose threads each run a straight-line body (steps under
// `pl.when(thread_id == k)` included): every interleaving of the threads'
// arrivals and waits is explored, and a failure is reported only when every
// one of them raises the same error.
#include "GpuInterpretChecks.h"
#include "KernelWalkInternal.h"
#include "Syntax.h"

#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

using Failure = BarrierProtocolFailure;
bool sameFailure(const Failure& a, const Failure& b) {
  return a.key == b.key && a.holes == b.holes;
}

// The state of the barriers as JAX's interpreter keeps it
// (mosaic_gpu/interpret/shared_memory.py `Barrier`) and where each thread is.
struct Machine {
  std::vector<unsigned> pc;
  std::vector<int> count, phase;
  std::vector<char> observed;
  std::vector<std::vector<int>> nextAwaited; // per barrier, per thread
  std::string key() const {
    std::string k;
    auto put = [&](int v) { k += std::to_string(v) + ","; };
    for (unsigned p : pc)
      put(int(p));
    for (size_t b = 0; b < count.size(); ++b) {
      put(count[b]);
      put(phase[b]);
      put(observed[b]);
      for (int n : nextAwaited[b])
        put(n);
    }
    return k;
  }
};

// Explores every interleaving; nullopt when one ends without an error (or
// blocks forever, or the exploration is too large to finish), else the one
// error they all raise (or nullopt when they differ).
class Explorer {
public:
  Explorer(const std::vector<std::vector<BarrierStep>>& steps, const std::vector<int>& arrivals)
      : steps_(steps), arrivals_(arrivals) {}

  std::optional<Failure> run() {
    Machine m;
    size_t threads = steps_.size(), barriers = arrivals_.size();
    m.pc.assign(threads, 0);
    m.count.assign(barriers, 0);
    m.phase.assign(barriers, 0);
    m.observed.assign(barriers, 1); // the first completion needs no observer
    m.nextAwaited.assign(barriers, std::vector<int>(threads, 1));
    explore(m);
    if (aborted_ || !common_)
      return std::nullopt;
    return common_;
  }

private:
  static constexpr size_t kMaxStates = 20000;

  void fail(const Failure& f) {
    if (!common_ && !aborted_)
      common_ = f;
    else if (common_ && !sameFailure(*common_, f))
      aborted_ = true;
  }

  // At the end, each barrier is deallocated: a thread that observed some
  // but not all of its phases raises.
  void finish(const Machine& m) {
    for (size_t b = 0; b < arrivals_.size(); ++b)
      for (size_t t = 0; t < steps_.size(); ++t) {
        int seen = m.nextAwaited[b][t] - 1;
        if (seen > 0 && seen < m.phase[b]) {
          fail({"gpuInterpretBarrierUnobservedPhases",
                {std::to_string(t), std::to_string(m.phase[b]), std::to_string(seen),
                 seen > 1 ? "phases" : "phase"},
                nullptr});
          return;
        }
      }
    aborted_ = true; // an interleaving that runs to the end
  }

  void explore(const Machine& m) {
    if (aborted_ || !seen_.insert(m.key()).second)
      return;
    if (seen_.size() > kMaxStates) {
      aborted_ = true;
      return;
    }
    bool done = true, moved = false;
    for (size_t t = 0; t < steps_.size() && !aborted_; ++t) {
      if (m.pc[t] >= steps_[t].size())
        continue;
      done = false;
      const BarrierStep& s = steps_[t][m.pc[t]];
      Machine n = m;
      ++n.pc[t];
      unsigned b = s.barrier;
      if (s.arrive) {
        moved = true;
        if (++n.count[b] == arrivals_[b]) {
          if (!n.observed[b]) {
            fail({"gpuInterpretBarrierCompletedAgain", {}, s.op});
            continue;
          }
          ++n.phase[b];
          n.count[b] = 0;
          n.observed[b] = 0;
        }
        explore(n);
        continue;
      }
      int& awaited = n.nextAwaited[b][t];
      if (awaited > n.phase[b])
        continue; // blocked until the barrier completes
      moved = true;
      if (awaited < n.phase[b]) {
        fail({"gpuInterpretBarrierPhasePassed",
              {std::to_string(t), std::to_string(awaited), std::to_string(n.phase[b]),
               std::to_string(t)},
              s.op});
        continue;
      }
      n.observed[b] = 1;
      ++awaited;
      explore(n);
    }
    if (done)
      finish(m);
    else if (!moved)
      aborted_ = true; // every thread left waits forever: JAX hangs, raises nothing
  }

  const std::vector<std::vector<BarrierStep>>& steps_;
  const std::vector<int>& arrivals_;
  std::set<std::string> seen_;
  std::optional<Failure> common_;
  bool aborted_ = false;
};

} // namespace

std::optional<BarrierProtocolFailure>
exploreBarrierProtocol(const std::vector<std::vector<BarrierStep>>& steps,
                       const std::vector<int>& arrivals) {
  return Explorer(steps, arrivals).run();
}

// The integer `v` holds in thread `thread`: a literal, or the thread's index
// (`lax.axis_index(thread_name)`).
std::optional<int64_t> KernelWalk::threadInteger(mlir::Value v, int64_t thread) const {
  mlir::Operation* def = v ? v.getDefiningOp() : nullptr;
  if (auto c = llvm::dyn_cast_or_null<pd::ConstantOp>(def)) {
    int64_t n = 0;
    if (c.getKind() == pd::ConstantKind::Int && !c.getValue().getAsInteger(0, n))
      return n;
    return std::nullopt;
  }
  if (auto g = llvm::dyn_cast_or_null<pd::GlobalOp>(def)) { // a module constant
    llvm::StringRef r = g.getResolved();
    int64_t n = 0;
    if (r.consume_front("const:") && !r.getAsInteger(0, n))
      return n;
    return std::nullopt;
  }
  auto prim = llvm::dyn_cast_or_null<pd::PrimOp>(def);
  if (!prim || !launch_.getThreadName() || prim.getArgs().size() != 1 ||
      (prim.getApi() != "lax.axis_index" && prim.getApi() != "jax.lax.axis_index"))
    return std::nullopt;
  auto name = prim.getArgs()[0].getDefiningOp<pd::ConstantOp>();
  if (!name || name.getKind() != pd::ConstantKind::Str ||
      name.getValue().trim("\"'") != *launch_.getThreadName())
    return std::nullopt;
  return thread;
}

// Whether `pl.when(cond)` runs its body in thread `thread`.
std::optional<bool> KernelWalk::threadCondition(mlir::Value cond, int64_t thread) const {
  auto cmp = cond ? cond.getDefiningOp<pd::OpaqueOp>() : pd::OpaqueOp();
  if (!cmp || cmp.getWhat() != "comparison_operator" || cmp.getArgs().size() != 2)
    return std::nullopt;
  std::optional<int64_t> a = threadInteger(cmp.getArgs()[0], thread);
  std::optional<int64_t> b = threadInteger(cmp.getArgs()[1], thread);
  if (!a || !b)
    return std::nullopt;
  // The operator is read from the source (the op keeps only the operands).
  detail::DocumentSyntax src = ws_.syntaxOf(doc_);
  SourceLocation at = detail::sourceLocation(cmp->getLoc());
  TSPoint point{at.range.start.line, at.range.start.column};
  TSNode n =
      src.doc ? ts_node_named_descendant_for_point_range(src.doc->root(), point, point) : TSNode{};
  while (!syntax::isNull(n) && !syntax::is(n, "comparison_operator"))
    n = ts_node_parent(n);
  std::optional<syntax::Comparison> c =
      syntax::isNull(n) ? std::nullopt : syntax::comparisonOf(*src.doc, n);
  std::string op = c ? c->op : "";
  if (op == "==")
    return *a == *b;
  if (op == "!=")
    return *a != *b;
  if (op == "<")
    return *a < *b;
  if (op == "<=")
    return *a <= *b;
  if (op == ">")
    return *a > *b;
  if (op == ">=")
    return *a >= *b;
  return std::nullopt;
}

// The barrier steps thread `thread` takes through `block`, in order; false
// when the block does something the protocol check cannot follow (a branch
// it cannot decide, a call, a loop, another wait, a barrier used otherwise).
bool KernelWalk::barrierSteps(mlir::Block& block, int64_t thread, bool top,
                              std::map<std::pair<unsigned, int64_t>, unsigned>& ids,
                              std::vector<int>& arrivals, std::vector<BarrierStep>& out) const {
  auto barrierOf = [&](mlir::Value v) -> std::optional<unsigned> {
    int64_t index = 0;
    if (auto at = v.getDefiningOp<pd::PrimOp>();
        at && at.getApi() == apiText(Api::RefAt) && at.getArgs().size() == 2) {
      std::optional<int64_t> i = threadInteger(at.getArgs()[1], thread);
      if (!i)
        return std::nullopt;
      index = *i;
      v = at.getArgs()[0];
    }
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    auto it = arg ? states_.find(arg) : states_.end();
    if (it == states_.end() || !it->second.barrier || it->second.barrierArrivals < 1 ||
        it->second.barrierCount < 1 || index < 0 || index >= it->second.barrierCount)
      return std::nullopt;
    auto [pos, added] = ids.try_emplace({arg.getArgNumber(), index}, unsigned(arrivals.size()));
    if (added)
      arrivals.push_back(it->second.barrierArrivals);
    return pos->second;
  };
  auto usesBarrier = [&](mlir::Operation& op) {
    return llvm::any_of(op.getOperands(), [&](mlir::Value v) {
      mlir::Value arg = blockArgOf(detail::traceRef(v));
      auto it = arg ? states_.find(arg) : states_.end();
      return it != states_.end() && it->second.barrier;
    });
  };
  for (mlir::Operation& op : block) {
    if (llvm::isa<pd::ReturnOp>(op))
      return top && &op == &block.back();
    if (auto scope = llvm::dyn_cast<pd::ScopeOp>(op)) {
      if (scope.getApi() != "pl.when" || scope.getArgs().size() != 1 || scope.getBody().empty())
        return false;
      std::optional<bool> runs = threadCondition(scope.getArgs()[0], thread);
      if (!runs)
        return false;
      if (*runs && !barrierSteps(scope.getBody().front(), thread, false, ids, arrivals, out))
        return false;
      continue;
    }
    if (llvm::isa<pd::IfOp, pd::CallOp, pd::CallIndirectOp, pd::InlineMgpuOp, pd::ClosureOp,
                  pd::LaunchOp>(op))
      return false;
    auto prim = llvm::dyn_cast<pd::PrimOp>(op);
    if (!prim)
      continue;
    llvm::StringRef api = prim.getApi();
    bool arrive = api == "plgpu.barrier_arrive";
    if ((arrive || api == "plgpu.barrier_wait") && prim.getArgs().size() == 1) {
      std::optional<unsigned> id = barrierOf(prim.getArgs()[0]);
      if (!id)
        return false;
      out.push_back({arrive, *id, prim});
      continue;
    }
    if (api == apiText(Api::RefAt))
      continue; // a view, used by the steps above
    if (api.contains("wait") || usesBarrier(op))
      return false;
  }
  return true;
}

// See the file comment. Reported at the launch's run (a host callback
// raises), naming the step that raises or the barrier's first use.
void KernelWalk::recordGpuInterpretBarrierProtocol(mlir::Block& body) {
  if (path_ != ExecPath::InterpretGpu || launch_.getApi() != apiText(Api::GpuKernel))
    return;
  for (const char* key : {"gpuInterpretBarrierCompletedAgain", "gpuInterpretBarrierPhasePassed",
                          "gpuInterpretBarrierUnobservedPhases"})
    if (!kb_.errorTemplate(key))
      return; // another interpreter: its protocol is not this one
  const knowledge::PrimitiveFacts* p = kb_.primitive("barrier_arrive");
  int64_t threads = launch_.getNumThreads() ? *launch_.getNumThreads() : 1;
  if (!p || threads < 1 || threads > 32)
    return;
  std::map<std::pair<unsigned, int64_t>, unsigned> ids;
  std::vector<int> arrivals;
  std::vector<std::vector<BarrierStep>> steps(threads);
  for (int64_t t = 0; t < threads; ++t)
    if (!barrierSteps(body, t, true, ids, arrivals, steps[t]))
      return;
  if (arrivals.empty())
    return;
  mlir::Operation* firstUse = nullptr;
  for (const auto& thread : steps)
    if (!firstUse && !thread.empty())
      firstUse = thread.front().op;
  std::optional<Failure> f = exploreBarrierProtocol(steps, arrivals);
  if (!f)
    return;
  BoundPrimitive b =
      ruleBindingOf("plgpu.barrier_arrive", p, runSite(), {}, "gpu_barrier_protocol", f->key);
  b.messageHoles = f->holes;
  b.causeAt = placeOf(f->at ? f->at : firstUse);
  record(std::move(b));
}

} // namespace pallas::analysis::passes
