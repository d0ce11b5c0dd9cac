// The Project facade (pallas/analysis/Project.h): documents in and out,
// their modules, findings and path matrices, settings. What is behind it:
// ProjectImpl.h.
#include "pallas/analysis/Project.h"

#include "../passes/LaunchCache.h"
#include "ExpectedFailures.h"
#include "ProjectImpl.h"
#include "SourceRanges.h"
#include "SyntaxErrors.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "pallas/analysis/SourceFile.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"
#include "pallas/knowledge/KnowledgeBase.h"
#include "pallas/knowledge/KnowledgeService.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace pallas::analysis {

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
  impl_->invalidate();
  DocState& d = impl_->open(path);
  d.isOpen = true;
  d.doc.setText(std::move(text));
  return impl_->update(d, false);
}

UpdateStats Project::editDocument(const std::string& path, const std::vector<ByteEdit>& edits) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  DocState* d = impl_->find(path);
  if (!d || !d->isOpen)
    throw std::invalid_argument("document is not open: " + path);
  for (const ByteEdit& e : edits)
    d->doc.applyEdit(e);
  return impl_->update(*d, true, /*namesMayChange=*/impl_->depsChanged(*d));
}

void Project::closeDocument(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  DocState* d = impl_->find(path);
  if (!d)
    return;
  d->isOpen = false;
  impl_->launchCaches.erase(path); // kept for editing only
  // The disk version (if any) stays in the index.
  if (auto text = readSourceFile(path)) {
    d->doc.setText(std::move(*text));
    d->stale = true;
    d->generation = ++impl_->generationCounter;
    impl_->bindGlobals(*d, 0);
  } else {
    impl_->forget(path);
  }
}

void Project::releaseDocument(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  impl_->forget(path);
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
  detail::LaunchCache& cache = impl_->launchCache(path);
  ctx.launchCache = &cache;
  cache.beginRun(ctx, impl_->otherDocumentsFingerprint(path), impl_->inputsStamp());
  std::vector<LaunchPaths> out;
  detail::ProductRun run{ctx,
                         [&](llvm::StringRef, const std::string& what) {
                           impl_->log("pallas: path matrix failed on " + path + ": " + what);
                           out.clear();
                         },
                         &out};
  detail::runPathMatrixPass(run);
  cache.endRun();
  return out;
}

std::vector<Finding> Project::findings(const std::string& path) const {
  return *findingsUnlessStopped(path, nullptr);
}

std::optional<std::vector<Finding>>
Project::findingsUnlessStopped(const std::string& path, const std::function<bool()>& stop,
                               LaunchResults launchResults) const {
  std::lock_guard lock(impl_->mutex);
  DocState* d = impl_->find(path);
  if (!d)
    return {};
  impl_->ensureCurrent(*d);
  // Unchanged since the last call (no edit, option or indexed file between):
  // the same findings.
  const uint64_t generation = impl_->generationCounter, revision = impl_->revision;
  if (auto it = impl_->findingsCache.find(path); it != impl_->findingsCache.end() &&
                                                 it->second.generation == generation &&
                                                 it->second.revision == revision)
    return it->second.findings;
  std::vector<Finding> out;
  detail::WorkspaceImpl ws = impl_->workspace();
  detail::PassContext ctx{ws, path, *d->module, impl_->options, out, stop ? &stop : nullptr};
  // Launches whose code did not change keep their results (LaunchCache.h);
  // a Skip run reads none and keys none: it records what it computes for a
  // Keep run over the same inputs to adopt.
  const bool keep = launchResults == LaunchResults::Keep;
  detail::LaunchCache* cache = &impl_->launchCache(path);
  ctx.launchCache = cache;
  cache->beginRun(ctx, impl_->otherDocumentsFingerprint(path), impl_->inputsStamp(),
                  keep ? detail::LaunchCache::Mode::Keyed : detail::LaunchCache::Mode::Record);
  // A pass bug must not take the server down; say which pass failed.
  detail::ProductRun run{ctx, [&](llvm::StringRef pass, const std::string& what) {
                           impl_->log("pallas: pass " + pass.str() + " failed on " + path + ": " +
                                      what);
                         }};
  detail::LaunchCache::Stats before = cache->stats();
  detail::runFindingsPasses(run);
  cache->endRun(); // what it kept is whole: a launch is never stopped halfway
  // What the run cost in launch evaluations (tests and --log-level debug).
  impl_->log("pallas: launch checks of " + path + ": " +
             std::to_string(cache->stats().evaluated - before.evaluated) + " evaluated, " +
             std::to_string(cache->stats().reused - before.reused) + " reused, " +
             std::to_string(cache->stats().adopted - before.adopted) + " adopted");
  if (ctx.stopRequested())
    return std::nullopt;
  // A test that asserts the launch raises this error wants it, and a `try`
  // around the launch that catches it handles it (ExpectedFailures.h). Only
  // a document that spells assertRaises / pytest.raises or `except` can: the
  // others are not searched per finding (a walk from the root each).
  std::map<std::string, bool> mayExpect;
  std::erase_if(out, [&](const Finding& f) {
    if (!f.launch || f.jaxException.empty())
      return false;
    DocState* doc = impl_->find(f.launch->path);
    if (!doc)
      return false;
    auto [it, fresh] = mayExpect.try_emplace(f.launch->path, false);
    if (fresh) {
      const std::string& t = doc->doc.text();
      it->second = t.find("aises") != std::string::npos || t.find("except") != std::string::npos;
    }
    return it->second && (testExpectsFailure(doc->doc, f.launch->range.start, f.jaxException) ||
                          handledWhereItRuns(doc->doc, f.launch->range.start, f.jaxException));
  });
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
    if (f.selectedAt) // a caller's argument is located where it starts
      widen(*f.selectedAt, linesOf(f.selectedAt->path));
  }
  // Where the document itself does not parse (PLS011): from its tree alone,
  // after the passes, which analysed what tree-sitter recovered around it.
  if (reportsSyntaxErrors(d->doc.text()))
    for (Finding& f : syntaxErrorFindings(d->doc.root(), d->doc.text(), path))
      out.push_back(std::move(f));
  // Kept only when the run itself changed nothing (a file indexed on demand
  // bumps the generation).
  if (keep && impl_->generationCounter == generation && impl_->revision == revision)
    impl_->findingsCache[path] = {generation, revision, out};
  return out;
}

