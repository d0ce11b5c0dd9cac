#include "PassKnowledge.h"

#include "pallas/analysis/detail/Passes.h"

#include <map>
#include <mutex>
#include <string>

namespace pallas::analysis::passes {

std::shared_ptr<const knowledge::KnowledgeBase> knowledgeFor(const ProjectOptions& options) {
  static std::mutex mutex;
  // Keyed by path ("" = bundled). A failed load is cached as null so a bad
  // path is not re-read on every keystroke; the bundled table then answers.
  static std::map<std::string, std::shared_ptr<const knowledge::KnowledgeBase>> cache;
  auto load = [&](const std::string& path) -> std::shared_ptr<const knowledge::KnowledgeBase> {
    if (auto it = cache.find(path); it != cache.end())
      return it->second;
    auto loaded = path.empty() ? knowledge::KnowledgeBase::bundled()
                               : knowledge::KnowledgeBase::fromFile(path);
    std::shared_ptr<const knowledge::KnowledgeBase> base;
    if (loaded)
      base = std::make_shared<const knowledge::KnowledgeBase>(std::move(*loaded.base));
    cache.emplace(path, base);
    return base;
  };
  std::lock_guard lock(mutex);
  if (!options.knowledgePath.empty())
    if (auto base = load(options.knowledgePath))
      return base;
  return load("");
}

} // namespace pallas::analysis::passes
