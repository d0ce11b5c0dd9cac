// What pallas-lsp knows about one JAX version: for each public Pallas / Mosaic
// GPU API the primitives it binds, and for each primitive whether each
// execution path can run it. The table is produced by extract_knowledge.py from
// an installed JAX (never written by hand); this class only loads it.
#pragma once

#include "pallas/knowledge/HardwareFacts.h"
#include "pallas/knowledge/JaxEnvironment.h"

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pallas::knowledge {

enum class DischargeStatus { None, Exists, Raises };
enum class GpuInterpretHandling { Unknown, Arm, ArmNoop, ArmRaises, Fallback };

struct PrimitiveFacts {
  std::string key;  // table key: the primitive name, "@module"-qualified on clashes
  std::string name; // the primitive's own name, as JAX prints it in errors
  std::string module;
  DischargeStatus discharge = DischargeStatus::None;
  bool partialDischarge = false; // registered as a partial rule (sees which refs are flagged)
  std::string dischargeException, dischargeMessage; // when Raises
  // When Exists: the primitives the rule binds itself (table keys), i.e. the
  // functional form the discharged equation becomes (wgmma_ref -> wgmma),
  // which is then lowered like any primitive on values.
  std::vector<std::string> dischargeBinds;
  // For a full rule: the operand positions it returns a new value for
  // (wgmma_ref: {0}, the accumulator); empty optional when not known.
  std::optional<std::vector<int>> dischargeWrites;
  GpuInterpretHandling gpuInterpret = GpuInterpretHandling::Unknown;
  std::string gpuInterpretMessage; // when ArmRaises
  // When Fallback: the fallback re-binds the primitive on its buffers'
  // values and its abstract-eval rule asserts a Ref operand, so the bind
  // raises a bare AssertionError (table `fallbackOutcome`
  // "abstract-eval-asserts-ref", JAX 0.10.2 `plgpu.load`).
  bool gpuInterpretFallbackAssertsRef = false;
  // When its arm's callback reads the Refs' transforms as indexing without
  // checking them: the attribute it reads of each ("indices"), which a
  // view's transform (a transpose, a reshape) lacks (AttributeError; table
  // `gpuInterpret.transformsReadAsIndexing`, JAX 0.10.2's wgmma_ref and
  // copy_smem_to_gmem). Empty otherwise.
  std::string gpuInterpretIndexingAttribute;
  bool cpuLowering = false;
  std::vector<std::string> mosaicGpuSemantics; // "LanexWarpgroup", ...
  bool mosaicGpuKnown = false; // the table lists mosaicGpuLowering (an empty list means no rule)
  std::vector<std::string> effects;
  std::optional<HardwareRequirement> hardware; // the GPU it needs (HardwareFacts.h); none: any
  // The primitive's class defines get_bind_params (custom_jvp_call turns its
  // jaxpr param back into a function), so GPU interpret mode's fallback
  // re-binds it without an open jaxpr in its params.
  bool getBindParamsOverridden = false;
};

// A public numeric function that binds a custom-derivative primitive when
// called ("customDerivativeApis": jax.nn.relu -> custom_jvp_call), read from
// JAX's source (pallas_jax_facts/custom_derivatives.py).
struct CustomDerivativeFacts {
  std::string binds;            // "custom_jvp_call"
  std::string wrapper;          // "jax.custom_jvp"
  std::vector<std::string> via; // from the public name to the decorated function
  bool conditional = false;     // bound only on some paths (a condition, a loop)
  std::string module;           // where the decorated function is defined
  int line = 0;
  // The decorated function's own one-expression body, when it is the public
  // one ("jnp.maximum(x, 0)" over params {"x"}): what to write instead.
  std::vector<std::string> inlineParams;
  std::string inlineExpr;
};

struct ApiFacts {
  std::string name;                         // "plgpu.inline_mgpu"
  std::string kind;                         // function | type | constant | primitive
  std::vector<std::string> binds;           // primitive keys bound directly
  std::vector<std::string> bindsTransitive; // through JAX helpers
  bool returnsBeforeBind = false; // may return before binding (pl.broadcast_to of a matching shape)
  // When that early return is `if <param shapeOf>.shape == <param equals>:`
  // (positional indices): -1 when unknown.
  int returnsUnlessShapeOf = -1, returnsUnlessShapeEquals = -1;
};

// What indexing a Ref of one allocation binds when its Ref type overrides
// indexing (`acc[...]` on a plgpu.ACC binds wgmma_accumulator_deref_p, not
// get). An empty optional: not overridden (plain get / swap).
struct RefIndexing {
  std::optional<std::vector<std::string>> getitem, setitem; // primitive keys
};

struct InterpretOption {
  std::string name, type, defaultValue; // defaultValue is JSON text
};

struct ErrorTemplate {
  std::string key, text, regex, exception, file;
  int line = 0;
  // When JAX raises it from the `case _:` arm of a `match`: the classes the
  // other arms take (state discharge applies NDIndexer, BitcastTransform and
  // ReshapeTransform to what it reads; any other transform raises).
  std::optional<std::vector<std::string>> handledCases;
};

// What may be done to get the knowledge of a workspace's JAX (the one trust
// rule, see docs/security-execution.md): the environment is always located and
// read from disk with pallas-lsp's own interpreter; the environment's
// interpreter is executed (the import-based extractor) only when `python` is
// set, i.e. the entry point allowed it (trusted workspace, an interpreter
// from the settings, `--python` or the config), and static reading failed.
struct KnowledgeRequest {
  EnvironmentQuery environment;
  std::string python; // may be executed; empty: nothing of the environment runs
  std::string cacheDir;
  std::chrono::seconds timeout{120};
};

class KnowledgeBase {
public:
  struct Loaded; // result of a load: a base or an error

  static Loaded fromFile(const std::string& path);
  static Loaded fromJson(const nlohmann::json& table, const std::string& source);
  // The table bundled with pallas-lsp (made from the pinned JAX).
  static Loaded bundled();
  // The table of the user's own JAX: runs the extractor with `pythonExe`
  // (bounded by `timeout`) unless `cacheDir`/knowledge-<jaxver>.json exists;
  // falls back to the bundled table, saying why, when that fails.
  static Loaded forPython(const std::string& pythonExe, const std::string& cacheDir,
                          std::chrono::seconds timeout = std::chrono::seconds(120));
  // The table of the environment's JAX, located by its layout: a bundled
  // table of that version, else a cached or fresh static read of its source
  // (extract_knowledge_static.py run by pinnedPython()), else, only when
  // `request.python` is set, the import-based extraction; else the default
  // bundled table. `Loaded::how` says which.
  static Loaded forEnvironment(const KnowledgeRequest& request);
  // The bundled table made for JAX `version`, "" when none ships.
  static std::string bundledPathFor(const std::string& version);
  // pallas-lsp's own interpreter, which runs the static extractor (never
  // the user's): $PALLAS_LSP_KNOWLEDGE_PYTHON, the build's pinned one, else
  // /usr/bin/python3.
  static std::string pinnedPython();
  static std::string staticExtractorPath();

  static std::string defaultCacheDir(); // ~/.cache/pallas-lsp
  static std::string bundledPath();
  static std::string extractorPath();

  const std::string& jaxVersion() const { return jaxVersion_; }
  const std::string& jaxlibVersion() const { return jaxlibVersion_; }
  int schemaVersion() const { return schemaVersion_; }
  // The Mosaic GPU lowering semantics a kernel gets when its CompilerParams
  // do not choose ("Lane" up to 0.10, "Warpgroup" from 0.11); "" when the
  // table does not say.
  const std::string& defaultLoweringSemantics() const { return defaultLowering_; }
  // Which backend compiles a pl.pallas_call that gives no compiler params on
  // a GPU (table "mosaicGpuDefaults.pallasCallWithoutParams"): a config flag
  // (`flag`, read from `env`, `flagDefault` when unset) chooses Mosaic GPU
  // or Triton (0.10), or it is always Triton (`flag` empty, 0.11). nullopt
  // when the table does not say.
  struct PallasCallGpuDefault {
    std::string flag, env;
    bool flagDefault = true;
  };
  const std::optional<PallasCallGpuDefault>& pallasCallWithoutParams() const {
    return pallasCallWithoutParams_;
  }
  // The integers Mosaic GPU's lowering sizes shared memory and threads with
  // (table "mosaicGpuResources": smemAlignment, mbarrierBytes,
  // defaultSmemLimit, maxConcurrentStepsDefault, reductionScratchBytesDefault,
  // maxMosaicThreads); nullopt when the table does not say.
  std::optional<long long> mosaicGpuResource(const std::string& name) const {
    auto it = resources_.find(name);
    return it == resources_.end() ? std::nullopt : std::optional<long long>(it->second);
  }
  const std::string& source() const { return source_; } // file it came from

  const ApiFacts* api(const std::string& name) const;
  const PrimitiveFacts* primitive(const std::string& key) const;
  // Whether Mosaic GPU has a lowering rule for `p` under any of the
  // (lowering, primitive) semantics pairs given ("Lane"/"Warpgroup",
  // "Warpgroup"/"Warp"); nullopt when the table does not say.
  static std::optional<bool> hasMosaicGpuRule(const PrimitiveFacts& p,
                                              const std::vector<std::string>& lowering,
                                              const std::vector<std::string>& primitive);
  // Direct then transitive primitives of an API (empty if unknown).
  std::vector<const PrimitiveFacts*> primitivesOf(const std::string& apiName) const;
  const ErrorTemplate* errorTemplate(const std::string& key) const;
  // For an allocation ("plgpu.ACC"); null when the table does not describe it.
  const RefIndexing* refIndexing(const std::string& allocation) const;
  // The primitives (table keys) a higher-order JAX API binds
  // ("higherOrderApis": jax.checkpoint -> remat2); empty when not listed.
  std::vector<std::string> higherOrderBinds(const std::string& api) const;
  // The public function's custom derivative (null: it binds none, or the
  // table does not say).
  const CustomDerivativeFacts* customDerivative(const std::string& api) const;
  // The scratch dtypes ("barrier", "cluster_barrier") GPU interpret mode
  // allocates itself for `launch` ("kernel": plgpu.kernel's scoped
  // allocations, "pallasCall": a pl.pallas_call's scratch) instead of filling
  // them with its uninitialised value ("gpuInterpretAllocates"); nullopt when
  // the table does not say.
  std::optional<std::vector<std::string>> gpuInterpretAllocates(const std::string& launch) const;
  // Whether Mosaic GPU's resource estimation has an estimator for the
  // primitive named `name` ("mosaicGpuResourceEstimators"); nullopt when the
  // table does not say.
  std::optional<bool> hasResourceEstimator(const std::string& name) const;
  // Fills the template's {holes} in order with `values`.
  std::optional<std::string> formatError(const std::string& key,
                                         const std::vector<std::string>& values) const;
  const std::vector<InterpretOption>& interpretGpuOptions() const { return interpretOptions_; }
  bool hasInterpretGpuOption(const std::string& name) const;
  // The Mosaic GPU shape, layout and copy rules (issue 17: PLS006-PLS008),
  // as the table holds them ("mosaicGpuRules", written by
  // extract_mosaic_rules.py); null when the table has none.
  const nlohmann::json* mosaicGpuRules() const { return mosaicGpuRules_.get(); }
  // How Mosaic GPU adds up shared memory ("mosaicGpuSmemModel", written by
  // pallas_jax_facts/smem_model.py: {fact: {"value", "module", "line"}});
  // null when the table has none.
  const nlohmann::json* mosaicGpuSmemModel() const { return smemModel_.get(); }
  const std::map<std::string, ApiFacts>& apis() const { return apis_; }
  const std::map<std::string, PrimitiveFacts>& primitives() const { return primitives_; }

private:
  static Loaded fromJsonChecked(const nlohmann::json& table, std::string source);

  // The parts of fromJsonChecked, each filling its own members.
  void readMosaicGpuFacts(const nlohmann::json& t);
  void readApisAndPrimitives(const nlohmann::json& t);
  void readOtherFacts(const nlohmann::json& t);
  std::string jaxVersion_, jaxlibVersion_, source_, defaultLowering_;
  std::optional<PallasCallGpuDefault> pallasCallWithoutParams_;
  std::map<std::string, long long> resources_;
  int schemaVersion_ = 0;
  std::map<std::string, ApiFacts> apis_;
  std::map<std::string, PrimitiveFacts> primitives_;
  std::map<std::string, ErrorTemplate> errors_;
  std::map<std::string, RefIndexing> refIndexing_;
  std::map<std::string, std::vector<std::string>> higherOrderApis_;
  std::optional<std::vector<std::string>> resourceEstimators_;
  std::map<std::string, CustomDerivativeFacts> customDerivatives_;
  std::map<std::string, std::vector<std::string>> gpuInterpretAllocates_;
  std::vector<InterpretOption> interpretOptions_;
  std::shared_ptr<const nlohmann::json> mosaicGpuRules_;
  std::shared_ptr<const nlohmann::json> smemModel_;
};

struct KnowledgeBase::Loaded {
  std::optional<KnowledgeBase> base;
  std::string error;          // why loading failed (base empty)
  std::string fallbackReason; // forPython: why the bundled table is used
  // How the knowledge was obtained, for doctor and the log: "bundled",
  // "bundled table for JAX 0.11.2", "static read of <site-packages>",
  // "cache <file> (static read of <site-packages>)", "import-based (<python>)".
  std::string how;
  std::vector<std::string> notes; // what went wrong on the way (a bad cache discarded, ...)
  explicit operator bool() const { return base.has_value(); }
  static Loaded failure(std::string why) {
    Loaded l;
    l.error = std::move(why);
    return l;
  }
};

// The schema this loader understands; tables with another major version are refused.
inline constexpr int kSchemaVersion = 1;

} // namespace pallas::knowledge
