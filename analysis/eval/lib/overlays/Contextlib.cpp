// Overlay: contextlib. @contextmanager makes a function whose calls build
// a contextlib._GeneratorContextManager holding the generator (the core's
// `with` runs its body at the generator's yield, Exec::withOp); such an
// object, like any ContextDecorator, also decorates a function: the
// function then runs inside the context. ExitStack enters context managers
// now and exits them, last first, when the stack exits; nullcontext,
// suppress (a true __exit__ swallows the body's exception), closing and
// redirect_stdout/stderr are small classes.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr const char* kGeneratorCM = "contextlib._GeneratorContextManager";

ClassObj* generatorClass(Interpreter& in) {
  return in.externalClass(kGeneratorCM);
}

bool isGeneratorCM(const Object* o) {
  auto* inst = llvm::dyn_cast<InstanceObj>(o);
  return inst && inst->cls->external == kGeneratorCM;
}

// The arguments a generator context manager was made with (func, args, kwds).
CallArgs savedArgs(Interpreter& in, InstanceObj* cm, mlir::Operation* site) {
  CallArgs args;
  Value pos = attr(cm, "args");
  if (!pos.isBottom()) {
    Interpreter::Elements e = in.elements(pos, site);
    if (e.exact)
      args.positional = e.items;
    else
      args.morePositional = true;
  }
  if (auto* d = llvm::dyn_cast_or_null<DictObj>(attr(cm, "kwds").single())) {
    for (const auto& [k, v] : d->items)
      if (auto* s = llvm::dyn_cast_or_null<StrObj>(k.single()))
        args.keywords.push_back({s->v, v});
    args.moreKeywords = !d->exact;
  }
  return args;
}

// What calling a @contextmanager function gives: one manager per generator.
Value makeGeneratorCMs(Interpreter& in, const Value& func, const CallArgs& a,
                       mlir::Operation* site) {
  Value made = in.call(func, a, site);
  if (std::optional<Value> raised = in.takeRaised()) {
    in.raise(*raised);
    return in.unknown("a context manager whose function raised", site);
  }
  Value out;
  for (const Alt& alt : made) {
    InstanceObj* cm = instance(in, generatorClass(in));
    if (auto* g = llvm::dyn_cast<GeneratorObj>(alt.obj))
      cm->payload = g;
    cm->attrs.set("gen", Value(alt.obj, alt.origin));
    cm->attrs.set("func", func);
    if (a.morePositional)
      cm->attrs.set("args", listOf(in, a.positional, false, site));
    else
      cm->attrs.set("args", in.tuple(a.positional, site));
    auto* kw = in.heap().make<DictObj>();
    for (const auto& [k, v] : a.keywords)
      kw->items.push_back({in.str(k, site), v});
    kw->exact = !a.moreKeywords;
    if (a.moreKeywords)
      kw->others = in.unknown("a keyword argument from a splat", site);
    cm->attrs.set("kwds", Value(kw, site));
    out.add(cm, site);
  }
  return out;
}

// A function decorated by @contextmanager, called: data holds (func,).
Value cmFunctionCall(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                     const Object* self) {
  auto* holder = static_cast<TupleObj*>(llvm::cast<BuiltinObj>(self)->data);
  return makeGeneratorCMs(in, holder->elems[0], a, site);
}

std::string nameOf(const Value& v) {
  if (auto* f = llvm::dyn_cast_or_null<FunctionObj>(v.single()))
    return f->name;
  return describe(v);
}

Value contextmanager(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* f = arg(a, 0, "func");
  if (!f)
    return in.unknown("contextlib.contextmanager()", site);
  auto* holder = in.heap().make<TupleObj>(std::vector<Value>{*f});
  return Value(
      in.makeNative("contextlib.contextmanager(" + nameOf(*f) + ")", cmFunctionCall, holder), site);
}

