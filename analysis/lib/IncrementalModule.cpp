// Keeping a document's MLIR module current (docs/architecture.md): on every
// update the document's units are enumerated again; a unit whose text,
// column and looked-up names are unchanged keeps its pallas.func (moved when
// lines moved above it), the others are lowered again, on two threads when
// there are many.
#include "ProjectImpl.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <unordered_map>

namespace pallas::analysis {

namespace pd = pallas::dialect;

namespace {

double millisSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Locations of a reused unit move with it when lines are inserted above.
mlir::Location shiftLoc(mlir::Location loc, int delta) {
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return mlir::FileLineColLoc::get(f.getFilename(),
                                     static_cast<unsigned>(static_cast<int>(f.getLine()) + delta),
                                     f.getColumn());
  if (auto c = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return mlir::CallSiteLoc::get(shiftLoc(c.getCallee(), delta), shiftLoc(c.getCaller(), delta));
  return loc;
}

void shiftLocations(mlir::Operation* root, int delta) {
  root->walk([&](mlir::Operation* op) {
    op->setLoc(shiftLoc(op->getLoc(), delta));
    for (mlir::Region& r : op->getRegions())
      for (mlir::Block& b : r)
        for (mlir::BlockArgument a : b.getArguments())
          a.setLoc(shiftLoc(a.getLoc(), delta));
    if (auto launch = llvm::dyn_cast<pd::LaunchOp>(op))
      if (auto line = launch.getContextLineAttr())
        launch.setContextLineAttr(mlir::IntegerAttr::get(line.getType(), line.getInt() + delta));
  });
}

// Typing inside a function body changes no unit header: the module-level
// names (and so every unit's lookups) stay as they are. Otherwise they must
// be bound again, and each reused unit's lookups checked against them.
bool namesMustBeRebound(const DocState& d, const std::vector<lower::Unit>& units,
                        bool namesMayChange) {
  if (namesMayChange || !d.module || units.size() != d.units.size())
    return true;
  std::vector<uint64_t> before, after;
  for (const UnitState& u : d.units)
    before.push_back(u.headerHash);
  for (const lower::Unit& u : units)
    after.push_back(u.headerHash);
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  return before != after;
}

// Each unit's symbol: the last definition of a name keeps it (Python
// rebinding), earlier ones get "$k"; other statements are "__module__.N".
std::vector<std::string> unitSymbols(const std::vector<lower::Unit>& units) {
  llvm::StringMap<unsigned> remaining(static_cast<unsigned>(units.size()));
  for (const auto& u : units)
    if (u.kind != "module")
      ++remaining[u.name];
  unsigned moduleIndex = 0;
  std::vector<std::string> symbols;
  symbols.reserve(units.size());
  for (const lower::Unit& u : units) {
    if (u.kind == "module") {
      symbols.push_back("__module__." + std::to_string(moduleIndex++));
    } else {
      unsigned left = --remaining[u.name];
      symbols.push_back(left == 0 ? u.name : u.name + "$" + std::to_string(left));
    }
  }
  return symbols;
}

// The units of the previous update, by content hash, each reusable once.
class ReusableUnits {
public:
  ReusableUnits(DocState& d, bool rebound) : d_(d), rebound_(rebound), used_(d.units.size()) {
    // A hash table: an edit looks up every unit of the file, so this is on
    // the keystroke path.
    byHash_.reserve(d.units.size());
    for (size_t i = 0; i < d.units.size(); ++i)
      byHash_[d.units[i].hash].push_back(i);
  }

  // Move an old unit with the same text, kind, column and still-valid
  // lookups into `s` (its op detached from the module); false when none.
  bool take(const lower::Unit& u, UnitState& s) {
    auto candidates = u.hasError ? byHash_.end() : byHash_.find(u.textHash);
    if (candidates == byHash_.end())
      return false;
    // Skip the used ones at the front once: a file of 70,000 identical
    // statements made every edit scan them all for each (quadratic).
    size_t& from = firstUnused_[u.textHash];
    while (from < candidates->second.size() && used_[candidates->second[from]])
      ++from;
    for (size_t index : llvm::ArrayRef<size_t>(candidates->second).drop_front(from)) {
      UnitState& old = d_.units[index];
      if (used_[index] || old.kind != u.kind || old.startColumn != u.startColumn || !old.op)
        continue;
      if (rebound_ && !lookupsStillValid(old))
        continue;
      if (!old.deps.instances.empty() && old.deps.instances != currentInstances())
        continue;
      used_[index] = true;
      s.op = old.op;
      s.deps = std::move(old.deps);
      old.op = nullptr;
      if (old.startRow != u.startRow)
        shiftLocations(s.op, static_cast<int>(u.startRow) - static_cast<int>(old.startRow));
      s.op->remove();
      return true;
    }
    return false;
  }

private:
  const std::string& currentInstances() {
    if (!instances_)
      instances_ = names::instancesFingerprint(d_.doc);
    return *instances_;
  }

  bool lookupsStillValid(const UnitState& old) {
    for (const auto& [key, fp] : old.deps.lookups) {
      auto cached = fingerprints_.find(key);
      if (cached == fingerprints_.end())
        cached = fingerprints_.emplace(key, lower::lookupFingerprint(key, d_.globals)).first;
      if (cached->second != fp)
        return false;
    }
    return true;
  }

  DocState& d_;
  bool rebound_;
  llvm::DenseMap<uint64_t, llvm::SmallVector<size_t, 1>> byHash_;
  std::vector<bool> used_;
  llvm::DenseMap<uint64_t, size_t> firstUnused_; // per hash: candidates before it are used
  // What each looked-up name resolves to now, computed once per update.
  std::unordered_map<std::string, std::string> fingerprints_;
  std::optional<std::string> instances_;
};

// The first place the document nests deeper than the analysis follows: in
// the parse (tree-sitter's own limit) or in a unit's lowering.
std::optional<SourcePos> tooDeepIn(const DocState& d) {
  std::optional<SourcePos> at;
  if (auto cut = d.doc.tooDeepAt())
    at = SourcePos{cut->row, cut->column};
  for (const UnitState& s : d.units)
    if (s.deps.tooDeep && (!at || *s.deps.tooDeep < *at))
      at = s.deps.tooDeep;
  return at;
}

// The backends the file imports (pallas.imported_backends): the resource and
// lowering checks use it for launches whose own arguments name no backend.
void setImportedBackends(mlir::ModuleOp module, const names::Globals& globals) {
  mlir::Builder b(module.getContext());
  llvm::SmallVector<mlir::Attribute> names;
  for (const std::string& backend : globals.importedBackends())
    names.push_back(b.getStringAttr(backend));
  if (names.empty()) // most files: keep their printed module as it was
    module->removeAttr(pd::kImportedBackendsAttr);
  else
    module->setAttr(pd::kImportedBackendsAttr, b.getArrayAttr(names));
}

} // namespace

// Bring `d`'s module up to date: reparse (when asked), rebind the module's
// names, then lower again only the units whose text or looked-up names
// changed; reuse the rest (moving their locations when lines moved).
UpdateStats Project::Impl::update(DocState& d, bool reparse, bool namesMayChange) {
  UpdateStats stats;
  auto t0 = std::chrono::steady_clock::now();
  if (reparse)
    d.doc.reparse();
  stats.parseMillis = millisSince(t0);
  auto t1 = std::chrono::steady_clock::now();
  std::vector<lower::Unit> units = lower::enumerateUnits(d.doc);

  bool rebind = namesMustBeRebound(d, units, namesMayChange);
  if (rebind) {
    bindGlobals(d, 0);
    d.depGenerations = currentDepGenerations(d);
  }

  bool newModule = !d.module;
  if (newModule) {
    mlir::OpBuilder b(context.get());
    d.module = mlir::ModuleOp::create(mlir::FileLineColLoc::get(context.get(), d.path, 1, 1));
    (*d.module)->setAttr("pallas.path", b.getStringAttr(d.path));
  }
  mlir::ModuleOp module = *d.module;
  if (rebind || newModule)
    setImportedBackends(module, d.globals);

  std::vector<std::string> symbols = unitSymbols(units);
  ReusableUnits reusable(d, rebind);
  std::vector<UnitState> next;
  next.reserve(units.size());
  for (const lower::Unit& u : units) {
    UnitState s;
    s.hash = u.textHash;
    s.headerHash = u.headerHash;
    s.kind = u.kind;
    s.startRow = u.startRow;
    s.startColumn = u.startColumn;
    reusable.take(u, s);
    next.push_back(std::move(s));
  }
  // Lower what could not be reused (on two threads when there is a lot).
  std::vector<size_t> fresh;
  for (size_t i = 0; i < next.size(); ++i)
    if (!next[i].op)
      fresh.push_back(i);
  lower::LowerInput in{context.get(), d.doc, d.globals, d.path};
  lowerUnits(in, units, symbols, next, fresh);
  stats.functionsRelowered = static_cast<unsigned>(fresh.size());
  for (size_t i = 0; i < next.size(); ++i) {
    auto func = llvm::cast<pd::FuncOp>(next[i].op);
    if (func.getSymName() != symbols[i])
      func.setSymName(symbols[i]);
  }
  // Units that are gone.
  for (UnitState& old : d.units)
    if (old.op)
      old.op->erase();
  d.units = std::move(next);
  mlir::Block* body = module.getBody();
  for (UnitState& s : d.units)
    body->push_back(s.op);

  // Verify what changed. The module's own invariant (unique symbols) holds
  // by construction: names are Python identifiers made unique with "$k" and
  // "__module__.N", which no identifier can spell. Verifying the module op
  // itself would walk every op (IsolatedFromAbove), so the tests run the
  // full verifier instead.
  stats.verified = verifyFreshUnits(d, stats.unanalysed);

  stats.tooDeepAt = tooDeepIn(d);
  if (stats.tooDeepAt)
    log("pallas: " + d.path + ":" + std::to_string(stats.tooDeepAt->line + 1) +
        ": nested deeper than " + std::to_string(kMaxAnalysedNesting) +
        " levels; not analysed below that depth");

  d.generation = ++generationCounter;
  d.stale = false;
  stats.functionsTotal = static_cast<unsigned>(d.units.size());
  stats.lowerMillis = millisSince(t1);
  d.lastStats = stats;
  log("pallas: updated " + d.path + ": " + std::to_string(stats.functionsRelowered) + " of " +
      std::to_string(stats.functionsTotal) + " functions lowered again (parse " +
      std::to_string(stats.parseMillis) + " ms, lower " + std::to_string(stats.lowerMillis) +
      " ms)");
  return stats;
}

bool Project::Impl::verifyFreshUnits(DocState& d,
                                     std::vector<UpdateStats::UnanalysedFunction>& unanalysed) {
  bool verified = true;
  mlir::Block* body = d.module->getBody();
  for (UnitState& s : d.units) {
    if (!s.fresh)
      continue;
    s.fresh = false;
    if (failed(mlir::verify(s.op))) {
      verified = false;
      log("pallas: lowering produced an invalid function in " + d.path + ": " + lastDiagnostic);
      // Keep the module valid: an empty function in its place.
      auto func = llvm::cast<pd::FuncOp>(s.op);
      UpdateStats::UnanalysedFunction bad;
      bad.name = func.getSymName().str();
      if (auto at = llvm::dyn_cast<mlir::FileLineColLoc>(func.getLoc()); at && at.getLine() > 0)
        bad.at = SourcePos{at.getLine() - 1, at.getColumn() > 0 ? at.getColumn() - 1 : 0};
      bad.reason = lastDiagnostic;
      unanalysed.push_back(std::move(bad));
      mlir::OpBuilder b(context.get());
      auto empty = pd::FuncOp::create(b, func.getLoc(), func.getSymName(), func.getKind(),
                                      b.getStrArrayAttr({}));
      empty.getDecorators().push_back(new mlir::Block());
      empty.getBody().push_back(new mlir::Block());
      body->getOperations().insert(mlir::Block::iterator(s.op), empty.getOperation());
      s.op->erase();
      s.op = empty.getOperation();
    }
  }
  return verified;
}

// Opening a large file lowers every unit: that work is split over two
// threads (units are independent: each reads the immutable syntax tree and
// module-level names, and builds its own detached function). The context is
// made thread-safe only for that span. Small updates (an edit re-lowers one
// unit) stay on the calling thread.
void Project::Impl::lowerUnits(const lower::LowerInput& in, const std::vector<lower::Unit>& units,
                               const std::vector<std::string>& symbols,
                               std::vector<UnitState>& next, const std::vector<size_t>& which) {
  auto lowerOne = [&](size_t i) {
    next[i].op = lower::lowerUnit(in, units[i], symbols[i], next[i].deps);
    next[i].fresh = true;
  };
  constexpr size_t kParallelFrom = 64;
  if (which.size() < kParallelFrom || std::thread::hardware_concurrency() < 2 ||
      options.lowerOnCallingThread) {
    for (size_t i : which)
      lowerOne(i);
    return;
  }
  context->enableMultithreading(true);
  std::atomic<size_t> cursor{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto work = [&] {
    for (size_t k; (k = cursor.fetch_add(1)) < which.size();) {
      try {
        lowerOne(which[k]);
      } catch (...) {
        std::lock_guard lock(failureMutex);
        if (!failure)
          failure = std::current_exception();
      }
    }
  };
  std::thread helper(work);
  work();
  helper.join();
  context->enableMultithreading(false);
  if (failure)
    std::rethrow_exception(failure);
}

// Lower an indexed document on first use, and refresh a document whose
// imported workspace files changed since its names were bound.
void Project::Impl::ensureCurrent(DocState& d) {
  if (d.stale || !d.module || depsChanged(d))
    update(d, false);
}

bool Project::Impl::depsChanged(const DocState& d) const {
  for (const auto& [dep, gen] : d.depGenerations) {
    auto it = docs.find(dep);
    uint64_t now = it == docs.end() ? 0 : it->second->generation;
    if (now != gen)
      return true;
  }
  return false;
}

std::vector<std::string> Project::Impl::dependentsOf(const std::string& path) const {
  // Transitive: a change can travel through re-exports.
  std::set<std::string> out;
  std::vector<std::string> work{path};
  while (!work.empty()) {
    std::string p = work.back();
    work.pop_back();
    for (const auto& [other, d] : docs) {
      if (other == path || out.count(other))
        continue;
      for (const std::string& dep : d->globals.dependencies())
        if (dep == p) {
          out.insert(other);
          work.push_back(other);
          break;
        }
    }
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> Project::Impl::dependenciesOf(const std::string& path) const {
  // Transitive, like dependentsOf: a function can be imported through a
  // package that re-exports it.
  std::set<std::string> out;
  std::vector<std::string> work{path};
  while (!work.empty()) {
    auto it = docs.find(work.back());
    work.pop_back();
    if (it == docs.end())
      continue;
    for (const std::string& dep : it->second->globals.dependencies())
      if (dep != path && out.insert(dep).second)
        work.push_back(dep);
  }
  return {out.begin(), out.end()};
}

} // namespace pallas::analysis
