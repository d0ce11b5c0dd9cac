// JAX's configuration as the Pallas overlay reads it: which backend
// `pl.pallas_call` compiles with on a GPU. JAX 0.11.2 lowers a pallas_call
// without compiler params with Triton, always. JAX 0.10.2 lowers one
// without compiler params with Mosaic GPU when `jax_pallas_use_mosaic_gpu`
// is true (its default, from the JAX_PALLAS_USE_MOSAIC_GPU environment
// variable), else with Triton (`pallas_call.py`, the GPU lowering rule;
// `config.py`). A program or test changes it with
// `jax.config.update("jax_pallas_use_mosaic_gpu", False)` or the state's
// context manager, `config.jax_pallas_use_mosaic_gpu(False)` (what JAX's
// own Pallas tests enter in setUp). A launch compiled with Triton is not
// Mosaic GPU's to judge on its compiled path.
#include "PallasOverlayState.h"

#include <cstdlib>

namespace pallas::analysis::passes {

using namespace eval;

namespace {

constexpr const char* kFlag = "jax_pallas_use_mosaic_gpu";

PallasOverlay::State& stateOf(Interpreter& in) {
  return in.overlay<PallasOverlay>()->state();
}

void setFlag(Interpreter& in, const Value& v) {
  PallasOverlay::State& s = stateOf(in);
  if (const auto& known = s.kb.pallasCallWithoutParams(); known && known->flag.empty())
    return; // a JAX without the flag: nothing to set
  in.heap().willWrite(s.config);
  s.config->attrs.set(kFlag, v);
}

// JAX's bool_env: the variable's value when it spells a boolean, else the
// default (JAX raises on other text; the analysis keeps the default).
bool boolEnv(const char* name, bool dflt) {
  const char* v = std::getenv(name);
  if (!v)
    return dflt;
  std::string t(v);
  for (char& c : t)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "y" || t == "yes" || t == "t" || t == "true" || t == "on" || t == "1")
    return true;
  if (t == "n" || t == "no" || t == "f" || t == "false" || t == "off" || t == "0")
    return false;
  return dflt;
}

// jax.config.update(name, value).
Value nConfigUpdate(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  const Value* name = args.get(0, "name");
  const Value* value = args.get(1, "val");
  auto* n = name ? llvm::dyn_cast_or_null<StrObj>(name->single()) : nullptr;
  if (n && n->v == kFlag && value)
    setFlag(in, *value);
  return in.none(site);
}

// config.jax_pallas_use_mosaic_gpu(value): a context manager that sets it.
Value nFlagContext(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  auto* cm = in.heap().make<InstanceObj>(in.externalClass("pallas-lsp.ConfigContext"));
  const Value* v = args.get(0, "new_val");
  cm->attrs.set("value", v ? *v : in.unknown("a configuration value", site));
  return Value(cm, site);
}

Value nContextEnter(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  auto* cm = args.positional.empty()
                 ? nullptr
                 : llvm::dyn_cast_or_null<InstanceObj>(args.positional[0].single());
  if (!cm)
    return in.none(site);
  in.heap().willWrite(cm);
  cm->attrs.set("saved", mosaicGpuFlag(in));
  if (const Value* v = cm->attrs.find("value"))
    setFlag(in, *v);
  return in.none(site);
}

Value nContextExit(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  auto* cm = args.positional.empty()
                 ? nullptr
                 : llvm::dyn_cast_or_null<InstanceObj>(args.positional[0].single());
  if (cm)
    if (const Value* saved = cm->attrs.find("saved"))
      setFlag(in, *saved);
  return in.boolean(false, site);
}

} // namespace

Value mosaicGpuFlag(Interpreter& in) {
  const Value* v = stateOf(in).config->attrs.find(kFlag);
  return v ? *v : in.boolean(true);
}

void installConfigNatives(Interpreter& in, PallasOverlay::State& s) {
  // The installed JAX says how a pallas_call without compiler params picks
  // its GPU backend (knowledge "pallasCallWithoutParams"): by the flag, or
  // always Triton (0.11, which has no flag); a table that does not say is
  // read as 0.10 behaves.
  bool mosaic = boolEnv("JAX_PALLAS_USE_MOSAIC_GPU", true);
  if (const auto& d = s.kb.pallasCallWithoutParams())
    mosaic = !d->flag.empty() &&
             (d->env.empty() ? d->flagDefault : boolEnv(d->env.c_str(), d->flagDefault));
  s.config->attrs.set(kFlag, in.boolean(mosaic));
  in.defineNative("jax.config.update", nConfigUpdate);
  in.defineNative("jax._src.config.config.update", nConfigUpdate);
  for (const char* n :
       {"jax._src.config.jax_pallas_use_mosaic_gpu", "jax.config.jax_pallas_use_mosaic_gpu"})
    in.defineNative(n, nFlagContext);
  ClassObj* cls = in.externalClass("pallas-lsp.ConfigContext");
  cls->ns.set("__enter__",
              Value(in.makeNative("pallas-lsp.ConfigContext.__enter__", nContextEnter)));
  cls->ns.set("__exit__", Value(in.makeNative("pallas-lsp.ConfigContext.__exit__", nContextExit)));
}

} // namespace pallas::analysis::passes
