// Overlay: functools. partial (the core's PartialObj), partialmethod,
// wraps / update_wrapper (the wrapper gets the wrapped function's __name__,
// __qualname__, __module__, __doc__, its attributes and __wrapped__),
// reduce, lru_cache / cache (the function itself: caching changes no value),
// cached_property (a property whose value is kept on the instance),
// singledispatch (register by annotation or explicit class; a call
// dispatches on the class of its first argument, or runs every registered
// function as alternatives when that class is not known), total_ordering.
#include "Util.h"
#include "mlir/IR/BuiltinOps.h"

namespace pallas::eval {
namespace {

using namespace overlay;

// ---- partial ---------------------------------------------------------------------

Value fPartial(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.empty())
    return in.unknown("functools.partial() without a function", site);
  auto* p = in.heap().make<PartialObj>();
  in.madeCallable(p);
  p->fn = a.positional[0];
  if (auto* inner = llvm::dyn_cast_or_null<PartialObj>(p->fn.single())) {
    // partial(partial(f, x), y) is partial(f, x, y).
    p->fn = inner->fn;
    p->args = inner->args;
    p->keywords = inner->keywords;
  }
  p->args.insert(p->args.end(), a.positional.begin() + 1, a.positional.end());
  for (const auto& [k, v] : a.keywords) {
    bool replaced = false;
    for (auto& [name, old] : p->keywords)
      if (name == k) {
        old = v;
        replaced = true;
      }
    if (!replaced)
      p->keywords.push_back({k, v});
  }
  if (a.morePositional || a.moreKeywords)
    return in.unknown("a functools.partial of arguments not known", site);
  return Value(p, site);
}

// partialmethod: a native in the class namespace (bound like a function):
// self, then the frozen arguments, then the call's.
Value fPartialMethodCall(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                         const Object* self) {
  auto* frozen =
      llvm::dyn_cast_or_null<PartialObj>(held(self).empty() ? nullptr : held(self)[0].single());
  if (!frozen)
    return in.unknown("a functools.partialmethod", site);
  CallArgs merged;
  if (!a.positional.empty())
    merged.positional.push_back(a.positional[0]);
  merged.positional.insert(merged.positional.end(), frozen->args.begin(), frozen->args.end());
  if (a.positional.size() > 1)
    merged.positional.insert(merged.positional.end(), a.positional.begin() + 1, a.positional.end());
  merged.keywords = frozen->keywords;
  for (const auto& [k, v] : a.keywords) {
    bool replaced = false;
    for (auto& [name, old] : merged.keywords)
      if (name == k) {
        old = v;
        replaced = true;
      }
    if (!replaced)
      merged.keywords.push_back({k, v});
  }
  merged.morePositional = a.morePositional;
  merged.moreKeywords = a.moreKeywords;
  return in.call(frozen->fn, merged, site);
}

Value fPartialMethod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value p = fPartial(in, a, site, nullptr);
  if (!llvm::isa_and_nonnull<PartialObj>(p.single()))
    return p;
  return nativeWith(in, "functools.partialmethod", fPartialMethodCall, {p}, site);
}

// ---- wraps / update_wrapper --------------------------------------------------------

// The docstring of a def or class body: a string constant whose value
// nothing uses, first in the body.
Value docOf(Interpreter& in, mlir::Operation* def, mlir::Operation* site) {
  if (!def || def->getNumRegions() == 0 || def->getRegion(0).empty())
    return in.none(site);
  mlir::Block& body = def->getRegion(0).front();
  if (body.empty())
    return in.none(site);
  if (auto c = llvm::dyn_cast<py::ConstantOp>(&body.front()))
    if (c.getKind() == py::ConstKind::str && c->use_empty())
      if (auto s = llvm::dyn_cast_or_null<mlir::StringAttr>(c.getValueAttr()))
        return in.str(s.getValue().str(), site);
  return in.none(site);
}

// What update_wrapper copies from one alternative of `wrapped`, or nothing
// when it does not have the attribute.
Value wrappedAttr(Interpreter& in, const Alt& alt, llvm::StringRef name, mlir::Operation* site) {
  Value v(alt.obj, alt.origin);
  if (auto* f = llvm::dyn_cast<FunctionObj>(alt.obj)) {
    if (const Value* found = f->attrs.find(name))
      return *found;
    if (name == "__doc__")
      return docOf(in, f->def, site);
    return Value();
  }
  if (auto* c = llvm::dyn_cast<ClassObj>(alt.obj); c && c->def && name == "__doc__")
    if (!c->ns.find("__doc__"))
      return docOf(in, c->def, site);
  std::optional<bool> has = in.hasAttr(v, name);
  if (has == false)
    return Value();
  return in.getAttr(v, name, site);
}

