// The numbers the SMEM budget uses (SmemBudget.h SmemRules): JAX 0.10.2's,
// replaced field by field by the knowledge table's "mosaicGpuResources".
#include "PassKnowledge.h"
#include "SmemBudget.h"

namespace pallas::analysis::detail {

const SmemRules& smemRules() {
  static const SmemRules rules;
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
  return r;
}

} // namespace pallas::analysis::detail
