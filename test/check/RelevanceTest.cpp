// Which files `check` analyses (server/cli/check/Relevance.h), and that skipping
// the rest and splitting the run over workers loses no finding: runCheck on
// real files, with the real analysis.
#include "check/Relevance.h"

#include "FolderCheck.h"
#include "TempDir.h"
#include "check/Checker.h"
#include "check/PythonCode.h"
#include "pallas/analysis/ImportScan.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace pallas::check {
namespace {

using testing::checkFolder;
using testing::TempDir;

std::vector<std::string> names(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view n : analysis::importedNames(text))
    out.emplace_back(n);
  return out;
}

// launchingFiles and interpretCallers over a run of `files` under /r.
std::vector<bool> launchingIn(const std::vector<std::filesystem::path>& files,
                              const std::vector<std::string_view>& texts) {
  RunImports run(files, texts, "/r");
  return launchingFiles(run);
}

std::vector<std::vector<size_t>> callersIn(const std::vector<std::filesystem::path>& files,
                                           const std::vector<std::string_view>& texts,
                                           const std::vector<bool>& launching) {
  RunImports run(files, texts, "/r");
  return interpretCallers(run, launching);
}

TEST(Relevance, ImportedNamesKeepModulesAndNamesButNotAliases) {
  EXPECT_EQ(names("import os.path as p, sys\n"), (std::vector<std::string>{"os", "path", "sys"}));
  EXPECT_EQ(names("  from .pkg.mod import (a as b, c)  # comment import zzz\n"),
            (std::vector<std::string>{"pkg", "mod", "a", "c"}));
  EXPECT_EQ(names("x = 1  # import nothing\nprint('from x import y')\n"),
            std::vector<std::string>{});
}

TEST(Relevance, FilesThatSpellJaxAndWhatImportsThemTransitively) {
  std::vector<std::filesystem::path> files{"/r/lib/reexport.py", "/r/app/uses.py",
                                           "/r/app/deeper.py", "/r/plain.py",
                                           "/r/other/pkg/__init__.py"};
  std::vector<std::string> texts{
      "from jax.experimental import pallas as pl\n",      // spells jax
      "from lib.reexport import pl\n",                    // imports it
      "import uses\n",                                    // imports what imports it
      "import os\nfrom collections import OrderedDict\n", // plain Python
      "from .x import y\n",
  };
  std::vector<std::string_view> views(texts.begin(), texts.end());
  EXPECT_EQ(relevantFiles(files, views, "/r"), (std::vector<bool>{true, true, true, false, false}));
  // Nothing spells jax: nothing to analyse.
  std::vector<std::string_view> none{"import os\n", "import plain\n"};
  EXPECT_EQ(relevantFiles({"/r/a.py", "/r/plain.py"}, none, "/r"),
            (std::vector<bool>{false, false}));
}

TEST(Relevance, APackageImportedByItsFolderName) {
  // `from kernels import (\n  tma,\n)`: the names on later lines are not
  // read, but the package's folder name matches.
  std::vector<std::filesystem::path> files{"/r/kernels/tma.py", "/r/main.py"};
  std::vector<std::string_view> texts{"import jax\n", "from kernels import (\n    tma,\n)\n"};
  EXPECT_EQ(relevantFiles(files, texts, "/r"), (std::vector<bool>{true, true}));
}

constexpr const char* kReexport = R"(from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
)";

// No "j-a-x" anywhere in this file: its names come through mylib.
constexpr const char* kKernel = R"(from mylib import pl, plgpu


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),), return_type=None)
  def touch(ctx, ref):
    del ctx, ref

  touch(x_ref)


def run(x):
  return pl.pallas_call(kernel, out_shape=x, interpret=True)(x)
)";

