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
#include "GpuInterpretChecks.h"
#include "KernelWalkInternal.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// Launches whose body is traced over a Mosaic GPU mesh with named axes.
bool launchHasMeshAxes(pd::LaunchOp launch) {
  llvm::StringRef api = launch.getApi();
  return api == "plgpu.kernel" || api == "pl.core_map" || api == "pl.kernel";
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
  record(ruleBindingOf(
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
  record(ruleBindingOf("lax.axis_index", p, prim,
                       {RefState::Kind::NotRef, Phase::Lowering, "an axis name"}, "unbound_axis",
                       "<axis name>"));
  return true;
}

// What a nested core_map's body does that decides its fate before any
// interpreter: JAX drops a core_map whose body has no effect JAX keeps (a
// Ref written, an axis index read: checked with JAX 0.10.2, a body that only
// reads a Ref runs), and the state discharge sees it only when it uses a Ref
// of the kernel (read or written).
// Functions the body calls by a captured name (`pl.when(c)(helper)`, a local
// def called) are part of it.
KernelWalk::NestedBodyUse KernelWalk::nestedBodyUse(mlir::Region& body) const {
  NestedBodyUse use;
  llvm::SmallPtrSet<mlir::Region*, 8> seen{&body};
  llvm::SmallVector<mlir::Region*> work{&body};
  auto capturedFunctions = [&](mlir::Operation* op) {
    for (mlir::Value v : op->getOperands())
      if (auto c = v.getDefiningOp<pd::ClosureOp>())
        if (seen.insert(&c.getBody()).second)
          work.push_back(&c.getBody());
  };
  while (!work.empty()) {
    mlir::Region* r = work.pop_back_val();
    r->walk([&](mlir::Operation* op) {
      capturedFunctions(op);
      if (auto p = llvm::dyn_cast<pd::PrimOp>(op))
        notePrimUse(p, use);
    });
  }
  return use;
}

void KernelWalk::notePrimUse(pd::PrimOp p, NestedBodyUse& use) const {
  llvm::StringRef api = p.getApi();
  bool direct = true;
  std::vector<const knowledge::PrimitiveFacts*> prims = primitivesOf(api, direct);
  auto has = [&](llvm::StringRef effect) {
    return llvm::any_of(prims, [&](const knowledge::PrimitiveFacts* f) {
      return llvm::is_contained(f->effects, effect);
    });
  };
  bool writes = api == "ref.__setitem__" || has("WriteEffect");
  bool reads = api == "ref.__getitem__" || has("ReadEffect");
  use.kept |= writes || api == "lax.axis_index" || api == "jax.lax.axis_index";
  use.refs |= writes || reads;
}

void KernelWalk::recordNestedCoreMap(mlir::Region& body, bool warpMesh, llvm::StringRef api,
                                     bool kept) {
  if (path_ == ExecPath::Compiled)
    return;
  NestedBodyUse use = nestedBodyUse(body);
  if (!(kept || use.kept))
    return;
  const knowledge::PrimitiveFacts* p = kb_.primitive("core_map");
  if (!p)
    return;
  // The HLO interpreter discharges the kernel's state, and the core_map
  // discharge rule knows the meshes registered with it (plgpu.Mesh, not
  // plgpu.WarpMesh: jax/_src/pallas/mosaic_gpu/core.py).
  if (path_ == ExecPath::InterpretHlo && warpMesh && use.refs &&
      kb_.errorTemplate("coreMapMeshUnsupported"))
    record(ruleBindingOf(api.str(), p, launch_,
                         {RefState::Kind::Discharged, Phase::Lowering,
                          "a pl.core_map over plgpu.WarpMesh in the kernel"},
                         "core_map_mesh", "WarpMesh"));
  // GPU interpret mode has no arm for core_map: its fallback re-binds the
  // primitive, which holds the body as an open jaxpr.
  if (path_ == ExecPath::InterpretGpu && gpuInterpretRebinds(p))
    record(ruleBindingOf(api.str(), p, launch_,
                         {RefState::Kind::NotRef, Phase::Lowering, "a pl.core_map in the kernel"},
                         "gpu_higher_order", p->name));
}

bool gpuInterpretRebindsOpenJaxpr(const knowledge::KnowledgeBase& kb,
                                  const knowledge::PrimitiveFacts* p) {
  return p && isStructuralPrimitive(p->name) && !p->getBindParamsOverridden &&
         p->gpuInterpret == knowledge::GpuInterpretHandling::Fallback &&
         kb.errorTemplate("gpuInterpretHigherOrder");
}

bool KernelWalk::gpuInterpretRebinds(const knowledge::PrimitiveFacts* p) const {
  return gpuInterpretRebindsOpenJaxpr(kb_, p);
}

void KernelWalk::recordGpuInterpretHigherOrder(const std::string& api) {
  if (path_ != ExecPath::InterpretGpu || api.empty())
    return;
  for (const std::string& key : kb_.higherOrderBinds(api)) {
    // The primitive that holds the wrapped function's body.
    const knowledge::PrimitiveFacts* p = kb_.primitive(key);
    if (!gpuInterpretRebinds(p))
      continue;
    // JAX's error names no equation: its traceback ends at the launch.
    record(ruleBindingOf(api, p, launch_,
                         {RefState::Kind::NotRef, Phase::Lowering, "a traced function"},
                         "gpu_higher_order", p->name));
    return;
  }
}

} // namespace pallas::analysis::passes
