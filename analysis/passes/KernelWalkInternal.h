// What the parts of the KernelWalk (KernelWalk.cpp, KernelWalkRefStates.cpp,
// KernelWalkCallables.cpp) share. Private to analysis/passes.
#pragma once

#include "KernelWalk.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;
using Kind = RefState::Kind;

// Primitives that stand for structure the walk follows itself (their
// bodies), not bindings (KernelWalk.cpp).
bool isStructuralPrimitive(llvm::StringRef name);

inline RefState discharged(Phase phase, const char* what) {
  return {Kind::Discharged, phase, what};
}

inline RefState plainRef(const char* what) {
  return {Kind::Ref, Phase::Lowering, what};
}

inline llvm::StringRef strAt(mlir::ArrayAttr a, unsigned i) {
  if (!a || i >= a.size())
    return "";
  return pd::enumName(a[i]); // keywords, or the name of an origin
}

} // namespace pallas::analysis::passes