std::vector<std::string> findingsAt(const CheckResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.report.findings)
    out.push_back(std::filesystem::path(f.location.path).filename().string() + ":" +
                  std::to_string(f.location.range.start.line + 1) + ":" + f.code);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Relevance, LaunchingFilesSpellALaunchOrImportAFileThatDoes) {
  std::vector<std::filesystem::path> files{"/r/a.py",     "/r/b.py",        "/r/c.py",
                                           "/r/d.py",     "/r/wrappers.py", "/r/user.py",
                                           "/r/other.py", "/r/e.py"};
  std::vector<std::string_view> texts{
      "y = pl.pallas_call(k, out_shape=s)(x)\n",                   // pallas_call
      "plgpu.kernel(body, out_shape=s)(x)\n",                      // .kernel
      "from jax.experimental.pallas.mosaic_gpu import kernel\n",   // kernel on an import line
      "def kernel(x_ref, o_ref):\n  o_ref[...] = x_ref[...]\n",    // a bare kernel: not a launch
      "run = functools.partial(pl.pallas_call, interpret=True)\n", // a wrapper
      "from jax.experimental import pallas as pl\nfrom wrappers import run\n", // imports it, names
                                                                               // pallas
      "import jax\nfrom wrappers import run\n",    // imports it, never names pallas
      "mesh = plgpu.Mesh()\npl.core_map(mesh)\n"}; // core_map
  EXPECT_EQ(launchingIn(files, texts),
            (std::vector<bool>{true, true, true, false, true, true, false, true}));
}

TEST(Relevance, FilesThatLaunchOnlyForAnotherBackendAreNotAnalysed) {
  const std::string_view tpu = "from jax.experimental.pallas import tpu as pltpu\n";
  const std::string_view launch = "pl.pallas_call(k)(x)\n";
  std::vector<std::filesystem::path> files{"/r/tpu.py",   "/r/tpu_note.py", "/r/triton.py",
                                           "/r/mixed.py", "/r/gpu_help.py", "/r/tpu_uses.py"};
  std::vector<std::string> texts{
      // a TPU kernel file: nothing of GPUs anywhere
      std::string(tpu) + "pl.pallas_call(k, compiler_params=pltpu.CompilerParams())(x)\n",
      // the same, but a comment says it also runs on GPU: analysed
      std::string(tpu) + "# also on GPU\n" + std::string(launch),
      // Triton only
      "from jax.experimental.pallas import triton as plt\n" + std::string(launch),
      // imports Mosaic GPU as well
      std::string(tpu) + "from jax.experimental.pallas import mosaic_gpu as plgpu\n" +
          std::string(launch),
      // a helper module of the run that uses Mosaic GPU
      "from jax.experimental.pallas import mosaic_gpu as plgpu\ndef fence(r): ...\n",
      // names TPU only, but its kernel may call the imported GPU helper
      std::string(tpu) + "from gpu_help import fence\n" + std::string(launch)};
  std::vector<std::string_view> views(texts.begin(), texts.end());
  EXPECT_EQ(launchingIn(files, views), (std::vector<bool>{false, true, false, true, false, true}));
}

TEST(Relevance, OtherIdentifiersThatContainALaunchNameDoNotLaunch) {
  // JAX's own Pallas sources: pallas_call_p, core_map_lowering_rule,
  // interpret_pallas_call are other names; importing JAX's modules (resolved
  // by name, never to a file of the run) is no import step either.
  std::vector<std::filesystem::path> files{"/r/pallas_call.py", "/r/core.py", "/r/rules.py",
                                           "/r/user.py", "/r/alias.py"};
  std::vector<std::string_view> texts{
      "pallas_call_p = Primitive('pallas_call_')\n",                // no identifier pallas_call
      "def core_map_lowering_rule(ctx):\n  return ctx\n",           // nor core_map
      "from jax._src.pallas import pallas_call\nx = 1  # pallas\n", // spelled: launching
      "from jax._src.pallas import core\nimport jax._src.pallas.core as core\n", // jax.*: by name
      "from jax.experimental.pallas import pallas_call as pc\n", // spelled on the import
      "def pallas_call(kernel, **kw):\n  return kernel\n",       // defines it: no use
      "def  core_map(mesh):\n  pass\nundef core_map\n",          // `undef` is no def
      "def pallas_call(k):\n  return pl.pallas_call(k)\n"};      // and uses it
  files.insert(files.end(), {"/r/defs.py", "/r/undef.py", "/r/both.py"});
  EXPECT_EQ(launchingIn(files, texts),
            (std::vector<bool>{false, false, true, false, true, false, true, true}));
}

