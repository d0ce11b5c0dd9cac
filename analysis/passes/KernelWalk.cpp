// The KernelWalk proper: the kernel body of one launch walked in program
// order on one execution path, through calls, scopes, pipelines and
// inline_mgpu regions, recording each primitive binding (KernelWalk.h). Ref
// states: KernelWalkRefStates.cpp; callables: KernelWalkCallables.cpp.
#include "KernelWalkInternal.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

std::string hopText(const Hop& h) {
  return h.name + " (" + llvm::sys::path::filename(h.definition.path).str() + ":" +
         std::to_string(h.definition.range.start.line + 1) + ")";
}

namespace pd = pallas::dialect;

namespace {

// Primitives that stand for structure the walk follows itself (kernel calls,
// control flow, scopes): their rules decide about their bodies, not them.
bool isStructural(llvm::StringRef name) {
  static const llvm::StringSet<> names = {"pallas_call",     "mpmd_map",
                                          "core_map",        "run_scoped",
                                          "run_state",       "jit",
                                          "remat2",          "cond",
                                          "while",           "scan",
                                          "custom_vjp_call", "custom_vmap_call",
                                          "jaxpr_call",      "custom_jvp_call"};
  return names.contains(name);
}

} // namespace

bool isStructuralPrimitive(llvm::StringRef name) {
  return isStructural(name);
}

namespace {

bool isPipeline(pd::ScopeOp scope) {
  return detail::isPipelineApi(scope.getApi());
}

// Whether the pipeline a scope builds is run by a call the walk sees
// (`plgpu.emit_pipeline(body, ...)(x_gmem, o_gmem)`, or through a name).
bool pipelineIsCalled(pd::ScopeOp scope) {
  for (mlir::Operation* user : scope->getResult(0).getUsers())
    if (auto c = llvm::dyn_cast<pd::CallIndirectOp>(user);
        c && c.getCallee() == scope->getResult(0))
      return true;
  return false;
}

SourceLocation locOf(mlir::Operation* op) {
  return op ? detail::sourceLocation(op->getLoc()) : SourceLocation{};
}

// The Mosaic GPU lowering semantics a launch selects, read from a literal
// `compiler_params=plgpu.CompilerParams(lowering_semantics=...)` among the
// launch's arguments (the ops the front end emits just before the launch, at
// or after its source position). Literal parameters that do not choose get
// the JAX version's default (`defaultLowering`, from the knowledge table:
// Lane up to 0.10, Warpgroup from 0.11); compiler parameters passed through
// a variable are not visible: then both.
// The ops the front end emits for a launch's arguments: just before the
// launch, at or after its source position.
template <typename Fn> void forEachLaunchArgumentOp(pd::LaunchOp launch, Fn fn) {
  detail::LineCol at = detail::lineCol(launch.getLoc());
  for (mlir::Operation* op = launch->getPrevNode(); op; op = op->getPrevNode()) {
    detail::LineCol l = detail::lineCol(op->getLoc());
    if (l.file != at.file || std::pair(l.line, l.column) < std::pair(at.line, at.column))
      break; // before the launch's call: not one of its arguments
    if (!fn(op))
      break;
  }
}

// A pl.core_map launch (also one nested in a kernel, which the front end
// makes a launch of its own) runs its body with its mesh's user thread
// semantics: Warp for plgpu.WarpMesh, Warpgroup for plgpu.Mesh, either when
// the mesh is not written in the call. Other launches: Warpgroup.
std::vector<std::string> launchPrimitiveSemantics(pd::LaunchOp launch) {
  if (launch.getApi() != apiText(Api::CoreMap))
    return {"Warpgroup"};
  std::vector<std::string> out{"Warpgroup", "Warp"};
  forEachLaunchArgumentOp(launch, [&](mlir::Operation* op) {
    auto mesh = llvm::dyn_cast<pd::PrimOp>(op);
    if (mesh && mesh.getApi() == apiText(Api::WarpMesh))
      out = {"Warp"};
    else if (mesh && mesh.getApi() == apiText(Api::Mesh))
      out = {"Warpgroup"};
    else
      return true;
    return false;
  });
  return out;
}

std::vector<std::string> launchLoweringSemantics(pd::LaunchOp launch,
                                                 const std::string& defaultLowering) {
  static const std::vector<std::string> either{"Lane", "Warpgroup"};
  // No compiler_params= at all (the front end marks the launch when there
  // is): the JAX version's default (a table that does not say: Lane).
  if (!launch->hasAttr("pallas.compiler_params"))
    return {defaultLowering.empty() ? std::string("Lane") : defaultLowering};
  // A wrapper method builds the params from its own state (JAX's tests:
  // `lowering_semantics=self.LOWERING_SEMANTICS`): either.
  if (launch->hasAttr("pallas.wrapper_compiler_params"))
    return either;
  std::vector<std::string> out = either;
  forEachLaunchArgumentOp(launch, [&](mlir::Operation* op) {
    auto params = llvm::dyn_cast<pd::PrimOp>(op);
    if (!params || params.getApi() != apiText(Api::CompilerParams))
      return true;
    // Literal compiler parameters without lowering_semantics; a table that
    // does not say is older than the field: Lane, JAX's default then.
    out = {defaultLowering.empty() ? std::string("Lane") : defaultLowering};
    for (unsigned i = 0; i < params.getArgs().size(); ++i) {
      if (strAt(params.getKeywords(), i) != "lowering_semantics")
        continue;
      auto g = params.getArgs()[i].getDefiningOp<pd::GlobalOp>();
      llvm::StringRef v = g ? g.getResolved() : "";
      if (v == "plgpu.LoweringSemantics.Lane")
        out = {"Lane"};
      else if (v == "plgpu.LoweringSemantics.Warpgroup")
        out = {"Warpgroup"};
      else
        out = either;
    }
    return false;
  });
  return out;
}

// The index-th positional argument of a call; null when not written so.
mlir::Value positionalArg(pd::PrimOp prim, int index) {
  int seen = 0;
  for (unsigned i = 0; i < prim.getArgs().size(); ++i) {
    if (!strAt(prim.getKeywords(), i).empty())
      continue;
    if (seen++ == index)
      return prim.getArgs()[i];
  }
  return {};
}

// An API that returns before binding when one operand's shape equals a shape
// argument (knowledge: returnsBeforeBindIf; pl.broadcast_to) binds for
// certain when the source shows they differ: a Python number (shape ()) and
// a literal tuple of integer literals with at least one entry.
bool shapesDifferForCertain(pd::PrimOp prim, const knowledge::ApiFacts& facts) {
  if (facts.returnsUnlessShapeOf < 0 || facts.returnsUnlessShapeEquals < 0)
    return false;
  mlir::Value operand = positionalArg(prim, facts.returnsUnlessShapeOf);
  mlir::Value shape = positionalArg(prim, facts.returnsUnlessShapeEquals);
  auto number = operand ? operand.getDefiningOp<pd::ConstantOp>() : pd::ConstantOp();
  auto tuple = shape ? shape.getDefiningOp<pd::OpaqueOp>() : pd::OpaqueOp();
  if (!number ||
      (number.getKind() != pd::ConstantKind::Int && number.getKind() != pd::ConstantKind::Float) ||
      !tuple || tuple.getWhat() != "tuple" || tuple.getArgs().empty())
    return false;
  return llvm::all_of(tuple.getArgs(), [](mlir::Value v) {
    auto c = v.getDefiningOp<pd::ConstantOp>();
    return c && c.getKind() == pd::ConstantKind::Int;
  });
}

} // namespace

