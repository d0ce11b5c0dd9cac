#include "ProbeReport.h"

namespace pallas::server::environment {
namespace {

using nlohmann::json;

// Whether the table says a GPU of `cc` has what `primitive` needs (wgmma:
// Hopper; tcgen05_mma: datacenter Blackwell); null when the table does not say.
json tableAllows(const knowledge::KnowledgeBase* kb, const char* primitive,
                 gpu::ComputeCapability cc) {
  const knowledge::PrimitiveFacts* p = kb ? kb->primitive(primitive) : nullptr;
  if (!p)
    return nullptr;
  return !p->hardware || p->hardware->allows({cc.major, cc.minor});
}

} // namespace

json probeJson(const gpu::ProbeResult& probe, const knowledge::KnowledgeBase* kb) {
  json devices = json::array();
  for (const gpu::DeviceInfo& d : probe.devices)
    devices.push_back({{"ordinal", d.ordinal},
                       {"name", d.name},
                       {"compute_capability", d.capability.str()},
                       {"sm", d.capability.smName()},
                       {"generation", gpu::generationName(d.generation())},
                       {"memory_bytes", d.totalMemoryBytes},
                       {"mosaic_gpu", d.mosaicCapable()},
                       {"wgmma", tableAllows(kb, "wgmma", d.capability)},
                       {"tcgen05", tableAllows(kb, "tcgen05_mma", d.capability)}});
  return {{"status", gpu::probeStatusName(probe.status)},
          {"library", probe.library},
          {"detail", probe.detail},
          {"driver_version", probe.driverVersionString()},
          {"devices", devices},
          {"mosaic_gpu_capable", probe.anyMosaicCapable()},
          {"summary", probe.summary()}};
}

} // namespace pallas::server::environment
