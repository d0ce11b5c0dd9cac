// The Pallas overlay, kernel side: a kernel traced on one execution path.
// The evaluator calls the kernel with Refs (what each path has discharged of
// them: KernelWalk.h's table) and runs it as Python runs it; every call of a
// Pallas / Mosaic GPU API, every Ref load and store records the primitives
// the knowledge table says it binds (BoundPrimitive), with the Ref states of
// its operands and the chain of calls from the kernel. Scopes (run_scoped,
// run_state, pl.when, loops, lax.cond, pipelines, core_map in a kernel) give
// their bodies the Refs they allocate; transformations that discharge all
// Refs of their body (jax.jit, checkpoint, custom_vjp) are followed.
#include "CompiledRules.h"
#include "GpuInterpretChecks.h"
#include "PallasOverlayState.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/detail/Apis.h"
#include "pallas/analysis/detail/Passes.h"
#include "pallas/py/Dialect.h"

namespace pallas::analysis::passes {

using namespace eval;
using Kind = eval::Kind;
using RefKind = RefState::Kind;

bool isStructuralPrimitive(llvm::StringRef name); // KernelWalk.cpp

namespace {

PallasOverlay::State& stateOf(Interpreter& in) {
  return in.overlay<PallasOverlay>()->state();
}

RefState discharged(Phase phase, const char* what) {
  RefState s;
  s.kind = RefKind::Discharged;
  s.phase = phase;
  s.what = what;
  return s;
}

RefState plainRef(const char* what) {
  RefState s;
  s.kind = RefKind::Ref;
  s.what = what;
  return s;
}

SourceLocation locOf(mlir::Operation* op) {
  return op ? detail::sourceLocation(op->getLoc()) : SourceLocation{};
}

// A value JAX traces in the kernel (an array).
Value traced(Interpreter& in, const std::string& why, mlir::Operation* site) {
  auto* u = in.heap().make<UnknownObj>(why, site);
  u->traced = true;
  return Value(u, site);
}

// A primitive holding a traced body that GPU interpret mode has no arm for:
// its fallback binds it again and raises on the open jaxpr.
bool gpuInterpretRebinds(const PallasOverlay::State& s, const knowledge::PrimitiveFacts* p) {
  return gpuInterpretRebindsOpenJaxpr(s.kb, p);
}

// While it lives, the code running is a body JAX traces once for what may
// run several times or not at all (Trace::unsure).
struct UnsureScope {
  explicit UnsureScope(PallasOverlay::State& s) : t(s.trace()) {
    if (t)
      ++t->unsure;
  }
  ~UnsureScope() {
    if (t)
      --t->unsure;
  }
  UnsureScope(const UnsureScope&) = delete;
  UnsureScope& operator=(const UnsureScope&) = delete;
  Trace* t;
};

} // namespace

// ---- Ref states ------------------------------------------------------------------------

RefState PallasOverlay::State::kernelParamState(const std::string& origin) const {
  const Trace* t = traces.back();
  bool scratch = origin == "scratch" || origin == "acc" || origin == "union";
  switch (t->path) {
  case ExecPath::InterpretHlo:
    if (!scratch)
      return discharged(Phase::KernelDischarge, "a kernel input/output Ref");
    // pallas_call scratch is a kernel operand; plgpu.kernel's scratch is a
    // run_scoped inside the body, discharged when that is lowered.
    if (t->event->api == "pl.pallas_call")
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

RefState PallasOverlay::State::scopedState(llvm::StringRef origin) const {
  ExecPath path = traces.back()->path;
  bool hlo = path == ExecPath::InterpretHlo;
  if (origin == "acc") {
    RefState s = path == ExecPath::InterpretGpu
                     ? plainRef("a plgpu.ACC accumulator")
                     : discharged(Phase::Lowering, "a plgpu.ACC accumulator");
    s.accumulator = true;
    return s;
  }
  if (origin == "run_state")
    return discharged(Phase::Lowering, "a Ref pl.run_state builds from a value");
  if (origin == "run_scoped")
    return hlo ? discharged(Phase::Lowering, "a pl.run_scoped allocation")
               : plainRef("a pl.run_scoped allocation");
  if (origin == "pipeline")
    return hlo ? discharged(Phase::Lowering, "a pipeline buffer") : plainRef("a pipeline buffer");
  // A Ref the kernel closes over (a pl.core_map body's).
  return hlo ? discharged(Phase::KernelDischarge, "a Ref the kernel closes over")
             : plainRef("a Ref");
}

Value PallasOverlay::State::makeRef(Interpreter& in, RefInfo info, mlir::Operation* site) {
  refs.push_back(std::move(info));
  auto* r = in.heap().make<InstanceObj>(refClass);
  r->payload = &refs.back();
  return Value(r, site);
}

RefInfo* PallasOverlay::State::refOf(Object* o) const {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  if (!inst || inst->cls != refClass)
    return nullptr;
  return static_cast<RefInfo*>(inst->payload);
}

RefState PallasOverlay::State::stateOf(const Value& v) const {
  RefState best;
  for (const Alt& a : v) {
    RefInfo* r = refOf(a.obj);
    if (!r)
      continue;
    RefState s = r->state;
    const Trace* t = traces.empty() ? nullptr : traces.back();
    if (t && t->allDischarged && s.kind == RefKind::Ref) {
      bool acc = s.accumulator;
      s = discharged(t->allPhase, s.what);
      s.accumulator = acc;
    }
    if (s.kind > best.kind || (s.discharged() && best.discharged() && s.phase < best.phase))
      best = s;
  }
  return best;
}

RefState PallasOverlay::State::strongest(const CallArgs& args) const {
  RefState best;
  auto consider = [&](const Value& v) {
    RefState s = stateOf(v);
    if (s.kind > best.kind || (s.discharged() && best.discharged() && s.phase < best.phase))
      best = s;
  };
  for (const Value& v : args.positional)
    consider(v);
  for (const auto& [k, v] : args.keywords)
    consider(v);
  return best;
}

// ---- recording -------------------------------------------------------------------------

std::vector<Hop> PallasOverlay::State::chain(Interpreter& in) const {
  const Trace* t = traces.back();
  std::vector<Hop> hops;
  const auto& stack = in.stack();
  for (size_t i = t->stackBase; i < stack.size(); ++i) {
    auto* fn = llvm::dyn_cast_or_null<FunctionObj>(stack[i].callee);
    if (!fn)
      continue;
    Hop h;
    h.name = fn->name;
    h.definition = locOf(fn->def);
    if (!hops.empty())
      h.callSite = locOf(stack[i].site);
    hops.push_back(std::move(h));
  }
  if (hops.empty())
    hops.push_back(t->out->kernelHop);
  return hops;
}

void PallasOverlay::State::record(Interpreter& in, BoundPrimitive b) {
  Trace* t = traces.back();
  b.chain = chain(in);
  b.order = t->order++;
  const auto& why = in.uncertainty();
  for (size_t i = t->whyBase; i < why.size(); ++i)
    b.unknownDispatch += (b.unknownDispatch.empty() ? "" : ", ") + why[i];
  b.cpuLowered = b.cpuLowered || t->cpuLowered;
  b.loweringSemantics = t->loweringSemantics;
  b.primitiveSemantics = t->primitiveSemantics;
  t->out->bindings.push_back(std::move(b));
}

std::vector<const knowledge::PrimitiveFacts*>
PallasOverlay::State::primitivesOf(llvm::StringRef api, bool& direct) const {
  std::vector<const knowledge::PrimitiveFacts*> out;
  direct = true;
  if (api == "ref.__getitem__") {
    if (const auto* p = kb.primitive("get"))
      out.push_back(p);
    return out;
  }
  if (api == "ref.__setitem__") {
    if (const auto* p = kb.primitive("swap"))
      out.push_back(p);
    return out;
  }
  const knowledge::ApiFacts* facts = kb.api(api.str());
  if (!facts || facts->kind != "function")
    return out;
  for (const std::string& key : facts->binds)
    if (const auto* p = kb.primitive(key); p && !isStructuralPrimitive(p->name))
      out.push_back(p);
  if (!facts->binds.empty())
    return out;
  direct = false;
  for (const std::string& key : facts->bindsTransitive)
    if (const auto* p = kb.primitive(key); p && !isStructuralPrimitive(p->name))
      out.push_back(p);
  return out;
}

namespace {

// A Python number and a literal tuple of integers with an entry: shapes that
// certainly differ (an API that returns before binding when they match).
bool shapesDifferForCertain(const CallArgs& args, const knowledge::ApiFacts& facts) {
  if (facts.returnsUnlessShapeOf < 0 || facts.returnsUnlessShapeEquals < 0)
    return false;
  const Value* operand = args.get(static_cast<size_t>(facts.returnsUnlessShapeOf), "");
  const Value* shape = args.get(static_cast<size_t>(facts.returnsUnlessShapeEquals), "");
  if (!operand || !shape)
    return false;
  Object* o = operand->single();
  auto* t = llvm::dyn_cast_or_null<TupleObj>(shape->single());
  if (!o || (o->kind != Kind::Int && o->kind != Kind::Float) || !t || t->elems.empty())
    return false;
  for (const Value& e : t->elems)
    if (!e.single() || e.single()->kind != Kind::Int)
      return false;
  return true;
}

// Records what `api` binds at `site` on the Refs it is given.
// The knowledge table's entry for a call given a flag that changes what it
// binds (`jax.nn.gelu(x, approximate=False)` binds erfc, the default tanh):
// "api(flag=value)" when the table has it, else the api itself.
std::string flagVariant(const PallasOverlay::State& s, const std::string& api,
                        const CallArgs& args) {
  for (const auto& [name, value] : args.keywords)
    if (auto* b = llvm::dyn_cast_or_null<BoolObj>(value.single())) {
      std::string keyed = api + "(" + name + "=" + (b->v ? "True" : "False") + ")";
      if (s.kb.api(keyed))
        return keyed;
    }
  return api;
}

// `label`: how a message names the binding when not by its API (what the
// user wrote for an operator: `q @ k.T`).
void bindApi(Interpreter& in, const std::string& calledApi, const CallArgs& args,
             mlir::Operation* site, std::optional<RefState> refsOverride = std::nullopt,
             const std::string& label = {}) {
  PallasOverlay::State& s = stateOf(in);
  bool direct = true;
  const std::string api = flagVariant(s, calledApi, args);
  std::vector<const knowledge::PrimitiveFacts*> prims = s.primitivesOf(api, direct);
  RefState refs = refsOverride ? *refsOverride : s.strongest(args);
  std::vector<RefState> operands;
  operands.reserve(args.positional.size());
  for (const Value& v : args.positional)
    operands.push_back(s.stateOf(v));
  // Indexing a plgpu.ACC: its Ref type binds the table's primitives.
  if ((api == "ref.__getitem__" || api == "ref.__setitem__") && !operands.empty() &&
      operands[0].accumulator)
    if (const knowledge::RefIndexing* ri = s.kb.refIndexing("plgpu.ACC")) {
      const auto& keys = api == "ref.__getitem__" ? ri->getitem : ri->setitem;
      if (keys) {
        prims.clear();
        for (const std::string& key : *keys)
          if (const auto* p = s.kb.primitive(key))
            prims.push_back(p);
      }
    }
  const knowledge::ApiFacts* facts = s.kb.api(api);
  for (const knowledge::PrimitiveFacts* p : prims) {
    BoundPrimitive b;
    b.api = label.empty() ? api : label;
    b.prim = p;
    b.site = site;
    b.refs = refs;
    b.operandStates = operands;
    b.mayNotBind =
        direct && facts && facts->returnsBeforeBind && !shapesDifferForCertain(args, *facts);
    s.record(in, std::move(b));
  }
}

// `kind`: the transform as the API catalogue spells it ("ref.at",
// "ref.reshape", "plgpu.transpose_ref" ...); `index`: what `.at[...]` is given.
Value view(Interpreter& in, const Value& ref, const std::string& kind, mlir::Operation* site,
           const Value* index = nullptr) {
  PallasOverlay::State& s = stateOf(in);
  Value out;
  for (const Alt& a : ref) {
    RefInfo* r = s.refOf(a.obj);
    if (!r) {
      out = in.heap().join(out, in.unknown("a view of " + describe(a.obj), site));
      continue;
    }
    RefInfo v = *r;
    if (kind == "ref.at") {
      ++v.indexings;
      auto* i = index ? llvm::dyn_cast_or_null<IntObj>(index->single()) : nullptr;
      v.atIndex = i ? std::optional<int64_t>(i->v) : std::nullopt;
    } else if (!kind.empty()) {
      v.view = kind;
      v.indexings = 0;
      v.atIndex.reset();
    }
    v.state.unionMember = r->state.unionMember;
    out = in.heap().join(out, s.makeRef(in, v, site));
  }
  return out;
}

void noteNoneUse(Interpreter& in, Object* o, const std::string& error);
void noteNoneUses(Interpreter& in, const CallArgs& args, const std::string& error);

// ---- Ref methods -----------------------------------------------------------------------

Value nRefGetitem(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  if (args.positional.size() < 2 || !s.trace())
    return in.unknown("a value read from a Ref", site);
  const Value& ref = args.positional[0];
  // `u[1]` takes a member of a plgpu.RefUnion (or of a group of its members).
  if (RefInfo* r = s.refOf(ref.single()); r && (r->state.refUnion || r->state.unionMember))
    if (args.positional[1].single() && args.positional[1].single()->kind == Kind::Int) {
      RefInfo m = *r;
      m.state.refUnion = false;
      m.state.unionMember = true;
      return s.makeRef(in, m, site);
    }
  CallArgs a;
  a.positional = {ref, args.positional[1]};
  recordAccessRules(in, s, "ref.__getitem__", a, site);
  bindApi(in, "ref.__getitem__", a, site);
  return traced(in, "a value read from a Ref", site);
}

Value nRefSetitem(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  if (args.positional.size() < 3 || !s.trace())
    return in.none(site);
  CallArgs a;
  a.positional = {args.positional[0], args.positional[1], args.positional[2]};
  noteNoneUses(in, a,
               "TypeError: Argument 'None' of type '<class 'NoneType'>' is not a valid JAX type");
  recordAccessRules(in, s, "ref.__setitem__", a, site);
  bindApi(in, "ref.__setitem__", a, site);
  return in.none(site);
}

Value nRefIter(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  // Unpacking a plgpu.RefUnion gives its members.
  PallasOverlay::State& s = stateOf(in);
  auto* l = in.heap().make<ListObj>();
  l->exact = false;
  if (!args.positional.empty())
    if (RefInfo* r = s.refOf(args.positional[0].single())) {
      RefInfo m = *r;
      m.state.refUnion = false;
      m.state.unionMember = true;
      l->elems.push_back(s.makeRef(in, m, site));
      return Value(l, site);
    }
  l->elems.push_back(in.unknown("an element of a Ref", site));
  return Value(l, site);
}

Value nRefViewMethod(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                     const Object* self) {
  auto* b = llvm::cast<BuiltinObj>(self);
  return view(in, b->bound, "ref." + b->name, site);
}

Value nRefAtGetitem(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.empty())
    return in.unknown("ref.at[...]", site);
  auto* at = llvm::dyn_cast_or_null<InstanceObj>(args.positional[0].single());
  const Value* ref = at ? at->attrs.find("ref") : nullptr;
  return ref ? view(in, *ref, "ref.at", site,
                    args.positional.size() > 1 ? &args.positional[1] : nullptr)
             : in.unknown("ref.at[...]", site);
}

Value nRefGetattr(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  if (args.positional.size() < 2)
    return in.unknown("an attribute of a Ref", site);
  auto* name = llvm::dyn_cast_or_null<StrObj>(args.positional[1].single());
  if (!name)
    return in.unknown("an attribute of a Ref", site);
  const Value& ref = args.positional[0];
  if (name->v == "at") {
    auto* at = in.heap().make<InstanceObj>(s.refAtClass);
    at->attrs.set("ref", ref);
    return Value(at, site);
  }
  if (name->v == "T")
    return view(in, ref, "ref.T", site);
  if (name->v == "reshape" || name->v == "bitcast" || name->v == "transpose" ||
      name->v == "astype") {
    BuiltinObj* m = in.makeNative(name->v, nRefViewMethod);
    m->bound = ref;
    return Value(m, site);
  }
  return in.unknown("`" + name->v + "` of a Ref", site);
}

// ---- scopes ----------------------------------------------------------------------------

// The origin of a scoped allocation by its type: plgpu.ACC, a RefUnion, other.
std::string allocationOrigin(Interpreter& in, const Value& type, bool& refUnion) {
  refUnion = false;
  for (const Alt& a : type) {
    if (isInstanceOfApi(in, a.obj, "plgpu.ACC"))
      return "acc";
    if (isInstanceOfApi(in, a.obj, "plgpu.RefUnion"))
      refUnion = true;
  }
  return "run_scoped";
}

Value runScoped(Interpreter& in, const CallArgs& args, mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  Trace* t = s.trace();
  if (args.positional.empty())
    return in.unknown("pl.run_scoped()", site);
  if (t->path == ExecPath::InterpretHlo && args.keyword("collective_axes"))
    if (const auto* prim = s.kb.primitive("run_scoped")) {
      BoundPrimitive b;
      b.api = "pl.run_scoped";
      b.prim = prim;
      b.site = site;
      b.refs = discharged(Phase::Retrace, "a collective allocation");
      b.retraceCollective = true;
      s.record(in, std::move(b));
    }
  recordScopedAllocationRules(in, s, args, site);
  CallArgs body;
  auto alloc = [&](const Value& type) {
    bool refUnion = false;
    std::string origin = allocationOrigin(in, type, refUnion);
    RefInfo r;
    r.origin = origin;
    r.state = s.scopedState(origin);
    r.state.refUnion = refUnion;
    return s.makeRef(in, r, site);
  };
  for (size_t i = 1; i < args.positional.size(); ++i)
    body.positional.push_back(alloc(args.positional[i]));
  for (const auto& [k, v] : args.keywords)
    if (k != "collective_axes")
      body.keywords.push_back({k, alloc(v)});
  return in.call(args.positional[0], body, site);
}

Value nRunStateApply(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                     const Object* self) {
  PallasOverlay::State& s = stateOf(in);
  Trace* t = s.trace();
  auto* b = llvm::cast<BuiltinObj>(self);
  Value body = b->bound;
  if (!t)
    return in.call(body, args, site);
  CallArgs refs;
  for (const Value& init : args.positional) {
    RefInfo r;
    r.origin = "run_state";
    r.state = s.scopedState("run_state");
    // Mosaic GPU's run_state flags only the Refs it built from values.
    if (t->path == ExecPath::Compiled && s.stateOf(init).isRef())
      r.state = plainRef("a Ref passed through pl.run_state");
    for (const Alt& a : init)
      if (isInstanceOfApi(in, a.obj, "plgpu.ACC"))
        r.state.accumulator = true;
    refs.positional.push_back(s.makeRef(in, r, site));
  }
  if (refs.positional.empty())
    refs.morePositional = true;
  bool saveCpu = t->cpuLowered;
  if (t->path == ExecPath::InterpretGpu)
    t->cpuLowered = true; // no GPU-interpreter rule: XLA lowers the whole body
  in.call(body, refs, site);
  t->cpuLowered = saveCpu;
  return in.unknown("the outputs of pl.run_state", site);
}

Value nWhenApply(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object* self) {
  auto* b = llvm::cast<BuiltinObj>(self);
  if (args.positional.empty())
    return in.none(site);
  // pl.when(False) with a Python bool: JAX never calls the body.
  Object* c = b->bound.single();
  bool concrete = c && (c->kind == Kind::Bool || c->kind == Kind::None || c->kind == Kind::Int);
  if (concrete && in.truth(b->bound, site) == false)
    return in.none(site);
  std::optional<UnsureScope> unsure;
  if (!concrete)
    unsure.emplace(stateOf(in));
  in.call(args.positional[0], {}, site);
  return in.none(site);
}

Value nLoopApply(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.empty())
    return in.none(site);
  CallArgs a;
  a.positional.push_back(in.unknown("the loop index", site));
  UnsureScope loop(stateOf(in));
  in.call(args.positional[0], a, site);
  return in.none(site);
}

void noteNoneUses(Interpreter& in, const CallArgs& args, const std::string& error) {
  for (const Value& v : args.positional)
    for (const Alt& a : v)
      noteNoneUse(in, a.obj, error);
  for (const auto& [k, v] : args.keywords)
    for (const Alt& a : v)
      noteNoneUse(in, a.obj, error);
}

// ---- inline_mgpu -----------------------------------------------------------------------

std::string returnTypeText(Interpreter& in, const Value& rt) {
  if (rt.isBottom())
    return "None";
  std::string text;
  for (const Alt& a : rt) {
    if (a.obj->kind == Kind::None)
      text += "None ";
    else if (auto* inst = llvm::dyn_cast<InstanceObj>(a.obj)) {
      const Value* dt = inst->attrs.find("dtype");
      if (!dt)
        dt = inst->attrs.find("_1");
      if (dt)
        for (const Alt& d : *dt)
          text += apiNameOf(in, d.obj) + " ";
      else
        text += "? ";
    } else
      text += "? ";
  }
  return text;
}

// What a region without return_type returns is None, whose use as a value
// JAX rejects (PLS004): it remembers the binding of its call.
void noteNoneUse(Interpreter& in, Object* o, const std::string& error) {
  PallasOverlay::State& s = stateOf(in);
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  if (!inst || inst->cls != s.noneResultClass || !inst->payload)
    return;
  auto* r = static_cast<PallasOverlay::State::NoneResultRef*>(inst->payload);
  if (r->binding >= r->trace->bindings.size())
    return;
  BoundPrimitive& b = r->trace->bindings[r->binding];
  if (b.signature && b.signature->problem != BoundPrimitive::Signature::Problem::None)
    return;
  BoundPrimitive::Signature sig;
  sig.problem = BoundPrimitive::Signature::Problem::NoneUsed;
  sig.noneUse = error;
  b.signature = sig;
}

Value nNoneResultOp(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (!args.positional.empty())
    noteNoneUse(in, args.positional[0].single(),
                "TypeError: unsupported operand type(s) for ...: '...' and 'NoneType'");
  return traced(in, "an operation on None", site);
}

// Whether an argument is certainly an array (never a Ref): a traced value
// or a Python number.
bool certainlyArray(const Value& v) {
  if (v.isBottom())
    return false;
  for (const Alt& a : v) {
    auto* u = llvm::dyn_cast<UnknownObj>(a.obj);
    bool arr = (u && u->traced) || a.obj->kind == Kind::Int || a.obj->kind == Kind::Float;
    if (!arr)
      return false;
  }
  return true;
}

Value nInlineCall(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  if (args.positional.empty())
    return in.unknown("an inline_mgpu region's result", site);
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(args.positional[0].single());
  auto* region = inst ? static_cast<InlineRegion*>(inst->payload) : nullptr;
  if (!region || !s.trace())
    return in.unknown("an inline_mgpu region's result", site);
  threadRunLost(s);
  CallArgs rest = args;
  rest.positional.erase(rest.positional.begin());
  const knowledge::PrimitiveFacts* p = s.kb.primitive("inline_mgpu_p");
  bool noReturn = region->returnType.isBottom() ||
                  (region->returnType.single() && region->returnType.single()->kind == Kind::None);
  if (!p)
    return in.unknown("an inline_mgpu region's result", site);
  BoundPrimitive b;
  b.api = "plgpu.inline_mgpu";
  b.prim = p;
  b.site = site;
  b.inlineCall = site;
  b.refs = s.strongest(rest);
  for (const Value& v : rest.positional)
    b.argStates.push_back(s.stateOf(v));
  if (auto* fn = llvm::dyn_cast_or_null<FunctionObj>(region->fn.single())) {
    b.inlineName = fn->name;
    b.inlineDef = locOf(fn->def);
  }
  b.inlineReturnType = returnTypeText(in, region->returnType);
  // PLS004: the arguments against arg_types (JAX flattens both: a count that
  // differs, an array for plgpu.RefType(), a Ref for a layout).
  using P = BoundPrimitive::Signature::Problem;
  BoundPrimitive::Signature sig;
  if (!rest.morePositional && !rest.moreKeywords && rest.keywords.empty()) {
    auto* declared = llvm::dyn_cast_or_null<TupleObj>(region->argTypes.single());
    auto* declaredList = llvm::dyn_cast_or_null<ListObj>(region->argTypes.single());
    std::vector<Value> slots;
    bool known = false;
    if (declared) {
      slots = declared->elems;
      known = true;
    } else if (declaredList && declaredList->exact && declaredList->kind == Kind::List) {
      slots = declaredList->elems;
      known = true;
    } else if (region->argTypes.isBottom()) {
      known = true; // arg_types=() by default
    }
    size_t given = rest.positional.size();
    if (known && given != slots.size()) {
      sig.problem = P::Count;
      sig.given = given;
      sig.declared = slots.size();
    } else if (known) {
      for (size_t i = 0; i < given; ++i) {
        bool refSlot = false, arraySlot = false;
        for (const Alt& alt : slots[i]) {
          refSlot = refSlot || isInstanceOfApi(in, alt.obj, "plgpu.RefType");
          // An array slot: a layout (plgpu.Layout.WG_SPLAT, ...) or a ShapeDtypeStruct.
          arraySlot = arraySlot || isInstanceOfApi(in, alt.obj, "plgpu.ShapeDtypeStruct") ||
                      isInstanceOfApi(in, alt.obj, "jax.ShapeDtypeStruct") ||
                      llvm::StringRef(apiNameOf(in, alt.obj)).starts_with("plgpu.Layout.");
        }
        bool isArray = certainlyArray(rest.positional[i]);
        bool isRef = s.stateOf(rest.positional[i]).isRef();
        if (refSlot && !arraySlot && isArray) {
          sig.problem = P::ArrayForRef;
          sig.index = i;
          break;
        }
        if (arraySlot && !refSlot && isRef && !isArray) {
          sig.problem = P::RefForArray;
          sig.index = i;
          break;
        }
      }
    }
  }
  b.signature = sig;
  KernelTrace* out = s.trace()->out;
  size_t index = out->bindings.size();
  s.record(in, std::move(b));
  if (!noReturn)
    return traced(in, "an inline_mgpu region's result", site);
  // The region returns None: its use as a value is recorded on the call.
  s.noneResults.push_back({out, index});
  auto* none = in.heap().make<InstanceObj>(s.noneResultClass);
  none->payload = &s.noneResults.back();
  return Value(none, site);
}

Value nInlineDecorate(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                      const Object* self) {
  PallasOverlay::State& s = stateOf(in);
  auto* b = llvm::cast<BuiltinObj>(self);
  auto* options = static_cast<CallArgs*>(b->data);
  if (args.positional.empty())
    return in.unknown("plgpu.inline_mgpu applied to nothing", site);
  InlineRegion r;
  r.fn = args.positional[0];
  if (const Value* at = options->keyword("arg_types"))
    r.argTypes = *at;
  if (const Value* rt = options->keyword("return_type"))
    r.returnType = *rt;
  r.decorator = site;
  s.regions.push_back(r);
  auto* inst = in.heap().make<InstanceObj>(s.inlineClass);
  inst->payload = &s.regions.back();
  return Value(inst, site);
}

// `@plgpu.inline_mgpu(arg_types=..., return_type=...)`, wherever it is written.
Value nInlineMgpu(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  auto* keep = new CallArgs(args);
  s.deferred.emplace_back(keep);
  return Value(in.makeNative("plgpu.inline_mgpu.apply", nInlineDecorate, keep), site);
}

// ---- pipelines --------------------------------------------------------------------------

void runPipelineBody(Interpreter& in, Pipeline& p, size_t buffers, mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  CallArgs body;
  for (size_t i = 0; i < buffers; ++i) {
    RefInfo r;
    r.origin = "pipeline";
    r.state = s.scopedState("pipeline");
    body.positional.push_back(s.makeRef(in, r, site));
  }
  if (buffers == 0)
    body.morePositional = true;
  UnsureScope steps(s);
  in.call(p.body, body, site);
}

// Running a pipeline: the copies (primitives with Read/Write effects) bind
// on the Refs it is given, the others on its own buffers; earlier-discharged
// first (JAX reports a call's first failure).
void bindPipeline(Interpreter& in, Pipeline& p, const CallArgs& given, mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  recordPipelineRules(in, s, p, site);
  bool direct = true;
  RefState givenState = s.strongest(given);
  RefState own = s.scopedState("pipeline");
  std::vector<BoundPrimitive> found;
  for (const knowledge::PrimitiveFacts* prim : s.primitivesOf(p.api, direct)) {
    bool touchesRefs = llvm::any_of(prim->effects, [](const std::string& e) {
      return e == "ReadEffect" || e == "WriteEffect";
    });
    BoundPrimitive b;
    b.api = p.api;
    b.prim = prim;
    b.site = site;
    b.refs = touchesRefs ? givenState : own;
    found.push_back(std::move(b));
  }
  std::vector<size_t> order(found.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  auto key = [&](size_t i) {
    const RefState& r = found[i].refs;
    return std::tuple(!r.discharged(), static_cast<int>(r.phase), i);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  for (size_t i : order)
    s.record(in, std::move(found[i]));
}

Value nPipelineCall(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  PallasOverlay::State& s = stateOf(in);
  if (args.positional.empty())
    return in.none(site);
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(args.positional[0].single());
  auto* p = inst ? static_cast<Pipeline*>(inst->payload) : nullptr;
  if (!p || !s.trace())
    return in.none(site);
  CallArgs given = args;
  given.positional.erase(given.positional.begin());
  p->called = true;
  bindPipeline(in, *p, given, site);
  runPipelineBody(in, *p, given.positional.size(), site);
  return in.none(site);
}

// ---- nested core_map / warp_map ---------------------------------------------------------

// A pl.core_map (or plgpu.warp_map) in the kernel. Compiled, its body is
// lowered with the mesh's user thread semantics. Interpreted, it is judged
// whole (KernelWalk::recordNestedCoreMap): JAX drops one whose body keeps no
// effect (writes no Ref, reads no axis index); the HLO interpreter's
// core_map discharge rule knows plgpu.Mesh only; GPU interpret mode re-binds
// it with its body as an open jaxpr.
void nestedCoreMap(Interpreter& in, const Value& body, bool warpMesh, const std::string& api,
                   mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  Trace* t = s.trace();
  CallArgs a;
  if (api == "plgpu.warp_map")
    a.positional.push_back(in.unknown("the warp id", site));
  if (t->path == ExecPath::Compiled) {
    std::vector<std::string> saved = t->primitiveSemantics;
    t->primitiveSemantics =
        warpMesh ? std::vector<std::string>{"Warp"} : std::vector<std::string>{"Warpgroup", "Warp"};
    in.call(body, a, site);
    t->primitiveSemantics = std::move(saved);
    return;
  }
  // What the body does, traced aside.
  KernelTrace probe;
  KernelTrace* out = t->out;
  t->out = &probe;
  bool nested = t->nestedMesh;
  t->nestedMesh = true;
  in.heap().beginSide();
  in.call(body, a, site);
  in.heap().endSide(true);
  t->nestedMesh = nested;
  t->out = out;
  bool kept = api == "plgpu.warp_map", refs = false;
  for (const BoundPrimitive& b : probe.bindings) {
    auto has = [&](llvm::StringRef effect) {
      return b.prim && llvm::is_contained(b.prim->effects, effect);
    };
    bool writes = b.api == "ref.__setitem__" || has("WriteEffect");
    bool reads = b.api == "ref.__getitem__" || has("ReadEffect");
    kept = kept || writes || b.api == "lax.axis_index" || b.api == "jax.lax.axis_index" ||
           b.interpretRule == "unbound_axis";
    refs = refs || writes || reads;
  }
  if (!kept)
    return;
  const knowledge::PrimitiveFacts* p = s.kb.primitive("core_map");
  if (!p)
    return;
  if (t->path == ExecPath::InterpretHlo && warpMesh && refs &&
      s.kb.errorTemplate("coreMapMeshUnsupported"))
    s.record(in, ruleBinding(api, p, t->event->site,
                             {RefKind::Discharged, Phase::Lowering,
                              "a pl.core_map over plgpu.WarpMesh in the kernel"},
                             "core_map_mesh", "WarpMesh"));
  if (t->path == ExecPath::InterpretGpu && gpuInterpretRebinds(s, p))
    s.record(in, ruleBinding(api, p, t->event->site,
                             {RefKind::NotRef, Phase::Lowering, "a pl.core_map in the kernel"},
                             "gpu_higher_order", p->name));
}

Value nNestedCoreMapApply(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                          const Object* self) {
  auto* b = llvm::cast<BuiltinObj>(self);
  if (args.positional.empty())
    return in.none(site);
  bool warp = false;
  for (const Alt& a : b->bound)
    warp = warp || isInstanceOfApi(in, a.obj, "plgpu.WarpMesh");
  nestedCoreMap(in, args.positional[0], warp, "pl.core_map", site);
  return in.none(site);
}

} // namespace

// ---- transformations in a kernel ------------------------------------------------------

Value callWrappedInKernel(Interpreter& in, Wrapped& w, const CallArgs& args,
                          mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  Trace* t = s.trace();
  const std::string& api = w.api;
  // Compiled: Mosaic GPU's resource estimation rejects a primitive holding a
  // jaxpr that has no estimator (remat2 of jax.checkpoint).
  if (t->path == ExecPath::Compiled && s.kb.errorTemplate("resourceEstimationUnsupported"))
    for (const std::string& key : s.kb.higherOrderBinds(api)) {
      const knowledge::PrimitiveFacts* p = s.kb.primitive(key);
      if (!p || !isStructuralPrimitive(p->name))
        continue;
      std::optional<bool> has = s.kb.hasResourceEstimator(p->name);
      if (!has || *has)
        continue;
      BoundPrimitive b;
      b.api = api;
      b.prim = p;
      b.site = site;
      b.refs = {RefKind::NotRef, Phase::Lowering, "a traced function"};
      b.interpretRule = "resource_estimation";
      b.detail = p->name;
      s.record(in, std::move(b));
      break;
    }
  // GPU interpret mode re-binds a higher-order primitive it has no arm for
  // (its error names no equation: the traceback ends at the launch).
  if (t->path == ExecPath::InterpretGpu)
    for (const std::string& key : s.kb.higherOrderBinds(api)) {
      const knowledge::PrimitiveFacts* p = s.kb.primitive(key);
      if (!gpuInterpretRebinds(s, p))
        continue;
      s.record(in, ruleBinding(api, p, t->event->site,
                               {RefKind::NotRef, Phase::Lowering, "a traced function"},
                               "gpu_higher_order", p->name));
      break;
    }
  // jit / checkpoint / custom_vjp given a discharged Ref discharge every Ref of their body.
  static const std::set<std::string> dischargesAll = {"jax.jit",
                                                      "jax.checkpoint",
                                                      "jax.remat",
                                                      "jax.custom_vjp",
                                                      "jax.ad_checkpoint.checkpoint",
                                                      "jax.custom_batching.custom_vmap"};
  bool saveAll = t->allDischarged;
  Phase savePhase = t->allPhase;
  RefState given = s.strongest(args);
  if (dischargesAll.count(api) && given.discharged() && !t->allDischarged) {
    t->allDischarged = true;
    t->allPhase = given.phase;
  }
  Value r = in.call(w.fn, args, site);
  t->allDischarged = saveAll;
  t->allPhase = savePhase;
  return r;
}

Value kernelApiCall(Interpreter& in, const std::string& api, const CallArgs& args,
                    mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  Trace* t = s.trace();
  auto callWith = [&](const Value& f, std::vector<Value> operands) {
    CallArgs a;
    a.positional = std::move(operands);
    return in.call(f, a, site);
  };
  Value u = in.unknown("a traced value", site);
  if (api == "pl.run_scoped")
    return runScoped(in, args, site);
  if (api == "pl.run_state") {
    if (args.positional.empty())
      return u;
    BuiltinObj* apply = in.makeNative("pl.run_state.apply", nRunStateApply);
    apply->bound = args.positional[0];
    return Value(apply, site);
  }
  if (api == "pl.when") {
    BuiltinObj* apply = in.makeNative("pl.when.apply", nWhenApply);
    apply->bound = args.positional.empty() ? u : args.positional[0];
    return Value(apply, site);
  }
  if (api == "pl.loop" || api == "plgpu.nd_loop")
    return Value(in.makeNative(api + ".apply", nLoopApply), site);
  // JAX traces the bodies of its control flow once, whatever runs.
  std::optional<UnsureScope> unsure;
  if (api == "lax.fori_loop" || api == "jax.lax.fori_loop" || api == "lax.while_loop" ||
      api == "jax.lax.while_loop" || api == "lax.cond" || api == "jax.lax.cond" ||
      api == "lax.switch" || api == "jax.lax.switch" || api == "lax.scan" || api == "jax.lax.scan")
    unsure.emplace(s);
  if (api == "lax.fori_loop" || api == "jax.lax.fori_loop") {
    if (args.positional.size() >= 3)
      callWith(args.positional[2], {u, args.positional.size() > 3 ? args.positional[3] : u});
    return u;
  }
  if (api == "lax.while_loop" || api == "jax.lax.while_loop") {
    if (args.positional.size() >= 3) {
      callWith(args.positional[0], {args.positional[2]});
      callWith(args.positional[1], {args.positional[2]});
    }
    return u;
  }
  if (api == "lax.cond" || api == "jax.lax.cond") {
    // JAX traces both branches whatever the predicate.
    if (args.positional.size() >= 3) {
      std::vector<Value> ops(args.positional.begin() + 3, args.positional.end());
      callWith(args.positional[1], ops);
      callWith(args.positional[2], ops);
    }
    return u;
  }
  if (api == "lax.switch" || api == "jax.lax.switch") {
    if (args.positional.size() >= 2) {
      std::vector<Value> ops(args.positional.begin() + 2, args.positional.end());
      for (const Value& b : in.elements(args.positional[1], site).items)
        callWith(b, ops);
    }
    return u;
  }
  if (api == "lax.scan" || api == "jax.lax.scan") {
    if (!args.positional.empty())
      callWith(args.positional[0], {args.positional.size() > 1 ? args.positional[1] : u, u});
    return u;
  }
  if (api == "plgpu.emit_pipeline" || api == "plgpu.emit_pipeline_warp_specialized") {
    threadRunLost(s);
    const Value* body = args.get(0, "body");
    s.pipelines.push_back({api, body ? *body : u, site, args, false});
    auto* inst = in.heap().make<InstanceObj>(s.pipelineClass);
    inst->payload = &s.pipelines.back();
    return Value(inst, site);
  }
  if (api == "plgpu.warp_map") {
    threadRunLost(s);
    if (!args.positional.empty())
      nestedCoreMap(in, args.positional[0], true, api, site);
    return in.none(site);
  }
  if (api == "pl.core_map") {
    threadRunLost(s);
    BuiltinObj* apply = in.makeNative("pl.core_map.apply", nNestedCoreMapApply);
    apply->bound = args.positional.empty() ? u : args.positional[0];
    return Value(apply, site);
  }
  // lax.axis_index of a Mosaic GPU mesh axis: the HLO interpreter discharges
  // the body without binding the mesh's axis names.
  if (api == "lax.axis_index" || api == "jax.lax.axis_index") {
    const std::string& launchApi = t->event->api;
    bool meshAxes =
        launchApi == "plgpu.kernel" || launchApi == "pl.core_map" || launchApi == "pl.kernel";
    if (t->path == ExecPath::InterpretHlo && meshAxes)
      if (const knowledge::PrimitiveFacts* p = s.kb.primitive("axis_index");
          p && s.kb.errorTemplate("unboundAxisName"))
        s.record(in, ruleBinding("lax.axis_index", p, site,
                                 {RefKind::NotRef, Phase::Lowering, "an axis name"}, "unbound_axis",
                                 "<axis name>"));
    // A thread's run for the barrier protocol: its index on the thread axis.
    if (ThreadRun* run = t->thread) {
      const Value* axis = args.get(0, "axis_name");
      auto* name = axis ? llvm::dyn_cast_or_null<StrObj>(axis->single()) : nullptr;
      if (name && name->v == run->axis)
        return in.integer(run->index, site);
    }
    return in.unknown("an axis index", site);
  }
  // A Ref view: the same Ref seen through a transform.
  if (detail::isRefTransform(api) && !args.positional.empty())
    return view(in, args.positional[0], api, site);
  noteNoneUses(in, args,
               "TypeError: Argument 'None' of type '<class 'NoneType'>' is not a valid JAX type");
  recordApiRules(in, s, api, args, site);
  // Compiled: a function with a custom derivative (jax.nn.relu) binds a
  // primitive resource estimation rejects, whatever its operands.
  if (t->path == ExecPath::Compiled)
    if (std::optional<CustomDerivativeUse> use = customDerivativeUse(s.kb, api)) {
      BoundPrimitive b =
          ruleBinding(api, use->prim, site, {RefKind::NotRef, Phase::Lowering, "a traced function"},
                      "resource_estimation", use->prim->name);
      b.messageHoles = std::move(use->messageHoles);
      s.record(in, std::move(b));
      return traced(in, "the result of " + api + "(...)", site);
    }
  bindApi(in, api, args, site);
  return traced(in, "the result of " + api + "(...)", site);
}

// ---- tracing a kernel -----------------------------------------------------------------

namespace {

// How many Refs the launch passes positionally, and whether a *args takes
// the rest: the kernel's positional parameters, less those a partial or a
// bound method fills.
struct Params {
  std::vector<std::string> names; // filled by the launch, in order
  bool varArgs = false;
};

Params launchParams(Interpreter& in, const Value& kernel, unsigned depth = 0) {
  Params p;
  Object* k = kernel.single();
  if (!k || depth > 8)
    return p;
  if (auto* f = llvm::dyn_cast<FunctionObj>(k)) {
    auto def = llvm::dyn_cast<py::DefOp>(f->def);
    if (!def)
      return p;
    llvm::StringRef kinds = def.getParamKinds();
    for (size_t i = 0; i < kinds.size(); ++i) {
      llvm::StringRef name = llvm::cast<mlir::StringAttr>(def.getParams()[i]).getValue();
      if (kinds[i] == 'p' || kinds[i] == 'n')
        p.names.push_back(name.str());
      else if (kinds[i] == 'v')
        p.varArgs = true;
    }
    return p;
  }
  if (auto* b = llvm::dyn_cast<BoundMethodObj>(k)) {
    Params inner = launchParams(in, Value(b->fn), depth + 1);
    if (!inner.names.empty())
      inner.names.erase(inner.names.begin());
    return inner;
  }
  if (auto* part = llvm::dyn_cast<PartialObj>(k)) {
    Params inner = launchParams(in, part->fn, depth + 1);
    size_t drop = std::min(part->args.size(), inner.names.size());
    inner.names.erase(inner.names.begin(), inner.names.begin() + static_cast<long>(drop));
    for (const auto& [kw, v] : part->keywords)
      inner.names.erase(std::remove(inner.names.begin(), inner.names.end(), kw), inner.names.end());
    return inner;
  }
  if (auto* inst = llvm::dyn_cast<InstanceObj>(k)) {
    if (const Value* call = in.lookupInMro(inst->cls, "__call__")) {
      Params inner = launchParams(in, *call, depth + 1);
      if (!inner.names.empty())
        inner.names.erase(inner.names.begin());
      return inner;
    }
  }
  if (auto* w = llvm::dyn_cast<InstanceObj>(k)) {
    (void)w;
  }
  return p;
}

struct ScratchKind {
  std::string origin = "scratch";
  bool refUnion = false, barrier = false;
  int arrivals = 0, count = 0;
};

std::optional<std::vector<ScratchKind>> scratchKinds(Interpreter& in, const LaunchEvent& e) {
  if (e.scratch.isBottom())
    return std::nullopt;
  Interpreter::Elements items = in.elements(e.scratch, e.site);
  if (auto* d = llvm::dyn_cast_or_null<DictObj>(e.scratch.single())) {
    items.items.clear();
    items.exact = d->exact;
    for (const auto& [k, v] : d->items)
      items.items.push_back(v);
  }
  if (!items.exact)
    return std::nullopt;
  std::vector<ScratchKind> out;
  for (const Value& v : items.items) {
    ScratchKind k;
    for (const Alt& a : v) {
      if (isInstanceOfApi(in, a.obj, "plgpu.ACC"))
        k.origin = "acc";
      else if (isInstanceOfApi(in, a.obj, "plgpu.RefUnion"))
        k.refUnion = true;
      else if (isInstanceOfApi(in, a.obj, "plgpu.Barrier")) {
        k.barrier = true;
        auto* inst = llvm::cast<InstanceObj>(a.obj);
        auto intAttr = [&](const char* name, const char* pos, int dflt) {
          const Value* x = inst->attrs.find(name);
          if (!x)
            x = inst->attrs.find(pos);
          auto* i = x ? llvm::dyn_cast_or_null<IntObj>(x->single()) : nullptr;
          return i ? static_cast<int>(i->v) : (x ? 0 : dflt);
        };
        k.arrivals = intAttr("num_arrivals", "_0", 1);
        k.count = intAttr("num_barriers", "_1", 1);
      }
    }
    out.push_back(k);
  }
  return out;
}

Hop hopOf(Interpreter& in, const Value& kernel, unsigned depth = 0) {
  Object* k = kernel.single();
  if (!k || depth > 8)
    return {};
  if (auto* f = llvm::dyn_cast<FunctionObj>(k))
    return {f->name, locOf(f->def), {}};
  if (auto* b = llvm::dyn_cast<BoundMethodObj>(k))
    return hopOf(in, Value(b->fn), depth + 1);
  if (auto* p = llvm::dyn_cast<PartialObj>(k))
    return hopOf(in, p->fn, depth + 1);
  if (auto* inst = llvm::dyn_cast<InstanceObj>(k)) {
    PallasOverlay::State& s = stateOf(in);
    if (inst->cls == s.inlineClass)
      return hopOf(in, static_cast<InlineRegion*>(inst->payload)->fn, depth + 1);
    if (inst->cls == s.wrappedClass)
      return hopOf(in, static_cast<Wrapped*>(inst->payload)->fn, depth + 1);
    if (const Value* call = in.lookupInMro(inst->cls, "__call__"))
      return hopOf(in, *call, depth + 1);
  }
  return {};
}

// A pl.core_map body's Refs are those it closes over: the values of the
// enclosing functions' parameters the evaluator does not know are Refs
// there (JAX passes the launch's Refs that way).
void closedOverRefs(Interpreter& in, const Value& kernel) {
  PallasOverlay::State& s = stateOf(in);
  auto* fn = llvm::dyn_cast_or_null<FunctionObj>(kernel.single());
  for (FrameObj* f = fn ? fn->closure : nullptr; f; f = f->enclosing) {
    if (f->classBody)
      continue;
    for (llvm::StringRef n : f->locals.names()) {
      Value* v = f->locals.find(n);
      if (!v || !v->isUnknown() || v->isBottom())
        continue;
      RefInfo r;
      r.origin = "closed_over";
      r.state = s.scopedState("closed_over");
      in.heap().willWrite(f);
      *f->locals.find(n) = s.makeRef(in, r, fn->def);
    }
  }
}

} // namespace

void PallasOverlay::State::traceKernel(Interpreter& in, LaunchEvent& event, ExecPath path,
                                       KernelTrace& out) {
  Trace t;
  t.path = path;
  t.event = &event;
  t.out = &out;
  t.stackBase = in.stack().size();
  t.whyBase = in.uncertainty().size();
  t.loweringSemantics = event.loweringSemantics;
  t.primitiveSemantics = event.primitiveSemantics;
  traces.push_back(&t);
  in.heap().beginSide(); // what tracing changes is forgotten afterwards
  Interpreter::MadeMark made = in.madeSoFar();

  out.kernelHop = hopOf(in, event.kernel);
  // A multi-threaded plgpu.kernel wraps its body in run_scoped with
  // collective axes: the HLO interpreter rejects that first.
  if (path == ExecPath::InterpretHlo && event.api == "plgpu.kernel" &&
      (event.numThreads > 1 || event.threadName))
    if (const auto* prim = kb.primitive("run_scoped")) {
      BoundPrimitive b;
      b.api = "plgpu.kernel";
      b.prim = prim;
      b.site = event.site;
      b.refs = discharged(Phase::Retrace, "the kernel's Refs");
      b.retraceCollective = true;
      record(in, std::move(b));
    }
  recordLaunchRules(in, *this, t);

  std::vector<std::function<void()>> ways;
  bool oneKernel = false; // the kernel is known: one alternative
  std::vector<std::string> names;
  for (const Alt& k : event.kernel) {
    Value kernel(k.obj, k.origin);
    ways.push_back([&, kernel] {
      Object* o = kernel.single();
      if (o->kind == Kind::Unknown || o->kind == Kind::External || o->kind == Kind::None) {
        out.kernelKnown = false;
        out.unknownKernel = describe(o);
        return;
      }
      if (auto* inst = llvm::dyn_cast<InstanceObj>(o); inst && inst->cls == inlineClass) {
        // The kernel is itself an inline_mgpu region.
        RefInfo r;
        r.state = kernelParamState("kernel_param");
        CallArgs args;
        args.positional = {kernel, makeRef(in, r, event.site)};
        nInlineCall(in, args, event.site, nullptr);
        return;
      }
      if (event.api == "pl.core_map") {
        closedOverRefs(in, kernel);
        in.call(kernel, {}, event.site);
        return;
      }
      Params params = launchParams(in, kernel);
      std::optional<std::vector<ScratchKind>> scratch = scratchKinds(in, event);
      size_t n = params.names.size();
      size_t pack = params.varArgs ? (scratch ? scratch->size() : 0) + 2 : 0;
      size_t total = n + pack;
      CallArgs args;
      for (size_t i = 0; i < total; ++i) {
        RefInfo r;
        std::string origin = "unknown";
        ScratchKind kind;
        if (scratch && scratch->size() <= total) {
          size_t first = total - scratch->size();
          if (i >= first) {
            kind = (*scratch)[i - first];
            origin = kind.origin;
          } else {
            origin = "kernel_param";
          }
        }
        r.origin = origin;
        r.state = kernelParamState(origin);
        r.state.accumulator = origin == "acc";
        r.state.refUnion = kind.refUnion;
        r.state.barrier = kind.barrier;
        r.state.barrierArrivals = kind.arrivals;
        r.state.barrierCount = kind.count;
        r.param = static_cast<int>(i);
        args.positional.push_back(makeRef(in, r, event.site));
      }
      in.call(kernel, args, event.site);
      if (oneKernel)
        recordBarrierProtocol(in, *this, t, kernel, args);
    });
    names.push_back("when the kernel is " + describe(k.obj));
  }
  oneKernel = ways.size() == 1;
  if (ways.size() == 1)
    ways[0]();
  else if (!ways.empty())
    in.sides(ways, names);
  // A pipeline built in the kernel but never run by a call the evaluator
  // saw binds where it is built.
  for (Pipeline& p : pipelines)
    if (!p.called && p.site) {
      CallArgs none;
      bindPipeline(in, p, none, p.site);
      runPipelineBody(in, p, 0, p.site);
      p.called = true;
    }
  in.heap().endSide(true);
  in.consumeMadeSince(made); // the kernel's closures are the kernel's
  traces.pop_back();
}

namespace {

// An operator or array attribute on a value JAX traces in a kernel binds
// what the knowledge table recorded for it (`q @ k` binds dot_general,
// `x.T` transpose, as jnp.matmul and jnp.transpose do), named as written.
Value tracedOperation(Interpreter& in, llvm::StringRef op, const std::vector<Value>& operands,
                      mlir::Operation* site) {
  PallasOverlay::State& s = stateOf(in);
  if (!s.trace())
    return Value();
  std::string key = op == "@"     ? "operator.matmul"
                    : op == ".T"  ? "jax.Array.T"
                    : op == ".mT" ? "jax.Array.mT"
                                  : "";
  if (key.empty() || !s.kb.api(key))
    return Value();
  CallArgs args;
  args.positional = operands;
  std::string written = s.sourceText ? s.sourceText(site) : std::string();
  if (written.empty() || written.size() > 60 || written.find('\n') != std::string::npos)
    written = op == "@" ? "x @ y" : "x" + op.str();
  bindApi(in, key, args, site, std::nullopt, written);
  return traced(in, "the result of " + written, site);
}

} // namespace

void installKernelNatives(Interpreter& in, PallasOverlay::State& s) {
  auto cls = [&](const char* name) { return in.externalClass(std::string("pallas-lsp.") + name); };
  s.refClass = cls("Ref");
  s.refClass->ns.set("__getitem__",
                     Value(in.makeNative("pallas-lsp.Ref.__getitem__", nRefGetitem)));
  s.refClass->ns.set("__setitem__",
                     Value(in.makeNative("pallas-lsp.Ref.__setitem__", nRefSetitem)));
  s.refClass->ns.set("__iter__", Value(in.makeNative("pallas-lsp.Ref.__iter__", nRefIter)));
  s.refClass->ns.set("__getattr__",
                     Value(in.makeNative("pallas-lsp.Ref.__getattr__", nRefGetattr)));
  s.refAtClass = cls("RefAt");
  s.refAtClass->ns.set("__getitem__",
                       Value(in.makeNative("pallas-lsp.RefAt.__getitem__", nRefAtGetitem)));
  s.inlineClass = cls("InlineMgpuRegion");
  s.inlineClass->ns.set("__call__",
                        Value(in.makeNative("pallas-lsp.Inline.__call__", nInlineCall)));
  in.defineNative("plgpu.inline_mgpu", nInlineMgpu);
  s.noneResultClass = cls("InlineMgpuNoneResult");
  for (const char* op : {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                         "__truediv__", "__rtruediv__", "__matmul__", "__rmatmul__", "__neg__",
                         "__pow__", "__floordiv__", "__mod__"})
    s.noneResultClass->ns.set(
        op, Value(in.makeNative(std::string("pallas-lsp.None.") + op, nNoneResultOp)));
  in.setTracedOperationHook(tracedOperation);
  s.pipelineClass = cls("Pipeline");
  s.pipelineClass->ns.set("__call__",
                          Value(in.makeNative("pallas-lsp.Pipeline.__call__", nPipelineCall)));
}

} // namespace pallas::analysis::passes
