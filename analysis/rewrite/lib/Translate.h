// pallas ops of an inline_mgpu region -> StdProgram, or the op that blocks.
#pragma once

#include "SourceIndex.h"
#include "StdProgram.h"
#include "pallas/analysis/detail/Dialect.h"

#include <optional>
#include <string>

namespace pallas::analysis::rewrite {

// 0-based position of an op's own syntax node (the callee end of an inlined
// CallSiteLoc: the op sits in the body); path "" when unknown.
struct OpPos {
  std::string file;
  SourcePos pos;
  bool valid = false;
};
OpPos opPos(mlir::Location loc);

struct Translation {
  std::optional<StdProgram> program; // set when every op has a standard equivalent
  std::string blocker;               // otherwise: what blocks, e.g. "ctx.async_copy (TMA)"
  OpPos blockerPos;
};

// `params`: the def's parameter texts after the launch context; `jnp`/`lax`:
// the names the printed code uses for jax.numpy and jax.lax.
Translation translateInlineMgpu(dialect::InlineMgpuOp op, const SourceIndex& src,
                                std::vector<std::string> params, const std::string& jnp,
                                const std::string& lax);

} // namespace pallas::analysis::rewrite
