// The KernelWalk's callables: which body a call, a closure, a partial, a
// bound method or a function returned by another reaches, across documents.
#include "KernelWalkInternal.h"
#include "Names.h"
#include "mlir/IR/Builders.h"

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

// APIs whose callable argument is traced into a higher-order primitive: the
// ones above, and jax.custom_jvp, whose custom_jvp_call has no discharge
// rule (its body's Refs are not discharged by it) but which compiled
// resource estimation rejects all the same (CompiledRules.cpp).
bool wrapsTracedFunction(llvm::StringRef api) {
  return dischargesAllRefs(api) || api == "jax.custom_jvp";
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
    if (c.higherOrderApi.empty() && wrapsTracedFunction(g.getResolved()))
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
  // A parameter holds what its caller passed; a module-level name what the
  // module assigned it (KernelWalkClasses.cpp).
  auto [value, doc] = follow(callee, docIn.empty() ? doc_ : docIn);
  callee = value;
  if (!callee)
    return {};
  // A parameter its call left out: the function its default names.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(callee))
    return defaultCallable(arg, depth + 1);
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
    // A function of another workspace file ("/path/m.py:name").
    if (size_t colon = target.rfind(':'); target.starts_with("/") && colon != llvm::StringRef::npos)
      return fromFunction(ws_.function(target.substr(0, colon).str(), target.substr(colon + 1)));
    return {};
  }
  // getattr(obj, "name") with a constant name is obj.name (8.6), a name a
  // parameter holds too (what its caller passes); with an f-string name,
  // each method of obj's class the string may spell (8.89).
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def);
      call && call.getArgs().size() == 2 && call.getKeywords() &&
      strAt(call.getKeywords(), 0).empty() && strAt(call.getKeywords(), 1).empty()) {
    auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
    if (g && g.getResolved() == "builtins.getattr") {
      if (std::optional<std::string> name = stringKey(call.getArgs()[1], doc))
        return attributeOf(call.getArgs()[0], *name, depth + 1, doc);
      if (auto name = call.getArgs()[1].getDefiningOp<pd::ConstantOp>();
          name && name.getKind() == pd::ConstantKind::Str)
        if (std::optional<std::vector<std::string>> pieces = fStringPieces(name.getValue()))
          return methodsSpelled(call.getArgs()[0], *pieces, depth + 1, doc);
      return {};
    }
  }
  if (auto call = llvm::dyn_cast<pd::CallOp>(def)) {
    Callable f = fromFunction(ws_.resolveCall(doc, call));
    return resolveApplied(f, call.getArgs(), call.getKeywords(), depth + 1, doc);
  }
  // `for fn in (a, b):` (8.26): fn is each element in turn. A launch in the
  // loop's statements runs with every one of them (each walked, certain);
  // elsewhere which one it sees is not followed here (each a "may").
  if (auto iter = llvm::dyn_cast<pd::OpaqueOp>(def); iter && iter.getWhat() == "iter" &&
                                                     iter->hasAttr("pallas.every_element") &&
                                                     iter.getArgs().size() == 1)
    return overLoopElements(iter, std::nullopt, depth, doc);
  // `for name, fn in (("a", a), ("b", b)):` (8.87): fn is item 1 of each.
  if (auto part = llvm::dyn_cast<pd::OpaqueOp>(def);
      part && part.getWhat() == "unpack" && part.getArgs().size() == 1) {
    auto iter = part.getArgs()[0].getDefiningOp<pd::OpaqueOp>();
    if (iter && iter.getWhat() == "iter" && iter->hasAttr("pallas.every_element") &&
        iter.getArgs().size() == 1) {
      // The target's names are unpacked in order, one op each, right after
      // the iter: this one's place among them is its item.
      unsigned index = 0;
      for (mlir::Operation* op = iter->getNextNode(); op && op != part; op = op->getNextNode()) {
        auto sibling = llvm::dyn_cast<pd::OpaqueOp>(op);
        if (!sibling || sibling.getWhat() != "unpack" || sibling.getArgs().size() != 1 ||
            sibling.getArgs()[0] != iter.getResult())
          return {};
        ++index;
      }
      return overLoopElements(iter, index, depth, doc);
    }
  }
  // `kernel if fenced else plain` (lowered as its branch, its condition and
  // its other branch): the branch the condition picks when the walk knows
  // it (a constant, a parameter its caller binds); else each branch is an
  // alternative, a "may" naming the branch.
  if (auto cond = llvm::dyn_cast<pd::OpaqueOp>(def);
      cond && cond.getWhat() == "conditional_expression" && cond.getArgs().size() == 3) {
    if (std::optional<bool> known = truthOf(cond.getArgs()[1], depth + 1))
      return resolve(cond.getArgs()[*known ? 0 : 2], depth + 1, doc);
    Callable out;
    for (unsigned i : {0u, 2u}) {
      Callable c = resolve(cond.getArgs()[i], depth + 1, doc);
      std::vector<Callable> each =
          c.alternatives.empty() ? std::vector<Callable>{c} : std::move(c.alternatives);
      for (Callable& one : each)
        if (one.block) {
          if (one.dispatchText.empty())
            one.dispatchText = "when the conditional expression picks " + one.name;
          out.alternatives.push_back(std::move(one));
        }
    }
    return out;
  }
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(def)) {
    if (prim.getArgs().empty())
      return {};
    if (wrapsTracedFunction(prim.getApi())) {
      Callable c = resolve(prim.getArgs()[0], depth + 1, doc);
      c.dischargesAllRefs = c.dischargesAllRefs || dischargesAllRefs(prim.getApi());
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
    // OPS["fast"], KERNELS[0], a registry filled by decorators: a container
    // indexed by a key (KernelWalkContainers.cpp).
    if ((api == "value.__getitem__" || api == "ref.__getitem__") && prim.getArgs().size() == 2) {
      // `globals()["name"]`: the module's own namespace (8.63), the name a
      // parameter holds too (`globals()[epilogue_name]`).
      if (auto call = prim.getArgs()[0].getDefiningOp<pd::CallIndirectOp>();
          call && call.getArgs().empty())
        if (auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
            g && g.getResolved() == "builtins.globals") {
          std::optional<std::string> name = stringKey(prim.getArgs()[1], doc);
          return name ? moduleFunction(doc, *name) : Callable{};
        }
      return lookupItem(prim.getArgs()[0], prim.getArgs()[1], depth, doc);
    }
    // obj.method / Class.method / self.method (lowered as an attribute read).
    if ((api.starts_with("value.") || api.starts_with("ref.")) && prim.getArgs().size() == 1)
      return resolveMethod(prim.getArgs()[0], api.substr(api.find('.') + 1), depth + 1, doc);
    return {};
  }
  // KERNELS.get("fenced", plain): the item under the key (a dict literal,
  // a registry), else the default when the key is certainly absent.
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def);
      call && !call.getArgs().empty() && call.getArgs().size() <= 2) {
    auto method = call.getCallee().getDefiningOp<pd::PrimOp>();
    auto key = call.getArgs()[0].getDefiningOp<pd::ConstantOp>();
    bool positional = true;
    for (unsigned i = 0; i < call.getArgs().size(); ++i)
      positional &= strAt(call.getKeywords(), i).empty();
    if (method && method.getApi() == "value.get" && method.getArgs().size() == 1 && key &&
        positional)
      return lookupItem(method.getArgs()[0], call.getArgs()[0], depth, doc,
                        call.getArgs().size() == 2 ? call.getArgs()[1] : mlir::Value());
  }
  // A decorator applied to a closure: `@jax.jit def f` is a call of jax.jit.
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def); call && call.getArgs().size() == 1) {
    if (auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
        g && wrapsTracedFunction(g.getResolved())) {
      Callable c = resolve(call.getArgs()[0], depth + 1, doc);
      c.dischargesAllRefs = c.dischargesAllRefs || dischargesAllRefs(g.getResolved());
      if (c.higherOrderApi.empty())
        c.higherOrderApi = g.getResolved().str();
      return c;
    }
    // `functools.wraps(fn)(wrapper)` is `wrapper` (with fn's name and doc).
    if (auto wraps = call.getCallee().getDefiningOp<pd::PrimOp>();
        wraps && wraps.getApi() == "functools.wraps" && strAt(call.getKeywords(), 0).empty())
      return resolve(call.getArgs()[0], depth + 1, doc);
  }
  // An object of a class of the workspace (`AffineKernel(2.0, 1.0)`):
  // calling it runs its class's `__call__`, bound to it (8.54).
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def)) {
    auto [cls, clsDoc] = follow(call.getCallee(), doc);
    if (auto g = cls ? cls.getDefiningOp<pd::GlobalOp>() : nullptr;
        g && g.getResolved().starts_with("class:"))
      return resolveMethod(callee, "__call__", depth + 1, doc);
  }
  // A user function applied to arguments (a decorator `@log_calls`, a
  // factory value called): what it returns, its parameters bound (8.20).
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def)) {
    Callable f = resolve(call.getCallee(), depth + 1, doc);
    if (!f.block || !f.alternatives.empty() || f.inlineMgpu || f.dischargesAllRefs)
      return {};
    if (f.boundArgs.empty())
      return resolveApplied(f, call.getArgs(), call.getKeywords(), depth + 1, doc);
    // A bound method or classmethod (`Kernels.build()`, `obj.make()`): its
    // receiver is the first argument, before the call's own.
    if (llvm::any_of(f.boundKeywords, [](const std::string& k) { return !k.empty(); }))
      return {};
    std::vector<mlir::Value> args(f.boundArgs.begin(), f.boundArgs.end());
    llvm::SmallVector<mlir::Attribute> keywords(f.boundArgs.size(),
                                                mlir::StringAttr::get(call->getContext(), ""));
    for (unsigned i = 0; i < call.getArgs().size(); ++i) {
      args.push_back(call.getArgs()[i]);
      keywords.push_back(mlir::StringAttr::get(call->getContext(), strAt(call.getKeywords(), i)));
    }
    Callable unbound = f;
    unbound.boundArgs.clear();
    unbound.boundKeywords.clear();
    unbound.boundOrigins.clear();
    return resolveApplied(unbound, args, mlir::ArrayAttr::get(call->getContext(), keywords),
                          depth + 1, doc);
  }
  return {};
}