Value updateWrapper(Interpreter& in, const Value& wrapper, const Value& wrapped,
                    mlir::Operation* site) {
  // wrapper.__dict__.update(wrapped.__dict__) for functions (their own
  // attributes), after the assigned names, as CPython does.
  for (const char* name : {"__module__", "__name__", "__qualname__", "__doc__"}) {
    Value v;
    bool all = true;
    for (const Alt& alt : wrapped) {
      Value one = wrappedAttr(in, alt, name, site);
      all = all && !one.isBottom();
      v = in.heap().join(v, one);
    }
    if (!v.isBottom()) {
      if (!all) // some alternative lacks it: the wrapper may keep its own
        for (const Alt& w : wrapper)
          if (auto* f = llvm::dyn_cast<FunctionObj>(w.obj))
            if (const Value* own = f->attrs.find(name))
              v = in.heap().join(v, *own);
      in.setAttr(wrapper, name, v, site);
    }
  }
  if (wrapped.size() == 1)
    if (auto* f = llvm::dyn_cast<FunctionObj>(wrapped.single()))
      for (llvm::StringRef n : f->attrs.names()) {
        if (n == "__module__" || n == "__name__" || n == "__qualname__" || n == "__doc__" ||
            n == "cache_clear" || n == "cache_info")
          continue;
        in.setAttr(wrapper, n, *f->attrs.find(n), site);
      }
  in.setAttr(wrapper, "__wrapped__", wrapped, site);
  return wrapper;
}

Value fUpdateWrapper(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* wrapper = arg(a, 0, "wrapper");
  const Value* wrapped = arg(a, 1, "wrapped");
  if (!wrapper || !wrapped)
    return in.unknown("functools.update_wrapper()", site);
  return updateWrapper(in, *wrapper, *wrapped, site);
}

Value fWrapsApply(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* wrapper = arg(a, 0);
  if (!wrapper || held(self).empty())
    return in.unknown("functools.wraps(...)()", site);
  return updateWrapper(in, *wrapper, held(self)[0], site);
}

Value fWraps(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* wrapped = arg(a, 0, "wrapped");
  if (!wrapped)
    return in.unknown("functools.wraps()", site);
  return nativeWith(in, "functools.wraps", fWrapsApply, {*wrapped}, site);
}

// ---- reduce -------------------------------------------------------------------------

Value fReduce(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0);
  const Value* seq = arg(a, 1);
  const Value* initial = arg(a, 2, "initial");
  if (!fn || !seq)
    return in.unknown("functools.reduce()", site);
  Interpreter::Elements e = in.elements(*seq, site);
  if (!e.exact)
    return in.unknown("functools.reduce() over elements not known", site);
  size_t i = 0;
  Value acc;
  if (initial)
    acc = *initial;
  else if (e.items.empty())
    return in.unknown("functools.reduce() of an empty sequence (TypeError)", site);
  else
    acc = e.items[i++];
  for (; i < e.items.size(); ++i) {
    CallArgs step;
    step.positional = {acc, e.items[i]};
    acc = in.call(*fn, step, site);
    if (acc.isBottom())
      return acc;
  }
  return acc;
}

// ---- lru_cache / cache / cached_property -----------------------------------------------

Value fCacheClear(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.none(site);
}
Value fCacheInfo(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.unknown("cache_info() (hits and misses at run time)", site);
}

// The cached function is the function: a cache changes no value. Its
// cache_clear / cache_info are there.
Value cached(Interpreter& in, const Value& fn, mlir::Operation* site) {
  for (const Alt& alt : fn)
    if (auto* f = llvm::dyn_cast<FunctionObj>(alt.obj)) {
      in.heap().willWrite(f);
      f->attrs.set(
          "cache_clear",
          Value(in.makeNative("functools._lru_cache_wrapper.cache_clear", fCacheClear), site));
      f->attrs.set(
          "cache_info",
          Value(in.makeNative("functools._lru_cache_wrapper.cache_info", fCacheInfo), site));
    }
  return fn;
}

Value fCacheApply(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0);
  return fn ? cached(in, *fn, site) : in.unknown("lru_cache(...)()", site);
}

bool isCallable(Object* o) {
  switch (o->kind) {
  case Kind::Function:
  case Kind::BoundMethod:
  case Kind::Builtin:
  case Kind::Partial:
  case Kind::Class:
  case Kind::StaticMethod:
  case Kind::ClassMethod:
    return true;
  default:
    return false;
  }
}

