// The Project: per document, the tree-sitter tree, the module-level names,
// and an MLIR module kept current unit by unit; plus the workspace index the
// cross-file call graph is resolved against.
#include "pallas/analysis/Project.h"

#include "Lower.h"
#include "Names.h"
#include "Syntax.h"
#include "WorkspaceImpl.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "pallas/analysis/SourceFile.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"
#include "pallas/knowledge/KnowledgeBase.h"
#include "pallas/knowledge/KnowledgeService.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace fs = std::filesystem;

namespace pallas::analysis {

namespace pd = pallas::dialect;
using detail::DocState;
using detail::UnitState;

namespace {

double millisSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Workspace files and imported modules: regular files of bounded size only
// (a FIFO named like a module would block the indexer forever).
std::optional<std::string> readFile(const std::string& path) {
  return readSourceFile(path);
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

bool skippedFolder(const fs::path& p) {
  std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || name == "site-packages" || name == "node_modules" ||
         name == "__pycache__" || name == "venv" || name == "env" || fs::exists(p / "pyvenv.cfg");
}

} // namespace

// ---------------------------------------------------------------------------

struct Project::Impl : names::ModuleResolver {
  ProjectOptions options;
  mutable std::recursive_mutex mutex;
  std::unique_ptr<mlir::MLIRContext> context;
  std::map<std::string, std::unique_ptr<DocState>> docs;
  uint64_t generationCounter = 0;
  std::set<std::string> building; // documents whose globals are being built (cycle guard)
  // Held by every ModuleResolver call: lowerUnits lowers on two threads, and
  // both resolve imports, which index files on demand (inserting into `docs`,
  // `building`, generationCounter). Unlocked, `check` over JAX's repository
  // crashed now and then in a std::map of an indexed file's globals.
  // Separate from `mutex`, which the lowering thread's caller holds while it
  // waits for the helper thread.
  std::recursive_mutex resolveMutex;

  Impl() {
    context = std::make_unique<mlir::MLIRContext>(mlir::MLIRContext::Threading::DISABLED);
    context->getOrLoadDialect<pd::PallasDialect>();
    // A verifier error printed the whole failing op into its diagnostic
    // (AsmState over the module): 8% of `check` over JAX's repository. The
    // message alone says what failed.
    context->printOpOnDiagnostic(false);
    // Lowering bugs must not print to the user's stderr: collect instead.
    context->getDiagEngine().registerHandler([this](mlir::Diagnostic& d) {
      lastDiagnostic = d.str();
      return mlir::success();
    });
  }
  std::string lastDiagnostic;

  void log(const std::string& line) const {
    if (options.debugLog)
      options.debugLog(line);
  }

  // ---- module resolution (names::ModuleResolver) ----
  bool fileExists(const std::string& path) {
    if (docs.count(path))
      return true;
    std::error_code ec;
    return fs::is_regular_file(path, ec);
  }

  std::optional<std::string> moduleFile(const std::string& dotted, int level,
                                        const std::string& fromPath) override {
    std::lock_guard resolving(resolveMutex);
    std::vector<fs::path> bases;
    fs::path from = fs::path(fromPath).parent_path();
    if (level > 0) {
      fs::path base = from;
      for (int i = 1; i < level; ++i)
        base = base.parent_path();
      bases.push_back(base);
    } else {
      bases.push_back(from);
      for (const std::string& r : options.workspaceRoots)
        bases.emplace_back(r);
    }
    fs::path rel;
    size_t start = 0;
    while (start <= dotted.size() && !dotted.empty()) {
      size_t dot = dotted.find('.', start);
      rel /= dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos)
        break;
      start = dot + 1;
    }
    for (const fs::path& base : bases) {
      fs::path stem = base / rel;
      if (dotted.empty())
        stem = base;
      std::string asFile = stem.string() + ".py";
      std::string asPackage = (stem / "__init__.py").string();
      if (!dotted.empty() && fileExists(asFile))
        return fs::path(asFile).lexically_normal().string();
      if (fileExists(asPackage))
        return fs::path(asPackage).lexically_normal().string();
    }
    return std::nullopt;
  }

