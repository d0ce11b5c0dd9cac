// The numbers the SMEM budget uses (SmemBudget.h SmemRules): JAX 0.10.2's,
// replaced field by field by the knowledge table's "mosaicGpuResources".
#include "PassKnowledge.h"
#include "SmemBudget.h"

#include <nlohmann/json.hpp>

namespace pallas::analysis::detail {

const SmemRules& smemRules() {
  // Never destroyed: an analysis thread may still read it while the process
  // exits (the exit handlers ran its destructor under a running analysis in
  // the protocol fuzzer, AddressSanitizer: heap-use-after-free).
  static const SmemRules& rules = *new SmemRules();
  return rules;
}

SmemRules smemRulesFor(const ProjectOptions& options) {
  SmemRules r = smemRules();
  auto kb = passes::knowledgeFor(options);
  if (!kb)
    return r;
  r.jaxVersion = kb->jaxVersion();
  auto take = [&](const char* name, int64_t& field) {
    if (auto v = kb->mosaicGpuResource(name); v && *v > 0)
      field = *v;
  };
  take("smemAlignment", r.alignment);
  take("mbarrierBytes", r.barrierBytes);
  take("defaultSmemLimit", r.defaultLimit);
  take("maxConcurrentStepsDefault", r.defaultMaxConcurrentSteps);
  take("reductionScratchBytesDefault", r.defaultReductionScratch);
  take("maxMosaicThreads", r.maxThreads);
  take("tmemAddressBytes", r.tmemAddressBytes);
  take("tmemRows", r.tmemRows);
  take("tmemMaxCols", r.tmemMaxCols);
  take("tmemColAlignment", r.tmemColAlignment);
  take("tmemMinAllocCols", r.tmemMinAllocCols);
  take("maxConcurrentStepsWarpSpecializedDefault", r.wsMaxConcurrentStepsDefault);
  if (const nlohmann::json* model = kb->mosaicGpuSmemModel()) {
    auto fact = [&](const char* name) -> const nlohmann::json* {
      auto it = model->find(name);
      return it != model->end() && it->is_object() && it->contains("value") ? &(*it)["value"]
                                                                            : nullptr;
    };
    // The arithmetic SmemBudget implements, fact by fact as JAX 0.10.2 and
    // 0.11.2 write it; another value is another allocator.
    const std::pair<const char*, nlohmann::json> expected[] = {
        {"allocationAligned", true}, {"siblingsCombine", "max"},
        {"scopeAddsBody", true},     {"barriersAfterScratch", true},
        {"limitCheck", ">"},         {"pipelineSlots", "max_concurrent_steps"},
        {"refUnionCombine", "max"},  {"pipelineStepsClamped", true},
    };
    for (const auto& [name, want] : expected)
      if (const nlohmann::json* got = fact(name); !got || *got != want) {
        r.modelMismatch = std::string(name) + (got ? " is " + got->dump() : " not found");
        break;
      }
    if (const nlohmann::json* caps = fact("defaultLimitCapabilities"); caps && caps->is_array()) {
      r.defaultLimitCapabilities.clear();
      for (const auto& c : *caps)
        if (c.is_string())
          r.defaultLimitCapabilities.push_back(c.get<std::string>());
    }
    if (auto it = model->find("limitCheck"); it != model->end() && it->is_object())
      r.limitCitation = it->value("module", "") + ":" + std::to_string(it->value("line", 0));
  }
  return r;
}

std::optional<int64_t> smemLimitFor(const SmemRules& rules, const std::string& capability,
                                    const ProjectOptions& options) {
  auto major = [](const std::string& c) { return c.substr(0, c.find('.')); };
  if (options.gpuSharedMemoryPerBlockOptin > 0 && !options.gpuComputeCapability.empty() &&
      major(options.gpuComputeCapability) == major(capability))
    return options.gpuSharedMemoryPerBlockOptin;
  for (const std::string& c : rules.defaultLimitCapabilities) {
    bool any = c.size() > 2 && c.substr(c.size() - 2) == ".x";
    if (c == capability || (any && major(c) == major(capability)))
      return rules.defaultLimit;
  }
  return std::nullopt;
}

} // namespace pallas::analysis::detail