// Runs `body` inside the context manager `cm` (one alternative) as a with
// statement would: a generator manager runs its generator around it.
Value runInside(Interpreter& in, const Alt& cm, const std::function<Value(const Value&)>& body,
                mlir::Operation* site) {
  Object* m = cm.obj;
  if (isGeneratorCM(m)) {
    // A fresh generator for each use (ContextDecorator._recreate_cm).
    auto* inst = llvm::cast<InstanceObj>(m);
    Value gens = in.call(attr(inst, "func"), savedArgs(in, inst, site), site);
    in.takeRaised();
    Value out;
    std::optional<Value> raised;
    for (const Alt& g : gens) {
      auto* gen = llvm::dyn_cast<GeneratorObj>(g.obj);
      if (!gen) {
        out = in.heap().join(out, body(in.unknown("what " + describe(g.obj) + " enters", site)));
        continue;
      }
      bool ran = false;
      in.runGenerator(gen, [&](const Value& v) {
        if (ran)
          return false; // a second yield: CPython's RuntimeError
        ran = true;
        out = in.heap().join(out, body(v));
        if (std::optional<Value> r = in.takeRaised())
          raised = *r;
        return true;
      });
      if (!ran)
        out = in.heap().join(out,
                             in.unknown("a context manager whose generator did not yield", site));
    }
    if (raised)
      in.raise(*raised);
    return out;
  }
  Value self(m, cm.origin);
  auto* inst = llvm::dyn_cast<InstanceObj>(m);
  if (!inst || !in.lookupInMro(inst->cls, "__enter__"))
    return body(in.unknown("what " + describe(m) + " enters", site));
  Value entered = in.call(in.getAttr(self, "__enter__", site), {}, site);
  if (std::optional<Value> r = in.takeRaised()) {
    in.raise(*r);
    return in.unknown("a context that raised on entry", site);
  }
  Value result = body(entered);
  std::optional<Value> raised = in.takeRaised();
  CallArgs exitArgs;
  exitArgs.positional = {in.none(site), in.none(site), in.none(site)};
  if (raised) {
    Value type;
    for (const Alt& e : *raised)
      if (auto* ei = llvm::dyn_cast<InstanceObj>(e.obj))
        type.add(ei->cls, e.origin);
      else
        type.add(e.obj, e.origin);
    exitArgs.positional = {type, *raised, in.unknown("a traceback", site)};
  }
  Value suppressed = in.call(in.getAttr(self, "__exit__", site), exitArgs, site);
  if (std::optional<Value> r = in.takeRaised()) {
    in.raise(*r);
    return result;
  }
  if (raised) {
    std::optional<bool> t = in.truth(suppressed, site);
    if (t == true)
      return in.none(site);
    if (t == false)
      in.raise(*raised);
    else
      result = in.heap().join(result, in.none(site));
  }
  return result;
}

// A function decorated by a context manager (ContextDecorator.__call__):
// data holds (manager, func).
Value decoratedCall(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* holder = static_cast<TupleObj*>(llvm::cast<BuiltinObj>(self)->data);
  Value cm = holder->elems[0], func = holder->elems[1];
  Value out;
  std::vector<std::function<void()>> ways;
  for (const Alt& alt : cm)
    ways.push_back([&, alt] {
      out = in.heap().join(
          out, runInside(in, alt, [&](const Value&) { return in.call(func, a, site); }, site));
    });
  if (ways.size() == 1)
    ways[0]();
  else
    in.sides(ways);
  return out;
}

// ContextDecorator.__call__(self, func)
Value decoratorCall(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* func = arg(a, 1);
  if (a.positional.empty() || !func)
    return in.unknown("a context manager used as a decorator", site);
  auto* holder = in.heap().make<TupleObj>(std::vector<Value>{a.positional[0], *func});
  return Value(
      in.makeNative("contextlib.ContextDecorator(" + nameOf(*func) + ")", decoratedCall, holder),
      site);
}

// _GeneratorContextManager.__enter__ called directly (ExitStack): runs the
// generator to its yield. What follows the yield is not run.
Value enterGenerator(Interpreter& in, InstanceObj* cm, mlir::Operation* site) {
  auto* gen = static_cast<GeneratorObj*>(cm->payload);
  if (!gen)
    return in.unknown("what " + describe(attr(cm, "gen")) + " enters", site);
  Value got;
  bool ran = false;
  in.runGenerator(gen, [&](const Value& v) {
    got = v;
    ran = true;
    return false;
  });
  return ran ? got : in.unknown("a context manager whose generator did not yield", site);
}

