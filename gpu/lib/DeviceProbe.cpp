#include "pallas/gpu/DeviceProbe.h"

#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <dlfcn.h>

namespace pallas::gpu {
namespace {

// The driver API entry points the probe needs, resolved with dlsym. The
// function types come from cuda.h so a signature mismatch is a compile error.
struct DriverApi {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetName) deviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) deviceTotalMem = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr; // optional
};

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr) {
    if (!missing.empty())
      missing += ", ";
    missing += symbol;
  }
  return out != nullptr;
}

std::string errorName(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.getErrorName != nullptr && api.getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

std::string defaultLibrary() {
  if (const char* env = std::getenv("PALLAS_LSP_LIBCUDA"); env != nullptr && *env != '\0')
    return env;
  return "libcuda.so.1";
}

std::string gib(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buffer;
}

} // namespace

const char* probeStatusName(ProbeStatus status) {
  switch (status) {
  case ProbeStatus::Ok:
    return "ok";
  case ProbeStatus::NoDriver:
    return "no-driver";
  case ProbeStatus::BrokenDriver:
    return "broken-driver";
  case ProbeStatus::InitFailed:
    return "init-failed";
  case ProbeStatus::NoDevice:
    return "no-device";
  }
  return "?";
}

bool ProbeResult::anyMosaicCapable() const {
  return anySupports(Feature::MosaicGpu);
}

bool ProbeResult::anySupports(Feature feature) const {
  for (const DeviceInfo& device : devices)
    if (supports(device.capability, feature))
      return true;
  return false;
}

std::string ProbeResult::driverVersionString() const {
  if (driverVersion <= 0)
    return "";
  return std::to_string(driverVersion / 1000) + "." + std::to_string(driverVersion % 1000 / 10);
}

std::string ProbeResult::summary() const {
  switch (status) {
  case ProbeStatus::NoDriver:
    return "no NVIDIA driver: " + library + " could not be loaded (" + detail + ")";
  case ProbeStatus::BrokenDriver:
    return "not a usable CUDA driver: " + library + " lacks " + detail;
  case ProbeStatus::InitFailed:
    return "the CUDA driver failed to initialise: cuInit returned " + detail;
  case ProbeStatus::NoDevice:
    return "the CUDA driver " + driverVersionString() + " reports no GPU (" + detail + ")";
  case ProbeStatus::Ok:
    break;
  }
  std::string text =
      "CUDA driver " + driverVersionString() + ", " + std::to_string(devices.size()) + " GPU(s)";
  for (const DeviceInfo& device : devices) {
    text += "\n  GPU " + std::to_string(device.ordinal) + ": " + device.name + " (" +
            device.capability.smName() + ", " + generationName(device.generation()) + ", " +
            gib(device.totalMemoryBytes) + ")";
    if (!device.mosaicCapable())
      text += ": too old for Mosaic GPU, which needs compute capability " +
              kMosaicGpuMinimum.str() + " or newer";
  }
  if (!anyMosaicCapable())
    text += "\nno GPU here can run Mosaic GPU kernels (compute capability " +
            kMosaicGpuMinimum.str() + " or newer needed)";
  return text;
}

ProbeResult probeDevices(const ProbeOptions& options) {
  ProbeResult result;
  result.library = options.library.empty() ? defaultLibrary() : options.library;

  // RTLD_LOCAL: the driver's symbols must not leak into the global namespace
  // where the JSON or MLIR libraries could bind to them.
  void* handle = dlopen(result.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    result.status = ProbeStatus::NoDriver;
    result.detail = error ? error : "dlopen failed";
    return result;
  }

  DriverApi api;
  std::string missing;
  resolve(handle, "cuInit", api.init, missing);
  resolve(handle, "cuDriverGetVersion", api.driverGetVersion, missing);
  resolve(handle, "cuDeviceGetCount", api.deviceGetCount, missing);
  resolve(handle, "cuDeviceGet", api.deviceGet, missing);
  resolve(handle, "cuDeviceGetName", api.deviceGetName, missing);
  resolve(handle, "cuDeviceGetAttribute", api.deviceGetAttribute, missing);
  resolve(handle, "cuDeviceTotalMem_v2", api.deviceTotalMem, missing);
  if (!missing.empty()) {
    result.status = ProbeStatus::BrokenDriver;
    result.detail = missing;
    dlclose(handle);
    return result;
  }
  std::string ignored;
  resolve(handle, "cuGetErrorName", api.getErrorName, ignored);

  // cuDriverGetVersion works before cuInit; report it even when init fails.
  int version = 0;
  if (api.driverGetVersion(&version) == CUDA_SUCCESS)
    result.driverVersion = version;

  if (CUresult status = api.init(0); status != CUDA_SUCCESS) {
    result.status =
        status == CUDA_ERROR_NO_DEVICE ? ProbeStatus::NoDevice : ProbeStatus::InitFailed;
    result.detail = errorName(api, status);
    return result; // cuInit ran: leave the library loaded
  }

  int count = 0;
  if (CUresult status = api.deviceGetCount(&count); status != CUDA_SUCCESS) {
    result.status = ProbeStatus::InitFailed;
    result.detail = errorName(api, status);
    return result;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    if (api.deviceGet(&device, ordinal) != CUDA_SUCCESS)
      continue;
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    if (api.deviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS)
      info.name = name;
    api.deviceGetAttribute(&info.capability.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           device);
    api.deviceGetAttribute(&info.capability.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           device);
    if (api.deviceGetAttribute(&info.sharedMemoryPerBlockOptin,
                               CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                               device) != CUDA_SUCCESS)
      info.sharedMemoryPerBlockOptin = 0;
    size_t bytes = 0;
    if (api.deviceTotalMem(&bytes, device) == CUDA_SUCCESS)
      info.totalMemoryBytes = bytes;
    result.devices.push_back(std::move(info));
  }
  if (result.devices.empty()) {
    result.status = ProbeStatus::NoDevice;
    result.detail = "cuDeviceGetCount returned " + std::to_string(count);
    return result;
  }
  result.status = ProbeStatus::Ok;
  return result;
}

} // namespace pallas::gpu
