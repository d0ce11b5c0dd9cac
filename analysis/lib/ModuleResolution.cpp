// Imports between the user's files (names::ModuleResolver): the file a
// module name stands for, the names a file exports, documents indexed from
// disk on demand, and the workspace's Python files.
#include "ProjectImpl.h"
#include "pallas/analysis/ModuleCandidates.h"
#include "pallas/analysis/SourceFile.h"
#include "pallas/analysis/WorkspaceFiles.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace pallas::analysis {

bool Project::Impl::fileExists(const std::string& path) {
  if (docs.count(path))
    return true;
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::optional<std::string> Project::Impl::moduleFile(const std::string& dotted, int level,
                                                     const std::string& fromPath) {
  std::lock_guard resolving(resolveMutex);
  std::vector<fs::path> roots(options.workspaceRoots.begin(), options.workspaceRoots.end());
  for (const fs::path& candidate : moduleCandidates(dotted, level, fromPath, roots))
    if (fileExists(candidate.string()))
      return candidate.string();
  return std::nullopt;
}

std::optional<names::Binding> Project::Impl::exported(const std::string& file,
                                                      const std::string& name, int depth) {
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

std::vector<std::string> Project::Impl::exportedNames(const std::string& file, int depth) {
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

DocState* Project::Impl::ensureIndexed(const std::string& path, int depth) {
  auto it = docs.find(path);
  if (it != docs.end())
    return it->second.get();
  if (building.count(path))
    return nullptr;
  // Regular files of bounded size only (a FIFO named like a module would
  // block the indexer forever).
  auto text = readSourceFile(path);
  if (!text)
    return nullptr;
  auto d = std::make_unique<DocState>();
  d->path = path;
  d->doc.setText(std::move(*text));
  d->generation = ++generationCounter;
  DocState* raw = d.get();
  docs[path] = std::move(d);
  bindGlobals(*raw, depth);
  raw->depGenerations = currentDepGenerations(*raw);
  raw->stale = true; // not lowered yet
  return raw;
}

void Project::Impl::refreshGlobals(DocState& d, int depth) {
  if (building.count(d.path) || d.depGenerations == currentDepGenerations(d))
    return;
  bindGlobals(d, depth);
  d.depGenerations = currentDepGenerations(d);
  d.stale = true;
  d.generation = ++generationCounter;
}

void Project::Impl::bindGlobals(DocState& d, int depth) {
  building.insert(d.path);
  d.globals.build(d.doc, d.path, this, depth);
  building.erase(d.path);
}

std::map<std::string, uint64_t> Project::Impl::currentDepGenerations(const DocState& d) {
  std::map<std::string, uint64_t> gens;
  for (const std::string& dep : d.globals.dependencies()) {
    auto it = docs.find(dep);
    gens[dep] = it == docs.end() ? 0 : it->second->generation;
  }
  return gens;
}

std::vector<std::string>
Project::Impl::workspacePythonFiles(const std::atomic<bool>* cancel) const {
  return analysis::workspacePythonFiles(options.workspaceRoots, cancel);
}

} // namespace pallas::analysis
