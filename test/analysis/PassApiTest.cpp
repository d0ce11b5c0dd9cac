// The internal API the discharge passes build on (detail/Passes.h): the
// Workspace view, cross-file resolution, the call graph, Ref provenance and
// kernel parameter roles, run by a test pass in Project::findings' pipeline.
#include "AnalysisTestUtil.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include <functional>
#include <gtest/gtest.h>

using namespace pallas::analysis;
using namespace pallas::analysis::test;
namespace pd = pallas::dialect;

namespace {

// The findings pipeline is process-wide: the test pass runs the current
// test's check only while one is installed.
std::function<void(detail::PassContext&)>* gCheck = nullptr;

// A pass of the product's pipeline (an mlir::Pass like the real ones, run by
// Project::findings' PassManager) that hands the check its PassContext.
struct CapturePass : mlir::PassWrapper<CapturePass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CapturePass)
  llvm::StringRef getArgument() const override { return "test-capture"; }
  detail::ProductRun* run = nullptr;
  void runOnOperation() override {
    if (gCheck && run)
      (*gCheck)(run->ctx);
  }
};

void installTestPass() {
  static bool once = [] {
    detail::findingsPasses().push_back({"test-capture", [](detail::ProductRun* run) {
                                          auto pass = std::make_unique<CapturePass>();
                                          pass->run = run;
                                          return std::unique_ptr<mlir::Pass>(std::move(pass));
                                        }});
    return true;
  }();
  (void)once;
}

template <typename Op> std::vector<Op> opsOf(mlir::Operation* root) {
  std::vector<Op> out;
  root->walk([&](Op op) { out.push_back(op); });
  return out;
}

TEST(PassApi, ProvenanceParamsAndCallGraph) {
  installTestPass();
  TempDir dir;
  std::string helper =
      dir.write("helpers.py", "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                              "def copy_in(src, dst, bar):\n"
                              "  plgpu.copy_gmem_to_smem(src.at[0], dst, bar)\n");
  std::string mainPath = dir.write("main.py", R"py(
import functools
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from helpers import copy_in

def kernel(x_gmem, o_gmem, x_smem, acc):
  copy_in(x_gmem, x_smem, acc)
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def raw(ctx, r):
    pass
  raw(x_smem.at[1:])
  @functools.partial(pl.run_scoped, a=plgpu.ACC((64, 64), jnp.float32))
  def _(a):
    plgpu.wgmma(a, x_smem, x_smem)

def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True,
                        scratch_shapes=[plgpu.SMEM((8,), jnp.float32), plgpu.ACC((8, 8), jnp.float32)])(x)
)py");
  ProjectOptions options;
  options.workspaceRoots.push_back(dir.path());
  Project project(options);
  project.setDocument(mainPath, readFile(mainPath));

  bool ran = false;
  std::function<void(detail::PassContext&)> check = [&](detail::PassContext& ctx) {
    if (ctx.path != mainPath)
      return;
    ran = true;
    // Launch -> body and the roles of its parameters.
    auto launches = opsOf<pd::LaunchOp>(ctx.module);
    ASSERT_EQ(launches.size(), 1u);
    detail::FunctionRef body = ctx.workspace.resolveLaunchBody(mainPath, launches[0]);
    ASSERT_TRUE(body);
    EXPECT_EQ(body.func.getSymName(), "kernel");
    EXPECT_EQ(detail::kernelParamOrigin(launches[0], 0, 4), "kernel_param");
    EXPECT_EQ(detail::kernelParamOrigin(launches[0], 1, 4), "kernel_param");
    EXPECT_EQ(detail::kernelParamOrigin(launches[0], 2, 4), "scratch");
    EXPECT_EQ(detail::kernelParamOrigin(launches[0], 3, 4), "acc");

    // Cross-file call: resolves into helpers.py, and the helper's prim traces
    // its ref (through .at[0]) to the helper's parameter 0.
    auto calls = opsOf<pd::CallOp>(body.func);
    ASSERT_EQ(calls.size(), 1u);
    detail::FunctionRef callee = ctx.workspace.resolveCall(mainPath, calls[0]);
    ASSERT_TRUE(callee);
    EXPECT_EQ(callee.path, helper);
    auto prims = opsOf<pd::PrimOp>(callee.func);
    pd::PrimOp copy;
    for (auto p : prims)
      if (p.getApi() == "plgpu.copy_gmem_to_smem")
        copy = p;
    ASSERT_TRUE(copy);
    detail::RefSource src = detail::traceRef(copy.getArgs()[0]);
    EXPECT_EQ(src.kind, detail::RefSource::Kind::FuncArg);
    EXPECT_EQ(src.index, 0u);
    // Through the interface the six call-like ops share.
    auto operands = llvm::cast<pd::CallOperandsOpInterface>(copy.getOperation());
    EXPECT_EQ(operands.getOrigin(0), pd::Origin::Arg);
    EXPECT_EQ(operands.getArgIndex(0), 0);
    detail::LineCol lc = detail::lineCol(copy->getLoc());
    EXPECT_EQ(lc.file, helper);
    EXPECT_EQ(lc.line, 3u);
    EXPECT_EQ(lc.column, 3u);
    SourceLocation sl = detail::sourceLocation(copy->getLoc());
    EXPECT_EQ(sl.range.start.line, 2u);

    // Call graph.
    auto callers = ctx.workspace.callersOf(helper, "copy_in");
    ASSERT_EQ(callers.size(), 1u);
    EXPECT_EQ(callers[0].caller.func.getSymName(), "kernel");
    auto kernelCallers = ctx.workspace.callersOf(mainPath, "kernel");
    ASSERT_EQ(kernelCallers.size(), 1u);
    EXPECT_TRUE(llvm::isa<pd::LaunchOp>(kernelCallers[0].site));

    // inline_mgpu inside a closure: operand = the wrapper's parameter 0,
    // and the wrapper is called with a view of the kernel's x_smem.
    auto inl = opsOf<pd::InlineMgpuOp>(body.func);
    ASSERT_EQ(inl.size(), 1u);
    detail::RefSource w = detail::traceRef(inl[0].getArgs()[0]);
    EXPECT_EQ(w.kind, detail::RefSource::Kind::ClosureArg);
    auto indirect = opsOf<pd::CallIndirectOp>(body.func);
    ASSERT_FALSE(indirect.empty());
    detail::RefSource viaCall = detail::traceRef(indirect[0].getArgs()[0]);
    EXPECT_EQ(viaCall.kind, detail::RefSource::Kind::FuncArg);
    EXPECT_EQ(viaCall.index, 2u);

    // The accumulator of run_scoped.
    pd::PrimOp wgmma;
    for (auto p : opsOf<pd::PrimOp>(body.func))
      if (p.getApi() == "plgpu.wgmma")
        wgmma = p;
    ASSERT_TRUE(wgmma);
    detail::RefSource acc = detail::traceRef(wgmma.getArgs()[0]);
    EXPECT_EQ(acc.kind, detail::RefSource::Kind::ScopeArg);
    EXPECT_EQ(acc.scopeOrigin, "acc");
    EXPECT_EQ(ctx.workspace.documents().size(), 2u);
  };
  gCheck = &check;
  project.findings(mainPath);
  gCheck = nullptr;
  EXPECT_TRUE(ran);
}

} // namespace