KernelWalk::Callable KernelWalk::resolveApplied(const Callable& f, mlir::ValueRange args,
                                                mlir::ArrayAttr keywords, unsigned depth,
                                                const std::string& doc) const {
  if (!f.block || depth > 8)
    return {};
  mlir::ArrayAttr names = parameterNames(f.defOp);
  // Python's binding of the call's arguments to the parameters; a splat
  // leaves the parameters it may fill unbound (unknown).
  mlir::Block& block = *f.block;
  std::vector<std::pair<mlir::Value, std::pair<mlir::Value, std::string>>> params;
  ScopedBindings bound(argValues_); // until the returns are resolved
  bool splat = false;
  for (unsigned i = 0, positional = 0; i < args.size(); ++i) {
    llvm::StringRef kw = strAt(keywords, i);
    if (kw == "*" || kw == "**") {
      splat = true;
      break;
    }
    int param = parameterIndex(kw, names, positional, block.getNumArguments());
    if (param < 0 || strAt(names, static_cast<unsigned>(param)).starts_with("*"))
      continue;
    params.push_back({block.getArgument(static_cast<unsigned>(param)), {args[i], doc}});
    bound.set(params.back().first, params.back().second);
  }
  for (auto& [param, value] : f.captured)
    if (!argValues_.count(param))
      bound.set(param, value);
  // The parameters no argument fills hold their defaults (8.86).
  ScopedBindings defaults(defaulted_);
  std::vector<std::pair<mlir::Value, std::string>> leftOut;
  if (!splat)
    for (mlir::BlockArgument param : block.getArguments())
      if (llvm::none_of(params, [&](auto& p) { return p.first == param; })) {
        leftOut.push_back({param, f.path.empty() ? doc : f.path});
        defaults.set(param, leftOut.back().second);
      }
  for (auto& [param, where] : f.leftOut)
    defaults.set(param, where);
  Callable out;
  bool conflict = false;
  mlir::Operation* fnOp = f.defOp;
  f.block->walk([&](pd::ReturnOp r) {
    mlir::Operation* owner = r->getParentOp();
    while (owner && !llvm::isa<pd::FuncOp, pd::ClosureOp>(owner))
      owner = owner->getParentOp();
    if (owner != fnOp || !r.getValue())
      return;
    Callable c = resolve(r.getValue(), depth + 1, f.path.empty() ? doc : f.path);
    if (!c.block || (out.block && out.block != c.block))
      conflict = true;
    else
      out = c;
  });
  if (conflict || !out.block)
    return {};
  // What the returned callable's body reads of the applied function's
  // parameters (a closure calling `fn`) stays bound while it is walked.
  for (auto& p : params)
    out.captured.push_back(p);
  for (auto& p : f.captured)
    out.captured.push_back(p);
  out.leftOut.insert(out.leftOut.end(), leftOut.begin(), leftOut.end());
  out.leftOut.insert(out.leftOut.end(), f.leftOut.begin(), f.leftOut.end());
  return out;
}

