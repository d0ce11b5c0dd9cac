// PLS004: an inline_mgpu call that does not match the decorator's declared
// types fails when JAX traces it, on every path: the argument count must
// match `arg_types`, each `plgpu.RefType()` slot takes a Ref and every other
// slot an array, and a region without `return_type` returns None.
#pragma once

#include "KernelWalk.h"

#include <vector>

namespace pallas::analysis::passes {

void checkInlineMgpuSignature(const BoundPrimitive& call, const knowledge::KnowledgeBase& kb,
                              std::vector<Finding>& out);

} // namespace pallas::analysis::passes
