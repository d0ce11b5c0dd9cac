// The GPU probe as JSON: one shape, snake_case like the rest of the doctor
// report, for `pallas-lsp doctor --json` and the `pallas.doctor` command
// ({"format": "json"}). docs/editors.md ("Commands") lists its keys.
#pragma once

#include "pallas/gpu/DeviceProbe.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <nlohmann/json.hpp>

namespace pallas::server::environment {

// {status, library, detail, driver_version, summary, mosaic_gpu_capable,
//  devices: [{ordinal, name, compute_capability, sm, generation, memory_bytes,
//             mosaic_gpu, wgmma, tcgen05}]}. wgmma / tcgen05 say whether the
// knowledge table `kb` allows them on that device; null without a table or
// when the table does not say.
nlohmann::json probeJson(const gpu::ProbeResult& probe, const knowledge::KnowledgeBase* kb);

} // namespace pallas::server::environment