TEST(Relevance, ALaunchSpelledOnlyInACommentOrAStringDoesNotLaunch) {
  // JAX's own sources name pallas_call in error messages (f-strings too),
  // docstrings and comments; code that launches is still found, in an
  // f-string's braces and through getattr with a constant name too.
  std::vector<std::filesystem::path> files{"/r/a.py", "/r/b.py", "/r/c.py", "/r/d.py",
                                           "/r/e.py", "/r/f.py", "/r/g.py"};
  std::vector<std::string_view> texts{
      "# calls pl.pallas_call\nx = 1\n",
      "def f():\n  '''Like pallas_call, nested.'''\n  raise ValueError(f\"bad pallas_call {x}\")\n",
      "msg = 'see plgpu.kernel' + r\"core_map\\\"\" + b'pallas_call '\n",
      "y = f\"{pl.pallas_call(k, out_shape=s)(x)}\"\n",
      "call = getattr(pl, \"pallas_call\")\n",
      "s = 'it''s'  # \"\nplgpu.kernel(body)(x)\n",
      "doc = '''unterminated\npl.pallas_call(k)(x)\n"};
  EXPECT_EQ(launchingIn(files, texts),
            (std::vector<bool>{false, false, false, true, true, true, true}));
}

TEST(Relevance, CodeOnlyBlanksCommentsAndStringTextKeepingOffsets) {
  std::string src = "a = 'x#y'  # note\nb = f\"v={a!r:>{w}} {{lit}}\" \"\"\"doc\n\"\"\" rb'\\''\n";
  std::string code = codeOnly(src);
  ASSERT_EQ(code.size(), src.size());
  EXPECT_EQ(code, "a = '   '        \nb = f\"  {a!r:>{w}}        \" \"\"\"   \n\"\"\" rb'  '\n");
}

TEST(Relevance, CodeOnlyTellsAPrefixFromTheEndOfAKeyword) {
  // `if"{a}"` is valid Python: the keyword `if` and a plain string, whose
  // braces are text (no f prefix: the f belongs to `if`).
  EXPECT_EQ(codeOnly("y = 1 if\"{a}\" else 2\n"), "y = 1 if\"   \" else 2\n");
  // A real f prefix after a space keeps its braces as code.
  EXPECT_EQ(codeOnly("y = 1 if f\"{a}\" else 2\n"), "y = 1 if f\"{a}\" else 2\n");
}

TEST(Relevance, WorkspaceImportsResolveToTheFilesTheyName) {
  auto paths = [](std::string_view text) {
    return analysis::workspaceImportedPaths("/r/pkg/sub/mod.py", text, {"/r"});
  };
  EXPECT_EQ(paths("from jax.experimental import pallas as pl\nfrom functools import partial\n"
                  "import jax.numpy as jnp\n"),
            std::vector<std::string>{});
  // Absolute: under the importing file's folder, then under the run's root.
  EXPECT_EQ(paths("import jax.numpy as jnp, wrappers as w\n"),
            (std::vector<std::string>{"/r/pkg/sub/wrappers.py", "/r/pkg/sub/wrappers/__init__.py",
                                      "/r/wrappers.py", "/r/wrappers/__init__.py"}));
  EXPECT_EQ(
      paths("from lib.ops import run\n"),
      (std::vector<std::string>{"/r/pkg/sub/lib/ops.py", "/r/pkg/sub/lib/ops/__init__.py",
                                "/r/lib/ops.py", "/r/lib/ops/__init__.py",
                                "/r/pkg/sub/lib/ops/run.py", "/r/pkg/sub/lib/ops/run/__init__.py",
                                "/r/lib/ops/run.py", "/r/lib/ops/run/__init__.py"}));
  // Relative: against the importing file's folder only.
  EXPECT_EQ(paths("from .core import x as y\n"),
            (std::vector<std::string>{"/r/pkg/sub/core.py", "/r/pkg/sub/core/__init__.py",
                                      "/r/pkg/sub/core/x.py", "/r/pkg/sub/core/x/__init__.py"}));
  EXPECT_EQ(paths("from .. import helpers  # a sibling package's module\n"),
            (std::vector<std::string>{"/r/pkg/__init__.py", "/r/pkg/helpers.py",
                                      "/r/pkg/helpers/__init__.py"}));
}

