// The `pallas` MLIR dialect (ODS: analysis/dialect/PallasOps.td, contract:
// analysis/docs/dialect.md). Internal: include only from MLIR-using TUs of
// analysis/ (lowering, passes, tests); it pulls in MLIR IR headers.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "pallas/analysis/detail/PallasOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/analysis/detail/PallasOps.h.inc"

namespace pallas::dialect {

// The vocabulary of string attributes (see dialect.md). Kept as constants so
// the lowering, the verifier and the passes spell them the same way.
namespace origin {
inline constexpr const char* kValue = "value";
inline constexpr const char* kArg = "arg";
inline constexpr const char* kRunScoped = "run_scoped";
inline constexpr const char* kAcc = "acc";
inline constexpr const char* kRunState = "run_state";
inline constexpr const char* kPipeline = "pipeline";
inline constexpr const char* kRef = "ref";
bool isValid(llvm::StringRef s);
// True for every origin but "value": the operand is (or, for "arg", may be) a Ref.
inline bool mayBeRef(llvm::StringRef s) {
  return s != kValue;
}
} // namespace origin

namespace path {
inline constexpr const char* kCompiled = "compiled";
inline constexpr const char* kInterpretHlo = "interpret_hlo";
inline constexpr const char* kInterpretGpu = "interpret_gpu";
inline constexpr const char* kUnknown = "unknown";
bool isValid(llvm::StringRef s);
} // namespace path

} // namespace pallas::dialect
