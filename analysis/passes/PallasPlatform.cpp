// The platform the program runs on, as the Pallas overlay answers it:
//  * jtu.test_device_matches([...]) in JAX's own tests is the test's device
//    type, unknown until a branch narrows it;
//  * jax.default_backend(), jax.devices() and jax.local_devices() name the
//    platform JAX picks on this machine, the way a type checker evaluates
//    `sys.platform` for the platform it runs on: "gpu" where a GPU was
//    found, else "cpu". A program that picks interpret=True when no GPU is
//    present is judged on the path it takes here. Where a branch already
//    narrowed the platforms (a test that runs on GPUs only) the answer
//    stays within them.
#include "PallasOverlayState.h"

namespace pallas::analysis::passes {

using namespace eval;

namespace {

PallasOverlay::State& stateOf(Interpreter& in) {
  return in.overlay<PallasOverlay>()->state();
}

// The attribute @jtu.run_on_devices / @jtu.skip_on_devices leave on a test:
// ("run" | "skip", device type, ...).
constexpr const char* kDevicesAttr = "__pallas_lsp_devices__";

std::string platformOf(const std::string& deviceType);

} // namespace

// Which platforms the code running now may run on: a branch on
// jtu.test_device_matches(["tpu"]) narrows it (what is left is kept on the
// config object, so branches join it like any state). A launch that can
// only run on a TPU is a Mosaic TPU launch, not ours.

std::set<std::string> platformsOf(Interpreter& in) {
  std::set<std::string> out{"cpu", "gpu", "tpu"};
  const Value* v = stateOf(in).facts->attrs.find("platforms");
  if (v && v->single()) {
    out.clear();
    for (const Value& e : in.elements(*v, nullptr).items)
      if (auto* str = llvm::dyn_cast_or_null<StrObj>(e.single()))
        out.insert(str->v);
  }
  // A test running now under @jtu.run_on_devices / @jtu.skip_on_devices.
  for (const StackEntry& se : in.stack())
    if (auto* fn = llvm::dyn_cast_or_null<FunctionObj>(se.callee))
      if (const Value* d = fn->attrs.find(kDevicesAttr))
        if (auto* t = llvm::dyn_cast_or_null<TupleObj>(d->single()); t && !t->elems.empty()) {
          auto* mode = llvm::dyn_cast_or_null<StrObj>(t->elems[0].single());
          std::set<std::string> named;
          for (size_t i = 1; i < t->elems.size(); ++i)
            if (auto* str = llvm::dyn_cast_or_null<StrObj>(t->elems[i].single()))
              named.insert(platformOf(str->v));
          std::set<std::string> kept;
          for (const std::string& p : out)
            if ((mode && mode->v == "run") == (named.count(p) > 0))
              kept.insert(p);
          out = kept;
        }
  return out;
}

namespace {

std::string platformOf(const std::string& deviceType) {
  if (deviceType == "cuda" || deviceType == "rocm" || deviceType == "gpu")
    return "gpu";
  return deviceType;
}

Value nDeviceMatchesNarrow(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                           const Object* self) {
  auto* b = llvm::cast<BuiltinObj>(self);
  bool matched = !args.positional.empty() && in.truth(args.positional[0], site) == true;
  std::set<std::string> listed;
  for (const Value& e : in.elements(b->bound, site).items)
    if (auto* str = llvm::dyn_cast_or_null<StrObj>(e.single()))
      listed.insert(str->v);
  std::set<std::string> now = platformsOf(in), next;
  for (const std::string& p : now) {
    bool listedHere = false, all = true;
    for (const std::string& d : listed)
      if (platformOf(d) == p) {
        listedHere = true;
        all = all && (d == p || d == "gpu");
      }
    // True: one of the listed; false: not one of them (a platform only
    // some of whose devices are listed, `cuda` of gpu, may still be).
    if (matched ? listedHere : !(listedHere && all))
      next.insert(p);
  }
  if (next.empty()) {
    in.infeasible(); // no platform is left: this branch cannot run
    return in.none(site);
  }
  std::vector<Value> items;
  items.reserve(next.size());
  for (const std::string& p : next)
    items.push_back(in.str(p, site));
  PallasOverlay::State& st = stateOf(in);
  in.heap().willWrite(st.facts);
  st.facts->attrs.set("platforms", in.tuple(items, site));
  return in.none(site);
}

Value nTestDeviceMatches(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                         const Object*) {
  const Value* types = args.get(0, "device_types");
  auto* u = in.heap().make<UnknownObj>("the test's device type", site);
  if (types) {
    BuiltinObj* hook = in.makeNative("pallas-lsp.device_matches.narrow", nDeviceMatchesNarrow);
    hook->bound = *types;
    u->onNarrow = hook;
  }
  return Value(u, site);
}

// The platform jax.default_backend() names here: the host's, unless a branch
// already ruled it out; then the one platform left, else unknown ("").
std::string backendHere(Interpreter& in) {
  const std::string& host = stateOf(in).hostPlatform;
  std::set<std::string> now = platformsOf(in);
  if (now.count(host))
    return host;
  return now.size() == 1 ? *now.begin() : std::string();
}

Value nDefaultBackend(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  std::string p = backendHere(in);
  return p.empty() ? in.unknown("jax.default_backend() (the platform is not known here)", site)
                   : in.str(p, site);
}

// One device of `platform`: what .platform and .device_kind read (a GPU's
// model is not known statically).
Value device(Interpreter& in, const std::string& platform, mlir::Operation* site) {
  auto* d = in.heap().make<InstanceObj>(in.externalClass("jax.Device"));
  d->attrs.set("platform", in.str(platform, site));
  d->attrs.set("device_kind",
               platform == "cpu" ? in.str("cpu", site) : in.unknown("the GPU's model", site));
  d->attrs.set("id", in.integer(0, site));
  return Value(d, site);
}

// jax.devices(backend=None) / jax.local_devices(...): the default platform's
// devices (how many GPUs is not known: a list of one stands for them); a
// named backend other than this machine's is unknown (JAX raises
// RuntimeError when it has no such backend).
Value nDevices(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  std::string p = backendHere(in);
  const Value* named = args.get(0, "backend");
  if (named && named->single() && named->single()->kind != Kind::None) {
    auto* s = llvm::dyn_cast<StrObj>(named->single());
    if (!s)
      return in.unknown("jax.devices() of a backend not known", site);
    std::string asked = platformOf(s->v);
    // The CPU backend is always there; a GPU one only where a GPU is. JAX
    // raises RuntimeError for a backend it does not have (the `try:
    // jax.devices("gpu") except RuntimeError:` probe for a GPU).
    if (asked == "cpu")
      return in.list({device(in, "cpu", site)}, site);
    if (asked == "gpu" && stateOf(in).hostPlatform == "cpu" && !p.empty() && p == "cpu") {
      auto* e = in.heap().make<InstanceObj>(in.externalClass("builtins.RuntimeError"));
      e->attrs.set("args", in.tuple({in.str("Unknown backend " + s->v, site)}, site));
      in.raise(Value(e, site));
      return in.unknown("jax.devices() of a backend this machine lacks", site);
    }
    if (asked != p)
      return in.unknown("jax.devices() of another backend", site);
  }
  if (p.empty())
    return in.unknown("jax.devices() (the platform is not known here)", site);
  return in.list({device(in, p, site)}, site);
}

// jax.device_count(): one CPU device (JAX's default); GPUs: not known.
Value nDeviceCount(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return backendHere(in) == "cpu" ? in.integer(1, site) : in.unknown("the number of devices", site);
}

// pl.lower_as_mlir(f, *args, platforms=[...]): JAX traces f with args for
// those platforms (a test lowering a kernel for a TPU runs nowhere else).
Value nLowerAsMlir(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.empty())
    return in.unknown("an MLIR module", site);
  CallArgs call;
  call.positional.assign(args.positional.begin() + 1, args.positional.end());
  PallasOverlay::State& st = stateOf(in);
  const Value* before = st.facts->attrs.find("platforms");
  Value saved = before ? *before : Value();
  bool narrowed = false;
  if (const Value* platforms = args.keyword("platforms")) {
    Interpreter::Elements e = in.elements(*platforms, site);
    std::vector<Value> items;
    for (const Value& v : e.items)
      if (auto* str = llvm::dyn_cast_or_null<StrObj>(v.single()))
        items.push_back(in.str(platformOf(str->v), site));
    if (e.exact && !items.empty() && items.size() == e.items.size()) {
      in.heap().willWrite(st.facts);
      st.facts->attrs.set("platforms", in.tuple(items, site));
      narrowed = true;
    }
  }
  in.call(args.positional[0], call, site);
  if (narrowed) {
    in.heap().willWrite(st.facts);
    if (saved.isBottom())
      st.facts->attrs.erase("platforms");
    else
      st.facts->attrs.set("platforms", saved);
  }
  return in.unknown("an MLIR module", site);
}

// The decorator @jtu.run_on_devices("tpu") / @jtu.skip_on_devices("gpu")
// made: it marks the test, whose launches then see those platforms only.
Value nDevicesMark(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                   const Object* self) {
  if (args.positional.empty())
    return in.none(site);
  auto* fn = llvm::dyn_cast_or_null<FunctionObj>(args.positional[0].single());
  auto* b = llvm::cast<BuiltinObj>(self);
  if (fn) {
    in.heap().willWrite(fn);
    fn->attrs.set(kDevicesAttr, b->bound);
  }
  return args.positional[0];
}

Value devicesDecorator(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                       const char* mode) {
  std::vector<Value> items{in.str(mode, site)};
  for (const Value& v : args.positional)
    items.push_back(v);
  BuiltinObj* mark = in.makeNative("jtu.devices_mark", nDevicesMark);
  mark->bound = in.tuple(items, site);
  return Value(mark, site);
}

Value nRunOnDevices(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  return devicesDecorator(in, args, site, "run");
}
Value nSkipOnDevices(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  return devicesDecorator(in, args, site, "skip");
}

// jax.export.export(f, platforms=[...])(*args): f traced for those platforms.
Value nExported(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object* self) {
  auto* b = llvm::cast<BuiltinObj>(self);
  const std::vector<Value>& held = llvm::cast<TupleObj>(b->bound.single())->elems;
  CallArgs call;
  call.positional.push_back(held[0]);
  call.positional.insert(call.positional.end(), args.positional.begin(), args.positional.end());
  if (!held[1].isBottom())
    call.keywords.push_back({"platforms", held[1]});
  nLowerAsMlir(in, call, site, nullptr);
  return in.unknown("an exported function", site);
}

Value nExport(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.empty())
    return in.unknown("an exporter", site);
  const Value* platforms = args.keyword("platforms");
  BuiltinObj* exporter = in.makeNative("jax.export.exporter", nExported);
  exporter->bound = in.tuple({args.positional[0], platforms ? *platforms : Value()}, site);
  return Value(exporter, site);
}

} // namespace

void installPlatformNatives(Interpreter& in, PallasOverlay::State&) {
  in.defineNative("pl.lower_as_mlir", nLowerAsMlir);
  in.defineNative("jax._src.test_util.run_on_devices", nRunOnDevices);
  in.defineNative("jax._src.test_util.skip_on_devices", nSkipOnDevices);
  in.defineNative("jax.export.export", nExport);
  in.defineNative("jax._src.test_util.test_device_matches", nTestDeviceMatches);
  for (const char* n : {"jax.default_backend", "jax.extend.backend.get_default_backend"})
    in.defineNative(n, nDefaultBackend);
  for (const char* n : {"jax.devices", "jax.local_devices"})
    in.defineNative(n, nDevices);
  for (const char* n : {"jax.device_count", "jax.local_device_count"})
    in.defineNative(n, nDeviceCount);
}

} // namespace pallas::analysis::passes
