// The `py` dialect's registration (ODS: analysis/dialect/PyOps.td).
#include "pallas/py/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pallas::py;

#include "pallas/py/PyOpsDialect.cpp.inc"
#include "pallas/py/PyOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/py/PyOpsAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/py/PyOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "pallas/py/PyOps.cpp.inc"

void PyDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/py/PyOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/py/PyOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/py/PyOps.cpp.inc"
      >();
}