TEST(Relevance, ASiblingNamedLikeALauncherElsewhereIsNoImportStep) {
  // JAX's jax/experimental/mosaic/gpu/__init__.py names mosaic and imports
  // `.core` and `.utils`, and its core.py `import torch`; JAX's Pallas has a
  // launching core.py and torch.py in other folders. Only the very files an
  // import names count.
  std::vector<std::filesystem::path> files{"/r/mosaic/gpu/__init__.py", "/r/mosaic/gpu/core.py",
                                           "/r/pallas/core.py",         "/r/app/user.py",
                                           "/r/app/launch.py",          "/r/pallas/torch.py"};
  std::vector<std::string_view> texts{
      "# mosaic gpu\nfrom .core import as_gpu_kernel\nfrom . import core\n",
      "# mosaic\nimport torch\ndef as_gpu_kernel():\n  pass\n",
      "def run(k):\n  return pl.pallas_call(k, out_shape=s)\n",
      "# pallas\nfrom .launch import go\n", // a relative import of a launching file
      "go = functools.partial(pl.pallas_call, interpret=True)\n",
      "def to_torch(k):\n  return pl.pallas_call(k, out_shape=s)\n"};
  EXPECT_EQ(launchingIn(files, texts), (std::vector<bool>{false, false, true, true, true, true}));
}

TEST(Relevance, AWrapperLaunchedFromAnotherFileIsStillFound) {
  // The file that calls the launch wrapper spells no launch; the wrapper's
  // file does, so the finding is found and reported once.
  TempDir dir;
  dir.write("wrappers.py", R"(import functools

from jax.experimental import pallas as pl

launch = functools.partial(pl.pallas_call, interpret=True)
)");
  dir.write("app/kern.py", R"(import jax
from jax.experimental.pallas import mosaic_gpu as plgpu
from wrappers import launch


def kernel(x_ref, o_ref):
  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
  def region(ctx, r):
    del ctx, r

  region(o_ref)
  o_ref[...] = x_ref[...]


def run(x):
  return launch(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
)");
  dir.write("plain/notes.py", "import jax\n\ndef kernel_count():\n  return 0\n");
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  CheckResult r = runCheck(options);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.report.files, 3u); // skipped files still count as checked
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"kern.py:11:PLS001"}));
}

TEST(Relevance, InterpretCallersAreFilesThatSpellInterpretAndImportALaunchingFile) {
  std::vector<std::filesystem::path> files{"/r/lib/ops.py", "/r/tests/test_ops.py",
                                           "/r/tests/bench.py", "/r/lib/__init__.py"};
  std::vector<std::string> texts{
      "from jax.experimental import pallas as pl\ndef add(x, interpret=False):\n"
      "  return pl.pallas_call(k, interpret=interpret)(x)\n",
      "from lib.ops import add\nadd(x, interpret=True)\n", // passes interpret=
      "from lib.ops import add\nadd(x)\n",                 // does not
      "from .ops import add\n",
  };
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<bool> launching = launchingIn(files, views);
  ASSERT_EQ(launching, (std::vector<bool>{true, false, false, false}));
  std::vector<std::vector<size_t>> callers = callersIn(files, views, launching);
  EXPECT_EQ(callers[0], std::vector<size_t>{1});
  EXPECT_TRUE(callers[1].empty() && callers[2].empty() && callers[3].empty());
  // A caller that launches kernels of its own is one too (check may analyse
  // it in another group and let go of it first).
  texts[1] += "pl.pallas_call(other, interpret=True)\n";
  views.assign(texts.begin(), texts.end());
  launching = launchingIn(files, views);
  EXPECT_EQ(callersIn(files, views, launching)[0], std::vector<size_t>{1});
}

