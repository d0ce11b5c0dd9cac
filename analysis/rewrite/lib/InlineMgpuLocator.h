// Where the inline_mgpu ops of one module are, indexed once per request: a
// request with many PLS001 findings asked, per finding, for a walk of the
// whole module (and a syntax lookup per op), so its cost was findings x file
// size. These indexes make each question a lookup.
#pragma once

#include "SourceIndex.h"
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include <map>
#include <string>
#include <vector>

namespace pallas::analysis::rewrite {

// The decorated defs of a module's inline_mgpu ops, for "which region holds
// this position" (the hover and findInlineMgpu).
class InlineMgpuDefs {
public:
  InlineMgpuDefs(mlir::ModuleOp module, const SourceIndex& src);
  // The op whose decorated def (decorator + def) contains `pos`, the
  // innermost when defs nest; null when none.
  dialect::InlineMgpuOp innermostAt(SourcePos pos) const;

private:
  struct Def {
    SourcePos start, end;
    uint32_t size = 0; // bytes; the smaller of two equal ranges wins, as before
    dialect::InlineMgpuOp op;
    int enclosing = -1; // index of the nearest def that contains this one
  };
  std::vector<Def> defs_; // by start, outer before inner
};

// The ops a call at a position can bind (pallas.inline_mgpu, call_indirect,
// call), in walk order, and the module's functions by name.
class InlineMgpuCalls {
public:
  explicit InlineMgpuCalls(mlir::ModuleOp module);
  // findInlineMgpuCalledAt(module, pos), without walking the module.
  detail::CalledInlineMgpu at(SourcePos pos) const;
  // inlineMgpuOfFunction(module, symbol), without scanning the functions.
  dialect::InlineMgpuOp ofFunction(llvm::StringRef symbol) const;

private:
  std::map<SourcePos, std::vector<mlir::Operation*>> byPos_;
  std::map<std::string, mlir::Operation*, std::less<>> functions_;
  mutable std::map<std::string, dialect::InlineMgpuOp, std::less<>> firstOf_;
};

} // namespace pallas::analysis::rewrite
