// Overlay: what the running environment decides (os, sys, time, random,
// uuid, datetime). The program is judged as it runs here: an environment
// variable the program did not set is read from the environment the
// analysis runs in (the editor's, CI's): one set there has its value, one
// unset there has the default the program gives (`os.environ.get(K, "1")`,
// `os.getenv(K)` is None, `K in os.environ` is False); `os.environ[K]` of an
// unset one (a KeyError if the program ran so) and the variables as a whole
// are Unknown naming them ("environment variable FLAG"). sys.argv is
// the program's path alone: the program as written runs without arguments
// (`python prog.py`, as argparse's overlay parses it); sys.version_info, sys.platform and
// sys.maxsize are those of the CPython the analysis assumes (3.11 on Linux); clocks, random numbers
// and UUIDs are Unknown. os.path's functions stay Unknown (the files are not known).
#include "Util.h"

#include <cstdlib>

namespace pallas::eval {
namespace {

using namespace overlay;

std::string variable(const Value* key) {
  if (const std::string* s = strOf(key))
    return "environment variable " + *s;
  return "an environment variable";
}

// What the program stored in os.environ (`_data`): the value under `key`,
// bottom when it did not store that key.
Value stored(Interpreter& in, InstanceObj* env, const Value& key, bool* certain) {
  *certain = false;
  auto* d = llvm::dyn_cast_or_null<DictObj>(attr(env, "_data").single());
  if (!d)
    return Value();
  Value found;
  for (const auto& [k, v] : d->items) {
    std::optional<bool> same =
        k.single() && key.single() ? sameValue(k.single(), key.single()) : std::nullopt;
    if (same == true) {
      *certain = true;
      return v;
    }
    if (!same)
      found = in.heap().join(found, v);
  }
  return found;
}

InstanceObj* environ(Interpreter& in) {
  const Value* v = in.externalModule("os")->ns.find("environ");
  return v ? llvm::dyn_cast_or_null<InstanceObj>(v->single()) : nullptr;
}

// os.environ[key] / .get(key, default) / os.getenv(key, default).
Value lookup(Interpreter& in, InstanceObj* env, const Value* key, const Value* dflt,
             mlir::Operation* site) {
  if (!key)
    return in.unknown("an environment variable", site);
  bool certain = false;
  Value v = env ? stored(in, env, *key, &certain) : Value();
  if (certain)
    return v;
  if (const std::string* name = strOf(key)) {
    if (const char* here = std::getenv(name->c_str()))
      return in.heap().join(v, in.str(here, site));
    if (dflt)
      return in.heap().join(v, *dflt);
  }
  v = in.heap().join(v, in.unknown(variable(key), site));
  if (dflt)
    v = in.heap().join(v, *dflt);
  return v;
}

Value envGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return lookup(in, selfOf(a), arg(a, 1), nullptr, site);
}
Value envGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* d = arg(a, 2, "default");
  Value none = in.none(site);
  return lookup(in, selfOf(a), arg(a, 1, "key"), d ? d : &none, site);
}
Value getenv(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* d = arg(a, 1, "default");
  Value none = in.none(site);
  return lookup(in, environ(in), arg(a, 0, "key"), d ? d : &none, site);
}

Value envContains(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* env = selfOf(a);
  const Value* key = arg(a, 1);
  bool certain = false;
  Value maybeStored;
  if (env && key)
    maybeStored = stored(in, env, *key, &certain);
  if (certain)
    return in.boolean(true, site);
  // Not set by the program: as the analysis's own environment has it.
  if (const std::string* name = strOf(key); name && maybeStored.isBottom())
    return in.boolean(std::getenv(name->c_str()) != nullptr, site);
  return in.unknown("whether " + variable(key) + " is set", site);
}

Value envSetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* env = selfOf(a);
  const Value* key = arg(a, 1);
  const Value* v = arg(a, 2);
  if (!env || !key || !v)
    return in.none(site);
  Value data = attr(env, "_data");
  if (data.isBottom()) {
    auto* d = in.heap().make<DictObj>();
    d->exact = false;
    data = Value(d, site);
    put(in, env, "_data", data);
  }
  in.setItem(data, *key, *v, site);
  return in.none(site);
}

Value envSetdefault(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  InstanceObj* env = selfOf(a);
  const Value* key = arg(a, 1);
  const Value* dflt = arg(a, 2);
  if (!env || !key)
    return in.unknown("os.environ.setdefault()", site);
  bool certain = false;
  Value v = stored(in, env, *key, &certain);
  if (certain)
    return v;
  Value was = in.heap().join(v, in.unknown(variable(key), site));
  envSetitem(in, a, site, self);
  return dflt ? in.heap().join(was, *dflt) : was;
}

Value envPop(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return lookup(in, selfOf(a), arg(a, 1), arg(a, 2), site);
}

Value envIter(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return listOf(in, {in.unknown("the name of an environment variable", site)}, false, site);
}

Value envUnknown(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return in.unknown("the environment (" + llvm::cast<BuiltinObj>(self)->name + "())", site);
}

Value sysExit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* e = instance(in, in.externalClass("builtins.SystemExit"));
  const Value* code = arg(a, 0);
  e->attrs.set("code", code ? *code : in.none(site));
  in.raise(Value(e, site));
  return in.unknown("the result of sys.exit()", site);
}