Value gcmEnter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* cm = selfOf(a);
  return cm ? enterGenerator(in, cm, site) : in.unknown("__enter__", site);
}

Value returnFalse(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.boolean(false, site);
}
Value returnSelf(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return a.positional.empty() ? in.unknown("self", site) : a.positional[0];
}

// ---- nullcontext, suppress, closing, redirect_* -------------------------------------

Value nullInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a)) {
    const Value* v = arg(a, 1, "enter_result");
    put(in, self, "enter_result", v ? *v : in.none(site));
  }
  return in.none(site);
}
Value nullEnter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  Value v = self ? attr(self, "enter_result") : Value();
  return v.isBottom() ? in.unknown("nullcontext's value", site) : v;
}

Value suppressInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a)) {
    std::vector<Value> excs(a.positional.begin() + 1, a.positional.end());
    put(in, self, "_exceptions", in.tuple(excs, site));
  }
  return in.none(site);
}
Value suppressExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const Value* type = arg(a, 1);
  const Value* value = arg(a, 2);
  if (!type || isNone(type))
    return in.boolean(false, site);
  if (!self)
    return in.unknown("whether suppress() catches the exception", site);
  std::optional<bool> m = in.exceptionMatches(value && !isNone(value) ? *value : *type,
                                              attr(self, "_exceptions"), site);
  return m ? in.boolean(*m, site)
           : in.unknown("whether suppress() catches " + describe(*type), site);
}

Value closingInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a)) {
    const Value* v = arg(a, 1, "thing");
    put(in, self, "thing", v ? *v : in.unknown("closing()'s object", site));
  }
  return in.none(site);
}
Value closingEnter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  Value v = self ? attr(self, "thing") : Value();
  return v.isBottom() ? in.unknown("closing()'s object", site) : v;
}
Value closingExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a))
    in.call(in.getAttr(attr(self, "thing"), "close", site), {}, site);
  return in.none(site);
}

Value redirectInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a)) {
    const Value* v = arg(a, 1, "new_target");
    put(in, self, "_new_target", v ? *v : in.unknown("the new stream", site));
  }
  return in.none(site);
}
Value redirectEnter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  Value v = self ? attr(self, "_new_target") : Value();
  return v.isBottom() ? in.unknown("the new stream", site) : v;
}

// ---- ExitStack ------------------------------------------------------------------------
// `_exit_callbacks`: a list of tuples (kind, object[, args, kwds]), kind
// "cm" (call its __exit__), "gen" (a generator manager: nothing more runs),
// "exit" (a callable taking the exception triple), "call" (a callback).

ListObj* callbacks(Interpreter& in, InstanceObj* stack, mlir::Operation* site) {
  if (auto* l = llvm::dyn_cast_or_null<ListObj>(attr(stack, "_exit_callbacks").single()))
    return l;
  auto* l = in.heap().make<ListObj>();
  put(in, stack, "_exit_callbacks", Value(l, site));
  return l;
}

void pushCallback(Interpreter& in, InstanceObj* stack, std::vector<Value> entry,
                  mlir::Operation* site) {
  ListObj* l = callbacks(in, stack, site);
  in.heap().willWrite(l);
  l->elems.push_back(in.tuple(std::move(entry), site));
}

Value stackInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a))
    put(in, self, "_exit_callbacks", in.list({}, site));
  return in.none(site);
}

