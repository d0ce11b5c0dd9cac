#include "CompiledPath.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

CompiledPath compiledPathOf(pd::LaunchOp launch, llvm::StringRef assumePath) {
  if (!assumePath.empty())
    return assumePath == pd::path::kCompiled ? CompiledPath::Certain : CompiledPath::No;
  bool compiled = false, other = false;
  for (mlir::Attribute a : launch.getPaths()) {
    llvm::StringRef name = pd::enumName(a);
    if (name == pd::path::kCompiled)
      compiled = true;
    else if (name == pd::path::kUnknown)
      compiled = other = true;
    else if (!name.empty())
      other = true;
  }
  return !compiled ? CompiledPath::No : other ? CompiledPath::May : CompiledPath::Certain;
}

} // namespace pallas::analysis::passes
