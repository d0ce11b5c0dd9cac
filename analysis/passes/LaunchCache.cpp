// Per-launch results kept across edits (LaunchCache.h).
#include "LaunchCache.h"

#include "Syntax.h"
#include "pallas/analysis/detail/Apis.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace pallas::analysis::detail {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  // boost::hash_combine's recipe, widened to 64 bits.
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4));
}
uint64_t hashOf(std::string_view s) {
  return llvm::xxh3_64bits(llvm::StringRef(s.data(), s.size()));
}

// A top-level def/class: its name; "" for any other statement.
std::string defName(TSNode n, const syntax::ParsedSource& doc) {
  if (syntax::is(n, "decorated_definition"))
    n = syntax::field(n, "definition");
  if (!syntax::is(n, "function_definition") && !syntax::is(n, "class_definition"))
    return {};
  TSNode name = syntax::field(n, "name");
  return syntax::isNull(name) ? std::string() : std::string(doc.textOf(name));
}

// The names a top-level assignment binds (`KERNEL = kernel_0`,
// `k = functools.partial(...)`): a launch that names one reaches what its
// value names, as it reaches a def by its name.
std::vector<std::string_view> assignedNames(TSNode n, const syntax::ParsedSource& doc) {
  std::vector<std::string_view> out;
  if (!syntax::is(n, "expression_statement"))
    return out;
  for (TSNode c : syntax::namedChildren(n)) {
    // a = b = value: the targets chain through `right`.
    while (syntax::is(c, "assignment") || syntax::is(c, "augmented_assignment")) {
      if (TSNode left = syntax::field(c, "left"); !syntax::isNull(left))
        syntax::forEachNode(left, [&](TSNode id) {
          if (syntax::is(id, "identifier"))
            out.push_back(doc.textOf(id));
        });
      c = syntax::field(c, "right");
      if (syntax::isNull(c))
        break;
    }
  }
  return out;
}

} // namespace

// The document's top-level statements in this run.
struct LaunchCache::Units {
  struct Unit {
    uint32_t startRow = 0, endRow = 0, startColumn = 0;
    uint64_t hash = 0; // of the text, mixed with where it starts
    std::string name;  // def/class name, "" for other statements
    TSNode node{};
  };
  const syntax::ParsedSource* doc = nullptr;
  std::vector<Unit> units; // in source order
  // The units defining each name (a hash map: this is looked up for every
  // identifier of every reached statement, per launch and run).
  std::unordered_map<std::string_view, std::vector<size_t>> byName;
  uint64_t moduleLevel = 0;                     // every statement that is not a def or class
  std::unordered_map<size_t, uint64_t> reached; // reachedFrom's answers in this run
  // reachedFrom's visited marks: stamp[i] == epoch when unit i is reached in
  // the current call. Kept for the run, so a call costs what it reaches,
  // not the document's size (a fresh vector per launch made a run over
  // 1,600 launches in 5,000 statements quadratic).
  std::vector<uint64_t> stamp;
  uint64_t epoch = 0;

  // The statement that holds `row` (0-based), or npos.
  size_t at(uint32_t row) const {
    auto it = std::upper_bound(units.begin(), units.end(), row,
                               [](uint32_t r, const Unit& u) { return r < u.startRow; });
    if (it == units.begin())
      return std::string::npos;
    --it;
    return row <= it->endRow ? static_cast<size_t>(it - units.begin()) : std::string::npos;
  }
};

LaunchCache::LaunchCache() = default;
LaunchCache::~LaunchCache() = default;

