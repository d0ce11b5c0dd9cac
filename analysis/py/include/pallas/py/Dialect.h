// The `py` dialect (ODS: analysis/dialect/PyOps.td): Python statements and
// expressions as ops. Include only from MLIR-using translation units.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "pallas/py/PyOpsDialect.h.inc"
#include "pallas/py/PyOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/py/PyOpsAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/py/PyOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/py/PyOps.h.inc"
