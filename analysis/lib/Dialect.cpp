// The `pallas` dialect: registration, the `[a, b]` syntax of enum arrays,
// and the verifiers of what ODS does not check itself (dialect.md is the
// contract).
#include "pallas/analysis/detail/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "pallas/analysis/detail/Apis.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pallas::dialect;

#include "pallas/analysis/detail/PallasOpsDialect.cpp.inc"
#include "pallas/analysis/detail/PallasOpsEnums.cpp.inc"
#include "pallas/analysis/detail/PallasOpsInterfaces.cpp.inc"

// ---- custom<Paths>, custom<Origins>, custom<AllocKinds>: `[a, b]` ---------------
namespace {

template <typename AttrT> ParseResult parseEnumList(OpAsmParser& parser, ArrayAttr& out) {
  using Enum = decltype(std::declval<AttrT>().getValue());
  SmallVector<Attribute> items;
  auto one = [&]() -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    StringRef word;
    if (parser.parseKeyword(&word))
      return failure();
    std::optional<Enum> value = symbolizeEnum<Enum>(word);
    if (!value)
      return parser.emitError(at) << "unknown " << AttrT::getMnemonic() << " '" << word << "'";
    items.push_back(AttrT::get(parser.getContext(), *value));
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, one))
    return failure();
  out = parser.getBuilder().getArrayAttr(items);
  return success();
}

template <typename AttrT> void printEnumList(OpAsmPrinter& printer, ArrayAttr list) {
  printer << '[';
  llvm::interleaveComma(list, printer, [&](Attribute a) {
    if (auto e = llvm::dyn_cast<AttrT>(a))
      printer << stringifyEnum(e.getValue());
    else
      printer.printAttribute(a);
  });
  printer << ']';
}

ParseResult parsePaths(OpAsmParser& p, ArrayAttr& out) {
  return parseEnumList<LaunchPathAttr>(p, out);
}
void printPaths(OpAsmPrinter& p, Operation*, ArrayAttr list) {
  printEnumList<LaunchPathAttr>(p, list);
}
ParseResult parseOrigins(OpAsmParser& p, ArrayAttr& out) {
  return parseEnumList<OriginAttr>(p, out);
}
void printOrigins(OpAsmPrinter& p, Operation*, ArrayAttr list) {
  printEnumList<OriginAttr>(p, list);
}
ParseResult parseAllocKinds(OpAsmParser& p, ArrayAttr& out) {
  return parseEnumList<AllocKindAttr>(p, out);
}
void printAllocKinds(OpAsmPrinter& p, Operation*, ArrayAttr list) {
  printEnumList<AllocKindAttr>(p, list);
}
ParseResult parseArgTypeKinds(OpAsmParser& p, ArrayAttr& out) {
  return parseEnumList<ArgTypeKindAttr>(p, out);
}
void printArgTypeKinds(OpAsmPrinter& p, Operation*, ArrayAttr list) {
  printEnumList<ArgTypeKindAttr>(p, list);
}

} // namespace

#define GET_ATTRDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/analysis/detail/PallasOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "pallas/analysis/detail/PallasOps.cpp.inc"

void PallasDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/analysis/detail/PallasOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/analysis/detail/PallasOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/analysis/detail/PallasOps.cpp.inc"
      >();
}

namespace pallas::dialect {

llvm::StringRef enumName(Attribute attr) {
  if (auto s = llvm::dyn_cast_or_null<StringAttr>(attr))
    return s.getValue();
  if (auto e = llvm::dyn_cast_or_null<OriginAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<LaunchPathAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<AllocKindAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<InterpretSourceAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<LaunchFormAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<FuncKindAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<ClosureKindAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<ConstantKindAttr>(attr))
    return stringifyEnum(e.getValue());
  if (auto e = llvm::dyn_cast_or_null<ArgTypeKindAttr>(attr))
    return stringifyEnum(e.getValue());
  return "";
}

// The per-operand attributes of CallOperandsOpInterface: one entry per
// operand, an arg index exactly for origin `arg` (ODS checks each origin is
// one of the enum's).
LogicalResult verifyCallOperands(Operation* op) {
  auto ops = llvm::cast<CallOperandsOpInterface>(op);
  size_t numOperands = ops.getArgs().size();
  ArrayAttr origins = ops.getOrigins();
  llvm::ArrayRef<int64_t> argIndices = ops.getArgIndices();
  ArrayAttr keywords = ops.getKeywordsOrNull();
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
    bool isArg = ops.getOrigin(i) == Origin::Arg;
    if (isArg != (argIndices[i] >= 0))
      return op->emitOpError() << "operand " << i
                               << ": arg_indices must be >= 0 exactly for origin 'arg'";
  }
  return success();
}

} // namespace pallas::dialect

LogicalResult FuncOp::verify() {
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
  if (getPaths().empty())
    return emitOpError() << "selects no execution path";
  if (getBodyFile() && !getBody())
    return emitOpError() << "has body_file without body";
  return success();
}

LogicalResult ScopeOp::verify() {
  auto& block = getBody().front();
  if (getArgOrigins().size() != block.getNumArguments())
    return emitOpError() << "has " << getArgOrigins().size() << " arg_origins for "
                         << block.getNumArguments() << " block arguments";
  for (Attribute a : getArgOrigins())
    if (llvm::cast<OriginAttr>(a).getValue() == Origin::Arg)
      return emitOpError() << "has invalid block argument origin 'arg'";
  if (auto allocs = getAllocations(); allocs && allocs->size() != block.getNumArguments())
    return emitOpError() << "has " << allocs->size() << " allocations for "
                         << block.getNumArguments() << " block arguments";
  return success();
}