bool KernelWalk::isOwnModule(mlir::Value object, const std::string& doc) const {
  auto item = object ? object.getDefiningOp<pd::PrimOp>() : nullptr;
  if (!item || item.getApi() != "value.__getitem__" || item.getArgs().size() != 2)
    return false;
  auto modules = item.getArgs()[0].getDefiningOp<pd::GlobalOp>();
  auto name = item.getArgs()[1].getDefiningOp<pd::GlobalOp>();
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  // `__name__` not rebound by the module (a global the front end left
  // unresolved, which the module never assigns).
  return modules && modules.getResolved() == "sys.modules" && name &&
         name.getName() == "__name__" && name.getResolved() == "?" && s.doc &&
         !names::moduleValue(*s.doc, "__name__");
}

KernelWalk::Callable KernelWalk::overLoopElements(pd::OpaqueOp iter, std::optional<unsigned> item,
                                                  unsigned depth, const std::string& doc) const {
  auto [containerValue, containerDoc] = follow(iter.getArgs()[0], doc);
  auto container = containerValue ? containerValue.getDefiningOp<pd::OpaqueOp>() : nullptr;
  std::vector<mlir::Value> elements;
  if (container && (container.getWhat() == "tuple" || container.getWhat() == "list"))
    elements.assign(container.getArgs().begin(), container.getArgs().end());
  // A generator whose statements are only yields (8.45): its yielded values.
  if (auto gen = containerValue ? containerValue.getDefiningOp<pd::CallOp>() : nullptr) {
    detail::FunctionRef f = ws_.resolveCall(containerDoc, gen);
    if (f.func && !f.func.getBody().empty()) {
      for (mlir::Operation& op : f.func.getBody().front())
        if (auto y = llvm::dyn_cast<pd::OpaqueOp>(op); y && y.getWhat() == "yield")
          elements.push_back(y.getArgs().size() == 1 ? y.getArgs()[0] : mlir::Value());
      containerDoc = f.path;
    }
  }
  // Each element's item for a target pattern: the element must be a tuple
  // written out (`("a", a)`, `yield "a", a`); any other leaves it unknown.
  if (item)
    for (mlir::Value& e : elements) {
      auto [whole, wholeDoc] = e ? follow(e, containerDoc) : std::pair<mlir::Value, std::string>{};
      auto tuple = whole ? whole.getDefiningOp<pd::OpaqueOp>() : nullptr;
      bool written = tuple && (tuple.getWhat() == "tuple" || tuple.getWhat() == "expression_list" ||
                               tuple.getWhat() == "list");
      e = written && *item < tuple.getArgs().size() ? tuple.getArgs()[*item] : mlir::Value();
    }
  if (elements.empty())
    return {};
  // The launch in the loop's own statements (not under an `if`, which may
  // test fn, nor in a closure made there, which runs when called).
  mlir::Operation* loop = iter->getParentOp();
  bool inside = loop && loop->isAncestor(launch_);
  for (mlir::Operation* op = launch_->getParentOp(); inside && op && op != loop;
       op = op->getParentOp())
    inside = !llvm::isa<pd::IfOp, pd::ClosureOp>(op);
  Callable out;
  for (mlir::Value e : elements) {
    if (!e)
      continue;
    Callable c = resolve(e, depth + 1, containerDoc);
    std::vector<Callable> each =
        c.alternatives.empty() ? std::vector<Callable>{c} : std::move(c.alternatives);
    for (Callable& one : each) {
      if (!one.block)
        continue; // not followed: no finding from it
      if (!inside)
        one.dispatchText = "when the loop variable is " + one.name;
      out.alternatives.push_back(std::move(one));
    }
  }
  if (out.alternatives.size() == 1 && out.alternatives.front().dispatchText.empty())
    return out.alternatives.front();
  return out;
}

