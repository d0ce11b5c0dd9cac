// The `pallas` dialect: registration and the verifiers of the string
// vocabularies that ODS cannot express (dialect.md is the contract).
#include "pallas/analysis/detail/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "pallas/analysis/detail/Apis.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pallas::dialect;

#include "pallas/analysis/detail/PallasOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "pallas/analysis/detail/PallasOps.cpp.inc"

void PallasDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/analysis/detail/PallasOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/analysis/detail/PallasOps.cpp.inc"
      >();
}

namespace pallas::dialect {

bool origin::isValid(llvm::StringRef s) {
  return s == kValue || s == kArg || s == kRunScoped || s == kAcc || s == kRunState ||
         s == kPipeline || s == kRef;
}

bool path::isValid(llvm::StringRef s) {
  return s == kCompiled || s == kInterpretHlo || s == kInterpretGpu || s == kUnknown;
}

} // namespace pallas::dialect

namespace {

// The per-operand attributes shared by prim/call/call_indirect/scope/opaque/
// inline_mgpu: one entry per operand, valid origins, arg index iff "arg".
LogicalResult verifyOperandInfo(Operation* op, size_t numOperands, ArrayAttr origins,
                                llvm::ArrayRef<int64_t> argIndices, ArrayAttr keywords) {
  if (origins.size() != numOperands)
    return op->emitOpError() << "has " << origins.size() << " origins for " << numOperands
                             << " operands";
  if (argIndices.size() != numOperands)
    return op->emitOpError() << "has " << argIndices.size() << " arg_indices for " << numOperands
                             << " operands";
  if (keywords && keywords.size() != numOperands)
    return op->emitOpError() << "has " << keywords.size() << " keywords for " << numOperands
                             << " operands";
  for (size_t i = 0; i < numOperands; ++i) {
    auto s = llvm::cast<StringAttr>(origins[i]).getValue();
    if (!origin::isValid(s))
      return op->emitOpError() << "has unknown origin '" << s << "'";
    bool isArg = s == origin::kArg;
    if (isArg != (argIndices[i] >= 0))
      return op->emitOpError() << "operand " << i
                               << ": arg_indices must be >= 0 exactly for origin 'arg'";
  }
  return success();
}

} // namespace

LogicalResult FuncOp::verify() {
  auto kind = getKind();
  if (kind != "def" && kind != "method" && kind != "module")
    return emitOpError() << "has unknown kind '" << kind << "'";
  if (getBody().front().getNumArguments() != getArgNames().size())
    return emitOpError() << "has " << getBody().front().getNumArguments() << " body arguments for "
                         << getArgNames().size() << " arg_names";
  if (getDecorators().front().getNumArguments() != 0)
    return emitOpError() << "decorators region takes no arguments";
  return success();
}

LogicalResult LaunchOp::verify() {
  auto api = getApi();
  if (!pallas::analysis::detail::isLaunchApi(api))
    return emitOpError() << "has unknown launch api '" << api << "'";
  auto form = getForm();
  if (form != "call" && form != "decorator" && form != "partial")
    return emitOpError() << "has unknown form '" << form << "'";
  if (getPaths().empty())
    return emitOpError() << "selects no execution path";
  for (Attribute a : getPaths())
    if (!path::isValid(llvm::cast<StringAttr>(a).getValue()))
      return emitOpError() << "has unknown path " << a;
  if (getBodyFile() && !getBody())
    return emitOpError() << "has body_file without body";
  return success();
}

LogicalResult PrimOp::verify() {
  return verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), getKeywords());
}
LogicalResult InlineMgpuOp::verify() {
  return verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), {});
}
LogicalResult CallOp::verify() {
  return verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), getKeywords());
}
LogicalResult CallIndirectOp::verify() {
  return verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), getKeywords());
}
LogicalResult ScopeOp::verify() {
  if (failed(
          verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), getKeywords())))
    return failure();
  auto& block = getBody().front();
  if (getArgOrigins().size() != block.getNumArguments())
    return emitOpError() << "has " << getArgOrigins().size() << " arg_origins for "
                         << block.getNumArguments() << " block arguments";
  for (Attribute a : getArgOrigins()) {
    auto s = llvm::cast<StringAttr>(a).getValue();
    if (!origin::isValid(s) || s == origin::kArg)
      return emitOpError() << "has invalid block argument origin '" << s << "'";
  }
  if (auto allocs = getAllocations(); allocs && allocs->size() != block.getNumArguments())
    return emitOpError() << "has " << allocs->size() << " allocations for "
                         << block.getNumArguments() << " block arguments";
  return success();
}
LogicalResult OpaqueOp::verify() {
  return verifyOperandInfo(*this, getArgs().size(), getOrigins(), getArgIndices(), {});
}