const char* pathLabel(ExecPath p) {
  switch (p) {
  case ExecPath::Compiled:
    return "compiled (Mosaic GPU)";
  case ExecPath::InterpretHlo:
    return "interpret=True (HLO interpreter)";
  case ExecPath::InterpretGpu:
    return "GPU interpret mode (InterpretGPUParams)";
  }
  return "";
}

const char* pathShortName(ExecPath p) {
  switch (p) {
  case ExecPath::Compiled:
    return "compiled";
  case ExecPath::InterpretHlo:
    return "interpret_hlo";
  case ExecPath::InterpretGpu:
    return "interpret_gpu";
  }
  return "";
}

bool isWarpMeshCoreMap(pd::LaunchOp launch) {
  return launch.getApi() == apiText(Api::CoreMap) &&
         launchPrimitiveSemantics(launch) == std::vector<std::string>{"Warp"};
}

std::vector<pd::LaunchOp> enclosingLaunches(llvm::ArrayRef<pd::LaunchOp> all, pd::LaunchOp nested) {
  mlir::Operation* fn = nested->getParentOp();
  while (fn && !llvm::isa<pd::FuncOp, pd::ClosureOp>(fn))
    fn = fn->getParentOp();
  std::vector<pd::LaunchOp> out;
  if (!fn)
    return out;
  auto func = llvm::dyn_cast<pd::FuncOp>(fn);
  if (func && func.getKind() == pd::FuncKind::Module)
    return out; // a top-level statement: not a kernel
  for (pd::LaunchOp l : all) {
    if (l == nested)
      continue;
    bool encloses = func ? l.getBody() && *l.getBody() == func.getSymName()
                         : l.getBodyValue() && l.getBodyValue().getDefiningOp() == fn;
    if (encloses)
      out.push_back(l);
  }
  return out;
}

bool isMosaicGpuLaunch(pd::LaunchOp launch) {
  auto backend = launch.getBackend();
  return !backend || *backend == "mosaic_gpu";
}

bool isStaticallyReachable(mlir::Operation* op) {
  for (mlir::Operation* cur = op; cur; cur = cur->getParentOp()) {
    auto i = llvm::dyn_cast_or_null<pd::IfOp>(cur->getParentOp());
    if (!i || !i.getStaticCond())
      continue;
    bool inThen = cur->getParentRegion() == &i.getThenRegion();
    if (inThen != *i.getStaticCond())
      return false;
  }
  return true;
}