  std::optional<names::Binding> exported(const std::string& file, const std::string& name,
                                         int depth) override {
    std::lock_guard resolving(resolveMutex);
    DocState* d = ensureIndexed(file, depth);
    if (!d)
      return std::nullopt;
    refreshGlobals(*d, depth);
    const names::Binding* b = d->globals.find(name);
    if (!b)
      return std::nullopt;
    names::Binding out = *b;
    if (out.file.empty() &&
        (out.kind == names::Binding::Kind::Function || out.kind == names::Binding::Kind::Class ||
         out.kind == names::Binding::Kind::Partial || out.kind == names::Binding::Kind::Constant))
      out.file = file;
    return out;
  }

  std::vector<std::string> exportedNames(const std::string& file, int depth) override {
    std::lock_guard resolving(resolveMutex); // indexes files, like exported()
    DocState* d = ensureIndexed(file, depth);
    if (!d)
      return {};
    refreshGlobals(*d, depth);
    if (const auto& all = d->globals.dunderAll())
      return *all;
    std::vector<std::string> out;
    for (const auto& [name, _] : d->globals.all())
      if (!name.empty() && name[0] != '_')
        out.push_back(name);
    return out;
  }

  // A document known from disk (not open): parsed and its names bound; its
  // module is lowered on demand.
  DocState* ensureIndexed(const std::string& path, int depth) {
    auto it = docs.find(path);
    if (it != docs.end())
      return it->second.get();
    if (building.count(path))
      return nullptr;
    auto text = readFile(path);
    if (!text)
      return nullptr;
    auto d = std::make_unique<DocState>();
    d->path = path;
    d->doc.setText(std::move(*text));
    d->generation = ++generationCounter;
    DocState* raw = d.get();
    docs[path] = std::move(d);
    building.insert(path);
    raw->globals.build(raw->doc, path, this, depth);
    building.erase(path);
    raw->depGenerations = currentDepGenerations(*raw);
    raw->stale = true; // not lowered yet
    return raw;
  }

  // Rebind a document's module-level names when a file they came from
  // changed (re-exports travel through it); its module is then stale.
  void refreshGlobals(DocState& d, int depth) {
    if (building.count(d.path) || d.depGenerations == currentDepGenerations(d))
      return;
    building.insert(d.path);
    d.globals.build(d.doc, d.path, this, depth);
    building.erase(d.path);
    d.depGenerations = currentDepGenerations(d);
    d.stale = true;
    d.generation = ++generationCounter;
  }

  std::map<std::string, uint64_t> currentDepGenerations(const DocState& d) {
    std::map<std::string, uint64_t> gens;
    for (const std::string& dep : d.globals.dependencies()) {
      auto it = docs.find(dep);
      gens[dep] = it == docs.end() ? 0 : it->second->generation;
    }
    return gens;
  }

  // ---- incremental lowering ----
  // Lower units[i] into next[i] for every i in `which` (fresh ops).
  void lowerUnits(const lower::LowerInput& in, const std::vector<lower::Unit>& units,
                  const std::vector<std::string>& symbols, std::vector<UnitState>& next,
                  const std::vector<size_t>& which);
  // `namesMayChange`: rebind the module-level names even when no unit's
  // header changed (new text, a changed dependency).
  UpdateStats update(DocState& d, bool reparse, bool namesMayChange = true);
  void ensureCurrent(DocState& d);

  // The workspace the passes see: other documents indexed on demand and kept
  // current (findings and the path matrix walk the same one).
  detail::WorkspaceImpl workspace() {
    return detail::WorkspaceImpl(
        [this](const std::string& p) -> DocState* {
          DocState* doc = ensureIndexed(p, 0);
          if (doc)
            ensureCurrent(*doc);
          return doc;
        },
        [this] {
          std::vector<std::string> paths;
          for (auto& [p, _] : docs)
            paths.push_back(p);
          return paths;
        });
  }
  bool depsChanged(const DocState& d) const;
  DocState* find(const std::string& path) const {
    auto it = docs.find(path);
    return it == docs.end() ? nullptr : it->second.get();
  }
  DocState& open(const std::string& path) {
    auto& slot = docs[path];
    if (!slot) {
      slot = std::make_unique<DocState>();
      slot->path = path;
    }
    return *slot;
  }
  std::vector<std::string> dependentsOf(const std::string& path) const;
};

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

