// A rule of the compiled (Mosaic GPU) path that is not a primitive's
// lowering rule: before lowering a kernel, Mosaic GPU estimates its
// resources equation by equation (`_estimate_resources` in
// jax/_src/pallas/mosaic_gpu/lowering.py) and raises "Resource estimation
// does not support <primitive>" for an equation whose params hold a jaxpr
// and whose primitive has no registered estimator. JAX 0.10.2 registers one
// for cond, scan, while, jit, run_scoped, run_state, core_map ... but not
// for remat2, which `jax.checkpoint` binds (docs/analysis.md 5). Which API
// binds which primitive ("higherOrderApis"), which primitives have an
// estimator ("mosaicGpuResourceEstimators") and the message
// ("resourceEstimationUnsupported") all come from the knowledge table.
#include "KernelWalkInternal.h"

namespace pallas::analysis::passes {

void KernelWalk::recordResourceEstimation(mlir::Operation* site, const std::string& api) {
  if (path_ != ExecPath::Compiled || api.empty() ||
      !kb_.errorTemplate("resourceEstimationUnsupported"))
    return;
  for (const std::string& key : kb_.higherOrderBinds(api)) {
    const knowledge::PrimitiveFacts* p = kb_.primitive(key);
    // Only a primitive that holds the wrapped function's body (its params
    // hold a jaxpr): the estimation is neutral to the others.
    if (!p || !isStructuralPrimitive(p->name))
      continue;
    std::optional<bool> has = kb_.hasResourceEstimator(p->name);
    if (!has || *has)
      continue;
    BoundPrimitive b;
    b.api = api;
    b.prim = p;
    b.site = site;
    b.refs = {Kind::NotRef, Phase::Lowering, "a traced function"};
    b.interpretRule = "resource_estimation";
    b.detail = p->name;
    record(std::move(b));
    return;
  }
}

} // namespace pallas::analysis::passes
