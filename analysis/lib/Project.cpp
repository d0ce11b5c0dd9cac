// Placeholder Project: keeps document text only. The analysis core replaces
// this with the tree-sitter front end and the incremental MLIR module.
#include "pallas/analysis/Project.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace pallas::analysis {

struct Project::Impl {
  ProjectOptions options;
  mutable std::mutex mutex;
  std::map<std::string, std::string> texts;
};

Project::Project(ProjectOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}
Project::~Project() = default;

UpdateStats Project::setDocument(const std::string& path, std::string text) {
  std::lock_guard lock(impl_->mutex);
  impl_->texts[path] = std::move(text);
  return {};
}

UpdateStats Project::editDocument(const std::string& path, const std::vector<ByteEdit>& edits) {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->texts.find(path);
  if (it == impl_->texts.end()) throw std::invalid_argument("document is not open: " + path);
  for (const ByteEdit& e : edits) {
    if (e.startByte > e.oldEndByte || e.oldEndByte > it->second.size())
      throw std::out_of_range("edit outside the document");
    it->second.replace(e.startByte, e.oldEndByte - e.startByte, e.newText);
  }
  return {};
}

void Project::closeDocument(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  impl_->texts.erase(path);
}

bool Project::hasDocument(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->texts.count(path) != 0;
}

std::string Project::documentText(const std::string& path) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->texts.find(path);
  return it == impl_->texts.end() ? std::string() : it->second;
}

std::string Project::mlirText(const std::string&) const { return "module {\n}\n"; }
std::vector<Finding> Project::findings(const std::string&) const { return {}; }
std::vector<std::string> Project::dependents(const std::string&) const { return {}; }
std::string Project::knowledgeJaxVersion() const { return "unknown"; }

} // namespace pallas::analysis