TEST(Relevance, ACallerThroughAPackageInitCallsWhatTheInitReexports) {
  // `from . import add` names the package; its __init__ imports the
  // launching module, so the caller runs that module's launches.
  std::vector<std::filesystem::path> files{"/r/lib/ops.py", "/r/lib/__init__.py", "/r/lib/debug.py",
                                           "/r/lib/notes.py"};
  std::vector<std::string_view> texts{
      "from jax.experimental import pallas as pl\ndef add(x, interpret=False):\n"
      "  return pl.pallas_call(k, interpret=interpret)(x)\n",
      "from .ops import add\n",
      "import jax.numpy as jnp\nfrom . import add\nadd(jnp.ones(4), interpret=True)\n",
      "from . import add\nadd(1)\n", // no JAX: chooses nothing
  };
  std::vector<bool> launching = launchingIn(files, texts);
  ASSERT_EQ(launching, (std::vector<bool>{true, false, false, false}));
  std::vector<std::vector<size_t>> callers = callersIn(files, texts, launching);
  EXPECT_EQ(callers[0], std::vector<size_t>{2});
  EXPECT_TRUE(callers[1].empty() && callers[2].empty() && callers[3].empty());
}

TEST(Relevance, AKernelBuiltFromAPackageCallersConfigurationIsJudgedWithIt) {
  // The package's main builds the kernel with its own accumulator dtype and
  // runs it: bfloat16 operands accumulate only in float32 (JAX 0.10.2:
  // "WGMMA with element type bf16 only supports accumulators of type f32").
  // The launch is built in matmul.py and run, unapplied there, by main.py,
  // which imports it through the package's __init__.
  auto findings = [](const char* acc) {
    TempDir dir;
    dir.write("mm/__init__.py", "from .matmul import make\n");
    dir.write("mm/matmul.py", R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

M, N, K = 64, 128, 64


def make(acc_dtype):
  def kernel(a_smem, b_smem, o_ref):
    def scope(acc_ref):
      plgpu.wgmma(acc_ref, a_smem, b_smem)
      o_ref[...] = acc_ref[...].astype(o_ref.dtype)

    pl.run_scoped(scope, plgpu.ACC((M, N), acc_dtype))

  transforms = (plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128))
  return pl.pallas_call(
      kernel,
      in_specs=[plgpu.BlockSpec((M, K), lambda: (0, 0), transforms=transforms),
                plgpu.BlockSpec((K, N), lambda: (0, 0), transforms=transforms)],
      out_specs=plgpu.BlockSpec((M, N), lambda: (0, 0)),
      out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
  )
)");
    std::string main = R"(import jax
import jax.numpy as jnp

from . import make


def main():
  matmul = make(jnp.ACC)
  a = jax.ShapeDtypeStruct((64, 64), jnp.bfloat16)
  b = jax.ShapeDtypeStruct((64, 128), jnp.bfloat16)
  return jax.jit(matmul).trace(a, b).lower(lowering_platforms=("cuda",))


if __name__ == "__main__":
  main()
)";
    main.replace(main.find("ACC"), 3, acc);
    dir.write("mm/main.py", main);
    CheckResult r = checkFolder(dir);
    EXPECT_TRUE(r.errors.empty());
    return findingsAt(r);
  };
  EXPECT_EQ(findings("float16"), (std::vector<std::string>{"matmul.py:12:PLS006"}));
  EXPECT_TRUE(findings("float32").empty());
}

