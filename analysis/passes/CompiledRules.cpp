// Rules of the compiled (Mosaic GPU) path that are not a primitive's
// lowering rule: before lowering a kernel, Mosaic GPU estimates its
// resources equation by equation (`_estimate_resources` in
// jax/_src/pallas/mosaic_gpu/lowering.py) and raises "Resource estimation
// does not support <primitive>" for an equation whose params hold a jaxpr
// and whose primitive has no registered estimator. JAX 0.10.2 registers one
// for cond, scan, while, jit, run_scoped, run_state, core_map ... but not
// for remat2 (`jax.checkpoint`), custom_jvp_call (`jax.custom_jvp`, and
// every function of JAX built on one: jax.nn.relu, jax.nn.softplus through
// jnp.logaddexp, ...) or custom_vjp_call (docs/analysis.md 5). Which API
// binds which primitive ("higherOrderApis", "customDerivativeApis"), which
// primitives have an estimator ("mosaicGpuResourceEstimators") and the
// message ("resourceEstimationUnsupported") all come from the knowledge table.
#include "CompiledRules.h"

#include "KernelWalkInternal.h"

namespace pallas::analysis::passes {

namespace {

// "jax.nn.softplus calls jnp.logaddexp, which calls
// jax._src.lax.other.logaddexp, a jax.custom_jvp function".
std::string customDerivativeChain(const knowledge::CustomDerivativeFacts& c,
                                  const std::string& api) {
  std::string out = api;
  std::vector<std::string> via(c.via.begin() + (c.via.empty() ? 0 : 1), c.via.end());
  for (size_t k = 0; k < via.size(); ++k)
    out += (k ? ", which calls " : " calls ") + via[k];
  return out + (via.empty() ? " is" : ",") + " a " + c.wrapper + " function";
}

} // namespace

std::optional<CustomDerivativeUse> customDerivativeUse(const knowledge::KnowledgeBase& kb,
                                                       const std::string& api) {
  const knowledge::CustomDerivativeFacts* c = kb.customDerivative(api);
  if (!c || c->conditional || !kb.errorTemplate("resourceEstimationUnsupported"))
    return std::nullopt;
  const knowledge::PrimitiveFacts* p = kb.primitive(c->binds);
  std::optional<bool> has = p ? kb.hasResourceEstimator(p->name) : std::nullopt;
  if (!p || !has || *has)
    return std::nullopt;
  CustomDerivativeUse use{p, {customDerivativeChain(*c, api)}};
  if (!c->inlineExpr.empty()) {
    std::string params;
    for (const std::string& n : c->inlineParams)
      params += (params.empty() ? "" : ", ") + n;
    use.messageHoles.push_back("`" + c->inlineExpr + "` (what " + api + " computes; " + params +
                               ": its argument" + (c->inlineParams.size() > 1 ? "s" : "") + ")");
  }
  return use;
}

void KernelWalk::recordResourceEstimation(mlir::Operation* site, const std::string& api) {
  if (path_ != ExecPath::Compiled || api.empty() ||
      !kb_.errorTemplate("resourceEstimationUnsupported"))
    return;
  for (const std::string& key : kb_.higherOrderBinds(api)) {
    const knowledge::PrimitiveFacts* p = kb_.primitive(key);
    // Only a primitive that holds the wrapped function's body (its params
    // hold a jaxpr): the estimation is neutral to the others.
    if (!p || !isStructuralPrimitive(p->name))
      continue;
    std::optional<bool> has = kb_.hasResourceEstimator(p->name);
    if (!has || *has)
      continue;
    BoundPrimitive b;
    b.api = api;
    b.prim = p;
    b.site = site;
    b.refs = {Kind::NotRef, Phase::Lowering, "a traced function"};
    b.interpretRule = "resource_estimation";
    b.detail = p->name;
    record(std::move(b));
    return;
  }
}

// `jax.nn.relu(x)` in a compiled kernel: the table says the public function
// binds a custom-derivative primitive (unconditionally), which resource
// estimation rejects. The message names the chain of calls and, when JAX's
// own body of the function is one expression, that expression as the fix.
bool KernelWalk::recordCustomDerivative(dialect::PrimOp prim) {
  const std::string api = prim.getApi().str();
  std::optional<CustomDerivativeUse> use =
      path_ == ExecPath::Compiled ? customDerivativeUse(kb_, api) : std::nullopt;
  if (!use)
    return false;
  BoundPrimitive b =
      ruleBindingOf(api, use->prim, prim, {Kind::NotRef, Phase::Lowering, "a traced function"},
                    "resource_estimation", use->prim->name);
  b.messageHoles = std::move(use->messageHoles);
  record(std::move(b));
  return true;
}

} // namespace pallas::analysis::passes
