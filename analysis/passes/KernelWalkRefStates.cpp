// The KernelWalk's Ref states: what each execution path has discharged of a
// kernel parameter, a scoped allocation or a value's Ref by the time a
// primitive binds it (the table in KernelWalk.h).
#include "KernelWalkInternal.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

RefState KernelWalk::kernelParamState(unsigned index, unsigned count) const {
  llvm::StringRef origin = detail::kernelParamOrigin(launch_, index, count);
  bool scratch = origin == "scratch" || origin == "acc";
  switch (path_) {
  case ExecPath::InterpretHlo:
    if (!scratch)
      return discharged(Phase::KernelDischarge, "a kernel input/output Ref");
    // pallas_call scratch is a kernel operand; plgpu.kernel's scratch is a
    // run_scoped inside the body, discharged when that is lowered.
    if (launch_.getApi() == "pl.pallas_call")
      return discharged(Phase::KernelDischarge, "a scratch Ref");
    return discharged(Phase::Lowering, "a scratch allocation");
  case ExecPath::Compiled:
    return origin == "acc" ? discharged(Phase::Lowering, "a plgpu.ACC accumulator")
                           : plainRef("a kernel Ref");
  case ExecPath::InterpretGpu:
    return plainRef("a kernel Ref");
  }
  return {};
}

RefState KernelWalk::kernelParamStateOf(unsigned index, unsigned count) const {
  RefState s = kernelParamState(index, count);
  s.accumulator = detail::kernelParamOrigin(launch_, index, count) == "acc";
  s.refUnion = detail::kernelParamIsRefUnion(launch_, index, count);
  markBarrierScratch(s, index, count);
  return s;
}

// Kernel parameter `index` of `count`: a plgpu.Barrier the launch's scratch
// lists (pallas.barrier_scratch: [position, num_arrivals, num_barriers])?
void KernelWalk::markBarrierScratch(RefState& s, unsigned index, unsigned count) const {
  auto barriers = launch_->getAttrOfType<mlir::ArrayAttr>("pallas.barrier_scratch");
  std::optional<unsigned> position = detail::scratchPosition(launch_, index, count);
  if (!barriers || !position)
    return;
  for (mlir::Attribute a : barriers) {
    auto b = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(a);
    if (!b || b.size() != 3 || b[0] != *position)
      continue;
    s.barrier = true;
    s.barrierArrivals = static_cast<int>(b[1]);
    s.barrierCount = static_cast<int>(b[2]);
  }
}

namespace {

// `u[1]` with an integer literal: how a member (or a group of members) of a
// plgpu.RefUnion is taken by index. Any other index reads or writes.
bool indexedByInteger(pd::PrimOp item) {
  if (item.getArgs().size() != 2)
    return false;
  auto c = item.getArgs()[1].getDefiningOp<pd::ConstantOp>();
  return c && c.getKind() == pd::ConstantKind::Int;
}

bool isItemRead(llvm::StringRef api) {
  return api == "ref.__getitem__" || api == "value.__getitem__";
}

} // namespace

// A plgpu.RefUnion's members are TransformedRefs of its buffer, taken by
// unpacking it (`a, [b, c] = u`) or by integer index (`u[1][0]`); through
// `.at[...]` and other views they stay members. The member's state is the
// union's, marked as a member; nullopt for anything else.
std::optional<RefState> KernelWalk::unionMemberState(mlir::Value v) const {
  bool extracted = false;
  for (unsigned guard = 0; v && guard < 16; ++guard) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
      auto it = states_.find(arg);
      if (it == states_.end() || !(it->second.unionMember || (extracted && it->second.refUnion)))
        return std::nullopt;
      RefState s = it->second;
      s.refUnion = false;
      s.unionMember = true;
      return s;
    }
    mlir::Operation* def = v.getDefiningOp();
    if (auto prim = llvm::dyn_cast_or_null<pd::PrimOp>(def); prim && !prim.getArgs().empty()) {
      bool item = isItemRead(prim.getApi()) && indexedByInteger(prim);
      if (!item && !detail::isRefTransform(prim.getApi()))
        return std::nullopt;
      extracted |= item;
      v = prim.getArgs()[0];
      continue;
    }
    auto opaque = llvm::dyn_cast_or_null<pd::OpaqueOp>(def);
    if (!opaque || opaque.getWhat() != "unpack" || opaque.getArgs().size() != 1)
      return std::nullopt;
    extracted = true;
    v = opaque.getArgs()[0];
  }
  return std::nullopt;
}