TEST(Relevance, ACallerThatLaunchesNothingStillChoosesThePath) {
  // The launch's interpret= is a parameter (default False); the only caller
  // that passes True is a file that spells no launch, which check does not
  // analyse: it must still be in the workspace when the launching file is.
  TempDir dir;
  dir.write("lib/ops.py", R"(import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


def add(x, interpret=False):
  return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)
)");
  dir.write("app/debug.py", R"(import jax.numpy as jnp
from lib.ops import add


def run():
  return add(jnp.ones((128,), jnp.float32), interpret=True)
)");
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  CheckResult r = runCheck(options);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"ops.py:13:PLS001"}));
  // The same caller passing False: compiled, where inline_mgpu lowers.
  dir.write("app/debug.py", R"(import jax.numpy as jnp
from lib.ops import add


def run():
  return add(jnp.ones((128,), jnp.float32), interpret=False)
)");
  EXPECT_TRUE(findingsAt(runCheck(options)).empty());
}

TEST(Relevance, AProgramReachesKernelsThroughAModuleThatLaunchesNothing) {
  // main.py -> launch.py -> kernels.py: `python -m pkg.main` runs the
  // kernels with main's arguments, though main imports only launch.py
  // (which spells no JAX, and chooses nothing itself). The nearest callers
  // come first; those past the import depth are none.
  std::vector<std::filesystem::path> files{"/r/pkg/kernels.py", "/r/pkg/launch.py",
                                           "/r/pkg/main.py",    "/r/far/a.py",
                                           "/r/far/b.py",       "/r/far/c.py"};
  std::vector<std::string_view> texts{
      "from jax.experimental import pallas as pl\ndef build(cfg):\n"
      "  return pl.pallas_call(k, out_shape=o)\n",
      "from . import kernels\ndef project(x):\n  return kernels.build(1)(x)\n",
      "import jax\nfrom . import launch\nlaunch.project(jax.numpy.ones(4))\n",
      "import jax\nimport far.b\n", // a -> b -> c -> main -> launch: too far
      "import jax\nimport far.c\n",
      "import jax\nimport pkg.main\n",
  };
  std::vector<bool> launching = launchingIn(files, texts);
  ASSERT_EQ(launching, (std::vector<bool>{true, false, false, false, false, false}));
  std::vector<std::vector<size_t>> callers = callersIn(files, texts, launching);
  EXPECT_EQ(callers[0], (std::vector<size_t>{2, 5}));
}

TEST(Relevance, AKernelRunByAProgramTwoImportsAwayIsJudgedWithItsConfiguration) {
  // The program's preset gives a WGMMA accumulator of 32 rows (JAX 0.10.2:
  // "WGMMA requires m and n to be multiples of 64 and 8"); the kernel takes
  // its configuration as a keyword-only parameter bound by functools.partial,
  // so it has three Ref parameters, not four.
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/kernels.py", R"(import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(a_ref, b_ref, o_ref, *, rows):
  def scope(acc_ref):
    plgpu.wgmma(acc_ref, a_ref, b_ref)
    plgpu.wgmma_wait(0)
    return acc_ref[...]
  o_ref[...] = pl.run_scoped(scope, plgpu.ACC((rows, 128), jnp.float32))


def build(rows):
  t = (plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128))
  return pl.pallas_call(
      functools.partial(body, rows=rows),
      in_specs=[plgpu.BlockSpec((rows, 128), lambda: (0, 0), transforms=t),
                plgpu.BlockSpec((128, 128), lambda: (0, 0), transforms=t)],
      out_specs=plgpu.BlockSpec((rows, 128), lambda: (0, 0)),
      out_shape=jax.ShapeDtypeStruct((rows, 128), jnp.float32))
)");
  dir.write("pkg/launch.py", R"(import jax.numpy as jnp
from . import kernels

PRESETS = {"prefill": 128, "decode": 32}


def project(x, w, *, mode):
  rows = PRESETS[mode]
  return kernels.build(rows)(x.astype(jnp.float16), w.astype(jnp.float16))
)");
  // The program: rows of x, and the preset it asks for.
  auto program = [&](const std::string& rows, const std::string& mode) {
    dir.write("pkg/main.py", "import jax\nimport jax.numpy as jnp\nfrom . import launch\n\n\n"
                             "def main():\n"
                             "  x = jnp.zeros((" +
                                 rows +
                                 ", 128), jnp.float32)\n"
                                 "  w = jnp.zeros((128, 128), jnp.float32)\n"
                                 "  f = jax.jit(lambda a, b: launch.project(a, b, mode=\"" +
                                 mode +
                                 "\"))\n"
                                 "  f.trace(x, w).lower(lowering_platforms=(\"cuda\",))\n\n\n"
                                 "if __name__ == \"__main__\":\n  main()\n");
  };
  program("32", "decode");
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  CheckResult r = runCheck(options);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"kernels.py:13:PLS006"}));
  // The prefill preset: 128 rows, which WGMMA takes.
  program("128", "prefill");
  EXPECT_TRUE(findingsAt(runCheck(options)).empty());
}