  // Typing inside a function body changes no unit header: the module-level
  // names (and so every unit's lookups) stay as they are. Otherwise rebind
  // them, and check each reused unit's lookups against the new bindings.
  bool rebind = namesMayChange || !d.module || units.size() != d.units.size();
  if (!rebind) {
    std::vector<uint64_t> before, after;
    for (const UnitState& u : d.units)
      before.push_back(u.headerHash);
    for (const lower::Unit& u : units)
      after.push_back(u.headerHash);
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    rebind = before != after;
  }
  if (rebind) {
    building.insert(d.path);
    d.globals.build(d.doc, d.path, this, 0);
    building.erase(d.path);
    d.depGenerations = currentDepGenerations(d);
  }

  if (!d.module) {
    mlir::OpBuilder b(context.get());
    d.module = mlir::ModuleOp::create(mlir::FileLineColLoc::get(context.get(), d.path, 1, 1));
    (*d.module)->setAttr("pallas.path", b.getStringAttr(d.path));
  }
  mlir::ModuleOp module = *d.module;

  // Old units by content hash, for reuse (a hash table: an edit looks up
  // every unit of the file, so this is on the keystroke path).
  llvm::DenseMap<uint64_t, llvm::SmallVector<size_t, 1>> byHash;
  byHash.reserve(d.units.size());
  for (size_t i = 0; i < d.units.size(); ++i)
    byHash[d.units[i].hash].push_back(i);
  std::vector<bool> used(d.units.size(), false);
  llvm::DenseMap<uint64_t, size_t> firstUnused; // per hash: candidates before it are used

  // Symbols: the last definition of a name keeps it (Python rebinding).
  llvm::StringMap<unsigned> remaining(static_cast<unsigned>(units.size()));
  for (const auto& u : units)
    if (u.kind != "module")
      ++remaining[u.name];
  unsigned moduleIndex = 0;

  std::vector<UnitState> next;
  next.reserve(units.size());
  std::vector<std::string> symbols; // each unit's symbol, in order
  symbols.reserve(units.size());
  // What each looked-up name resolves to now, computed once per update.
  std::unordered_map<std::string, std::string> fingerprints;
  lower::LowerInput in{context.get(), d.doc, d.globals, d.path};
  for (const lower::Unit& u : units) {
    std::string symbol;
    if (u.kind == "module")
      symbol = "__module__." + std::to_string(moduleIndex++);
    else {
      unsigned left = --remaining[u.name];
      symbol = left == 0 ? u.name : u.name + "$" + std::to_string(left);
    }
    uint64_t hash = u.textHash;
    UnitState s;
    s.hash = hash;
    s.headerHash = u.headerHash;
    s.kind = u.kind;
    s.startRow = u.startRow;
    s.startColumn = u.startColumn;
    // Reuse an old unit with the same text, column and still-valid lookups.
    auto candidates = u.hasError ? byHash.end() : byHash.find(hash);
    llvm::ArrayRef<size_t> sameText;
    if (candidates != byHash.end()) {
      // Skip the used ones at the front once: a file of 70,000 identical
      // statements made every edit scan them all for each (quadratic).
      size_t& from = firstUnused[hash];
      while (from < candidates->second.size() && used[candidates->second[from]])
        ++from;
      sameText = llvm::ArrayRef<size_t>(candidates->second).drop_front(from);
    }
    for (size_t index : sameText) {
      UnitState& old = d.units[index];
      if (used[index] || old.kind != u.kind || old.startColumn != u.startColumn || !old.op)
        continue;
      bool valid = true;
      if (rebind)
        for (const auto& [key, fp] : old.deps.lookups) {
          auto cached = fingerprints.find(key);
          if (cached == fingerprints.end())
            cached = fingerprints.emplace(key, lower::lookupFingerprint(key, d.globals)).first;
          if (cached->second != fp) {
            valid = false;
            break;
          }
        }
      if (!valid)
        continue;
      used[index] = true;
      s.op = old.op;
      s.deps = std::move(old.deps);
      old.op = nullptr;
      if (old.startRow != u.startRow)
        shiftLocations(s.op, static_cast<int>(u.startRow) - static_cast<int>(old.startRow));
      s.op->remove();
      break;
    }
    symbols.push_back(std::move(symbol));
    next.push_back(std::move(s));
  }
  // Lower what could not be reused (on two threads when there is a lot).
  std::vector<size_t> fresh;
  for (size_t i = 0; i < next.size(); ++i)
    if (!next[i].op)
      fresh.push_back(i);
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