// A clock, a random number, a UUID: the reason names the call.
Value nondeterministic(Interpreter& in, const CallArgs&, mlir::Operation* site,
                       const Object* self) {
  auto* what = static_cast<const char*>(llvm::cast<BuiltinObj>(self)->data);
  return in.unknown(std::string(what) + " (" + llvm::cast<BuiltinObj>(self)->name + "())", site);
}

// random.choice(seq): one of its elements.
Value randomChoice(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* seq = arg(a, 0, "seq");
  if (!seq)
    return in.unknown("random.choice()", site);
  Interpreter::Elements e = in.elements(*seq, site);
  Value any;
  for (const Value& v : e.items)
    any = in.heap().join(any, v);
  if (!e.exact || any.isBottom())
    any = in.heap().join(any, in.unknown("a random element (random.choice())", site));
  return any;
}

// random.shuffle(x): x keeps its elements in an order not known.
Value randomShuffle(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (const Value* x = arg(a, 0))
    for (const Alt& alt : *x)
      if (auto* l = llvm::dyn_cast<ListObj>(alt.obj); l && alt.obj->kind == Kind::List) {
        Value any;
        for (const Value& v : l->elems)
          any = in.heap().join(any, v);
        in.heap().willWrite(l);
        l->elems = any.isBottom() ? std::vector<Value>{} : std::vector<Value>{any};
        l->exact = l->elems.empty() && l->exact;
      }
  return in.none(site);
}

class EnvironmentOverlay final : public Overlay {
public:
  const char* name() const override { return "environment"; }
  void install(Interpreter& in) override {
    // os
    ClassObj* envClass = libraryClass(in, "os._Environ");
    method(in, envClass, "__getitem__", envGetitem);
    method(in, envClass, "get", envGet);
    method(in, envClass, "__contains__", envContains);
    method(in, envClass, "__setitem__", envSetitem);
    method(in, envClass, "setdefault", envSetdefault);
    method(in, envClass, "pop", envPop);
    method(in, envClass, "__iter__", envIter);
    method(in, envClass, "keys", envIter);
    for (const char* n : {"values", "items", "copy"})
      method(in, envClass, n, envUnknown);
    ModuleObj* os = in.externalModule("os");
    os->ns.set("environ", Value(instance(in, envClass)));
    in.defineNative("os.getenv", getenv);
    in.defineNative("os.putenv", returnNone);
    in.defineNative("os.unsetenv", returnNone);

    // sys
    ModuleObj* sys = in.externalModule("sys");
    sys->ns.set("argv",
                listOf(in, {in.unknown("the program's path (sys.argv[0])")}, true, nullptr));
    sys->ns.set("version_info", in.tuple({in.integer(3), in.integer(11), in.integer(7),
                                          in.str("final"), in.integer(0)}));
    sys->ns.set("platform", in.str("linux"));
    sys->ns.set("byteorder", in.str("little"));
    sys->ns.set("maxsize", in.integer(INT64_MAX));
    sys->ns.set("modules", in.unknown("sys.modules"));
    sys->ns.set("version", in.unknown("sys.version"));
    sys->ns.set("executable", in.unknown("the Python executable (sys.executable)"));
    sys->ns.set("path", listOf(in, {in.unknown("an entry of sys.path")}, false, nullptr));
    in.defineNative("sys.exit", sysExit);
    in.defineNative("sys.setrecursionlimit", returnNone);

    // clocks, random numbers, UUIDs
    struct Source {
      const char* name;
      const char* what;
    };
    static const Source sources[] = {
        {"time.time", "the current time"},
        {"time.time_ns", "the current time"},
        {"time.perf_counter", "the current time"},
        {"time.perf_counter_ns", "the current time"},
        {"time.monotonic", "the current time"},
        {"time.monotonic_ns", "the current time"},
        {"time.process_time", "the current time"},
        {"time.localtime", "the current time"},
        {"time.gmtime", "the current time"},
        {"time.strftime", "the current time"},
        {"time.ctime", "the current time"},
        {"datetime.datetime.now", "the current date and time"},
        {"datetime.datetime.utcnow", "the current date and time"},
        {"datetime.datetime.today", "the current date and time"},
        {"datetime.date.today", "the current date"},
        {"random.random", "a random number"},
        {"random.randint", "a random number"},
        {"random.randrange", "a random number"},
        {"random.uniform", "a random number"},
        {"random.gauss", "a random number"},
        {"random.normalvariate", "a random number"},
        {"random.getrandbits", "a random number"},
        {"random.sample", "a random sample"},
        {"uuid.uuid1", "a random UUID"},
        {"uuid.uuid4", "a random UUID"},
    };
    for (const Source& s : sources)
      in.defineNative(s.name, nondeterministic, const_cast<char*>(s.what));
    in.defineNative("time.sleep", returnNone);
    in.defineNative("random.seed", returnNone);
    in.defineNative("random.choice", randomChoice);
    in.defineNative("random.shuffle", randomShuffle);
  }
};

} // namespace

std::unique_ptr<Overlay> makeEnvironmentOverlay() {
  return std::make_unique<EnvironmentOverlay>();
}

} // namespace pallas::eval