TEST(Relevance, ACallerThatPassesTheKernelInAnotherFile) {
  // The launch's kernel is a parameter (8.23); the file that passes a kernel
  // calling inline_mgpu spells no `interpret`: it names Pallas, so it is a
  // caller too (analysis::mayChooseForLaunches), open while ops.py is analysed.
  TempDir dir;
  dir.write("ops.py", R"(import jax
from jax.experimental import pallas as pl


def launch(x, body):
  out = jax.ShapeDtypeStruct(x.shape, x.dtype)
  return pl.pallas_call(body, out_shape=out, interpret=True)(x)
)");
  const std::string run = R"(import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu
from ops import launch


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
  del ctx, ref


def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
  fence(o_ref)


def main():
  return launch(jnp.ones((128,), jnp.float32), kernel)
)";
  dir.write("run.py", run);
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  CheckResult r = runCheck(options);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"run.py:13:PLS001"}));
  // The kernel of standard primitives instead: nothing.
  std::string plain = run;
  plain.replace(plain.find("  fence(o_ref)\n"), 15, "");
  dir.write("run.py", plain);
  EXPECT_TRUE(findingsAt(runCheck(options)).empty());
}

TEST(Relevance, AProgramWhoseImportSetsTheGpuInterpretModeIsACaller) {
  // main.py names no Pallas and no `interpret`: it imports a module that sets
  // the process-wide GPU interpret mode when imported, then calls the launch
  // wrapper. JAX runs the launch in GPU interpret mode, where plgpu.load on a
  // kernel Ref fails; main.py is JAX code, so it is open as ops.py's caller.
  TempDir dir;
  dir.write("ops.py", R"(import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
  o_ref[...] = plgpu.load(x_ref, (), layout=plgpu.Layout.WG_STRIDED((128, 128), vec_size=2))


def run(x):
  return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
)");
  dir.write("hooks.py", R"(from jax._src.pallas.mosaic_gpu.interpret import params


def install():
  params.set_gpu_interpret_mode(params.InterpretGPUParams())
)");
  const std::string main = R"(import jax.numpy as jnp
import hooks
from ops import run

hooks.install()


def main():
  print(run(jnp.ones((128, 128), jnp.float32)))


if __name__ == "__main__":
  main()
)";
  dir.write("main.py", main);
  CheckResult r = checkFolder(dir);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"ops.py:7:PLS002"}));
  // Without the import that sets the mode: compiled, where plgpu.load runs.
  std::string plain = main;
  plain.replace(plain.find("hooks.install()\n"), 16, "");
  dir.write("main.py", plain);
  EXPECT_TRUE(findingsAt(checkFolder(dir)).empty());
}

