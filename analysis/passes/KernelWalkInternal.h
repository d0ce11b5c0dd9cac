// What the parts of the KernelWalk (KernelWalk.cpp, KernelWalkRefStates.cpp,
// KernelWalkCallables.cpp) share. Private to analysis/passes.
#pragma once

#include "KernelWalk.h"

namespace pallas::analysis::passes {

using Kind = RefState::Kind;

inline RefState discharged(Phase phase, const char* what) {
  return {Kind::Discharged, phase, what};
}

inline RefState plainRef(const char* what) {
  return {Kind::Ref, Phase::Lowering, what};
}

inline llvm::StringRef strAt(mlir::ArrayAttr a, unsigned i) {
  if (!a || i >= a.size())
    return "";
  auto s = llvm::dyn_cast<mlir::StringAttr>(a[i]);
  return s ? s.getValue() : "";
}

} // namespace pallas::analysis::passes
