// The results of each launch's resource and lowering checks (PLS005-PLS009
// findings, the SMEM budget the hover shows), kept across edits so that an
// edit re-evaluates only the launches whose code it touched.
//
// A result is keyed by what its evaluation can read:
//   * the launch's place (row, column) and the check (kind, `extra`);
//   * the top-level statements of its document that the launch's function
//     reaches by name, transitively (its kernel body, the helpers they call,
//     a factory, a helper whose return value sizes a block): their text and
//     where they start (the findings' positions move with them);
//   * every other top-level statement of the document that is not a def or
//     class (constants, imports), text and position;
//   * the callers the shape evaluator asked for (a parameter's value comes
//     from its call sites), recorded while the result was computed and
//     checked again against the current call graph;
//   * the text of every other document of the workspace, and the options
//     (knowledge table, GPU, limit, assumed path).
// When any of these differs the result is computed again; when the launch's
// place is not found among the document's statements it is never kept.
// One cache per document (Project owns them; PassContext::launchCache).
#pragma once

#include "SmemIndex.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pallas::analysis::detail {

// What the launch passes look for in a whole module: one walk finds it
// (each pass walked a 50k-line module again on every keystroke).
struct ModuleScan {
  std::vector<dialect::LaunchOp> launches; // every launch, in module.walk's order
  bool pipeline = false;                   // a plgpu.emit_pipeline-like scope anywhere
};
ModuleScan scanModule(mlir::ModuleOp module);

class LaunchCache {
public:
  // What is kept per launch (one slot each).
  enum class Kind : unsigned {
    SharedMemoryFindings, // PLS005 (SharedMemory.cpp)
    LaunchConfigFindings, // PLS009 (LaunchConfig.cpp)
    MosaicCandidates,     // PLS006-PLS008 before ordering (MosaicRules.cpp)
    LaunchSmem,           // the budget of the launch matrix / hover
    PathFindings,         // PLS001/PLS002 of every run of the launch (Discharge.cpp)
    InlineMgpuSignatures, // PLS004 per inline_mgpu call it reaches (InlineMgpuSignature.cpp)
  };
  struct Stats {
    uint64_t evaluated = 0; // results computed
    uint64_t reused = 0;    // results taken from the cache
    uint64_t adopted = 0;   // results a Record run computed for the same inputs
  };
  // How a run uses the cache. A Keyed run reads and keeps results under
  // their keys. A Record run (a document's first run, whose diagnostics
  // should not wait for the keys: computing them is a quarter of the
  // passes on a large module) keys nothing: it keeps what it computes by
  // the launch's place only, for the next Keyed run over the very same
  // inputs, which then computes the keys and adopts those results instead
  // of evaluating every launch again.
  enum class Mode { Keyed, Record };

  LaunchCache();
  ~LaunchCache();

  // Around one pass run over `ctx.path` (Project::findings / launchPaths).
  // `otherDocuments`: a fingerprint of every other document's text.
  // `inputs`: identifies everything a run reads (Project's generation and
  // revision); a Record run's results are adopted only under the same.
  void beginRun(const PassContext& ctx, uint64_t otherDocuments, uint64_t inputs,
                Mode mode = Mode::Keyed);
  void endRun();
  bool running() const { return index_ != nullptr; }
  // The run's one view of the workspace, shared by its passes.
  const SmemIndex& index() const { return *index_; }

  // The kept result of `kind` for `launch`, or `compute()`'s (then kept).
  template <typename T>
  T get(dialect::LaunchOp launch, Kind kind, uint64_t extra, llvm::function_ref<T()> compute) {
    Slot* slot = nullptr;
    std::optional<SlotId> place; // a Record run's key
    if (mode_ == Mode::Record) {
      place = placeOf(launch, kind, extra);
    } else {
      slot = lookup(launch, kind, extra);
      if (slot && slot->valid) {
        ++stats_.reused;
        return *std::static_pointer_cast<const T>(slot->payload);
      }
      if (slot && adopt(launch, kind, extra, *slot)) {
        ++stats_.adopted;
        return *std::static_pointer_cast<const T>(slot->payload);
      }
    }
    std::vector<std::pair<std::string, std::string>> queries;
    // Recording stops however compute() ends (a pass that throws is
    // reported and the run goes on).
    struct Recording {
      const SmemIndex& index;
      ~Recording() { index.recordCallerQueries(nullptr); }
    } recording{*index_};
    index_->recordCallerQueries(&queries);
    T out = compute();
    ++stats_.evaluated;
    if (slot)
      keep(*slot, std::move(queries), std::make_shared<const T>(out));
    else if (place)
      record(*place, std::move(queries), std::make_shared<const T>(out));
    return out;
  }