detail::LaunchCache& Project::Impl::launchCache(const std::string& path) {
  auto& slot = launchCaches[path];
  if (!slot)
    slot = std::make_shared<detail::LaunchCache>();
  return *slot;
}

uint64_t Project::Impl::otherDocumentsFingerprint(const std::string& path) {
  uint64_t h = 0;
  for (const auto& [p, d] : docs) {
    if (p == path)
      continue;
    // Hashed again only when the document changed (its generation).
    auto& [generation, hash] = textHashes[p];
    if (generation != d->generation || !hash) {
      generation = d->generation;
      hash = llvm::xxh3_64bits(d->doc.text()) | 1;
    }
    h = llvm::xxh3_64bits(p) ^ (hash + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4));
  }
  return h;
}

std::vector<std::string> Project::dependents(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->dependentsOf(path);
}

std::vector<std::string> Project::dependencies(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->dependenciesOf(path);
}

std::string knowledgeJaxVersion(const std::string& knowledgePath) {
  // The same choice as the passes make: the configured table when it loads,
  // else the bundled one (KnowledgeService loads each once per process).
  return knowledge::KnowledgeService::shared().jaxVersion(knowledgePath);
}

void Project::setKnowledgePath(std::string path) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  impl_->options.knowledgePath = std::move(path);
}

std::string Project::knowledgePath() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->options.knowledgePath;
}

void Project::setGpuComputeCapability(std::string capability) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  impl_->options.gpuComputeCapability = std::move(capability);
}

void Project::setGpuSharedMemoryPerBlockOptin(long long bytes) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  impl_->options.gpuSharedMemoryPerBlockOptin = bytes;
}

size_t Project::indexWorkspace(const std::atomic<bool>* cancel) {
  std::vector<std::string> files = impl_->workspacePythonFiles(cancel);
  size_t n = 0;
  for (const std::string& f : files) {
    if (cancel && cancel->load())
      break;
    std::lock_guard lock(impl_->mutex);
    if (impl_->find(f))
      continue;
    impl_->invalidate();
    if (impl_->ensureIndexed(f, 0))
      ++n;
  }
  return n;
}

Project::DiskChange Project::fileChanged(const std::string& path, std::string* why) {
  std::lock_guard lock(impl_->mutex);
  impl_->invalidate();
  DocState* d = impl_->find(path);
  if (d && d->isOpen)
    return DiskChange::OpenDocumentOwnsIt;
  auto text = readSourceFile(path, why);
  if (!text) {
    impl_->forget(path);
    // Dependents see a missing file as a changed generation (0).
    ++impl_->generationCounter;
    return DiskChange::Forgotten;
  }
  if (!d) {
    impl_->ensureIndexed(path, 0);
    return DiskChange::Reread;
  }
  // As the indexer keeps a file: lowered when something asks for it, its
  // names bound now so dependents resolve against the new text.
  d->doc.setText(std::move(*text));
  d->stale = true;
  d->generation = ++impl_->generationCounter;
  impl_->bindGlobals(*d, 0);
  d->depGenerations = impl_->currentDepGenerations(*d);
  return DiskChange::Reread;
}

bool Project::indexFile(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->find(path))
    return false;
  impl_->invalidate();
  return impl_->ensureIndexed(path, 0) != nullptr;
}

bool Project::isIndexed(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->find(path) != nullptr;
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

bool verifyModule(const Project& project, const std::string& path) {
  bool ok = false;
  bool known = project.withModule(path, [&](mlir::ModuleOp module, std::string_view) {
    ok = succeeded(mlir::verify(module.getOperation()));
  });
  return known && ok;
}

} // namespace pallas::analysis