// `super().attr` in a method of class C (zero-argument super, or
// `super(C, self)`): the method the bases of C find, Python's lookup after
// C, bound to the method's own `self` (8.90).
KernelWalk::Callable KernelWalk::superMethod(pd::CallIndirectOp super, llvm::StringRef attr,
                                             const std::string& doc) const {
  auto method = super->getParentOfType<pd::FuncOp>();
  if (!method || method.getKind() != pd::FuncKind::Method || method.getBody().empty() ||
      method.getBody().front().getNumArguments() == 0)
    return {};
  llvm::StringRef sym = method.getSymName();
  ClassRef cls{doc, sym.substr(0, sym.rfind('.')).str()};
  mlir::Value self = method.getBody().front().getArgument(0);
  if (super.getArgs().size() == 2) { // super(C, self)
    auto named = super.getArgs()[0].getDefiningOp<pd::GlobalOp>();
    if (!named || named.getName() != cls.name || super.getArgs()[1] != self)
      return {};
  } else if (!super.getArgs().empty()) {
    return {};
  }
  // A staticmethod / classmethod's first parameter is not an instance.
  bool plain = true;
  method.getDecorators().walk([&](pd::GlobalOp g) {
    plain &= g.getName() != "staticmethod" && g.getName() != "classmethod";
  });
  if (!plain)
    return {};
  for (const ClassRef& base : basesOf(cls))
    if (detail::FunctionRef f = lookupMethod(base, attr)) {
      Callable c = fromFunction(f);
      c.boundArgs.push_back(self);
      c.boundKeywords.push_back("");
      c.boundOrigins.push_back(pd::origin::kValue);
      return c;
    }
  return {};
}

