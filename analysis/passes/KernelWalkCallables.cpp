// The KernelWalk's callables: which body a call, a closure, a partial, a
// bound method or a function returned by another reaches, across documents.
#include "KernelWalkInternal.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

// APIs whose callable argument is traced into a higher-order primitive whose
// discharge rule discharges every Ref of the body (jit, remat, ...).
bool dischargesAllRefs(llvm::StringRef api) {
  return api == "jax.jit" || api == "jax.checkpoint" || api == "jax.remat" ||
         api == "jax.ad_checkpoint.checkpoint" || api == "jax.custom_vjp" ||
         api == "jax.custom_batching.custom_vmap";
}

pd::InlineMgpuOp findInline(mlir::Block& block) {
  for (mlir::Operation& op : block)
    if (auto inl = llvm::dyn_cast<pd::InlineMgpuOp>(op))
      return inl;
  return {};
}

} // namespace

KernelWalk::Callable KernelWalk::fromFunction(const detail::FunctionRef& f) const {
  Callable c;
  pd::FuncOp func = f.func;
  if (!func || func.getBody().empty())
    return c;
  c.block = &func.getBody().front();
  c.path = f.path;
  c.name = func.getSymName().str();
  c.defOp = func;
  c.inlineMgpu = findInline(*c.block);
  // `@jax.checkpoint def f` at module level: calling f binds the wrapper's
  // primitive (only the compiled path's resource estimation reads this).
  func.getDecorators().walk([&](pd::GlobalOp g) {
    if (c.higherOrderApi.empty() && dischargesAllRefs(g.getResolved()))
      c.higherOrderApi = g.getResolved().str();
  });
  return c;
}

// The value-resolution part of the walk: which function a callable value
// is. Values resolve through closures, module functions, functools.partial
// (bound arguments kept, partial of partial too), jax.jit-like wrappers,
// factories (a call of a function whose returns resolve to one callable),
// constant-key / constant-index lookups in dict / list / tuple literals, and
// methods (`self.m`, `obj.m` of a class instance, `Class.m`, static and class
// methods). Anything else is unknown: not walked (no finding from it).
KernelWalk::Callable KernelWalk::resolve(mlir::Value callee, unsigned depth,
                                         const std::string& docIn) const {
  if (!callee || depth > 8)
    return {};
  const std::string& doc = docIn.empty() ? doc_ : docIn;
  mlir::Operation* def = callee.getDefiningOp();
  if (!def)
    return {};
  if (auto closure = llvm::dyn_cast<pd::ClosureOp>(def)) {
    Callable c;
    if (closure.getBody().empty())
      return c;
    c.block = &closure.getBody().front();
    c.path = doc;
    c.name = closure.getName().str();
    c.defOp = closure;
    c.inlineMgpu = findInline(*c.block);
    return c;
  }
  if (auto global = llvm::dyn_cast<pd::GlobalOp>(def)) {
    llvm::StringRef target = global.getResolved();
    if (target.consume_front("local:"))
      return fromFunction(ws_.function(doc, target));
    return {};
  }
  if (auto call = llvm::dyn_cast<pd::CallOp>(def))
    return resolveReturned(ws_.resolveCall(doc, call), depth + 1);
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(def)) {
    if (prim.getArgs().empty())
      return {};
    if (dischargesAllRefs(prim.getApi())) {
      Callable c = resolve(prim.getArgs()[0], depth + 1, doc);
      c.dischargesAllRefs = true;
      if (c.higherOrderApi.empty())
        c.higherOrderApi = prim.getApi().str();
      return c;
    }
    if (prim.getApi() == "functools.partial") {
      Callable c = resolve(prim.getArgs()[0], depth + 1, doc);
      for (unsigned i = 1; i < prim.getArgs().size(); ++i) {
        std::string kw = strAt(prim.getKeywords(), i).str();
        if (kw == "*" || kw == "**")
          return {}; // unknown bound arguments: their positions are unknown
        c.boundArgs.push_back(prim.getArgs()[i]);
        c.boundKeywords.push_back(kw);
        c.boundOrigins.push_back(strAt(prim.getOrigins(), i).str());
      }
      return c;
    }
    llvm::StringRef api = prim.getApi();
    if ((api == "value.__getitem__" || api == "ref.__getitem__") && prim.getArgs().size() == 2) {
      // OPS["fast"], KERNELS[0]: a literal container indexed by a constant.
      auto container = prim.getArgs()[0].getDefiningOp<pd::OpaqueOp>();
      auto key = prim.getArgs()[1].getDefiningOp<pd::ConstantOp>();
      if (!container || !key)
        return {};
      auto elems = container.getArgs();
      if (container.getWhat() == "dictionary") {
        if (elems.size() % 2)
          return {};
        for (unsigned i = 0; i + 1 < elems.size(); i += 2) {
          auto k = elems[i].getDefiningOp<pd::ConstantOp>();
          if (!k)
            return {}; // a splat or a computed key: positions unknown
          if (k.getValue() == key.getValue())
            return resolve(elems[i + 1], depth + 1, doc);
        }
        return {};
      }
      if (container.getWhat() == "list" || container.getWhat() == "tuple") {
        long index = 0;
        if (key.getKind() != pd::ConstantKind::Int || key.getValue().getAsInteger(10, index))
          return {};
        for (mlir::Value e : elems)
          if (auto o = e.getDefiningOp<pd::OpaqueOp>(); o && o.getWhat().contains("splat"))
            return {};
        long n = static_cast<long>(elems.size());
        if (index < 0)
          index += n;
        if (index < 0 || index >= n)
          return {};
        return resolve(elems[static_cast<unsigned>(index)], depth + 1, doc);
      }
      return {};
    }
    // obj.method / Class.method / self.method (lowered as an attribute read).
    if ((api.starts_with("value.") || api.starts_with("ref.")) && prim.getArgs().size() == 1)
      return resolveMethod(prim.getArgs()[0], api.substr(api.find('.') + 1), depth + 1, doc);
    return {};
  }
  // A decorator applied to a closure: `@jax.jit def f` is a call of jax.jit.
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def); call && call.getArgs().size() == 1) {
    if (auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
        g && dischargesAllRefs(g.getResolved())) {
      Callable c = resolve(call.getArgs()[0], depth + 1, doc);
      c.dischargesAllRefs = true;
      if (c.higherOrderApi.empty())
        c.higherOrderApi = g.getResolved().str();
      return c;
    }
  }
  return {};
}

