#include "pallas/knowledge/KnowledgeService.h"

namespace pallas::knowledge {

KnowledgeService& KnowledgeService::shared() {
  // Never destroyed: the server's background environment worker may still
  // load a table while the process exits and runs static destructors.
  static KnowledgeService* service = new KnowledgeService;
  return *service;
}

std::shared_ptr<const KnowledgeBase> KnowledgeService::load(const std::string& path) {
  if (auto it = tables_.find(path); it != tables_.end())
    return it->second;
  auto loaded = path.empty() ? KnowledgeBase::bundled() : KnowledgeBase::fromFile(path);
  std::shared_ptr<const KnowledgeBase> base;
  if (loaded)
    base = std::make_shared<const KnowledgeBase>(std::move(*loaded.base));
  tables_.emplace(path, base); // a failed load is remembered too
  return base;
}

std::shared_ptr<const KnowledgeBase> KnowledgeService::table(const std::string& configuredPath) {
  std::lock_guard lock(mutex_);
  if (!configuredPath.empty())
    if (auto base = load(configuredPath))
      return base;
  return load("");
}

std::string KnowledgeService::jaxVersion(const std::string& configuredPath) {
  auto base = table(configuredPath);
  return base ? base->jaxVersion() : std::string("unknown");
}

} // namespace pallas::knowledge
