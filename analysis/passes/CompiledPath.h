// Whether a launch runs on the compiled (Mosaic GPU) path: the resource and
// lowering checks (PLS005-PLS009) only apply there, since the interpreters
// allocate no shared memory and never lower.
#pragma once

#include "pallas/analysis/detail/Dialect.h"

#include "llvm/ADT/StringRef.h"

namespace pallas::analysis::passes {

// Certain: compiled is the only path the launch selects (an error).
// May: compiled among others, or the path is unknown (a warning).
// No: the launch never runs compiled.
enum class CompiledPath { No, Certain, May };

// `assumePath` is `check --assume-path`'s value; when set it replaces the
// launch's own paths.
CompiledPath compiledPathOf(dialect::LaunchOp launch, llvm::StringRef assumePath = {});

} // namespace pallas::analysis::passes
