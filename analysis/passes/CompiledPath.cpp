#include "CompiledPath.h"

#include "mlir/IR/BuiltinOps.h"

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

LaunchTarget launchTargetOf(pd::LaunchOp launch) {
  if (auto backend = launch.getBackend())
    return *backend == "mosaic_gpu" ? LaunchTarget::MosaicGpu : LaunchTarget::OtherBackend;
  if (launch.getApi().starts_with("plgpu."))
    return LaunchTarget::MosaicGpu;
  auto module = launch->getParentOfType<mlir::ModuleOp>();
  auto imported =
      module ? module->getAttrOfType<mlir::ArrayAttr>(pd::kImportedBackendsAttr) : nullptr;
  if (!imported || imported.empty())
    return LaunchTarget::Unstated;
  if (imported.size() == 1 && llvm::cast<mlir::StringAttr>(imported[0]).getValue() == "mosaic_gpu")
    return LaunchTarget::MosaicGpu;
  return LaunchTarget::OtherBackend;
}

CompiledPath mosaicGpuCompiledPathOf(pd::LaunchOp launch, llvm::StringRef assumePath) {
  if (launchTargetOf(launch) != LaunchTarget::MosaicGpu)
    return CompiledPath::No;
  return compiledPathOf(launch, assumePath);
}

} // namespace pallas::analysis::passes
