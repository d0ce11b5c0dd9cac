// The probe on its real loading path: dlopen + dlsym. This machine has no
// driver, so the default library must fail plainly; the failure paths are
// exercised with real libraries (a missing path, libm), and the success
// paths with a fake driver library built next to the test.
#include "pallas/gpu/DeviceProbe.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace pallas::gpu;

namespace {

// Sets or unsets an environment variable for one test.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (value)
      setenv(name.c_str(), value, 1);
    else
      unsetenv(name.c_str());
  }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

} // namespace

TEST(DeviceProbe, MissingLibraryIsNoDriver) {
  ProbeResult result = probeDevices({"/nonexistent/libcuda.so.1"});
  EXPECT_EQ(result.status, ProbeStatus::NoDriver);
  EXPECT_NE(result.detail.find("/nonexistent/libcuda.so.1"), std::string::npos) << result.detail;
  EXPECT_NE(result.summary().find("no NVIDIA driver"), std::string::npos) << result.summary();
  EXPECT_TRUE(result.devices.empty());
}

TEST(DeviceProbe, EnvironmentVariablePicksTheLibrary) {
  ScopedEnv env("PALLAS_LSP_LIBCUDA", "/nonexistent/from-env.so");
  ProbeResult result = probeDevices();
  EXPECT_EQ(result.library, "/nonexistent/from-env.so");
  EXPECT_EQ(result.status, ProbeStatus::NoDriver);
}

TEST(DeviceProbe, LibraryWithoutDriverSymbolsIsBroken) {
  ProbeResult result = probeDevices({"libm.so.6"});
  EXPECT_EQ(result.status, ProbeStatus::BrokenDriver);
  EXPECT_NE(result.detail.find("cuInit"), std::string::npos) << result.detail;
  EXPECT_NE(result.detail.find("cuDeviceTotalMem_v2"), std::string::npos) << result.detail;
  EXPECT_NE(result.summary().find("lacks"), std::string::npos);
}

TEST(DeviceProbe, DefaultLibraryOnThisMachine) {
  // No GPU in CI: the real libcuda.so.1 lookup must end in a clear status,
  // never a crash. Where a driver exists this checks the success path.
  ScopedEnv env("PALLAS_LSP_LIBCUDA", nullptr);
  ProbeResult result = probeDevices();
  EXPECT_EQ(result.library, "libcuda.so.1");
  EXPECT_FALSE(result.summary().empty());
  if (result.status == ProbeStatus::Ok)
    EXPECT_FALSE(result.devices.empty());
  else
    EXPECT_TRUE(result.devices.empty());
}

TEST(DeviceProbe, FakeDriverReportsDevicesAndClasses) {
  ScopedEnv devices("FAKE_CUDA_DEVICES", "NVIDIA H100 80GB HBM3@9.0@80;Tesla V100@7.0@16");
  ProbeResult result = probeDevices({PALLAS_TEST_FAKE_LIBCUDA});
  ASSERT_EQ(result.status, ProbeStatus::Ok) << result.summary();
  EXPECT_EQ(result.driverVersionString(), "12.8");
  ASSERT_EQ(result.devices.size(), 2u);
  EXPECT_EQ(result.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(result.devices[0].capability, (ComputeCapability{9, 0}));
  EXPECT_EQ(result.devices[0].totalMemoryBytes, 80ull << 30);
  EXPECT_TRUE(result.devices[0].mosaicCapable());
  EXPECT_FALSE(result.devices[1].mosaicCapable());
  EXPECT_TRUE(result.anyMosaicCapable());
  EXPECT_TRUE(result.anySupports(Feature::Tma));
  EXPECT_EQ(result.devices[0].generation(), Generation::Hopper);
  const std::string summary = result.summary();
  EXPECT_NE(summary.find("sm_90, Hopper"), std::string::npos) << summary;
  EXPECT_NE(summary.find("too old for Mosaic GPU"), std::string::npos) << summary;
}

TEST(DeviceProbe, OnlyOldGpusSaySoPlainly) {
  ScopedEnv devices("FAKE_CUDA_DEVICES", "NVIDIA A100@8.0@40");
  ProbeResult result = probeDevices({PALLAS_TEST_FAKE_LIBCUDA});
  ASSERT_EQ(result.status, ProbeStatus::Ok);
  EXPECT_FALSE(result.anyMosaicCapable());
  EXPECT_NE(result.summary().find("no GPU here can run Mosaic GPU kernels"), std::string::npos)
      << result.summary();
}

TEST(DeviceProbe, BlackwellIsClassified) {
  ScopedEnv devices("FAKE_CUDA_DEVICES", "NVIDIA B200@10.0@180");
  ProbeResult result = probeDevices({PALLAS_TEST_FAKE_LIBCUDA});
  ASSERT_EQ(result.status, ProbeStatus::Ok);
  ASSERT_EQ(result.devices.size(), 1u);
  EXPECT_EQ(result.devices[0].generation(), Generation::Blackwell);
  EXPECT_TRUE(result.anyMosaicCapable());
}

TEST(DeviceProbe, DriverWithoutDevices) {
  ScopedEnv devices("FAKE_CUDA_DEVICES", nullptr);
  ProbeResult result = probeDevices({PALLAS_TEST_FAKE_LIBCUDA});
  EXPECT_EQ(result.status, ProbeStatus::NoDevice);
  EXPECT_EQ(result.detail, "CUDA_ERROR_NO_DEVICE");
  EXPECT_NE(result.summary().find("reports no GPU"), std::string::npos) << result.summary();
}

TEST(DeviceProbe, InitFailure) {
  ScopedEnv devices("FAKE_CUDA_DEVICES", "NVIDIA H100@9.0@80");
  ScopedEnv error("FAKE_CUDA_INIT_ERROR", "999");
  ProbeResult result = probeDevices({PALLAS_TEST_FAKE_LIBCUDA});
  EXPECT_EQ(result.status, ProbeStatus::InitFailed);
  EXPECT_EQ(result.detail, "CUDA_ERROR_UNKNOWN");
  EXPECT_EQ(result.driverVersion, 12080); // read before cuInit
}