Value enterContext(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const Value* cm = arg(a, 1, "cm");
  if (!self || !cm)
    return in.unknown("ExitStack.enter_context()", site);
  Value out;
  std::vector<std::function<void()>> ways;
  for (const Alt& alt : *cm)
    ways.push_back([&, alt] {
      Value m(alt.obj, alt.origin);
      if (isGeneratorCM(alt.obj)) {
        out = in.heap().join(out, enterGenerator(in, llvm::cast<InstanceObj>(alt.obj), site));
        pushCallback(in, self, {in.str("gen", site), m}, site);
        return;
      }
      auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj);
      if (!inst || !in.lookupInMro(inst->cls, "__enter__")) {
        out = in.heap().join(out, in.unknown("what " + describe(alt.obj) + " enters", site));
        pushCallback(in, self, {in.str("cm", site), m}, site);
        return;
      }
      out = in.heap().join(out, in.call(in.getAttr(m, "__enter__", site), {}, site));
      pushCallback(in, self, {in.str("cm", site), m}, site);
    });
  if (ways.size() == 1)
    ways[0]();
  else
    in.sides(ways);
  return out;
}

Value stackCallback(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const Value* fn = arg(a, 1);
  if (!self || !fn)
    return in.unknown("ExitStack.callback()", site);
  std::vector<Value> extra(a.positional.begin() + 2, a.positional.end());
  auto* kw = in.heap().make<DictObj>();
  for (const auto& [k, v] : a.keywords)
    kw->items.push_back({in.str(k, site), v});
  pushCallback(in, self, {in.str("call", site), *fn, in.tuple(extra, site), Value(kw, site)}, site);
  return *fn;
}

Value stackPush(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  const Value* exit = arg(a, 1, "exit");
  if (!self || !exit)
    return in.unknown("ExitStack.push()", site);
  bool isManager = false;
  if (auto* inst = llvm::dyn_cast_or_null<InstanceObj>(exit->single()))
    isManager = in.lookupInMro(inst->cls, "__exit__") != nullptr;
  pushCallback(in, self, {in.str(isManager ? "cm" : "exit", site), *exit}, site);
  return *exit;
}

// Runs one callback entry with the exception triple; true: it suppressed.
std::optional<bool> runCallback(Interpreter& in, const Value& entry, std::vector<Value>& exc,
                                mlir::Operation* site) {
  auto* t = llvm::dyn_cast_or_null<TupleObj>(entry.single());
  if (!t || t->elems.size() < 2)
    return false;
  const std::string* kind = strOf(&t->elems[0]);
  if (!kind)
    return false;
  CallArgs exitArgs;
  exitArgs.positional = exc;
  if (*kind == "cm")
    return in.truth(in.call(in.getAttr(t->elems[1], "__exit__", site), exitArgs, site), site);
  if (*kind == "exit")
    return in.truth(in.call(t->elems[1], exitArgs, site), site);
  if (*kind == "call" && t->elems.size() >= 4) {
    CallArgs args;
    args.positional =
        t->elems[2].single() ? in.elements(t->elems[2], site).items : std::vector<Value>{};
    if (auto* d = llvm::dyn_cast_or_null<DictObj>(t->elems[3].single()))
      for (const auto& [k, v] : d->items)
        if (auto* s = llvm::dyn_cast_or_null<StrObj>(k.single()))
          args.keywords.push_back({s->v, v});
    in.call(t->elems[1], args, site);
    return false;
  }
  return false; // "gen": what follows the yield is not modelled
}

Value unwind(Interpreter& in, InstanceObj* self, std::vector<Value> exc, mlir::Operation* site) {
  ListObj* l = callbacks(in, self, site);
  std::vector<Value> entries = l->elems;
  bool exact = l->exact;
  in.heap().willWrite(l);
  l->elems.clear();
  l->exact = true;
  bool pendingException = !isNone(&exc[0]);
  std::optional<bool> suppressed = false;
  std::optional<Value> raised;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    std::vector<std::function<void()>> ways;
    for (const Alt& alt : *it)
      ways.push_back([&, alt] {
        std::optional<bool> s = runCallback(in, Value(alt.obj, alt.origin), exc, site);
        if (std::optional<Value> r = in.takeRaised())
          raised = *r;
        if (pendingException && s == true) {
          suppressed = true;
          exc = {in.none(site), in.none(site), in.none(site)};
          pendingException = false;
        } else if (pendingException && !s) {
          suppressed = std::nullopt;
        }
      });
    if (!exact)
      ways.push_back([] {}); // an entry that may not be there
    if (ways.size() == 1)
      ways[0]();
    else
      in.sides(ways);
  }
  if (raised)
    in.raise(*raised);
  return suppressed
             ? in.boolean(*suppressed, site)
             : in.unknown("whether a context of the ExitStack suppresses the exception", site);
}

