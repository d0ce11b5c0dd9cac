#include "PassKnowledge.h"

#include "pallas/analysis/detail/Passes.h"
#include "pallas/knowledge/KnowledgeService.h"

namespace pallas::analysis::passes {

std::shared_ptr<const knowledge::KnowledgeBase> knowledgeFor(const ProjectOptions& options) {
  return knowledge::KnowledgeService::shared().table(options.knowledgePath);
}

} // namespace pallas::analysis::passes