bool KernelWalk::run() {
  Callable body;
  if (launch_.getBody() && launch_.getBodyValue()) {
    // A partial of a module function: the function, with what the partial
    // binds to its parameters.
    doc_ = launchPath_;
    body = resolve(launch_.getBodyValue());
    if (!body.block || !body.alternatives.empty())
      body = fromFunction(ws_.resolveLaunchBody(launchPath_, launch_));
  } else if (launch_.getBody()) {
    body = fromFunction(ws_.resolveLaunchBody(launchPath_, launch_));
  } else if (launch_.getBodyValue()) {
    doc_ = launchPath_;
    body = resolve(launch_.getBodyValue());
    if (!body.block && body.alternatives.empty())
      body = fromBodyArguments();
  }
  if (!body.block && body.alternatives.empty())
    return false;
  if (body.alternatives.empty()) {
    walkKernel(body);
    return true;
  }
  // One of several kernels (`self.kernel` overridden in subclasses): each
  // is walked; what it binds is a "may".
  for (const Callable& alt : body.alternatives) {
    // No text: every alternative runs (a loop over them, 8.26).
    bool may = !alt.dispatchText.empty();
    if (may)
      dispatch_.push_back(alt.dispatchText);
    walkKernel(alt);
    if (may)
      dispatch_.pop_back();
  }
  kernelHop_ = {body.alternatives.front().name, locOf(body.alternatives.front().defOp), {}};
  return true;
}

// A body that is a parameter of the function around the launch: the kernel
// each caller passes. One kernel is the launch's; several (callers passing
// different kernels) are each walked, their failures a "may" naming the
// caller, since a path chosen here may belong to another caller's launch.
KernelWalk::Callable KernelWalk::fromBodyArguments() const {
  std::vector<Callable> found;
  for (const LaunchBodyArgument& a : bodyArguments_) {
    Callable c = a.attribute.empty() ? resolve(a.value, 1, a.doc)
                                     : resolveMethod(a.value, a.attribute, 1, a.doc);
    if (!c.block || c.inlineMgpu)
      continue;
    if (llvm::any_of(found, [&](const Callable& f) { return f.block == c.block; }))
      continue;
    c.dispatchText = "`" + a.parameter + "` is `" + c.name + "` (passed by `" + a.caller + "`)";
    found.push_back(std::move(c));
  }
  if (found.size() == 1) {
    found.front().dispatchText.clear();
    return std::move(found.front());
  }
  Callable out;
  out.alternatives = std::move(found);
  return out;
}

void KernelWalk::walkKernel(const Callable& body) {
  std::string launchDoc = doc_.empty() ? launchPath_ : doc_;
  doc_ = body.path.empty() ? launchPath_ : body.path;
  loweringSemantics_ = launchLoweringSemantics(launch_, kb_.defaultLoweringSemantics());
  primitiveSemantics_ = launchPrimitiveSemantics(launch_);
  kernelHop_ = {body.name, locOf(body.defOp), {}};
  chain_ = {kernelHop_};

  // The kernel's parameters: those a functools.partial or a bound method
  // fills come first (positional) or by name; the launch passes its Refs to
  // the others, in order.
  unsigned n = body.block->getNumArguments();
  std::vector<bool> taken(n, false);
  mlir::ArrayAttr names = parameterNames(body.defOp);
  for (unsigned i = 0, positional = 0; i < body.boundArgs.size(); ++i) {
    int param = parameterIndex(body.boundKeywords[i], names, positional, n);
    if (param < 0)
      continue;
    taken[param] = true;
    states_[body.block->getArgument(param)] = stateOf(body.boundArgs[i], body.boundOrigins[i]);
    argValues_[body.block->getArgument(param)] = {body.boundArgs[i], launchDoc};
  }
  for (auto& [param, value] : body.captured)
    argValues_[param] = value;
  for (auto& [param, where] : body.leftOut)
    defaulted_[param] = where;
  // The launch passes its Refs positionally: a keyword-only parameter no
  // partial fills keeps its default (`*, epilogue=fence_epilogue`).
  for (unsigned i : keywordOnlyParameters(body.defOp, doc_))
    if (!taken[i])
      defaulted_[body.block->getArgument(i)] = doc_;
  unsigned free = static_cast<unsigned>(llvm::count(taken, false));
  for (unsigned i = 0, k = 0; i < n; ++i) {
    if (taken[i])
      continue;
    llvm::StringRef name = strAt(names, i);
    if (name.starts_with("**"))
      continue; // the launch passes no keywords
    if (name.starts_with("*"))
      refPacks_[body.block->getArgument(i)] = k; // the rest of the launch's Refs
    states_[body.block->getArgument(i)] = kernelParamStateOf(k++, free);
  }

  // A multi-threaded plgpu.kernel wraps its body in run_scoped with
  // collective axes: the HLO interpreter rejects that before anything else.
  // A thread_name alone is enough: the collective axes are the thread axis
  // whatever the thread count (jax/_src/pallas/mosaic_gpu/core.py `kernel`).
  if (path_ == ExecPath::InterpretHlo && launch_.getApi() == apiText(Api::GpuKernel) &&
      ((launch_.getNumThreads() && *launch_.getNumThreads() > 1) || launch_.getThreadName())) {
    if (const auto* prim = kb_.primitive("run_scoped")) {
      BoundPrimitive b;
      b.api = apiText(Api::GpuKernel).str();
      b.prim = prim;
      b.site = launch_;
      b.refs = {Kind::Discharged, Phase::Retrace, "the kernel's Refs"};
      b.retraceCollective = true;
      record(std::move(b));
    }
  }
  recordInterpretRefTransforms();
  recordGpuInterpretBlockWindows();
  recordGpuInterpretUninitializedScratch();
  if (body.inlineMgpu) {
    // The kernel itself is an inline_mgpu-decorated function.
    recordInline(launch_, body.inlineMgpu, nullptr, strongest(body.inlineMgpu));
    return;
  }
  onStack_.insert(body.block);
  walkBlock(*body.block);
  onStack_.erase(body.block);
  recordGpuInterpretBarrierProtocol(*body.block);
}