Value stackExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  if (!self)
    return in.unknown("ExitStack.__exit__()", site);
  std::vector<Value> exc;
  for (size_t i = 1; i < 4; ++i)
    exc.push_back(i < a.positional.size() ? a.positional[i] : in.none(site));
  return unwind(in, self, exc, site);
}

Value stackClose(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (InstanceObj* self = selfOf(a))
    unwind(in, self, {in.none(site), in.none(site), in.none(site)}, site);
  return in.none(site);
}

Value stackPopAll(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* self = selfOf(a);
  if (!self)
    return in.unknown("ExitStack.pop_all()", site);
  InstanceObj* moved = instance(in, self->cls);
  ListObj* from = callbacks(in, self, site);
  auto* l = in.heap().make<ListObj>();
  l->elems = from->elems;
  l->exact = from->exact;
  moved->attrs.set("_exit_callbacks", Value(l, site));
  in.heap().willWrite(from);
  from->elems.clear();
  from->exact = true;
  return Value(moved, site);
}

class ContextlibOverlay final : public Overlay {
public:
  const char* name() const override { return "contextlib"; }
  void install(Interpreter& in) override {
    in.defineNative("contextlib.contextmanager", contextmanager);
    ClassObj* decorator = libraryClass(in, "contextlib.ContextDecorator");
    method(in, decorator, "__call__", decoratorCall);
    ClassObj* abstract = libraryClass(in, "contextlib.AbstractContextManager");
    method(in, abstract, "__enter__", returnSelf);
    method(in, abstract, "__exit__", returnNone);

    ClassObj* gcm = libraryClass(in, kGeneratorCM, {abstract, decorator});
    method(in, gcm, "__enter__", gcmEnter);
    method(in, gcm, "__exit__", returnFalse);

    ClassObj* null = libraryClass(in, "contextlib.nullcontext", {abstract});
    method(in, null, "__init__", nullInit);
    method(in, null, "__enter__", nullEnter);
    method(in, null, "__exit__", returnNone);

    ClassObj* suppress = libraryClass(in, "contextlib.suppress", {abstract});
    method(in, suppress, "__init__", suppressInit);
    method(in, suppress, "__enter__", returnNone);
    method(in, suppress, "__exit__", suppressExit);

    ClassObj* closing = libraryClass(in, "contextlib.closing", {abstract});
    method(in, closing, "__init__", closingInit);
    method(in, closing, "__enter__", closingEnter);
    method(in, closing, "__exit__", closingExit);

    for (const char* r : {"contextlib.redirect_stdout", "contextlib.redirect_stderr"}) {
      ClassObj* c = libraryClass(in, r, {abstract});
      method(in, c, "__init__", redirectInit);
      method(in, c, "__enter__", redirectEnter);
      method(in, c, "__exit__", returnNone);
    }

    ClassObj* stack = libraryClass(in, "contextlib.ExitStack", {abstract});
    method(in, stack, "__init__", stackInit);
    method(in, stack, "__enter__", returnSelf);
    method(in, stack, "__exit__", stackExit);
    method(in, stack, "enter_context", enterContext);
    method(in, stack, "callback", stackCallback);
    method(in, stack, "push", stackPush);
    method(in, stack, "close", stackClose);
    method(in, stack, "pop_all", stackPopAll);

    ModuleObj* m = in.externalModule("contextlib");
    for (ClassObj* c : {decorator, abstract, null, suppress, closing, stack,
                        in.externalClass("contextlib.redirect_stdout"),
                        in.externalClass("contextlib.redirect_stderr")})
      m->ns.set(c->name, Value(c));
  }
};

} // namespace

std::unique_ptr<Overlay> makeContextlibOverlay() {
  return std::make_unique<ContextlibOverlay>();
}

} // namespace pallas::eval
