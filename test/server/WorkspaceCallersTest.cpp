// The language server's index of callers in the workspace (WorkspaceCallers):
// who imports a file and may choose its launches' paths, built from the disk
// and kept current one file at a time.
#include "WorkspaceCallers.h"

#include "../check/TempDir.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace pallas::server {
namespace {

using check::testing::TempDir;

TEST(WorkspaceCallers, FindsTheFilesThatImportAFileAndPassInterpret) {
  TempDir dir;
  auto ops = dir.write("lib/ops.py", "def add(x, interpret=False): ...\n");
  auto debug = dir.write("app/debug.py", "from lib.ops import add\nadd(1, interpret=True)\n");
  dir.write("app/quiet.py", "from lib.ops import add\nadd(1)\n"); // chooses nothing
  dir.write("app/other.py", "from lib.other import add\nadd(1, interpret=True)\n");
  dir.write(".venv/lib/x.py",
            "from lib.ops import add\nadd(1, interpret=True)\n"); // not the user's
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{false};
  EXPECT_EQ(index.build(stop), 2u); // debug.py, other.py
  EXPECT_TRUE(index.built());
  EXPECT_EQ(index.callersOf(ops.string()), std::vector<std::string>{debug.generic_string()});
}

TEST(WorkspaceCallers, AProgramThatOnlyCallsTheLaunchIsACallerWhenItIsJaxCode) {
  // It may have set the GPU interpret mode through another import.
  TempDir dir;
  auto ops = dir.write("ops.py", "def add(x): ...\n");
  auto main = dir.write("main.py", "import jax.numpy as jnp\nimport hooks\nfrom ops import add\n"
                                   "add(jnp.ones(4))\n");
  dir.write("plain.py", "from ops import add\nadd(1)\n"); // no JAX: not a caller
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{false};
  index.build(stop);
  EXPECT_EQ(index.callersOf(ops.string()), std::vector<std::string>{main.generic_string()});
}

TEST(WorkspaceCallers, AFileCallsWhatItsPackagesInitReexports) {
  // `from . import add` in the package, `from .ops import add` in its
  // __init__: the caller runs ops.py's launches.
  TempDir dir;
  auto ops = dir.write("lib/ops.py", "def add(x, interpret=False): ...\n");
  dir.write("lib/__init__.py", "from .ops import add\n");
  auto debug = dir.write("lib/debug.py", "from . import add\nadd(1, interpret=True)\n");
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{false};
  index.build(stop);
  EXPECT_EQ(index.callersOf(ops.string()), std::vector<std::string>{debug.generic_string()});
}

TEST(WorkspaceCallers, AnUpdateMovesAFileBetweenTheModulesItCalls) {
  TempDir dir;
  auto ops = dir.write("ops.py", "def add(x, interpret=False): ...\n");
  auto other = dir.write("other.py", "def add(x, interpret=False): ...\n");
  auto run = dir.write("run.py", "from ops import add\nadd(1, interpret=True)\n");
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{false};
  index.build(stop);
  ASSERT_EQ(index.callersOf(ops.string()).size(), 1u);
  // Now it imports `other`: both are touched (each may have to be analysed again).
  std::vector<std::string> touched =
      index.update(run.string(), "from other import add\nadd(1, interpret=True)\n");
  EXPECT_NE(std::find(touched.begin(), touched.end(), ops.generic_string()), touched.end());
  EXPECT_NE(std::find(touched.begin(), touched.end(), other.generic_string()), touched.end());
  EXPECT_TRUE(index.callersOf(ops.string()).empty());
  EXPECT_EQ(index.callersOf(other.string()).size(), 1u);
  // Deleted: a caller of nothing.
  index.update(run.string(), std::nullopt);
  EXPECT_TRUE(index.callersOf(other.string()).empty());
}

TEST(WorkspaceCallers, AKernelPassedCountsAsAChoiceToo) {
  TempDir dir;
  auto ops = dir.write("ops.py", "def launch(x, body): ...\n");
  dir.write("run.py", "from jax.experimental import pallas as pl\nfrom ops import launch\n"
                      "def k(x_ref, o_ref): ...\nlaunch(1, k)\n");
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{false};
  index.build(stop);
  EXPECT_EQ(index.callersOf(ops.string()).size(), 1u);
}

TEST(WorkspaceCallers, AStoppedBuildKeepsNothing) {
  TempDir dir;
  auto ops = dir.write("ops.py", "def add(x, interpret=False): ...\n");
  dir.write("run.py", "from ops import add\nadd(1, interpret=True)\n");
  WorkspaceCallers index({dir.path().string()});
  std::atomic<bool> stop{true};
  EXPECT_EQ(index.build(stop), 0u);
  EXPECT_FALSE(index.built());
  EXPECT_TRUE(index.callersOf(ops.string()).empty());
}

} // namespace
} // namespace pallas::server