// A factory: the callable its function returns, when every `return` of its
// body (outside nested closures) resolves to the same one.
KernelWalk::Callable KernelWalk::resolveReturned(const detail::FunctionRef& f,
                                                 unsigned depth) const {
  pd::FuncOp func = f.func;
  if (!func || func.getBody().empty() || depth > 8)
    return {};
  Callable out;
  bool conflict = false;
  func.getBody().walk([&](pd::ReturnOp r) {
    mlir::Operation* owner = r->getParentOp();
    while (owner && !llvm::isa<pd::FuncOp, pd::ClosureOp>(owner))
      owner = owner->getParentOp();
    if (owner != func.getOperation() || !r.getValue())
      return;
    Callable c = resolve(r.getValue(), depth + 1, f.path);
    if (!c.block || (out.block && out.block != c.block))
      conflict = true;
    else
      out = c;
  });
  return conflict ? Callable{} : out;
}

// `self.m` inside a method of class C, `C().m` / `obj = C(); obj.m`, `C.m`:
// the method `C.m` of the same module. A method reached through an instance
// is bound: the instance (or, for a classmethod, the class) is its first
// argument; a staticmethod and a method read from the class are not bound.
KernelWalk::Callable KernelWalk::resolveMethod(mlir::Value object, llvm::StringRef attr,
                                               unsigned depth, const std::string& doc) const {
  std::string cls;
  bool instance = false;
  if (auto g = object.getDefiningOp<pd::GlobalOp>()) {
    llvm::StringRef r = g.getResolved();
    if (!r.consume_front("class:"))
      return {};
    cls = r.str();
  } else if (auto ci = object.getDefiningOp<pd::CallIndirectOp>()) {
    auto g = ci.getCallee().getDefiningOp<pd::GlobalOp>();
    llvm::StringRef r = g ? g.getResolved() : "";
    if (!r.consume_front("class:"))
      return {};
    cls = r.str();
    instance = true;
  } else if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(object);
             arg && arg.getArgNumber() == 0) {
    auto f = llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp());
    if (!f || f.getKind() != pd::FuncKind::Method)
      return {};
    llvm::StringRef sym = f.getSymName();
    cls = sym.substr(0, sym.rfind('.')).str();
    instance = true; // self (a classmethod's cls binds the same way)
  } else {
    return {};
  }
  Callable c = fromFunction(ws_.function(doc, cls + "." + attr.str()));
  if (!c.block)
    return {};
  // Decorators: staticmethod leaves the function unbound; classmethod binds
  // the class whether read from the class or an instance.
  bool isStatic = false, isClass = false;
  if (auto f = llvm::dyn_cast<pd::FuncOp>(c.defOp))
    f.getDecorators().walk([&](pd::GlobalOp g) {
      isStatic |= g.getName() == "staticmethod";
      isClass |= g.getName() == "classmethod";
    });
  if (!isStatic && (instance || isClass)) {
    c.boundArgs.push_back(object);
    c.boundKeywords.push_back("");
    c.boundOrigins.push_back(pd::origin::kValue);
  }
  (void)depth;
  return c;
}

} // namespace pallas::analysis::passes