void KernelWalk::walkBlock(mlir::Block& block) {
  for (mlir::Operation& op : block) {
    // Python stops at `return`: what follows in the block never runs.
    if (llvm::isa<pd::ReturnOp>(op))
      return;
    visit(op);
  }
}

void KernelWalk::visit(mlir::Operation& op) {
  llvm::TypeSwitch<mlir::Operation*>(&op)
      .Case<pd::PrimOp>([&](pd::PrimOp p) { onPrim(p); })
      .Case<pd::CallOp>([&](pd::CallOp c) {
        onCall(c, fromFunction(ws_.resolveCall(doc_, c)), c.getArgs(), c.getKeywords(),
               c.getOrigins());
      })
      .Case<pd::CallIndirectOp>([&](pd::CallIndirectOp c) {
        auto global = c.getCallee().getDefiningOp<pd::GlobalOp>();
        if (auto pipe = c.getCallee().getDefiningOp<pd::ScopeOp>(); pipe && isPipeline(pipe))
          onPipelineRun(pipe, c, c.getArgs(), c.getOrigins());
        else if (global && global.getResolved() == apiText(Api::WarpMap))
          onWarpMap(c, c.getArgs());
        else
          onCall(c, resolve(c.getCallee()), c.getArgs(), c.getKeywords(), c.getOrigins());
      })
      .Case<pd::ScopeOp>([&](pd::ScopeOp s) { onScope(s); })
      .Case<pd::IfOp>([&](pd::IfOp i) {
        // Known when lowered (a literal, a module constant) or in this walk
        // (a kernel parameter a partial binds, a captured parameter whose
        // caller passes a constant): the other branch never runs.
        std::optional<bool> known = i.getStaticCond();
        if (!known)
          known = truthOf(i.getCondition());
        // A Python `if` in a kernel tests a value known when it is traced
        // (a traced one raises): not known here, either branch may be the
        // one traced, so what each binds may not be (8.84).
        unsigned line = detail::sourceLocation(i.getLoc()).range.start.line + 1;
        auto walkBranch = [&](mlir::Region& r, bool taken) {
          if (!known)
            dispatch_.push_back("when the `if` at line " + std::to_string(line) + " is " +
                                (taken ? "true" : "false"));
          for (mlir::Block& b : r)
            walkBlock(b);
          if (!known)
            dispatch_.pop_back();
        };
        if (!known || *known)
          walkBranch(i.getThenRegion(), true);
        if (!known || !*known)
          walkBranch(i.getElseRegion(), false);
      })
      .Case<pd::InlineMgpuOp>(
          [&](pd::InlineMgpuOp inl) { recordInline(inl, inl, nullptr, strongest(inl)); })
      // A nested launch (a pl.core_map in the kernel) is its own kernel on
      // the compiled path; the interpreters run it as part of this one.
      .Case<pd::LaunchOp>([&](pd::LaunchOp nested) {
        mlir::Value body = nested.getBodyValue();
        auto closure = body ? body.getDefiningOp<pd::ClosureOp>() : pd::ClosureOp();
        if (nested.getApi() == apiText(Api::CoreMap) && closure)
          recordNestedCoreMap(closure.getBody(), isWarpMeshCoreMap(nested), nested.getApi(),
                              /*kept=*/false);
      })
      // A closure runs only when called.
      .Case<pd::ClosureOp, pd::FuncOp>([](auto) {})
      .Default([&](mlir::Operation* other) {
        for (mlir::Region& r : other->getRegions())
          for (mlir::Block& b : r)
            walkBlock(b);
      });
}

std::optional<bool> KernelWalk::truthOf(mlir::Value v, unsigned depth) const {
  if (!v || depth > 8)
    return std::nullopt;
  auto [value, doc] = follow(v, doc_);
  if (!value)
    return std::nullopt;
  mlir::Operation* def = value.getDefiningOp();
  // Python's truthiness of a literal: False, None, 0 and "" are false.
  auto literal = [](pd::ConstantKind kind, llvm::StringRef text) -> std::optional<bool> {
    switch (kind) {
    case pd::ConstantKind::Bool:
      return text == "True";
    case pd::ConstantKind::None:
      return false;
    case pd::ConstantKind::Int: {
      long n = 0;
      if (text.getAsInteger(10, n))
        return std::nullopt;
      return n != 0;
    }
    case pd::ConstantKind::Str:
      return text.size() > 2; // quotes around nothing: ""
    default:
      return std::nullopt;
    }
  };
  if (auto c = llvm::dyn_cast_or_null<pd::ConstantOp>(def))
    return literal(c.getKind(), c.getValue());
  // A parameter of the def around the launch no call of this walk binds:
  // what its callers pass, or its default for an entry point (8.60).
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
    std::optional<Literal> l = defaultLiteral(arg); // a parameter its call left out
    if (!l)
      l = launchParameterLiteral(arg, doc);
    if (l)
      return literal(l->kind, l->text);
  }
  if (auto g = llvm::dyn_cast_or_null<pd::GlobalOp>(def)) {
    llvm::StringRef r = g.getResolved();
    if (r.consume_front("const:")) {
      if (r == "True" || r == "False")
        return r == "True";
      if (r == "None")
        return false;
    }
    return std::nullopt;
  }
  if (auto o = llvm::dyn_cast_or_null<pd::OpaqueOp>(def);
      o && o.getWhat() == "not_operator" && o.getArgs().size() == 1) {
    std::optional<bool> inner = truthOf(o.getArgs()[0], depth + 1);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  return std::nullopt;
}