KernelWalk::Callable KernelWalk::moduleFunction(const std::string& doc,
                                                llvm::StringRef name) const {
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  const names::Binding* f = s.globals ? s.globals->find(name.str()) : nullptr;
  if (!f || f->kind != names::Binding::Kind::Function)
    return {};
  return fromFunction(ws_.function(f->file.empty() ? doc : f->file, f->target));
}

// `obj.attr` for getattr: a function of a workspace module (`getattr(kernels,
// "fenced")` with `kernels` an imported module of the workspace), else a
// method or field (resolveMethod).
KernelWalk::Callable KernelWalk::attributeOf(mlir::Value object, llvm::StringRef attr,
                                             unsigned depth, const std::string& doc) const {
  // `sys.modules[__name__]` is the module being run (8.63).
  if (isOwnModule(object, doc))
    return moduleFunction(doc, attr);
  if (auto g = object.getDefiningOp<pd::GlobalOp>()) {
    detail::DocumentSyntax s = ws_.syntaxOf(doc);
    const names::Binding* b = s.globals ? s.globals->find(g.getName().str()) : nullptr;
    if (b && b->kind == names::Binding::Kind::Module && !b->file.empty()) {
      detail::DocumentSyntax m = ws_.syntaxOf(b->file);
      const names::Binding* f = m.globals ? m.globals->find(attr.str()) : nullptr;
      if (f && f->kind == names::Binding::Kind::Function)
        return fromFunction(ws_.function(f->file.empty() ? b->file : f->file, f->target));
      return {};
    }
  }
  return resolveMethod(object, attr, depth, doc);
}

