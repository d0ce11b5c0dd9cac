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
#include "pallas/analysis/detail/PallasOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsAttrs.h.inc"

namespace pallas::dialect {

// Module attribute: the Pallas backends the file imports ("mosaic_gpu",
// "mosaic_tpu", "triton"), for launches whose arguments name none.
inline constexpr const char* kImportedBackendsAttr = "pallas.imported_backends";
// The verifier of CallOperandsOpInterface (Dialect.cpp).
mlir::LogicalResult verifyCallOperands(mlir::Operation* op);
} // namespace pallas::dialect
#include "pallas/analysis/detail/PallasOpsInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/analysis/detail/PallasOps.h.inc"

namespace pallas::dialect {

// The names of the enum cases (PallasEnums.td), for code that works with them
// as text: stringifyOrigin(Origin::acc) == origin::kAcc.
namespace origin {
inline constexpr const char* kValue = "value";
inline constexpr const char* kArg = "arg";
inline constexpr const char* kRunScoped = "run_scoped";
inline constexpr const char* kAcc = "acc";
inline constexpr const char* kRunState = "run_state";
inline constexpr const char* kPipeline = "pipeline";
inline constexpr const char* kRef = "ref";
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
} // namespace path

// The case name of a pallas enum attribute (`#pallas<origin acc>` -> "acc"),
// or the value of a StringAttr; "" for anything else. For readers that walk
// the arrays of enum attributes as text.
llvm::StringRef enumName(mlir::Attribute attr);

} // namespace pallas::dialect
