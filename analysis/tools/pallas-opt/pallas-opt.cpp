// pallas-opt: mlir-opt for the `pallas` dialect. Parses .mlir files of the
// dialect (what `pallas-lsp` lowers a Python file to), verifies and prints
// them, and runs any analysis pass of analysis/passes/Passes.td on them:
//   pallas-opt k.mlir --pallas-discharge
// Findings come out as MLIR diagnostics ("PLS001: ..."), the path matrix as
// remarks, so test/mlir/ checks them with FileCheck or -verify-diagnostics.
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/PallasPass.h"

int main(int argc, char** argv) {
  pallas::analysis::detail::registerPallasPasses();
  mlir::DialectRegistry registry;
  registry.insert<pallas::dialect::PallasDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "pallas-opt: the pallas dialect and its analysis passes\n", registry));
}
