// The inside of a Project (pallas/analysis/Project.h): the documents, the
// MLIR context their modules live in, and the locks. Private to analysis/lib.
// The implementation is split by job:
//   Project.cpp            the facade: documents in and out, findings, settings
//   IncrementalModule.cpp  keeping a document's module current unit by unit
//   ModuleResolution.cpp   imports: module files, exported names, the index
//   SourceRanges.cpp       lines and the names written at a position
//   ApiLookup.cpp          the hover's lookup of the API call at a position
#pragma once

#include "Lower.h"
#include "Names.h"
#include "WorkspaceImpl.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/py/Dialect.h"

#include "llvm/Support/xxhash.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pallas::analysis {

using detail::DocState;
using detail::UnitState;

struct Project::Impl : names::ModuleResolver {
  ProjectOptions options;
  mutable std::recursive_mutex mutex;
  std::unique_ptr<mlir::MLIRContext> context;
  std::map<std::string, std::unique_ptr<DocState>> docs;
  uint64_t generationCounter = 0;
  // Bumped by every public call that may change what findings() returns
  // besides a document's generation (options, opening, closing, releasing,
  // indexing); with generationCounter it keys `findingsCache`. (withModule's
  // callers only read the module, like every analysis that shares it.)
  uint64_t revision = 0;
  // The last findings of each document, and the state they were computed in:
  // the server asks twice per edit (the pushed diagnostics after the debounce
  // and the client's pull), and a file of 200 Mosaic GPU launches spends
  // hundreds of ms in the passes (their SMEM budgets evaluate every launch).
  struct CachedFindings {
    uint64_t generation = 0, revision = 0;
    std::vector<Finding> findings;
  };
  std::map<std::string, CachedFindings> findingsCache;
  // Identifies the state a run reads (generation and revision together):
  // a launch result recorded in one state is adopted only in the same.
  uint64_t inputsStamp() const {
    const uint64_t both[2] = {generationCounter, revision};
    return llvm::xxh3_64bits(
        llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(both), sizeof(both)));
  }
  // Per-launch results of the resource and lowering checks, per document,
  // kept across edits (analysis/passes/LaunchCache.h); and each document's
  // text hash by generation, for their keys.
  std::map<std::string, std::shared_ptr<detail::LaunchCache>> launchCaches;
  std::map<std::string, std::pair<uint64_t, uint64_t>> textHashes;
  detail::LaunchCache& launchCache(const std::string& path);
  uint64_t otherDocumentsFingerprint(const std::string& path);
  void invalidate() {
    ++revision;
    findingsCache.clear();
  }
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
    context->getOrLoadDialect<dialect::PallasDialect>();
    context->getOrLoadDialect<py::PyDialect>();
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

  // ---- module resolution (names::ModuleResolver; ModuleResolution.cpp) ----
  bool fileExists(const std::string& path);
  std::optional<std::string> moduleFile(const std::string& dotted, int level,
                                        const std::string& fromPath) override;
  std::optional<names::Binding> exported(const std::string& file, const std::string& name,
                                         int depth) override;
  std::vector<std::string> exportedNames(const std::string& file, int depth) override;
  // A document known from disk (not open): parsed and its names bound; its
  // module is lowered on demand.
  DocState* ensureIndexed(const std::string& path, int depth);
  // Rebind a document's module-level names when a file they came from
  // changed (re-exports travel through it); its module is then stale.
  void refreshGlobals(DocState& d, int depth);
  // Bind the document's module-level names (imports followed from `depth`
  // levels of re-export), guarded against import cycles.
  void bindGlobals(DocState& d, int depth);
  std::map<std::string, uint64_t> currentDepGenerations(const DocState& d);
  // Every *.py under the workspace roots, skipping hidden folders, virtual
  // environments, site-packages, node_modules and __pycache__; empty when
  // `cancel` became true.
  std::vector<std::string> workspacePythonFiles(const std::atomic<bool>* cancel) const;

  // ---- incremental lowering (IncrementalModule.cpp) ----
  // Lower units[i] into next[i] for every i in `which` (fresh ops).
  void lowerUnits(const lower::LowerInput& in, const std::vector<lower::Unit>& units,
                  const std::vector<std::string>& symbols, std::vector<UnitState>& next,
                  const std::vector<size_t>& which);
  // `namesMayChange`: rebind the module-level names even when no unit's
  // header changed (new text, a changed dependency).
  UpdateStats update(DocState& d, bool reparse, bool namesMayChange = true);
  void ensureCurrent(DocState& d);
  bool depsChanged(const DocState& d) const;
  std::vector<std::string> dependentsOf(const std::string& path) const;
  std::vector<std::string> dependenciesOf(const std::string& path) const;
  // Replace units that do not verify with empty functions (the module stays
  // valid); false when there was one.
  bool verifyFreshUnits(DocState& d, std::vector<UpdateStats::UnanalysedFunction>& unanalysed);

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
        },
        [this](const std::string& p) { return find(p); },
        [this](const std::string& p) { return ensureIndexed(p, 0); },
        [this](const std::string& dotted, int level, const std::string& from) {
          return moduleFile(dotted, level, from);
        },
        context.get());
  }
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
  // Forget a document: its functions go before the document does.
  void forget(const std::string& path) {
    if (DocState* d = find(path)) {
      d->units.clear();
      d->module = nullptr;
      docs.erase(path);
    }
    launchCaches.erase(path);
    textHashes.erase(path);
  }
};

} // namespace pallas::analysis