std::vector<const knowledge::PrimitiveFacts*> KernelWalk::primitivesOf(llvm::StringRef api,
                                                                       bool& direct) const {
  std::vector<const knowledge::PrimitiveFacts*> out;
  direct = true;
  // Ref indexing binds the state primitives.
  if (api == "ref.__getitem__") {
    if (const auto* p = kb_.primitive("get"))
      out.push_back(p);
    return out;
  }
  if (api == "ref.__setitem__") {
    if (const auto* p = kb_.primitive("swap"))
      out.push_back(p);
    return out;
  }
  const knowledge::ApiFacts* facts = kb_.api(api.str());
  if (!facts || facts->kind != "function")
    return out;
  for (const std::string& key : facts->binds)
    if (const auto* p = kb_.primitive(key); p && !isStructural(p->name))
      out.push_back(p);
  if (!facts->binds.empty())
    return out;
  // Only through JAX helpers (plgpu.atomic_add, plgpu.emit_pipeline, ...):
  // those bind their primitives on the Refs the API is given.
  direct = false;
  for (const std::string& key : facts->bindsTransitive)
    if (const auto* p = kb_.primitive(key); p && !isStructural(p->name))
      out.push_back(p);
  return out;
}

void KernelWalk::onPrim(pd::PrimOp prim) {
  llvm::StringRef api = prim.getApi();
  // The decorator factory binds nothing; calling the decorated def does.
  if (api == apiText(Api::InlineMgpu))
    return;
  if (api == apiText(Api::WarpMap)) {
    onWarpMap(prim, prim.getArgs());
    return;
  }
  if (api == apiText(Api::Switch)) {
    onSwitch(prim);
    return;
  }
  // `self.helper(ref)`, `Class.helper(ref)`: a method of the user's class
  // called on its instance / class is a call, not an API.
  // A bare attribute read (`Stores.fenced`) that a call_indirect then calls
  // is walked by that call, with its arguments; walking it here too would
  // enter the method with none bound.
  bool calledLater = llvm::any_of(prim->getUsers(), [&](mlir::Operation* user) {
    auto c = llvm::dyn_cast<pd::CallIndirectOp>(user);
    return c && c.getCallee() == prim->getResult(0);
  });
  if ((api.starts_with("value.") || api.starts_with("ref.")) && !prim.getArgs().empty() &&
      !detail::isRefTransform(api) && !calledLater) {
    Callable method = resolveMethod(prim.getArgs()[0], api.substr(api.find('.') + 1), 0, doc_);
    if (method.block) {
      llvm::SmallVector<llvm::StringRef> kws, orgs;
      for (unsigned i = 1; i < prim.getArgs().size(); ++i) {
        kws.push_back(strAt(prim.getKeywords(), i));
        orgs.push_back(strAt(prim.getOrigins(), i));
      }
      mlir::Builder b(prim->getContext());
      onCall(prim, method, prim.getArgs().drop_front(), b.getStrArrayAttr(kws),
             b.getStrArrayAttr(orgs));
      return;
    }
  }
  if (recordUnboundAxis(prim) || recordCustomDerivative(prim))
    return;
  recordGpuInterpretCopyOptions(prim);
  recordGpuInterpretRefViews(prim);
  recordGpuInterpretBarrierIndexing(prim);
  bool direct = true;
  RefState refs = strongest(prim);
  // Indexing something the walk knows is not a Ref (a helper parameter
  // given an array) is array indexing, not get/swap.
  if (api.starts_with("ref.") && !prim.getArgs().empty() &&
      !stateOf(prim.getArgs()[0], strAt(prim.getOrigins(), 0)).isRef())
    return;
  // `u[1]` takes a member of a plgpu.RefUnion: no state primitive binds.
  if (api == "ref.__getitem__" && extractsUnionMember(prim))
    return;
  std::vector<RefState> operands;
  for (unsigned i = 0; i < prim.getArgs().size(); ++i)
    if (strAt(prim.getKeywords(), i).empty())
      operands.push_back(stateOf(prim.getArgs()[i], strAt(prim.getOrigins(), i)));
  const knowledge::ApiFacts* facts = kb_.api(api.str());
  std::vector<const knowledge::PrimitiveFacts*> prims = primitivesOf(api, direct);
  // Indexing a plgpu.ACC: its Ref type binds the table's primitives instead
  // of get / swap (acc[...] reads with wgmma_accumulator_deref_p).
  if ((api == "ref.__getitem__" || api == "ref.__setitem__") && !operands.empty() &&
      operands[0].accumulator)
    if (const knowledge::RefIndexing* ri = kb_.refIndexing("plgpu.ACC")) {
      const auto& keys = api == "ref.__getitem__" ? ri->getitem : ri->setitem;
      if (keys) {
        prims.clear();
        for (const std::string& key : *keys)
          if (const auto* p = kb_.primitive(key))
            prims.push_back(p);
      }
    }
  for (const knowledge::PrimitiveFacts* p : prims) {
    BoundPrimitive b;
    b.api = api.str();
    b.prim = p;
    b.site = prim;
    b.refs = refs;
    b.operandStates = operands;
    b.mayNotBind =
        direct && facts && facts->returnsBeforeBind && !shapesDifferForCertain(prim, *facts);
    record(std::move(b));
  }
}