void LaunchCache::beginRun(const PassContext& ctx, uint64_t otherDocuments, uint64_t inputs,
                           Mode mode) {
  ctx_ = &ctx;
  ++run_;
  mode_ = mode;
  // A Record run starts afresh; results recorded for other inputs are
  // never adopted.
  if (mode == Mode::Record || inputs != recordedInputs_) {
    recorded_.clear();
    ambiguousPlaces_.clear();
  }
  recordedInputs_ = inputs;
  index_ = std::make_unique<SmemIndex>(ctx);
  // The statements and names keys are made of: a Record run makes no key
  // (only a launch's place), so it skips them.
  if (mode == Mode::Record)
    return;
  units_ = std::make_unique<Units>();
  uint64_t fp = mix(otherDocuments, hashOf(ctx.path));
  fp = mix(fp, hashOf(ctx.options.knowledgePath));
  fp = mix(fp, hashOf(ctx.options.gpuComputeCapability));
  fp = mix(fp, static_cast<uint64_t>(ctx.options.gpuSharedMemoryPerBlockOptin));
  fp = mix(fp, hashOf(ctx.options.assumePath));
  DocumentSyntax s = ctx.workspace.syntaxOf(ctx.path);
  units_->doc = s.doc;
  if (s.doc) {
    // Through a cursor: ts_node_named_child(root, k) walks from the first
    // child each time (quadratic in a module of 5,000 statements).
    for (TSNode n : syntax::namedChildren(s.doc->root())) {
      Units::Unit u;
      TSPoint start = ts_node_start_point(n), end = ts_node_end_point(n);
      u.startRow = start.row;
      u.startColumn = start.column;
      u.endRow = end.row;
      u.hash = mix(mix(hashOf(s.doc->textOf(n)), start.row), start.column);
      u.name = defName(n, *s.doc);
      u.node = n;
      if (u.name.empty())
        units_->moduleLevel = mix(units_->moduleLevel, u.hash);
      units_->units.push_back(std::move(u));
    }
    // Views of the names, once the units no longer move.
    for (size_t i = 0; i < units_->units.size(); ++i) {
      const Units::Unit& u = units_->units[i];
      if (!u.name.empty())
        units_->byName[u.name].push_back(i);
      else
        for (std::string_view name : assignedNames(u.node, *s.doc))
          units_->byName[name].push_back(i);
    }
  }
  runFingerprint_ = mix(fp, units_->moduleLevel);
}

ModuleScan scanModule(mlir::ModuleOp module) {
  ModuleScan out;
  if (!module)
    return out;
  module.walk([&](mlir::Operation* op) {
    if (auto launch = llvm::dyn_cast<dialect::LaunchOp>(op))
      out.launches.push_back(launch);
    else if (auto scope = llvm::dyn_cast<dialect::ScopeOp>(op);
             scope && isPipelineApi(scope.getApi()))
      out.pipeline = true;
  });
  return out;
}

const ModuleScan& LaunchCache::scan(mlir::ModuleOp module) {
  auto [it, fresh] = scans_.try_emplace(module.getOperation());
  if (fresh)
    it->second = scanModule(module);
  return it->second;
}

ModuleScan moduleScan(const PassContext& ctx, mlir::ModuleOp module) {
  if (ctx.launchCache && ctx.launchCache->running() && module)
    return ctx.launchCache->scan(module);
  return scanModule(module);
}

void LaunchCache::endRun() {
  scans_.clear();
  shared_.clear();
  launchKeys_.clear();
  index_.reset();
  units_.reset();
  ctx_ = nullptr;
  // Forget launches no run has asked for lately (deleted or moved).
  for (auto it = slots_.begin(); it != slots_.end();)
    it = it->second.lastRun + 16 < run_ ? slots_.erase(it) : std::next(it);
  if (identifiers_.size() > 4 * (slots_.size() + 64))
    identifiers_.clear();
}

// The statements `first` reaches by name, transitively (itself included):
// the hash of their texts and places.
uint64_t LaunchCache::reachedFrom(size_t first) {
  if (auto it = units_->reached.find(first); it != units_->reached.end())
    return it->second;
  std::vector<uint64_t>& stamp = units_->stamp;
  if (stamp.size() != units_->units.size())
    stamp.assign(units_->units.size(), 0);
  const uint64_t epoch = ++units_->epoch;
  std::vector<size_t> reached{first};
  std::vector<size_t> work{first};
  stamp[first] = epoch;
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    const Units::Unit& u = units_->units[i];
    auto [ids, added] = identifiers_.try_emplace(u.hash);
    if (added) {
      // One cursor walk over the statement (no lookups from the root).
      std::set<std::string_view> seen;
      syntax::forEachNode(u.node, [&](TSNode n) {
        if (syntax::is(n, "identifier"))
          if (std::string_view t = units_->doc->textOf(n); seen.insert(t).second)
            ids->second.emplace_back(t);
      });
    }
    for (const std::string& id : ids->second) {
      auto named = units_->byName.find(id);
      if (named == units_->byName.end())
        continue;
      for (size_t j : named->second)
        if (stamp[j] != epoch) {
          stamp[j] = epoch;
          reached.push_back(j);
          work.push_back(j);
        }
    }
  }
  // In source order, as the key always was.
  std::sort(reached.begin(), reached.end());
  uint64_t h = 0;
  for (size_t i : reached)
    h = mix(h, units_->units[i].hash);
  units_->reached[first] = h;
  return h;
}