  const Stats& stats() const { return stats_; }
  // scanModule(module), once per run.
  const ModuleScan& scan(mlir::ModuleOp module);
  // Something the passes of one run share, made by the first that asks
  // (the workspace's call index: its build copies every call edge).
  template <typename T>
  T& shared(const std::string& name, llvm::function_ref<std::unique_ptr<T>()> make) {
    std::shared_ptr<void>& slot = shared_[name];
    if (!slot)
      slot = std::shared_ptr<T>(make());
    return *static_cast<T*>(slot.get());
  }

private:
  struct Slot {
    bool valid = false;   // filled, and its key matched in this run
    uint64_t deps = 0;    // the fingerprint of what it read (callers apart)
    uint64_t callers = 0; // of the recorded caller queries' current sites
    std::vector<std::pair<std::string, std::string>> queries;
    std::shared_ptr<const void> payload;
    uint64_t lastRun = 0;
  };
  struct Units;
  // Which slot: the check, the launch's place and api, and the check's own
  // key. Compared whole, so two launches never share a slot by a hash.
  struct SlotId {
    Kind kind{};
    uint32_t line = 0, column = 0;
    uint64_t api = 0, extra = 0;
    bool operator==(const SlotId&) const = default;
  };
  struct SlotIdHash {
    size_t operator()(const SlotId& id) const;
  };
  // The slot for this launch and check, `valid` when its kept result still
  // holds; null when the launch cannot be keyed.
  Slot* lookup(dialect::LaunchOp launch, Kind kind, uint64_t extra);
  // The launch's place in this run (line, column, api; in ctx.path), as
  // far as a Record run keeps it; nullopt when the launch has none there.
  std::optional<SlotId> placeOf(dialect::LaunchOp launch, Kind kind, uint64_t extra);
  // Fills `slot` with what the last Record run computed for this launch
  // and check when it ran over the same inputs; false if it did not.
  bool adopt(dialect::LaunchOp launch, Kind kind, uint64_t extra, Slot& slot);
  void keep(Slot& slot, std::vector<std::pair<std::string, std::string>> queries,
            std::shared_ptr<const void> payload);
  uint64_t callersFingerprint(const std::vector<std::pair<std::string, std::string>>& q);
  uint64_t reachedFrom(size_t unit);

  const PassContext* ctx_ = nullptr;
  std::unique_ptr<SmemIndex> index_;
  std::unique_ptr<Units> units_;
  uint64_t run_ = 0;
  uint64_t runFingerprint_ = 0; // options, other documents, module-level statements
  std::unordered_map<SlotId, Slot, SlotIdHash> slots_;
  std::unordered_map<mlir::Operation*, ModuleScan> scans_; // this run's
  std::map<std::string, std::shared_ptr<void>> shared_;    // this run's
  // Per launch op in this run: its place and what its statement reaches
  // (asked once per check; the op's location is decoded once).
  struct LaunchKey {
    bool placed = false; // line, column and api are known
    bool keyed = false;  // reached too
    uint32_t line = 0, column = 0;
    uint64_t reached = 0, api = 0;
  };
  LaunchKey& placed(dialect::LaunchOp launch);
  static SlotId slotId(const LaunchKey& key, Kind kind, uint64_t extra);
  Mode mode_ = Mode::Keyed;
  // A Record run's results by slot id, and the inputs they were computed
  // for (kept until a run over other inputs begins).
  struct Recorded {
    std::vector<std::pair<std::string, std::string>> queries;
    std::shared_ptr<const void> payload;
  };
  std::unordered_map<SlotId, Recorded, SlotIdHash> recorded_;
  // Places a Record run computed more than one launch at (the launches a
  // kernel-taking wrapper makes, one per caller, all at its pallas_call):
  // which result belongs to which is unknown, so none is adopted.
  std::unordered_set<SlotId, SlotIdHash> ambiguousPlaces_;
  void record(const SlotId& place, std::vector<std::pair<std::string, std::string>> queries,
              std::shared_ptr<const void> payload);
  uint64_t recordedInputs_ = 0;
  std::unordered_map<mlir::Operation*, LaunchKey> launchKeys_;
  // Identifiers of a statement, by the hash of its text (kept across runs).
  std::unordered_map<uint64_t, std::vector<std::string>> identifiers_;
  Stats stats_;
};

// A launch's result through ctx.launchCache when a Project run set one up,
// else computed directly.
template <typename T>
T perLaunch(const PassContext& ctx, mlir::Operation* op, LaunchCache::Kind kind, uint64_t extra,
            llvm::function_ref<T()> compute) {
  // Results are kept for the kernel walk's launches (pallas.launch ops);
  // the evaluator's are computed each run.
  auto launch = llvm::dyn_cast_or_null<dialect::LaunchOp>(op);
  if (!launch || !ctx.launchCache || !ctx.launchCache->running())
    return compute();
  return ctx.launchCache->get<T>(launch, kind, extra, compute);
}

// The module's scan: the run's (made once) when a Project run set a cache up.
ModuleScan moduleScan(const PassContext& ctx, mlir::ModuleOp module);

// The run's index: the cache's when there is one, else `own` (made here).
const SmemIndex& runIndex(const PassContext& ctx, std::unique_ptr<SmemIndex>& own);

} // namespace pallas::analysis::detail