void KernelWalk::recordInline(mlir::Operation* site, pd::InlineMgpuOp op, mlir::Operation* call,
                              RefState refs) {
  const knowledge::PrimitiveFacts* p = kb_.primitive("inline_mgpu_p");
  if (!p)
    return;
  BoundPrimitive b;
  b.api = apiText(Api::InlineMgpu).str();
  b.prim = p;
  b.site = site;
  b.refs = refs;
  b.inlineMgpu = op;
  b.inlineCall = call;
  record(std::move(b));
}

void KernelWalk::record(BoundPrimitive b) {
  b.chain = chain_;
  b.order = order_++;
  for (const std::string& d : dispatch_)
    b.unknownDispatch += (b.unknownDispatch.empty() ? "" : ", ") + d;
  b.cpuLowered = b.cpuLowered || cpuLowered_;
  b.loweringSemantics = loweringSemantics_;
  b.primitiveSemantics = primitiveSemantics_;
  bindings_.push_back(std::move(b));
}

void KernelWalk::onCall(mlir::Operation* site, const Callable& callee, mlir::ValueRange args,
                        mlir::ArrayAttr keywords, mlir::ArrayAttr origins) {
  if (!callee.alternatives.empty()) {
    // One of several methods (KernelWalkCallables.cpp resolveMethod): each
    // is walked, and what it binds may not run.
    for (const Callable& alt : callee.alternatives) {
      bool may = !alt.dispatchText.empty();
      if (may)
        dispatch_.push_back(alt.dispatchText);
      onCall(site, alt, args, keywords, origins);
      if (may)
        dispatch_.pop_back();
    }
    return;
  }
  if (!callee.block)
    return;
  if (!callee.boundArgs.empty()) {
    // functools.partial / bound method: its arguments come first.
    llvm::SmallVector<mlir::Value> all(callee.boundArgs.begin(), callee.boundArgs.end());
    std::vector<std::string> kws = callee.boundKeywords, orgs = callee.boundOrigins;
    for (unsigned i = 0; i < args.size(); ++i) {
      all.push_back(args[i]);
      kws.push_back(strAt(keywords, i).str());
      orgs.push_back(strAt(origins, i).str());
    }
    mlir::Builder b(site->getContext());
    llvm::SmallVector<llvm::StringRef> kwRefs(kws.begin(), kws.end()),
        orgRefs(orgs.begin(), orgs.end());
    Callable plain = callee;
    plain.boundArgs.clear();
    onCall(site, plain, all, b.getStrArrayAttr(kwRefs), b.getStrArrayAttr(orgRefs));
    return;
  }
  recordResourceEstimation(site, callee.higherOrderApi);
  recordGpuInterpretHigherOrder(callee.higherOrderApi);
  if (callee.inlineMgpu) {
    RefState refs = strongest(args, origins);
    if (callee.dischargesAllRefs && refs.kind == Kind::Ref)
      refs.kind = Kind::Discharged;
    size_t before = bindings_.size();
    recordInline(site, callee.inlineMgpu, site, refs);
    if (bindings_.size() > before)
      for (unsigned i = 0; i < args.size(); ++i)
        bindings_.back().argStates.push_back(stateOf(args[i], strAt(origins, i)));
    return;
  }
  if (onStack_.contains(callee.block) || chain_.size() > 32)
    return; // recursion / runaway depth

  // Bind the call's arguments to the callee's parameters.
  mlir::ArrayAttr names = parameterNames(callee.defOp);
  mlir::Block& block = *callee.block;
  std::vector<std::pair<mlir::Value, RefState>> bound;
  std::vector<std::pair<mlir::Value, mlir::Value>> given; // parameter, the caller's argument
  bool anyDischarged = false;
  bool splatted = false; // a `*xs` / `**kw` argument may fill any parameter
  Phase firstPhase = Phase::Lowering;
  for (unsigned i = 0, positional = 0; i < args.size(); ++i) {
    llvm::StringRef kw = strAt(keywords, i);
    if (kw == "*" && bindRefPack(block, names, positional, args[i], bound)) {
      splatted = true;
      break; // the pack fills the rest of the positional parameters
    }
    if (kw == "*" || kw == "**") {
      splatted = true;
      continue;
    }
    int param = parameterIndex(kw, names, positional, block.getNumArguments());
    if (param < 0)
      continue;
    RefState s = stateOf(args[i], strAt(origins, i));
    if (s.discharged()) {
      anyDischarged = true;
      firstPhase = std::min(firstPhase, s.phase);
    }
    bound.push_back({block.getArgument(static_cast<unsigned>(param)), s});
    given.push_back({block.getArgument(static_cast<unsigned>(param)), args[i]});
  }
  for (unsigned j = 0; j < block.getNumArguments(); ++j)
    if (llvm::none_of(bound, [&](auto& b) { return b.first == block.getArgument(j); }))
      bound.push_back({block.getArgument(j), RefState{}});

  bool saveAll = allDischarged_;
  Phase savePhase = allPhase_;
  if (callee.dischargesAllRefs && anyDischarged && !allDischarged_) {
    allDischarged_ = true;
    allPhase_ = firstPhase;
  }

  // Each (callee, argument states, mode) is walked once: linear in the code
  // reached, however many call sites share a helper.
  llvm::hash_code key = llvm::hash_combine(&block, allDischarged_, allPhase_, cpuLowered_);
  for (auto& [arg, s] : bound)
    key = llvm::hash_combine(key, static_cast<int>(s.kind), static_cast<int>(s.phase));
  // A callable argument decides what the callee calls: walk once per one.
  for (auto& [param, arg] : given)
    key = llvm::hash_combine(key, resolve(arg).block);
  for (const std::string& d : dispatch_)
    key = llvm::hash_combine(key, d);
  if (!walked_.insert(key).second) {
    allDischarged_ = saveAll;
    allPhase_ = savePhase;
    return;
  }

  ScopedBindings states(states_);
  for (auto& [arg, s] : bound)
    states.set(arg, s);
  // What each parameter holds while the callee is walked (restored after:
  // recursion is cut above, but a helper may be reached again later).
  ScopedBindings values(argValues_);
  for (mlir::BlockArgument param : block.getArguments())
    values.erase(param);
  for (auto& [param, arg] : given)
    values.set(param, {arg, doc_});
  for (auto& [param, value] : callee.captured)
    values.set(param, value);
  // What the call leaves out holds its default, unless a splat may fill it.
  ScopedBindings defaults(defaulted_);
  for (mlir::BlockArgument param : block.getArguments()) {
    bool isGiven = llvm::any_of(given, [&](auto& g) { return g.first == param; });
    if (!isGiven && !splatted)
      defaults.set(param, callee.path.empty() ? doc_ : callee.path);
    else
      defaults.erase(param);
  }
  for (auto& [param, where] : callee.leftOut)
    defaults.set(param, where);
  std::string saveDoc = doc_;
  doc_ = callee.path.empty() ? doc_ : callee.path;
  SourceLocation callSite = locOf(site);
  chain_.push_back({callee.name, locOf(callee.defOp), callSite});
  onStack_.insert(&block);
  walkBlock(block);
  onStack_.erase(&block);
  chain_.pop_back();
  doc_ = saveDoc;
  allDischarged_ = saveAll;
  allPhase_ = savePhase;
}