Value fLruCache(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* first = arg(a, 0, "maxsize");
  Value decorator(in.makeNative("functools.lru_cache", fCacheApply), site);
  // lru_cache(fn): the decorator without parentheses; lru_cache(128) or
  // lru_cache(maxsize=None): a decorator.
  if (!first || !a.positional.size())
    return decorator;
  Value out;
  for (const Alt& alt : *first) {
    if (isCallable(alt.obj))
      out = in.heap().join(out, cached(in, Value(alt.obj, alt.origin), site));
    else if (alt.obj->kind == Kind::Unknown)
      out = in.heap().join(in.heap().join(out, decorator), Value(alt.obj, alt.origin));
    else
      out = in.heap().join(out, decorator);
  }
  return out;
}

Value fCache(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0);
  return fn ? cached(in, *fn, site) : in.unknown("functools.cache()", site);
}

Value fCachedProperty(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0, "func");
  auto* p = in.heap().make<DescriptorObj>(Kind::Property,
                                          fn ? *fn : in.unknown("a cached_property getter", site));
  p->cached = true;
  return Value(p, site);
}

Value fIdentity(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* v = arg(a, 0);
  return v ? *v : in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
}

// ---- singledispatch ------------------------------------------------------------------------

constexpr const char* kDispatcher = "functools.singledispatch";

DictObj* registryOf(const Value& dispatcher) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(dispatcher.single());
  if (!inst)
    return nullptr;
  const Value* r = inst->attrs.find("registry");
  return r ? llvm::dyn_cast_or_null<DictObj>(r->single()) : nullptr;
}

void registerImpl(Interpreter& in, const Value& dispatcher, const Value& cls, const Value& fn,
                  mlir::Operation* site) {
  DictObj* reg = registryOf(dispatcher);
  if (!reg)
    return;
  Value key;
  for (const Alt& alt : cls) {
    if (ClassObj* c = asClass(in, alt.obj))
      key.add(c, alt.origin);
    else
      key.add(alt.obj, alt.origin);
  }
  in.setItem(Value(reg, site), key, fn, site);
}

// `@f.register` on a function: the class is its first parameter's annotation.
Value registerByAnnotation(Interpreter& in, const Value& dispatcher, const Value& fn,
                           mlir::Operation* site) {
  for (const Alt& alt : fn) {
    auto* f = llvm::dyn_cast<FunctionObj>(alt.obj);
    std::string ann = f ? parameterAnnotation(f, 0) : std::string();
    std::vector<std::string> parts;
    size_t start = 0;
    // `int | str` registers each class (a Union too, written with `|`).
    for (size_t bar; (bar = ann.find('|', start)) != std::string::npos; start = bar + 1)
      parts.push_back(ann.substr(start, bar - start));
    parts.push_back(ann.substr(start));
    for (const std::string& p : parts) {
      Value cls = p.empty() ? in.unknown("the annotation of " + describe(alt.obj), site)
                            : resolveName(in, f, f ? f->module : nullptr, p, site);
      registerImpl(in, dispatcher, cls, Value(alt.obj, alt.origin), site);
    }
  }
  return fn;
}

Value sdRegisterApply(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                      const Object* self) {
  const Value* fn = arg(a, 0);
  if (!fn || held(self).size() < 2)
    return in.unknown("register(...)()", site);
  registerImpl(in, held(self)[0], held(self)[1], *fn, site);
  return *fn;
}

Value sdRegister(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value dispatcher = selfArg(a);
  const Value* cls = arg(a, 1, "cls");
  const Value* fn = arg(a, 2, "func");
  if (!cls)
    return in.unknown("register()", site);
  bool isClass = true;
  for (const Alt& alt : *cls)
    isClass = isClass && asClass(in, alt.obj) != nullptr;
  if (!isClass && !fn)
    return registerByAnnotation(in, dispatcher, *cls, site);
  if (fn) {
    registerImpl(in, dispatcher, *cls, *fn, site);
    return *fn;
  }
  return nativeWith(in, "functools.singledispatch.register", sdRegisterApply, {dispatcher, *cls},
                    site);
}

// The classes to look a value up by, in order (bool is an int).
std::vector<ClassObj*> dispatchMro(Interpreter& in, ClassObj* cls) {
  std::vector<ClassObj*> mro = cls->mro.empty() ? std::vector<ClassObj*>{cls} : cls->mro;
  if (cls->external == "builtins.bool")
    mro = {cls, in.externalClass("builtins.int"), in.externalClass("builtins.object")};
  return mro;
}