LaunchCache::LaunchKey& LaunchCache::placed(dialect::LaunchOp launch) {
  auto [known, fresh] = launchKeys_.try_emplace(launch.getOperation());
  LaunchKey& key = known->second;
  if (fresh) {
    LineCol lc = lineCol(launch->getLoc());
    if (lc.line && lc.file == ctx_->path)
      key = {true, false, lc.line, lc.column, 0, hashOf(launch.getApi())};
  }
  return key;
}

LaunchCache::SlotId LaunchCache::slotId(const LaunchKey& key, Kind kind, uint64_t extra) {
  return SlotId{kind, key.line, key.column, key.api, extra};
}

size_t LaunchCache::SlotIdHash::operator()(const SlotId& id) const {
  // The fields are small integers next to 64-bit hashes: hash their bytes
  // (mix() of small integers collided, and one launch was handed another
  // launch's result).
  const uint64_t words[] = {static_cast<uint64_t>(id.kind), id.line, id.column, id.api, id.extra};
  return llvm::xxh3_64bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(words), sizeof(words)));
}

std::optional<LaunchCache::SlotId> LaunchCache::placeOf(dialect::LaunchOp launch, Kind kind,
                                                        uint64_t extra) {
  const LaunchKey& key = placed(launch);
  if (!key.placed)
    return std::nullopt;
  return slotId(key, kind, extra);
}

void LaunchCache::record(const SlotId& place,
                         std::vector<std::pair<std::string, std::string>> queries,
                         std::shared_ptr<const void> payload) {
  if (ambiguousPlaces_.count(place))
    return;
  auto [it, fresh] = recorded_.try_emplace(place);
  if (!fresh) {
    recorded_.erase(it);
    ambiguousPlaces_.insert(place);
    return;
  }
  it->second = {std::move(queries), std::move(payload)};
}

bool LaunchCache::adopt(dialect::LaunchOp launch, Kind kind, uint64_t extra, Slot& slot) {
  if (recorded_.empty())
    return false;
  auto it = recorded_.find(slotId(placed(launch), kind, extra));
  if (it == recorded_.end())
    return false;
  Recorded r = std::move(it->second);
  recorded_.erase(it);
  keep(slot, std::move(r.queries), std::move(r.payload));
  return true;
}

LaunchCache::Slot* LaunchCache::lookup(dialect::LaunchOp launch, Kind kind, uint64_t extra) {
  if (!units_ || !units_->doc)
    return nullptr;
  LaunchKey& key = placed(launch);
  if (!key.placed)
    return nullptr;
  if (!key.keyed) {
    size_t first = units_->at(key.line - 1);
    if (first == std::string::npos)
      return nullptr;
    key.reached = reachedFrom(first);
    key.keyed = true;
  }
  uint64_t deps = mix(mix(runFingerprint_, static_cast<uint64_t>(kind)), extra);
  deps = mix(deps, key.reached);
  Slot& slot = slots_[slotId(key, kind, extra)];
  slot.lastRun = run_;
  slot.valid =
      slot.payload && slot.deps == deps && slot.callers == callersFingerprint(slot.queries);
  if (!slot.valid)
    slot.deps = deps;
  return &slot;
}

void LaunchCache::keep(Slot& slot, std::vector<std::pair<std::string, std::string>> queries,
                       std::shared_ptr<const void> payload) {
  std::sort(queries.begin(), queries.end());
  queries.erase(std::unique(queries.begin(), queries.end()), queries.end());
  slot.callers = callersFingerprint(queries);
  slot.queries = std::move(queries);
  slot.payload = std::move(payload);
  slot.valid = true;
}

// The call sites the recorded queries find now: where they are, and in this
// document the statement around each one with what it reaches (other
// documents are in the run's fingerprint).
uint64_t
LaunchCache::callersFingerprint(const std::vector<std::pair<std::string, std::string>>& queries) {
  uint64_t h = queries.size();
  for (const auto& [path, symbol] : queries) {
    h = mix(mix(h, hashOf(path)), hashOf(symbol));
    for (const shape::SourceIndex::CallSite& site : index_->callSites(path, symbol)) {
      h = mix(mix(mix(h, hashOf(site.path)), site.row), site.column);
      if (site.path == ctx_->path) {
        // The caller's statement and what it reaches (its arguments are
        // evaluated there).
        size_t u = units_->at(site.row);
        h = mix(h, u == std::string::npos ? 0 : reachedFrom(u));
      }
    }
  }
  return h;
}

const SmemIndex& runIndex(const PassContext& ctx, std::unique_ptr<SmemIndex>& own) {
  if (ctx.launchCache && ctx.launchCache->running())
    return ctx.launchCache->index();
  if (!own)
    own = std::make_unique<SmemIndex>(ctx);
  return *own;
}

} // namespace pallas::analysis::detail