// `fn(*args)` where args is a kernel's `*args` parameter (a decorator's
// `wrapper(*args, **kwargs)` launched as the kernel): the launch's Refs from
// the pack's index on fill fn's positional parameters from `firstParam`, as
// Python unpacks them; a `*rest` parameter of fn holds what is left.
bool KernelWalk::bindRefPack(mlir::Block& block, mlir::ArrayAttr names, unsigned firstParam,
                             mlir::Value splat,
                             std::vector<std::pair<mlir::Value, RefState>>& bound) {
  auto [value, doc] = follow(splat, doc_);
  auto pack = value ? refPacks_.find(value) : refPacks_.end();
  if (pack == refPacks_.end())
    return false;
  unsigned offset = pack->second;
  std::vector<mlir::BlockArgument> fixed;
  mlir::BlockArgument rest;
  for (unsigned j = firstParam; j < block.getNumArguments(); ++j) {
    llvm::StringRef name = strAt(names, j);
    if (name.starts_with("**"))
      break;
    if (name.starts_with("*")) {
      rest = block.getArgument(j);
      break;
    }
    fixed.push_back(block.getArgument(j));
  }
  unsigned count = offset + static_cast<unsigned>(fixed.size()) + (rest ? 1 : 0);
  for (unsigned t = 0; t < fixed.size(); ++t)
    bound.push_back({fixed[t], kernelParamStateOf(offset + t, count)});
  if (rest) {
    unsigned at = offset + static_cast<unsigned>(fixed.size());
    refPacks_[rest] = at;
    bound.push_back({rest, kernelParamStateOf(at, count)});
  }
  return true;
}

void KernelWalk::onWarpMap(mlir::Operation* call, mlir::ValueRange args) {
  if (args.empty())
    return;
  Callable f = resolve(args[0]);
  if (!f.block || !f.alternatives.empty())
    return;
  if (path_ != ExecPath::Compiled) {
    // Interpreted, the core_map is judged whole: neither interpreter gets
    // past it into its body.
    recordNestedCoreMap(*f.block->getParent(), /*warpMesh=*/true, apiText(Api::WarpMap),
                        /*kept=*/true);
    return;
  }
  // Compiled: Mosaic GPU lowers f (given the warp id) with Warp semantics.
  std::vector<std::string> saved = std::move(primitiveSemantics_);
  primitiveSemantics_ = {"Warp"};
  onCall(call, f, {}, mlir::ArrayAttr(), mlir::ArrayAttr());
  primitiveSemantics_ = std::move(saved);
}

