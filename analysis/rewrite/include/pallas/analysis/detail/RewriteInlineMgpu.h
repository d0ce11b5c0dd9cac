// The MLIR-level entry of the inline_mgpu rewrite, for the discharge passes:
// when a pass creates a PLS001 finding for a `pallas.inline_mgpu` op it calls
//   if (auto r = detail::rewriteInlineMgpuOp(op, text); r.fix)
//     finding.fixes.push_back(*r.fix);
// Internal: includes the dialect (MLIR IR headers).
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/detail/Dialect.h"

#include <string_view>

namespace pallas::analysis::detail {

// Decide whether `op`'s body has a standard-Pallas equivalent; when it has,
// the Fix replaces the decorated def (decorator + def) by a plain def of the
// same name taking the same arguments minus the launch context, so call
// sites keep working. `text` is the document text the op was lowered from
// (locations index into it); `path` defaults to the op's file.
RewriteResult rewriteInlineMgpuOp(dialect::InlineMgpuOp op, std::string_view text);

// The inline_mgpu op whose decorated def contains `pos` (0-based), or null.
dialect::InlineMgpuOp findInlineMgpu(mlir::ModuleOp module, std::string_view text, SourcePos pos);

// The inline_mgpu op a call at `pos` binds (a PLS001 finding sits on the
// call JAX blames): the op inside the called closure or pallas.func, or the
// op itself when it is at `pos`. For a callee in another document the op is
// null and `calleeFile`/`calleeSymbol` say where to look.
struct CalledInlineMgpu {
  dialect::InlineMgpuOp op;
  std::string calleeFile, calleeSymbol;
};
CalledInlineMgpu findInlineMgpuCalledAt(mlir::ModuleOp module, SourcePos pos);
// The first inline_mgpu op inside the pallas.func `symbol` of `module`.
dialect::InlineMgpuOp inlineMgpuOfFunction(mlir::ModuleOp module, llvm::StringRef symbol);

} // namespace pallas::analysis::detail