TEST(Relevance, ALaunchItsCallersReachIsJudgedAsTheyRunIt) {
  // ops.py's `scale` builds a pl.kernel with interpret=True, and nothing in
  // ops.py calls it; main.py calls it inside force_gpu_interpret_mode(),
  // which pl.kernel reads when built: GPU interpret mode, which runs
  // set_max_registers. ops.py's own guess (interpret=True, where it fails)
  // gives way to the run its caller makes.
  TempDir dir;
  dir.write("ops.py", R"(import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
  plgpu.set_max_registers(232, action="increase")
  o_ref[...] = x_ref[...] * 2.0


def scale(x):
  return pl.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh(),
                   interpret=True)(x)
)");
  const std::string main = R"(import jax.numpy as jnp
from jax._src.pallas.mosaic_gpu.interpret.params import force_gpu_interpret_mode
from ops import scale


def main():
  with force_gpu_interpret_mode():
    print(scale(jnp.ones((128, 128), jnp.float32)))


if __name__ == "__main__":
  main()
)";
  dir.write("main.py", main);
  CheckResult r = checkFolder(dir);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(findingsAt(r).empty());
  // Called outside the mode: interpret=True, where set_max_registers fails.
  std::string plain = main;
  const std::string with = "  with force_gpu_interpret_mode():\n    print";
  plain.replace(plain.find(with), with.size(), "  print");
  dir.write("main.py", plain);
  EXPECT_EQ(findingsAt(checkFolder(dir)), (std::vector<std::string>{"ops.py:7:PLS002"}));
}

TEST(Relevance, ReexportedNamesStillFoundAndPlainFilesStillCounted) {
  TempDir dir;
  dir.write("mylib.py", kReexport);
  dir.write("app/kern.py", kKernel);
  dir.write("plain/util.py", "import os\n\ndef helper():\n  return os.getcwd()\n");
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  CheckResult r = runCheck(options);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.report.files, 3u);
  EXPECT_EQ(findingsAt(r), (std::vector<std::string>{"kern.py:9:PLS001"}));
}

TEST(Relevance, WorkersAgreeWithOneWorker) {
  // Kernels in several folders using a helper in another folder: split over
  // workers (each with its own Project), the findings and their fixes are
  // those of a single worker.
  TempDir dir;
  dir.write("shared/helpers.py", R"(from jax.experimental.pallas import mosaic_gpu as plgpu


def stage(src, smem, barrier):
  plgpu.copy_gmem_to_smem(src, smem, barrier)
  plgpu.barrier_wait(barrier)
)");
  for (int i = 0; i < 6; ++i)
    dir.write("k" + std::to_string(i) + "/kern.py", R"(import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu
from shared.helpers import stage


def kernel(x_ref, o_ref, smem, barrier):
  stage(x_ref, smem, barrier)
  o_ref[...] = smem[...]


def run(x):
  return plgpu.kernel(kernel, out_shape=x, scratch_shapes=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()], interpret=True)(x)
)");
  auto run = [&](unsigned jobs) {
    CheckOptions options;
    options.paths = {dir.path()};
    options.configMode = CheckOptions::ConfigMode::None;
    options.jobs = jobs;
    return runCheck(options);
  };
  CheckResult one = run(1), three = run(3);
  ASSERT_EQ(findingsAt(one), findingsAt(three));
  // The helper's two primitives, once each however many kernels reach them.
  EXPECT_EQ(findingsAt(one),
            (std::vector<std::string>{"helpers.py:5:PLS002", "helpers.py:6:PLS002"}));
  for (size_t i = 0; i < one.report.findings.size(); ++i) {
    const auto& a = one.report.findings[i];
    const auto& b = three.report.findings[i];
    ASSERT_EQ(a.fixes.size(), b.fixes.size()) << a.message;
    for (size_t k = 0; k < a.fixes.size(); ++k)
      EXPECT_EQ(a.fixes[k].title, b.fixes[k].title);
    // The helper's findings carry fixes made in the helper's file.
    EXPECT_FALSE(a.fixes.empty());
  }
}

} // namespace
} // namespace pallas::check