// Running a pipeline: it copies blocks of the Refs it is given in and out
// of its own SMEM buffers around each call of the body, and waits on its own
// barriers. Primitives that read or write Refs (the table's Read/Write
// effects: the copies) are bound on the Refs given to the call; the others on
// the pipeline's own allocations. Earlier-discharged first: at one call JAX
// reports the first failure, and a discharge of the caller's Refs comes
// before the lowering of the pipeline's allocations.
void KernelWalk::onPipelineRun(pd::ScopeOp pipeline, mlir::Operation* call, mlir::ValueRange args,
                               mlir::ArrayAttr origins) {
  llvm::StringRef api = pipeline.getApi();
  bool direct = true;
  RefState given = strongest(args, origins);
  RefState own = scopedState(pd::origin::kPipeline);
  recordPredicatedPipelineCopies(pipeline, call);
  std::vector<BoundPrimitive> found;
  for (const knowledge::PrimitiveFacts* p : primitivesOf(api, direct)) {
    bool touchesRefs = llvm::any_of(
        p->effects, [](const std::string& e) { return e == "ReadEffect" || e == "WriteEffect"; });
    BoundPrimitive b;
    b.api = api.str();
    b.prim = p;
    b.site = call;
    b.refs = touchesRefs ? given : own;
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
    record(std::move(found[i]));
  walkScopeBody(pipeline);
}

void KernelWalk::onScope(pd::ScopeOp scope) {
  if (scope.getBody().empty())
    return;
  // A pipeline runs (and binds) where it is called.
  if (isPipeline(scope) && pipelineIsCalled(scope))
    return;
  // `pl.when(False)` with a Python bool (a literal, a module constant): JAX
  // never calls the body, so nothing in it is traced.
  if (scope.getApi() == "pl.when" && !scope.getArgs().empty())
    if (std::optional<bool> cond = truthOf(scope.getArgs()[0]); cond && !*cond)
      return;
  walkScopeBody(scope);
}

void KernelWalk::walkScopeBody(pd::ScopeOp scope) {
  llvm::StringRef api = scope.getApi();
  if (scope.getBody().empty())
    return;
  mlir::Block& block = scope.getBody().front();
  mlir::ArrayAttr argOrigins = scope.getArgOrigins();
  for (unsigned i = 0; i < block.getNumArguments(); ++i) {
    RefState s = scopedState(strAt(argOrigins, i));
    // Mosaic GPU's run_state lowering flags only the Refs it built from
    // values; an initial value that is itself a Ref stays a Ref.
    if (path_ == ExecPath::Compiled && api == apiText(Api::RunState) &&
        i < scope.getArgs().size() &&
        stateOf(scope.getArgs()[i], strAt(scope.getOrigins(), i)).isRef())
      s = plainRef("a Ref passed through pl.run_state");
    // A plgpu.RefUnion allocation: indexing it takes a member.
    if (auto kinds = scope.getAllocations(); kinds && i < kinds->size())
      s.refUnion = pd::enumName((*kinds)[i]) == "union";
    states_[block.getArgument(i)] = s;
  }

  if (path_ == ExecPath::InterpretHlo && api == apiText(Api::RunScoped)) {
    for (unsigned i = 0; i < scope.getKeywords().size(); ++i)
      if (strAt(scope.getKeywords(), i) == "collective_axes")
        if (const auto* prim = kb_.primitive("run_scoped")) {
          BoundPrimitive b;
          b.api = apiText(Api::RunScoped).str();
          b.prim = prim;
          b.site = scope;
          b.refs = {Kind::Discharged, Phase::Retrace, "a collective allocation"};
          b.retraceCollective = true;
          record(std::move(b));
        }
  }
  // A pipeline whose call the walk does not see: bind its copies and
  // barriers here, on the Refs it is given.
  if (isPipeline(scope) && !pipelineIsCalled(scope)) {
    recordPredicatedPipelineCopies(scope, scope);
    bool direct = true;
    RefState refs = strongest(scope);
    for (const knowledge::PrimitiveFacts* p : primitivesOf(api, direct)) {
      BoundPrimitive b;
      b.api = api.str();
      b.prim = p;
      b.site = scope;
      b.refs = refs;
      record(std::move(b));
    }
  }

  bool saveCpu = cpuLowered_;
  // The GPU interpreter has no run_state arm: it re-binds it, and XLA lowers
  // (and discharges) the whole body.
  if (path_ == ExecPath::InterpretGpu && api == apiText(Api::RunState))
    cpuLowered_ = true;
  // A core_map inside the kernel runs its body with the mesh's user thread
  // semantics: Warp for plgpu.WarpMesh, else not known here.
  recordGpuInterpretScopedCollectives(scope);
  std::vector<std::string> savePrimSem = primitiveSemantics_;
  bool saveNestedMesh = nestedMesh_;
  nestedMesh_ |= api == apiText(Api::CoreMap);
  if (api == apiText(Api::CoreMap)) {
    auto mesh =
        scope.getArgs().empty() ? pd::PrimOp() : scope.getArgs()[0].getDefiningOp<pd::PrimOp>();
    if (mesh && mesh.getApi() == apiText(Api::WarpMesh))
      primitiveSemantics_ = {"Warp"};
    else
      primitiveSemantics_ = {"Warpgroup", "Warp"};
  }
  walkBlock(block);
  nestedMesh_ = saveNestedMesh;
  primitiveSemantics_ = std::move(savePrimSem);
  cpuLowered_ = saveCpu;
}

} // namespace pallas::analysis::passes