// `u[1]` on a plgpu.RefUnion (or a group of its members) takes a member; it
// reads nothing.
bool KernelWalk::extractsUnionMember(pd::PrimOp prim) const {
  return isItemRead(prim.getApi()) && indexedByInteger(prim) &&
         unionMemberState(prim->getResult(0)).has_value();
}

RefState KernelWalk::scopedState(llvm::StringRef origin) const {
  if (origin == pd::origin::kValue || origin.empty())
    return {};
  bool hlo = path_ == ExecPath::InterpretHlo;
  if (origin == pd::origin::kAcc) {
    RefState s = path_ == ExecPath::InterpretGpu
                     ? plainRef("a plgpu.ACC accumulator")
                     : discharged(Phase::Lowering, "a plgpu.ACC accumulator");
    s.accumulator = true;
    return s;
  }
  if (origin == pd::origin::kRunState)
    // Mosaic GPU discharges the refs run_state builds from values; XLA (the
    // HLO interpreter, and the GPU interpreter's fallback) discharges all.
    return discharged(Phase::Lowering, "a Ref pl.run_state builds from a value");
  if (origin == pd::origin::kRunScoped)
    return hlo ? discharged(Phase::Lowering, "a pl.run_scoped allocation")
               : plainRef("a pl.run_scoped allocation");
  if (origin == pd::origin::kPipeline)
    return hlo ? discharged(Phase::Lowering, "a pipeline buffer") : plainRef("a pipeline buffer");
  // "arg" not bound by the walk (a Ref the kernel closes over) or another Ref.
  return hlo ? discharged(Phase::KernelDischarge, "a Ref the kernel closes over")
             : plainRef("a Ref");
}

RefState KernelWalk::stateOf(mlir::Value v, llvm::StringRef origin) const {
  if (std::optional<RefState> member = unionMemberState(v))
    return *member;
  detail::RefSource s = detail::traceRef(v);
  using SK = detail::RefSource::Kind;
  if (origin == pd::origin::kValue) {
    // A pl.core_map body has no parameters: its Refs are captured from the
    // enclosing function, whose parameters the front end cannot tell are
    // Refs ("value"). Captured parameters are Refs there.
    bool captured =
        (s.kind == SK::FuncArg || s.kind == SK::ClosureArg) && !states_.count(blockArgOf(s));
    if (!(captured && launch_.getApi() == "pl.core_map"))
      return {};
    origin = pd::origin::kArg;
  }
  RefState st;
  if (s.kind == SK::FuncArg || s.kind == SK::ClosureArg || s.kind == SK::InlineArg ||
      s.kind == SK::ScopeArg) {
    mlir::Value arg = blockArgOf(s);
    auto it = arg ? states_.find(arg) : states_.end();
    if (it != states_.end())
      st = it->second;
    else if ((s.kind == SK::FuncArg || s.kind == SK::ClosureArg) &&
             launch_.getApi() != "pl.core_map")
      // A parameter of a function outside the kernel that the kernel closes
      // over (`bm` of `def matmul(x, y, *, bm)` used in its nested kernel):
      // a pallas_call / plgpu.kernel body cannot capture a Ref from outside
      // (JAX rejects captured Refs and lifts captured arrays to values), so
      // it is a value: nothing is discharged there.
      st = {};
    else
      st = scopedState(s.kind == SK::ScopeArg ? s.scopeOrigin : origin);
  } else {
    st = scopedState(origin);
  }
  if (allDischarged_ && st.kind == Kind::Ref) {
    bool acc = st.accumulator;
    st = discharged(allPhase_, st.what);
    st.accumulator = acc;
  }
  return st;
}

RefState KernelWalk::strongest(pd::CallOperandsOpInterface op) const {
  return strongest(op.getArgs(), op.getOrigins());
}

RefState KernelWalk::strongest(mlir::ValueRange args, mlir::ArrayAttr origins) const {
  RefState best;
  for (unsigned i = 0; i < args.size(); ++i) {
    RefState s = stateOf(args[i], strAt(origins, i));
    if (s.kind > best.kind || (s.discharged() && best.discharged() && s.phase < best.phase))
      best = s;
  }
  return best;
}

} // namespace pallas::analysis::passes
