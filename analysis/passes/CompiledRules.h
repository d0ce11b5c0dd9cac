// The compiled path's own failures that are not a primitive's lowering rule
// (CompiledRules.cpp): Mosaic GPU's resource estimation rejects a function
// with a custom derivative called in a kernel. Shared by both engines.
#pragma once

#include "pallas/knowledge/KnowledgeBase.h"

#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

// What calling `api` in a compiled kernel binds that resource estimation
// rejects, and the message's holes: the chain of calls to the custom
// derivative, and JAX's own one-expression body as the fix when it has one.
struct CustomDerivativeUse {
  const knowledge::PrimitiveFacts* prim = nullptr;
  std::vector<std::string> messageHoles;
};
// nullopt when `api` binds no such primitive unconditionally (or the
// installed JAX estimates it).
std::optional<CustomDerivativeUse> customDerivativeUse(const knowledge::KnowledgeBase& kb,
                                                       const std::string& api);

} // namespace pallas::analysis::passes
