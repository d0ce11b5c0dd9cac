// The CUDA device probe: loads the driver API (libcuda.so.1) at run time and
// reports the driver version and every device. The binary never links
// libcuda, so it runs on machines without a driver and says so plainly.
#pragma once

#include "pallas/gpu/Hardware.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pallas::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name; // "NVIDIA H100 80GB HBM3"
  ComputeCapability capability;
  std::uint64_t totalMemoryBytes = 0;
  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: the shared memory
  // JAX's Mosaic GPU lowering allows a kernel (PLS005); 0 when unknown.
  int sharedMemoryPerBlockOptin = 0;
  Generation generation() const { return classify(capability); }
  bool mosaicCapable() const { return supports(capability, Feature::MosaicGpu); }
};

enum class ProbeStatus {
  Ok,           // driver loaded and initialised, at least one device
  NoDriver,     // the library could not be loaded (no NVIDIA driver installed)
  BrokenDriver, // the library loaded but lacks driver API symbols
  InitFailed,   // cuInit failed for a reason other than "no device"
  NoDevice,     // the driver works but reports no CUDA device
};

const char* probeStatusName(ProbeStatus status); // "ok", "no-driver", ...

struct ProbeResult {
  ProbeStatus status = ProbeStatus::NoDriver;
  std::string library;   // what was passed to dlopen
  std::string detail;    // dlerror() text, missing symbol, CUDA error name
  int driverVersion = 0; // CUDA_VERSION style: 12040 = 12.4
  std::vector<DeviceInfo> devices;

  bool anyMosaicCapable() const;
  // True when at least one device supports the feature.
  bool anySupports(Feature feature) const;
  // "12.4" from driverVersion.
  std::string driverVersionString() const;
  // One or more plain-English lines: "no NVIDIA driver: libcuda.so.1 could
  // not be loaded (...)", "GPU 0: NVIDIA H100 ... (sm_90, Hopper, 79.6 GiB)".
  std::string summary() const;
};

struct ProbeOptions {
  // Library to dlopen. Empty: env PALLAS_LSP_LIBCUDA if set, else "libcuda.so.1".
  std::string library;
};

// Loads the driver and queries it. Never throws; every failure is a status.
// The CUDA driver is initialised in the calling process, so it stays loaded
// after a successful probe (unloading an initialised driver is unsafe); a
// failed load is unloaded again.
ProbeResult probeDevices(const ProbeOptions& options = {});

} // namespace pallas::gpu