  // Verify what changed, and the module's own invariants (unique symbols).
  stats.verified = true;
  for (UnitState& s : d.units) {
    if (!s.fresh)
      continue;
    s.fresh = false;
    if (failed(mlir::verify(s.op))) {
      stats.verified = false;
      log("pallas: lowering produced an invalid function in " + d.path + ": " + lastDiagnostic);
      // Keep the module valid: an empty function in its place.
      auto func = llvm::cast<pd::FuncOp>(s.op);
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
  // The module's own invariant (unique symbols) holds by construction: names
  // are Python identifiers made unique with "$k" and "__module__.N", which no
  // identifier can spell. Verifying the module op itself would walk every op
  // (IsolatedFromAbove), so the tests run the full verifier instead.

  if (auto cut = d.doc.tooDeepAt())
    stats.tooDeepAt = SourcePos{cut->row, cut->column};
  for (const UnitState& s : d.units)
    if (s.deps.tooDeep && (!stats.tooDeepAt || *s.deps.tooDeep < *stats.tooDeepAt))
      stats.tooDeepAt = s.deps.tooDeep;
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
  if (which.size() < kParallelFrom || std::thread::hardware_concurrency() < 2) {
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

// ---------------------------------------------------------------------------

Project::Project(ProjectOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Project::~Project() {
  // Modules must go before the context that owns their attributes.
  for (auto& [_, d] : impl_->docs) {
    d->units.clear();
    d->module = nullptr;
  }
}

UpdateStats Project::setDocument(const std::string& path, std::string text) {
  std::lock_guard lock(impl_->mutex);
  DocState& d = impl_->open(path);
  d.isOpen = true;
  d.doc.setText(std::move(text));
  return impl_->update(d, false);
}

UpdateStats Project::editDocument(const std::string& path, const std::vector<ByteEdit>& edits) {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d || !d->isOpen)
    throw std::invalid_argument("document is not open: " + path);
  for (const ByteEdit& e : edits)
    d->doc.applyEdit(e);
  return impl_->update(*d, true, /*namesMayChange=*/impl_->depsChanged(*d));
}

void Project::closeDocument(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return;
  d->isOpen = false;
  // The disk version (if any) stays in the index.
  if (auto text = readFile(path)) {
    d->doc.setText(std::move(*text));
    d->stale = true;
    d->generation = ++impl_->generationCounter;
    impl_->building.insert(path);
    d->globals.build(d->doc, path, impl_.get(), 0);
    impl_->building.erase(path);
  } else {
    d->units.clear();
    d->module = nullptr;
    impl_->docs.erase(path);
  }
}

void Project::releaseDocument(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  if (DocState* d = impl_->find(path)) {
    d->units.clear();
    d->module = nullptr;
    impl_->docs.erase(path);
  }
}

bool Project::hasDocument(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  return d && d->isOpen;
}

std::string Project::documentText(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  return d ? d->doc.text() : std::string();
}

std::string Project::mlirText(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return "module {\n}\n";
  impl_->ensureCurrent(*d);
  std::string out;
  llvm::raw_string_ostream os(out);
  d->module->getOperation()->print(
      os, mlir::OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/false).useLocalScope());
  os << "\n";
  return out;
}

bool Project::withModule(const std::string& path,
                         const std::function<void(mlir::ModuleOp, std::string_view)>& fn) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return false;
  impl_->ensureCurrent(*d);
  if (!d->module)
    return false;
  fn(*d->module, d->doc.text());
  return true;
}

namespace {

// A document's lines (without their '\n'), split once per request: looking a
// position up by rescanning the text from its start would make a request
// over many positions quadratic in the file's size.
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The name written at a 0-based (line, byte column): a dotted name, after an
// optional '@' of a decorator. Empty range when there is none.
SourceRange nameAt(const std::vector<std::string_view>& lines, uint32_t line, uint32_t column) {
  if (line >= lines.size())
    return {};
  std::string_view text = lines[line];
  size_t begin = column;
  if (begin >= text.size())
    return {};
  if (text[begin] == '@')
    ++begin;
  size_t end = begin;
  auto nameChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  while (end < text.size() && nameChar(text[end]))
    ++end;
  return {{line, static_cast<uint32_t>(begin)}, {line, static_cast<uint32_t>(end)}};
}

// The passes locate a finding where its op starts (the dialect keeps start
// positions only); an editor needs a range to underline. Widen an empty
// range to the name written there: the callee of a call (`plgpu.wgmma`,
// `touch`), the Ref of a subscript, the name after `def` / `async def` /
// `class` (not the keyword).
void widen(SourceLocation& at, const std::vector<std::string_view>* lines) {
  if (at.range.start != at.range.end || !lines)
    return;
  SourceRange r = nameAt(*lines, at.range.start.line, at.range.start.column);
  for (int hops = 0; hops < 2 && r.start != r.end; ++hops) {
    std::string_view line = (*lines)[r.start.line];
    std::string_view word = line.substr(r.start.column, r.end.column - r.start.column);
    if (word != "def" && word != "async" && word != "class")
      break;
    size_t next = line.find_first_not_of(' ', r.end.column);
    if (next == std::string_view::npos)
      break;
    r = nameAt(*lines, r.start.line, static_cast<uint32_t>(next));
  }
  if (r.start != r.end)
    at.range = r;
}

} // namespace

bool Project::withSyntax(const std::string& path,
                         const std::function<void(TSTree*, std::string_view)>& fn) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return false;
  d->doc.reparse(); // a no-op unless edits are pending
  fn(ts_tree_copy(d->doc.tree()), d->doc.text());
  return true;
}

std::vector<LaunchPaths> Project::launchPaths(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return {};
  impl_->ensureCurrent(*d);
  detail::WorkspaceImpl ws = impl_->workspace();
  std::vector<Finding> unused;
  detail::PassContext ctx{ws, path, *d->module, impl_->options, unused};
  std::vector<LaunchPaths> out;
  detail::ProductRun run{ctx,
                         [&](llvm::StringRef, const std::string& what) {
                           impl_->log("pallas: path matrix failed on " + path + ": " + what);
                           out.clear();
                         },
                         &out};
  detail::runPathMatrixPass(run);
  return out;
}

std::vector<Finding> Project::findings(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return {};
  impl_->ensureCurrent(*d);
  std::vector<Finding> out;
  detail::WorkspaceImpl ws = impl_->workspace();
  detail::PassContext ctx{ws, path, *d->module, impl_->options, out};
  // A pass bug must not take the server down; say which pass failed.
  detail::ProductRun run{ctx, [&](llvm::StringRef pass, const std::string& what) {
                           impl_->log("pallas: pass " + pass.str() + " failed on " + path + ": " +
                                      what);
                         }};
  detail::runFindingsPasses(run);
  std::map<std::string, std::vector<std::string_view>> lines; // per document, split once
  auto linesOf = [&](const std::string& p) -> const std::vector<std::string_view>* {
    auto it = lines.find(p);
    if (it == lines.end()) {
      DocState* doc = impl_->find(p);
      if (!doc)
        return nullptr;
      it = lines.emplace(p, splitLines(doc->doc.text())).first;
    }
    return &it->second;
  };
  for (Finding& f : out) {
    widen(f.location, linesOf(f.location.path));
    if (f.launch)
      widen(*f.launch, linesOf(f.launch->path));
    for (RelatedInfo& r : f.related)
      widen(r.location, linesOf(r.location.path));
  }
  return out;
}

std::vector<std::string> Project::dependents(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->dependentsOf(path);
}

std::string knowledgeJaxVersion(const std::string& knowledgePath) {
  // The same choice as the passes make: the configured table when it loads,
  // else the bundled one (KnowledgeService loads each once per process).
  return knowledge::KnowledgeService::shared().jaxVersion(knowledgePath);
}

std::string Project::knowledgeJaxVersion() const {
  return analysis::knowledgeJaxVersion(knowledgePath());
}

// ---- apiAt (the hover's lookup) ----------------------------------------------

namespace {

// The `@...inline_mgpu(...)` decorator of the def at 0-based `defLine` (an
// inline_mgpu op is located at its def): the nearest decorator line above it
// whose name ends in "inline_mgpu", walking over decorator lines and their
// continuations (indented deeper, or closing brackets at the def's indent).
SourceRange inlineMgpuDecorator(const std::vector<std::string_view>& lines, uint32_t defLine) {
  if (defLine >= lines.size())
    return {};
  auto indent = [](std::string_view l) { return l.find_first_not_of(" \t"); };
  size_t defIndent = indent(lines[defLine]);
  for (uint32_t l = defLine; l-- > 0;) {
    std::string_view line = lines[l];
    size_t i = indent(line);
    if (i == std::string_view::npos)
      return {}; // blank: the decorators ended
    if (i <= defIndent && line[i] != '@' && line[i] != ')' && line[i] != ']')
      return {};
    if (i != defIndent || line[i] != '@')
      continue;
    SourceRange r = nameAt(lines, l, static_cast<uint32_t>(i));
    std::string_view name = line.substr(r.start.column, r.end.column - r.start.column);
    if (name == "inline_mgpu" || name.ends_with(".inline_mgpu"))
      return r;
  }
  return {};
}

} // namespace

std::optional<ApiAt> Project::apiAt(const std::string& path, SourcePos pos) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return std::nullopt;
  impl_->ensureCurrent(*d);
  if (!d->module)
    return std::nullopt;
  std::vector<std::string_view> lines = splitLines(d->doc.text());
  std::optional<ApiAt> best;
  d->module->getOperation()->walk([&](mlir::Operation* op) {
    std::string api;
    if (auto p = llvm::dyn_cast<pd::PrimOp>(op))
      api = p.getApi().str();
    else if (auto s = llvm::dyn_cast<pd::ScopeOp>(op))
      api = s.getApi().str();
    else if (auto l = llvm::dyn_cast<pd::LaunchOp>(op))
      api = l.getApi().str();
    else if (llvm::isa<pd::InlineMgpuOp>(op))
      api = "plgpu.inline_mgpu";
    else
      return;
    if (api.empty() || api.starts_with("python."))
      return; // Python statements, not APIs
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    if (!loc || loc.getLine() == 0)
      return;
    SourceRange r = llvm::isa<pd::InlineMgpuOp>(op)
                        ? inlineMgpuDecorator(lines, loc.getLine() - 1)
                        : nameAt(lines, loc.getLine() - 1, loc.getColumn() - 1);
    if (r.start == r.end || pos < r.start || r.end < pos)
      return;
    auto width = [](const SourceRange& x) { return x.end.column - x.start.column; };
    if (!best || width(r) < width(best->range))
      best = ApiAt{api, r};
  });
  return best;
}

