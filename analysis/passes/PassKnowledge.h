// The JAX knowledge table the discharge passes decide from: the table named
// by ProjectOptions::knowledgePath (the user's own JAX, extracted by the
// server), else the table bundled with pallas-lsp (the pinned JAX), from the
// process-wide KnowledgeService (which the hover reads too).
#pragma once

#include "pallas/analysis/Project.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <memory>

namespace pallas::analysis::passes {

// Null only when neither the configured nor the bundled table loads.
std::shared_ptr<const knowledge::KnowledgeBase> knowledgeFor(const ProjectOptions& options);

} // namespace pallas::analysis::passes