// `self.m` inside a method of class C, `C().m` / `obj = C(); obj.m`, `C.m`:
// the method m found along the bases of the receiver's class (inherited
// methods too). `self` may be an instance of C or of any subclass of C in
// C's document: when those find different methods, each is an alternative
// (walked, its failures "may"). A method reached through an instance is
// bound: the instance (or, for a classmethod, the class) is its first
// argument; a staticmethod and a method read from the class are not bound.
// An attribute that is no method of an instance built by a constructor
// call (a dataclass or NamedTuple field) is the keyword argument of that
// name the call passes.
KernelWalk::Callable KernelWalk::resolveMethod(mlir::Value objectIn, llvm::StringRef attr,
                                               unsigned depth, const std::string& docIn) const {
  auto [object, doc] = follow(objectIn, docIn);
  if (!object)
    return {};
  std::optional<ClassRef> cls;
  bool instance = false, self = false;
  pd::CallIndirectOp constructor;
  if (auto g = object.getDefiningOp<pd::GlobalOp>()) {
    if (!g.getResolved().starts_with("class:"))
      return {};
    cls = classNamed(doc, g.getName());
  } else if (auto ci = object.getDefiningOp<pd::CallIndirectOp>()) {
    auto g = ci.getCallee().getDefiningOp<pd::GlobalOp>();
    if (g && g.getResolved() == "builtins.super")
      return superMethod(ci, attr, doc);
    if (!g || !g.getResolved().starts_with("class:"))
      return {};
    cls = classNamed(doc, g.getName());
    instance = true;
    constructor = ci;
  } else if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(object);
             arg && arg.getArgNumber() == 0) {
    auto f = llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp());
    if (!f || f.getKind() != pd::FuncKind::Method)
      return {};
    llvm::StringRef sym = f.getSymName();
    cls = ClassRef{doc, sym.substr(0, sym.rfind('.')).str()};
    instance = true; // self (a classmethod's cls binds the same way)
    self = true;
  } else {
    return {};
  }
  if (!cls)
    return {};
  auto bind = [&](Callable c) {
    // Decorators: staticmethod leaves the function unbound; classmethod binds
    // the class whether read from the class or an instance; a property read
    // on an instance runs its getter: the value is what it returns (8.90).
    bool isStatic = false, isClass = false, isProperty = false;
    if (auto f = llvm::dyn_cast_or_null<pd::FuncOp>(c.defOp))
      f.getDecorators().walk([&](pd::GlobalOp g) {
        isStatic |= g.getName() == "staticmethod";
        isClass |= g.getName() == "classmethod";
        isProperty |= g.getName() == "property" || g.getName().ends_with("cached_property");
      });
    if (isProperty) {
      if (!instance)
        return Callable{}; // the property object itself
      mlir::Builder b(object.getContext());
      return resolveApplied(c, object, b.getStrArrayAttr({""}), depth + 1, doc);
    }
    if (!isStatic && (instance || isClass)) {
      c.boundArgs.push_back(object);
      c.boundKeywords.push_back("");
      c.boundOrigins.push_back(pd::origin::kValue);
    }
    return c;
  };
  std::vector<ClassRef> receivers{*cls};
  if (self)
    for (ClassRef& sub : subclassesOf(*cls))
      receivers.push_back(std::move(sub));
  // The classes the document instantiates, when it instantiates some of them
  // (8.25): `self` is one of those (a base class only its subclasses are
  // built from contributes no method of its own).
  if (self && receivers.size() > 1)
    if (detail::DocumentSyntax s = ws_.syntaxOf(cls->path); s.doc) {
      std::vector<std::string> built = names::instantiatedReceivers(*s.doc, cls->name);
      std::vector<ClassRef> kept;
      for (const ClassRef& r : receivers)
        if (r.path == cls->path && llvm::is_contained(built, r.name))
          kept.push_back(r);
      if (!kept.empty())
        receivers = std::move(kept);
    }
  std::vector<std::pair<detail::FunctionRef, std::string>> found;
  for (const ClassRef& r : receivers) {
    detail::FunctionRef f = lookupMethod(r, attr);
    if (!f)
      continue; // that receiver has no such method: it cannot be the one running
    if (llvm::none_of(found, [&](auto& x) { return x.first.func == f.func; }))
      found.push_back({f, r.name});
  }
  if (found.empty()) {
    // A field of a constructed object: `Spec(epilogue=f).epilogue`, or the
    // argument in the field's place (`OpSpec("bias", kernel).body`; 8.88).
    if (!constructor)
      return {};
    for (unsigned i = 0; i < constructor.getArgs().size(); ++i)
      if (strAt(constructor.getKeywords(), i) == attr)
        return resolve(constructor.getArgs()[i], depth + 1, doc);
    return constructedAttribute(constructor, attr, depth, doc);
  }
  if (found.size() == 1)
    return bind(fromFunction(found.front().first));
  Callable out;
  for (auto& [f, receiver] : found) {
    Callable c = bind(fromFunction(f));
    if (!c.block)
      continue;
    c.dispatchText = "when `self` is a " + receiver + " (`self." + attr.str() + "` is " +
                     f.func.getSymName().str() + ")";
    out.alternatives.push_back(std::move(c));
  }
  return out;
}

} // namespace pallas::analysis::passes
