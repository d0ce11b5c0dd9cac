// The index of callers in the workspace (see the header).
#include "WorkspaceCallers.h"

#include "pallas/analysis/ImportScan.h"
#include "pallas/analysis/SourceFile.h"
#include "pallas/analysis/WorkspaceFiles.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace pallas::server {

namespace {

std::string normal(const std::string& path) {
  return fs::path(path).lexically_normal().generic_string();
}

} // namespace

WorkspaceCallers::WorkspaceCallers(std::vector<std::string> roots) : roots_(std::move(roots)) {}

std::vector<std::string> WorkspaceCallers::callerImports(const std::string& path,
                                                         std::string_view text) const {
  // Most files of a workspace choose nothing: their imports are not kept.
  if (!analysis::mayChooseForLaunches(text))
    return {};
  std::vector<fs::path> roots(roots_.begin(), roots_.end());
  std::vector<std::string> out = analysis::workspaceImportedPaths(path, text, roots);
  // A package's __init__ re-exports its modules' functions (`from . import
  // build` here, `from .matmul import build` there): this file calls what
  // the __init__ imports. One hop, read now (an edit of the __init__ alone
  // does not refresh the callers that go through it).
  const size_t direct = out.size();
  for (size_t i = 0; i < direct; ++i) {
    if (fs::path(out[i]).filename() != "__init__.py" || normal(out[i]) == path)
      continue;
    if (std::optional<std::string> init = analysis::readSourceFile(out[i])) {
      std::vector<std::string> reexported = analysis::workspaceImportedPaths(out[i], *init, roots);
      out.insert(out.end(), reexported.begin(), reexported.end());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // Candidates that are not files (`a/b.py` when `a/b/__init__.py` is the
  // module) are kept: the file may be created later, and the index is
  // asked by existing paths only.
  return out;
}

void WorkspaceCallers::setLocked(const std::string& path, std::vector<std::string> imports) {
  if (auto it = imports_.find(path); it != imports_.end()) {
    for (const std::string& imported : it->second)
      if (auto c = callers_.find(imported); c != callers_.end()) {
        c->second.erase(path);
        if (c->second.empty())
          callers_.erase(c);
      }
    imports_.erase(it);
  }
  if (imports.empty())
    return;
  for (const std::string& imported : imports)
    if (imported != path)
      callers_[imported].insert(path);
  imports_.emplace(path, std::move(imports));
}

size_t WorkspaceCallers::build(const std::atomic<bool>& cancel) {
  {
    std::lock_guard lock(mutex_);
    building_ = true;
    updatedWhileBuilding_.clear();
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> found;
  for (const std::string& file : analysis::workspacePythonFiles(roots_, &cancel)) {
    if (cancel.load())
      break;
    std::optional<std::string> text = analysis::readSourceFile(file);
    if (!text)
      continue;
    std::string path = normal(file);
    if (std::vector<std::string> imports = callerImports(path, *text); !imports.empty())
      found.emplace_back(std::move(path), std::move(imports));
  }
  std::lock_guard lock(mutex_);
  building_ = false;
  if (cancel.load())
    return 0;
  for (auto& [path, imports] : found)
    if (!updatedWhileBuilding_.count(path)) // an update read a newer text
      setLocked(path, std::move(imports));
  updatedWhileBuilding_.clear();
  built_ = true;
  return found.size();
}

bool WorkspaceCallers::built() const {
  std::lock_guard lock(mutex_);
  return built_;
}

std::vector<std::string> WorkspaceCallers::update(const std::string& file,
                                                  std::optional<std::string_view> text) {
  std::string path = normal(file);
  std::vector<std::string> imports = text ? callerImports(path, *text) : std::vector<std::string>{};
  std::lock_guard lock(mutex_);
  if (building_)
    updatedWhileBuilding_.insert(path);
  std::vector<std::string> touched = imports;
  if (auto it = imports_.find(path); it != imports_.end())
    touched.insert(touched.end(), it->second.begin(), it->second.end());
  setLocked(path, std::move(imports));
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  return touched;
}

std::vector<std::string> WorkspaceCallers::callersOf(const std::string& file) const {
  std::string path = normal(file);
  std::lock_guard lock(mutex_);
  auto it = callers_.find(path);
  if (it == callers_.end())
    return {};
  return {it->second.begin(), it->second.end()};
}

} // namespace pallas::server