void Project::setKnowledgePath(std::string path) {
  std::lock_guard lock(impl_->mutex);
  impl_->options.knowledgePath = std::move(path);
}

std::string Project::knowledgePath() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->options.knowledgePath;
}

void Project::setGpuComputeCapability(std::string capability) {
  std::lock_guard lock(impl_->mutex);
  impl_->options.gpuComputeCapability = std::move(capability);
}

void Project::setGpuSharedMemoryPerBlockOptin(long long bytes) {
  std::lock_guard lock(impl_->mutex);
  impl_->options.gpuSharedMemoryPerBlockOptin = bytes;
}

size_t Project::indexWorkspace(const std::atomic<bool>* cancel) {
  std::vector<std::string> files;
  for (const std::string& root : impl_->options.workspaceRoots) {
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
        end;
    for (; !ec && it != end; it.increment(ec)) {
      if (cancel && cancel->load())
        return 0;
      if (it->is_directory(ec)) {
        if (skippedFolder(it->path()))
          it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".py")
        files.push_back(fs::absolute(it->path()).lexically_normal().string());
    }
  }
  size_t n = 0;
  for (const std::string& f : files) {
    if (cancel && cancel->load())
      break;
    std::lock_guard lock(impl_->mutex);
    if (impl_->find(f))
      continue;
    if (impl_->ensureIndexed(f, 0))
      ++n;
  }
  return n;
}

void Project::fileChanged(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (d && d->isOpen)
    return; // the editor's version wins
  auto text = readFile(path);
  if (!text) {
    if (d) {
      d->units.clear();
      d->module = nullptr;
      impl_->docs.erase(path);
    }
    ++impl_->generationCounter;
    // Dependents see a missing file as a changed generation (0).
    return;
  }
  if (!d) {
    impl_->ensureIndexed(path, 0);
    return;
  }
  d->doc.setText(std::move(*text));
  impl_->update(*d, false);
}

std::vector<std::string> Project::documents() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<std::string> out;
  for (auto& [p, _] : impl_->docs)
    out.push_back(p);
  return out;
}

UpdateStats Project::lastUpdate(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  return d ? d->lastStats : UpdateStats{};
}

bool Project::verify(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return false;
  impl_->ensureCurrent(*d);
  return succeeded(mlir::verify(d->module->getOperation()));
}

} // namespace pallas::analysis
