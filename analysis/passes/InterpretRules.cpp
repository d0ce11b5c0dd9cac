// Rules of the HLO interpreter (interpret=True) that raise whatever the
// kernel's operands are, for Mosaic GPU kernels (docs/analysis.md 8.12):
//   * lax.axis_index of a plgpu.Mesh / plgpu.kernel axis (grid, cluster or
//     thread): the interpreter discharges the body without binding the
//     mesh's axis names, so JAX raises "Found an unbound axis name";
//   * a scratch Ref allocated with plgpu transforms= (TilingTransform,
//     SwizzleTransform, ...): reading or writing it applies the undo of each
//     transform, and the interpreter's state discharge only handles indexers,
//     bitcasts and reshapes ("Unsupported transform: ...").
// The messages come from the knowledge table's error templates; only the
// interpret_hlo path records these bindings.
#include "KernelWalk.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// Launches whose body is traced over a Mosaic GPU mesh with named axes.
bool launchHasMeshAxes(pd::LaunchOp launch) {
  llvm::StringRef api = launch.getApi();
  return api == "plgpu.kernel" || api == "pl.core_map" || api == "pl.kernel";
}

// The binding of one interpreter rule: `api` at `site` binds `prim`, whose
// operands are in state `refs`; `detail` is what JAX's message names.
BoundPrimitive ruleBinding(std::string api, const knowledge::PrimitiveFacts* prim,
                           mlir::Operation* site, RefState refs, std::string rule,
                           std::string detail) {
  BoundPrimitive b;
  b.api = std::move(api);
  b.prim = prim;
  b.site = site;
  b.refs = refs;
  b.interpretRule = std::move(rule);
  b.detail = std::move(detail);
  return b;
}

} // namespace

void KernelWalk::recordInterpretRefTransforms() {
  if (path_ != ExecPath::InterpretHlo)
    return;
  auto transforms = launch_->getAttrOfType<mlir::ArrayAttr>("pallas.scratch_transforms");
  if (!transforms || transforms.empty())
    return;
  // The fact holds for the JAX whose state discharge raises this message.
  const knowledge::PrimitiveFacts* prim = kb_.primitive("get");
  if (!prim || !kb_.errorTemplate("unsupportedRefTransform"))
    return;
  std::string written; // the first transform as written
  if (auto s = llvm::dyn_cast<mlir::StringAttr>(transforms[0]))
    written = s.getValue().str();
  record(ruleBinding(
      "scratch_shapes", prim, launch_,
      {RefState::Kind::Discharged, Phase::Lowering, "a scratch Ref with plgpu transforms"},
      "ref_transform", std::move(written)));
}

bool KernelWalk::recordUnboundAxis(pd::PrimOp prim) {
  llvm::StringRef api = prim.getApi();
  if (api != "lax.axis_index" && api != "jax.lax.axis_index")
    return false;
  if (path_ != ExecPath::InterpretHlo || !launchHasMeshAxes(launch_))
    return true;
  const knowledge::PrimitiveFacts* p = kb_.primitive("axis_index");
  if (!p || !kb_.errorTemplate("unboundAxisName"))
    return true;
  record(ruleBinding("lax.axis_index", p, prim,
                     {RefState::Kind::NotRef, Phase::Lowering, "an axis name"}, "unbound_axis",
                     "<axis name>"));
  return true;
}

} // namespace pallas::analysis::passes
