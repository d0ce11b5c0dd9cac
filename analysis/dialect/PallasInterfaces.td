// The per-operand attributes six ops share (prim, call, call_indirect,
// scope, opaque, inline_mgpu): one entry per operand of `args`, in order.
// Passes read them through this interface instead of each op's getters, and
// its verifier checks them once for all six (analysis/docs/dialect.md,
// "Per-operand information").
#ifndef PALLAS_INTERFACES_TD
#define PALLAS_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Pallas_CallOperands : OpInterface<"CallOperandsOpInterface"> {
  let cppNamespace = "::pallas::dialect";
  let description = [{
    `origins[i]` says where operand i of `args` comes from when it is (or may
    be) a Ref; `arg_indices[i]` is the parameter index for origin `arg`, -1
    otherwise; `keywords[i]` the keyword it was passed with ("" positional;
    opaque and inline_mgpu have no keywords).
  }];
  let methods = [
    InterfaceMethod<"The operands the arrays describe (a call_indirect's callee excluded).",
      "::mlir::Operation::operand_range", "getArgs">,
    InterfaceMethod<"One origin per operand.", "::mlir::ArrayAttr", "getOrigins">,
    InterfaceMethod<"One parameter index per operand (-1 unless origin `arg`).",
      "::llvm::ArrayRef<int64_t>", "getArgIndices">,
    InterfaceMethod<"One keyword per operand; null for ops without keywords.",
      "::mlir::ArrayAttr", "getKeywordsOrNull", (ins), [{}], [{
        return $_op->template getAttrOfType<::mlir::ArrayAttr>("keywords");
      }]>,
  ];
  let extraSharedClassDeclaration = [{
    // The origin of operand `i` of `args`.
    ::pallas::dialect::Origin getOrigin(unsigned i) {
      return ::llvm::cast<::pallas::dialect::OriginAttr>($_op.getOrigins()[i]).getValue();
    }
    // Its parameter index (-1 unless the origin is `arg`).
    int64_t getArgIndex(unsigned i) { return $_op.getArgIndices()[i]; }
    // Its keyword ("" when positional or the op has none).
    ::llvm::StringRef getKeyword(unsigned i) {
      ::mlir::ArrayAttr k = $_op.getKeywordsOrNull();
      return k && i < k.size() ? ::llvm::cast<::mlir::StringAttr>(k[i]).getValue() : "";
    }
  }];
  let verify = [{ return ::pallas::dialect::verifyCallOperands($_op); }];
}

#endif // PALLAS_INTERFACES_TD
