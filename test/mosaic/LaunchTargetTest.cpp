// Which launches the Mosaic GPU resource and lowering checks (PLS005-PLS008)
// size as Mosaic GPU kernels: only those the code says are (plgpu.kernel,
// compiler_params=plgpu.CompilerParams(), plgpu specs or scratch, or a file
// that imports plgpu and no other backend). The TPU near misses come from
// the way JAX's own TPU tests and docs write kernels: a plain pl.pallas_call
// whose specs live in pltpu.VMEM, a pltpu.PrefetchScalarGridSpec, a file of
// TPU kernels, a file that imports both backends. Each would overflow a
// GPU's shared memory or break a TMA rule if it were a Mosaic GPU kernel.
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pallas::analysis;

namespace {

class LaunchTarget : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pallas-target-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The PLS005-PLS008 codes `source` gets, in order.
  std::vector<std::string> codes(const std::string& source) {
    Project project;
    std::string path = (dir_ / "k.py").string();
    project.setDocument(path, source);
    std::vector<std::string> out;
    for (const Finding& f : project.findings(path))
      if (f.code >= "PLS005" && f.code <= "PLS008")
        out.push_back(f.code);
    return out;
  }
  // The backend the lowering records on the launch ("" when none).
  std::string backend(const std::string& source) {
    Project project;
    std::string path = (dir_ / "k.py").string();
    project.setDocument(path, source);
    std::string mlir = project.mlirText(path);
    size_t at = mlir.find("backend = \"");
    if (at == std::string::npos)
      return "";
    at += 11;
    return mlir.substr(at, mlir.find('"', at) - at);
  }

  fs::path dir_;
};

// A 256 x 256 float32 block in and out: 512 KiB, over any GPU's shared
// memory when pallas_call copies it in whole.
const char* kBigKernel = R"(
def add_one(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0

def main():
  x = jnp.ones((256, 256), jnp.float32)
  return {LAUNCH}(x)
)";

std::string file(const std::string& imports, const std::string& launch) {
  std::string s =
      "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n" + imports +
      kBigKernel;
  s.replace(s.find("{LAUNCH}"), 8, launch);
  return s;
}

const char* kGpu = "from jax.experimental.pallas import mosaic_gpu as plgpu\n";
const char* kTpu = "from jax.experimental.pallas import tpu as pltpu\n";
const char* kPlain = "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), "
                     "jnp.float32))";

TEST_F(LaunchTarget, APlainPallasCallInAFileOfMosaicGpuKernelsIsSized) {
  EXPECT_EQ(codes(file(kGpu, kPlain)), std::vector<std::string>{"PLS005"});
}

TEST_F(LaunchTarget, APlainPallasCallInAFileOfTpuKernelsIsNot) {
  EXPECT_TRUE(codes(file(kTpu, kPlain)).empty());
}

TEST_F(LaunchTarget, APlainPallasCallInAFileThatImportsNoBackendIsNot) {
  EXPECT_TRUE(codes(file("", kPlain)).empty());
}

TEST_F(LaunchTarget, TheFileRecordsTheBackendsItImports) {
  Project project;
  std::string path = (dir_ / "k.py").string();
  project.setDocument(path, file(std::string(kGpu) + kTpu, kPlain));
  EXPECT_NE(
      project.mlirText(path).find("pallas.imported_backends = [\"mosaic_gpu\", \"mosaic_tpu\"]"),
      std::string::npos)
      << project.mlirText(path).substr(0, 300);
}

TEST_F(LaunchTarget, AFileOfBothBackendsDecidesNothing) {
  EXPECT_TRUE(codes(file(std::string(kGpu) + kTpu, kPlain)).empty());
}

TEST_F(LaunchTarget, MosaicGpuCompilerParamsDecideInAFileOfBothBackends) {
  std::string launch = "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), "
                       "jnp.float32), compiler_params=plgpu.CompilerParams())";
  EXPECT_EQ(codes(file(std::string(kGpu) + kTpu, launch)), std::vector<std::string>{"PLS005"});
}

TEST_F(LaunchTarget, TpuMemorySpacesInTheSpecsMakeItATpuKernel) {
  // tests/pallas/tpu_pallas_pipeline_test.py's way, in a file that also
  // imports plgpu: the specs say VMEM.
  std::string launch = "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), "
                       "jnp.float32), in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)], "
                       "out_specs=pl.BlockSpec(memory_space=pltpu.VMEM))";
  EXPECT_TRUE(codes(file(std::string(kGpu) + kTpu, launch)).empty());
  EXPECT_EQ(backend(file(std::string(kGpu) + kTpu, launch)), "mosaic_tpu");
}

TEST_F(LaunchTarget, ATpuSpecBuiltOnItsOwnLineCounts) {
  std::string source = file(std::string(kGpu) + kTpu, "f");
  source += R"(
def f(x):
  spec = pl.BlockSpec(memory_space=pltpu.VMEM)
  return pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32),
                        in_specs=[spec], out_specs=spec)(x)
)";
  EXPECT_TRUE(codes(source).empty());
  EXPECT_EQ(backend(source), "mosaic_tpu");
}

TEST_F(LaunchTarget, ATpuGridSpecMakesItATpuKernel) {
  std::string launch =
      "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32), "
      "grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=0, grid=(1,), "
      "in_specs=[pl.BlockSpec((256, 256), lambda i: (0, 0))], "
      "out_specs=pl.BlockSpec((256, 256), lambda i: (0, 0))))";
  EXPECT_TRUE(codes(file(std::string(kGpu) + kTpu, launch)).empty());
  EXPECT_EQ(backend(file(std::string(kGpu) + kTpu, launch)), "mosaic_tpu");
}

TEST_F(LaunchTarget, MosaicGpuSpecsMakeItAMosaicGpuKernel) {
  std::string launch = "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), "
                       "jnp.float32), in_specs=[plgpu.BlockSpec((256, 256), lambda: (0, 0))], "
                       "out_specs=plgpu.BlockSpec((256, 256), lambda: (0, 0)))";
  EXPECT_EQ(codes(file(std::string(kGpu) + kTpu, launch)), std::vector<std::string>{"PLS005"});
  EXPECT_EQ(backend(file(std::string(kGpu) + kTpu, launch)), "mosaic_gpu");
}

TEST_F(LaunchTarget, CompilerParamsOutrankTheSpecs) {
  // Specs that mention plgpu, but the compiler params are TPU's.
  std::string launch =
      "pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32), "
      "in_specs=[plgpu.BlockSpec((256, 256), lambda: (0, 0))], "
      "compiler_params=pltpu.CompilerParams())";
  EXPECT_TRUE(codes(file(std::string(kGpu) + kTpu, launch)).empty());
  EXPECT_EQ(backend(file(std::string(kGpu) + kTpu, launch)), "mosaic_tpu");
}

} // namespace