// The implementations a call may run for one class (null: not known).
Value implementationsFor(Interpreter& in, DictObj* reg, ClassObj* cls, mlir::Operation* site) {
  Value uncertain; // keys that are not classes, and library classes (ABCs)
  ClassObj* object = in.externalClass("builtins.object");
  std::vector<ClassObj*> mro = cls ? dispatchMro(in, cls) : std::vector<ClassObj*>{};
  for (const auto& [k, v] : reg->items) {
    auto* kc = llvm::dyn_cast_or_null<ClassObj>(k.single());
    if (!kc || !cls ||
        (!kc->external.empty() && kc->external.rfind("builtins.", 0) != 0 &&
         std::find(mro.begin(), mro.end(), kc) == mro.end()))
      if (kc != object)
        uncertain = in.heap().join(uncertain, v);
  }
  if (!cls) {
    Value all;
    for (const auto& [k, v] : reg->items)
      all = in.heap().join(all, v);
    return all;
  }
  for (ClassObj* c : mro)
    for (const auto& [k, v] : reg->items)
      if (k.single() == c) {
        if (c == object)
          return in.heap().join(v, uncertain);
        return v;
      }
  return in.heap().join(uncertain,
                        in.unknown("no implementation registered for " + cls->name, site));
}

Value sdCall(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value dispatcher = selfArg(a);
  DictObj* reg = registryOf(dispatcher);
  CallArgs args = rest(a);
  if (!reg || args.positional.empty())
    return in.unknown("a singledispatch function called without arguments", site);
  // Group the first argument's alternatives by the implementations they run.
  std::vector<std::pair<Value, Value>> groups; // implementations, first-argument values
  for (const Alt& alt : args.positional[0]) {
    ClassObj* cls = alt.obj->kind == Kind::Unknown || alt.obj->kind == Kind::External
                        ? nullptr
                        : in.classOf(alt.obj);
    Value impl = implementationsFor(in, reg, cls, site);
    bool placed = false;
    for (auto& [fns, vals] : groups)
      if (fns.size() == impl.size() &&
          std::equal(fns.begin(), fns.end(), impl.begin(),
                     [](const Alt& x, const Alt& y) { return x.obj == y.obj; })) {
        vals.add(alt.obj, alt.origin);
        placed = true;
      }
    if (!placed)
      groups.push_back({impl, Value(alt.obj, alt.origin)});
  }
  if (groups.size() == 1)
    return in.call(groups[0].first, args, site);
  Value out;
  std::vector<std::function<void()>> ways;
  ways.reserve(groups.size());
  for (auto& [fns, vals] : groups)
    ways.push_back([&, fns = fns, vals = vals] {
      CallArgs one = args;
      one.positional[0] = vals;
      out = in.heap().join(out, in.call(fns, one, site));
    });
  in.sides(ways);
  return out;
}

Value sdDispatch(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* reg = registryOf(selfArg(a));
  const Value* cls = arg(a, 1, "cls");
  if (!reg || !cls)
    return in.unknown("dispatch()", site);
  Value out;
  for (const Alt& alt : *cls)
    out = in.heap().join(out, implementationsFor(in, reg, asClass(in, alt.obj), site));
  return out;
}

Value fSingledispatch(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0, "func");
  if (!fn)
    return in.unknown("functools.singledispatch()", site);
  auto* inst = in.heap().make<InstanceObj>(in.externalClass(kDispatcher));
  Value self(inst, site);
  auto* reg = in.heap().make<DictObj>();
  reg->items.push_back({Value(in.externalClass("builtins.object"), site), *fn});
  inst->attrs.set("registry", Value(reg, site));
  updateWrapper(in, self, *fn, site);
  return self;
}

class FunctoolsOverlay final : public Overlay {
public:
  const char* name() const override { return "functools"; }
  void install(Interpreter& in) override {
    in.defineNative("functools.partial", fPartial);
    in.defineNative("functools.partialmethod", fPartialMethod);
    in.defineNative("functools.update_wrapper", fUpdateWrapper);
    in.defineNative("functools.wraps", fWraps);
    in.defineNative("functools.reduce", fReduce);
    in.defineNative("functools.lru_cache", fLruCache);
    in.defineNative("functools.cache", fCache);
    in.defineNative("functools.cached_property", fCachedProperty);
    in.defineNative("functools.total_ordering", fIdentity);
    in.defineNative("functools.singledispatch", fSingledispatch);
    ClassObj* sd = in.externalClass(kDispatcher);
    classNative(in, sd, "__call__", sdCall);
    classNative(in, sd, "register", sdRegister);
    classNative(in, sd, "dispatch", sdDispatch);
  }
};

} // namespace

std::unique_ptr<Overlay> makeFunctoolsOverlay() {
  return std::make_unique<FunctoolsOverlay>();
}

} // namespace pallas::eval
