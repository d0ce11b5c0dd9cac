// Front end: how files name JAX/Pallas, kernel discovery and launch forms,
// interpret= evaluation, nested defs and lambdas, cross-file helpers, and
// robustness (syntax errors, non-ASCII, empty files). Checked on the printed
// module of the real lowering.
#include "AnalysisTestUtil.h"

#include <gtest/gtest.h>

using namespace pallas::analysis;
using namespace pallas::analysis::test;

namespace {

// A realistic Mosaic GPU kernel body used with several import spellings.
const char* kKernelBody = R"py(
def kernel(x_gmem, o_gmem, x_smem, barrier):
  plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier)
  plgpu.barrier_wait(barrier)
  o_gmem[...] = x_smem[...] + 1.0

def run(x):
  return pl.pallas_call(
      kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      in_specs=[pl.BlockSpec(memory_space=plgpu.GMEM)],
      out_specs=pl.BlockSpec(memory_space=plgpu.GMEM),
      scratch_shapes=[plgpu.SMEM(x.shape, x.dtype), plgpu.Barrier(num_arrivals=1)],
      interpret=True,
  )(x)
)py";

// The launch line that follows `pallas.func def @fn` in a printed module.
std::string launchAfterDef(const std::string& text, const std::string& fn) {
  size_t at = text.find("pallas.func def @" + fn + " ");
  size_t l = text.find("pallas.launch", at);
  return text.substr(l, text.find('\n', l) - l);
}

void expectKernelRecognised(const std::string& imports) {
  std::string text = lowerToText("import jax\n" + imports + kKernelBody);
  SCOPED_TRACE(imports);
  EXPECT_EQ(linesWith(text, {"pallas.prim \"plgpu.copy_gmem_to_smem\"", "origins [arg, arg, arg]"})
                .size(),
            1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.prim \"plgpu.barrier_wait\""}).size(), 1u);
  auto launch = linesWith(text, {"pallas.launch \"pl.pallas_call\""});
  ASSERT_EQ(launch.size(), 1u) << text;
  EXPECT_NE(launch[0].find("body = @kernel"), std::string::npos);
  EXPECT_NE(launch[0].find("paths [interpret_hlo]"), std::string::npos);
  EXPECT_NE(launch[0].find("scratch [smem, barrier]"), std::string::npos);
  EXPECT_NE(launch[0].find("interpret literal"), std::string::npos);
  // Locations: the copy is on line 4 of the snippet + import lines.
  EXPECT_EQ(linesWith(text, {"ref.__setitem__", "origins [arg"}).size(), 1u);
}

TEST(Imports, FromImportAs) {
  expectKernelRecognised("from jax.experimental import pallas as pl\n"
                         "from jax.experimental.pallas import mosaic_gpu as plgpu\n");
}

TEST(Imports, ImportDottedAs) {
  expectKernelRecognised("import jax.experimental.pallas as pl\n"
                         "import jax.experimental.pallas.mosaic_gpu as plgpu\n");
}

TEST(Imports, PlainAliasAssignments) {
  expectKernelRecognised("from jax.experimental import pallas\n"
                         "from jax.experimental.pallas import mosaic_gpu\n"
                         "pl = pallas\nplgpu = mosaic_gpu\n");
}

TEST(Imports, FullyQualifiedThroughImportJax) {
  std::string text = lowerToText(R"py(
import jax
import jax.experimental.pallas
def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]
f = jax.experimental.pallas.pallas_call(kernel, out_shape=None)
)py");
  EXPECT_EQ(linesWith(text, {"pallas.launch \"pl.pallas_call\"", "body = @kernel"}).size(), 1u)
      << text;
}

TEST(Imports, InlineMgpuImportedByNameWithRefType) {
  std::string text = lowerToText(R"py(
import jax.numpy as jnp
from jax.experimental.pallas.mosaic_gpu import inline_mgpu as im, RefType
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.mosaic import gpu as mgpu

def kernel(x_ref, o_ref):
  @im(arg_types=(RefType(), plgpu.Layout.WGMMA), return_type=plgpu.ShapeDtypeStruct((128,), jnp.float32))
  def body(ctx, smem_ref, vals):
    x = mgpu.FragmentedArray.load_tiled(smem_ref)
    return x
  body(x_ref, o_ref[...])
)py");
  auto inl = linesWith(text, {"pallas.inline_mgpu("});
  ASSERT_EQ(inl.size(), 1u) << text;
  EXPECT_NE(inl[0].find("arg_type_kinds [ref, array]"), std::string::npos) << inl[0];
  EXPECT_NE(inl[0].find("arg_types_count = 2"), std::string::npos);
  EXPECT_NE(inl[0].find("return_type = \"plgpu.ShapeDtypeStruct((128,), jnp.float32)\""),
            std::string::npos);
  // The wrapper closure takes what the caller passes (no ctx) ...
  EXPECT_EQ(linesWith(text, {"pallas.closure def \"body\"", "arg_names = [\"smem_ref\", \"vals\"]"})
                .size(),
            1u);
  // ... and is called with the kernel's ref.
  EXPECT_EQ(linesWith(text, {"pallas.call_indirect", "origins [arg, value]"}).size(), 1u) << text;
  EXPECT_EQ(linesWith(text, {"pallas.prim \"mgpu.FragmentedArray.load_tiled\""}).size(), 1u)
      << text;
}

TEST(Imports, MosaicGpuAlias) {
  std::string text = lowerToText(R"py(
from jax.experimental.mosaic import gpu as mgpu
def f(ctx, ref):
  return mgpu.utils.c(1, None)
)py");
  EXPECT_EQ(linesWith(text, {"pallas.prim \"mgpu.utils.c\""}).size(), 1u) << text;
}

TEST(Imports, UsersOwnInlineMgpuIsNotJaxs) {
  std::string text = lowerToText(R"py(
from jax.experimental.pallas import mosaic_gpu as plgpu
def inline_mgpu(**kw):
  def deco(f):
    return f
  return deco

@inline_mgpu(arg_types=(plgpu.RefType(),))
def helper(ctx, ref):
  plgpu.barrier_wait(ref)

def kernel(x_ref):
  inline_mgpu()(lambda c, r: r)
  helper(x_ref)
)py");
  EXPECT_EQ(count(text, "pallas.inline_mgpu"), 0u) << text;
  // Once as the decorator of helper, once called in kernel.
  EXPECT_EQ(linesWith(text, {"pallas.call @inline_mgpu"}).size(), 2u) << text;
  EXPECT_EQ(linesWith(text, {"pallas.call @helper"}).size(), 1u);
}

TEST(Imports, JaxsInlineMgpuAtModuleLevel) {
  std::string text = lowerToText(R"py(
from jax.experimental.pallas import mosaic_gpu as plgpu
@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def helper(ctx, ref):
  pass

def kernel(x_ref):
  helper(x_ref)
)py");
  EXPECT_EQ(linesWith(text, {"pallas.func def @helper", "arg_names = [\"ref\"]"}).size(), 1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.inline_mgpu(%arg0)", "origins [arg]"}).size(), 1u) << text;
  EXPECT_EQ(linesWith(text, {"pallas.call @helper(%arg0)", "origins [arg]"}).size(), 1u) << text;
}

TEST(Shadowing, ParameterAndLocalShadowModuleNames) {
  std::string text = lowerToText(R"py(
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

def not_a_launch(pl, x):
  return pl.pallas_call(x)

def local_shadow(x_ref):
  plgpu = make_fake()
  plgpu.inline_mgpu()(x_ref)
  plgpu.copy_gmem_to_smem(x_ref)

def real(x_ref, s, b):
  plgpu.copy_gmem_to_smem(x_ref, s, b)
)py");
  EXPECT_EQ(count(text, "pallas.launch"), 0u) << text;
  EXPECT_EQ(count(text, "pallas.prim \"plgpu.copy_gmem_to_smem\""), 1u) << text;
  EXPECT_EQ(count(text, "value.copy_gmem_to_smem"), 1u) << text;
  EXPECT_EQ(count(text, "pallas.inline_mgpu"), 0u);
}

TEST(Launches, FunctoolsPartialDecoratorAndNamedPartial) {
  std::string text = lowerToText(R"py(
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

my_call = functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
                            interpret=True, scratch_shapes=[plgpu.ACC((64, 64), jnp.float32)])

@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
                   interpret=plgpu.InterpretGPUParams(skip_floating_point_ops=True))
def decorated(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def body(x_ref, o_ref, acc):
  acc[...] = x_ref[...]

@my_call
def also_decorated(x_ref, o_ref, acc):
  pass

def run(x):
  return my_call(body)(x)
)py");
  auto dec = linesWith(text, {"pallas.launch", "body = @decorated"});
  ASSERT_EQ(dec.size(), 1u) << text;
  EXPECT_NE(dec[0].find("\" decorator "), std::string::npos);
  EXPECT_NE(dec[0].find("paths [interpret_gpu]"), std::string::npos);
  EXPECT_NE(dec[0].find("interpret_params = {skip_floating_point_ops = \"True\"}"),
            std::string::npos)
      << dec[0];
  auto partial = linesWith(text, {"pallas.launch", "body = @body"});
  ASSERT_EQ(partial.size(), 1u) << text;
  EXPECT_NE(partial[0].find("\" partial "), std::string::npos);
  EXPECT_NE(partial[0].find("paths [interpret_hlo]"), std::string::npos);
  EXPECT_NE(partial[0].find("scratch [acc]"), std::string::npos) << partial[0];
  auto named = linesWith(text, {"pallas.launch", "body = @also_decorated"});
  ASSERT_EQ(named.size(), 1u) << text;
  EXPECT_NE(named[0].find("\" partial "), std::string::npos);
}

TEST(Launches, PlgpuKernelThreadsAndCoreMapAndPlKernel) {
  std::string text = lowerToText(R"py(
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

def body(x_ref, o_ref, smem):
  wg = jax.lax.axis_index("wg")
  o_ref[...] = x_ref[...]

def run(x):
  f = plgpu.kernel(body, out_shape=x, num_threads=2, thread_name="wg",
                   scratch_shapes=(plgpu.SMEM((128,), jnp.float32),))
  g = pl.kernel(body, out_shape=x, mesh=plgpu.Mesh(num_threads=1, thread_name="t"))
  return f(x), g(x)

def with_core_map(x_ref):
  @pl.core_map(plgpu.Mesh(), interpret=True)
  def _():
    x_ref[...] = x_ref[...] * 2
)py");
  auto k = linesWith(text, {"pallas.launch \"plgpu.kernel\""});
  ASSERT_EQ(k.size(), 1u) << text;
  EXPECT_NE(k[0].find("num_threads = 2"), std::string::npos) << k[0];
  EXPECT_NE(k[0].find("thread_name = \"wg\""), std::string::npos);
  EXPECT_NE(k[0].find("scratch [smem]"), std::string::npos);
  EXPECT_NE(k[0].find("paths [compiled]"), std::string::npos);
  EXPECT_EQ(linesWith(text, {"pallas.launch \"pl.kernel\"", "body = @body"}).size(), 1u);
  auto cm = linesWith(text, {"pallas.launch \"pl.core_map\""});
  ASSERT_EQ(cm.size(), 1u) << text;
  EXPECT_NE(cm[0].find("paths [interpret_hlo]"), std::string::npos);
  // The core_map body is a closure writing the captured kernel ref.
  EXPECT_EQ(linesWith(text, {"ref.__setitem__", "origins [arg"}).size(), 2u) << text;
}

TEST(Interpret, EveryStaticForm) {
  std::string text = lowerToText(R"py(
import contextlib
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams, force_gpu_interpret_mode
from jax._src.pallas.mosaic_gpu.interpret import params as gpu_interpret

MODE = False
GPU_MODE = InterpretGPUParams(num_tma_threads_per_device=2)

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def a(x):
  return pl.pallas_call(k, out_shape=x, interpret=MODE)(x)
def b(x, interpret=True):
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def c(x, interpret):
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def d(x):
  return pl.pallas_call(k, out_shape=x, interpret=GPU_MODE)(x)
def e(x):
  with force_gpu_interpret_mode(InterpretGPUParams()):
    return pl.pallas_call(k, out_shape=x)(x)
def f(x):
  gpu_interpret.set_gpu_interpret_mode()
  return pl.pallas_call(k, out_shape=x)(x)
def g(x):
  return pl.pallas_call(k, out_shape=x)(x)
def h(x):
  flag = True
  return pl.pallas_call(k, out_shape=x, interpret=flag)(x)
)py");
  auto launchIn = [&](const std::string& fn) { return launchAfterDef(text, fn); };
  EXPECT_NE(launchIn("a").find("interpret module_constant"), std::string::npos) << launchIn("a");
  EXPECT_NE(launchIn("a").find("paths [compiled]"), std::string::npos);
  EXPECT_NE(launchIn("b").find("interpret default_param"), std::string::npos) << launchIn("b");
  EXPECT_NE(launchIn("b").find("paths [interpret_hlo]"), std::string::npos);
  EXPECT_NE(launchIn("c").find("paths [unknown]"), std::string::npos) << launchIn("c");
  EXPECT_NE(launchIn("d").find("paths [interpret_gpu]"), std::string::npos) << launchIn("d");
  EXPECT_NE(launchIn("d").find("interpret module_constant"), std::string::npos);
  EXPECT_NE(launchIn("e").find("paths [interpret_gpu]"), std::string::npos) << launchIn("e");
  EXPECT_NE(launchIn("e").find("context = \"force_gpu_interpret_mode\""), std::string::npos);
  EXPECT_NE(launchIn("e").find("context_line = 23"), std::string::npos) << launchIn("e");
  EXPECT_NE(launchIn("f").find("context = \"set_gpu_interpret_mode\""), std::string::npos)
      << launchIn("f");
  EXPECT_NE(launchIn("f").find("paths [interpret_gpu]"), std::string::npos);
  EXPECT_NE(launchIn("g").find("interpret absent"), std::string::npos) << launchIn("g");
  EXPECT_NE(launchIn("g").find("paths [compiled]"), std::string::npos);
  EXPECT_NE(launchIn("h").find("paths [interpret_hlo]"), std::string::npos) << launchIn("h");
  EXPECT_EQ(count(text, "context = \"force_gpu_interpret_mode\""), 2u)
      << "the with scope and the launch";
}

// A name an if / match rebinds (8.80): a condition known statically picks
// its branch; otherwise each branch's value is one of the paths. An else
// branch that opens nested scopes must not disturb the join (it once read
// a scope table the nested defs had reallocated).
TEST(Interpret, BranchesJoinWhatTheTakenBranchBinds) {
  std::string text = lowerToText(R"py(
import sys
from jax.experimental import pallas as pl

DEBUG = True
MODE = "fast"

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def a(x):
  if DEBUG:
    interpret = True
  else:
    interpret = False
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def b(x):
  interpret = True
  if not DEBUG:
    interpret = False
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def c(x):
  if "--debug" in sys.argv:
    interpret = True
  else:
    interpret = False
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def d(x):
  match MODE:
    case "debug":
      interpret = True
    case "fast":
      interpret = False
    case _:
      interpret = True
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
def e(x):
  if sys.argv:
    interpret = True
  else:
    def g1():
      def g2():
        def g3():
          def g4():
            def g5():
              return 1
            return g5
          return g4
        return g3
      return g2
    interpret = True
  return pl.pallas_call(k, out_shape=x, interpret=interpret)(x)
)py");
  auto launchIn = [&](const std::string& fn) { return launchAfterDef(text, fn); };
  EXPECT_NE(launchIn("a").find("paths [interpret_hlo]"), std::string::npos) << launchIn("a");
  EXPECT_NE(launchIn("b").find("paths [interpret_hlo]"), std::string::npos) << launchIn("b");
  EXPECT_NE(launchIn("c").find("paths [compiled, interpret_hlo]"), std::string::npos)
      << launchIn("c");
  EXPECT_NE(launchIn("d").find("paths [compiled]"), std::string::npos) << launchIn("d");
  EXPECT_NE(launchIn("e").find("paths [interpret_hlo]"), std::string::npos) << launchIn("e");
}

// `self.attr` is what the objects the document builds hold (8.27): the
// argument __init__ stores (keyword, positional, default), the class
// attribute of the instance's own class first; anything not known is
// unknown, never a path; a class no call builds leaves it unknown too.
// `for v in (...)` (8.28): every value runs, each certain (pallas.every_path).
TEST(Interpret, InstanceAttributesAndLoopValues) {
  std::string text = lowerToText(R"py(
from jax.experimental import pallas as pl

MODES = (True, False)

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

class Kw:
  def __init__(self, interpret=False):
    self.interpret = interpret
  def kw(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.interpret)(x)

class Pos:
  def __init__(self, block, interpret=True):
    self.interpret = interpret
  def pos(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.interpret)(x)

class Base:
  MODE = False
  def sub(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.MODE)(x)

class Debug(Base):
  MODE = True

class Local:
  def __init__(self, interpret):
    self.interpret = interpret
  def local(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.interpret)(x)

class Stored:
  def __init__(self):
    self.mode = False
  def stored(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.mode)(x)

class Unbuilt:
  MODE = True
  def unbuilt(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.MODE)(x)

def build(flag):
  Kw(interpret=True)
  Pos(64)
  Debug()
  Local(flag)
  s = Stored()
  s.mode = True

def each(x):
  for m in (True, False):
    pl.pallas_call(k, out_shape=x, interpret=m)(x)

def named(x):
  for m in MODES:
    pl.pallas_call(k, out_shape=x, interpret=m)(x)

def cut(x):
  for m in (True, False):
    pl.pallas_call(k, out_shape=x, interpret=m)(x)
    break

def after(x):
  for m in (True, False):
    pass
  return pl.pallas_call(k, out_shape=x, interpret=m)(x)

def localtuple(x):
  modes = (True, False)
  for m in modes:
    pl.pallas_call(k, out_shape=x, interpret=m)(x)

def tested(x):
  for m in (True, False):
    if m is False:
      pl.pallas_call(k, out_shape=x, interpret=m)(x)
)py");
  auto launchIn = [&](const std::string& fn) {
    size_t at = text.find("pallas.func ");
    at = text.find("@" + fn + " ", at);
    if (at == std::string::npos)
      at = text.find("." + fn + " ");
    size_t l = text.find("pallas.launch", at);
    return text.substr(l, text.find('\n', l) - l);
  };
  EXPECT_NE(launchIn("kw").find("paths [interpret_hlo]"), std::string::npos) << launchIn("kw");
  EXPECT_NE(launchIn("pos").find("paths [interpret_hlo]"), std::string::npos) << launchIn("pos");
  EXPECT_NE(launchIn("sub").find("paths [interpret_hlo]"), std::string::npos) << launchIn("sub");
  EXPECT_NE(launchIn("local").find("paths [unknown]"), std::string::npos) << launchIn("local");
  EXPECT_NE(launchIn("stored").find("paths [unknown]"), std::string::npos) << launchIn("stored");
  EXPECT_NE(launchIn("unbuilt").find("paths [unknown]"), std::string::npos) << launchIn("unbuilt");
  for (const char* fn : {"each", "named", "localtuple"}) {
    EXPECT_NE(launchIn(fn).find("paths [compiled, interpret_hlo]"), std::string::npos)
        << launchIn(fn);
    EXPECT_NE(launchIn(fn).find("pallas.every_path"), std::string::npos) << launchIn(fn);
  }
  EXPECT_NE(launchIn("cut").find("paths [unknown]"), std::string::npos) << launchIn("cut");
  EXPECT_NE(launchIn("after").find("paths [unknown]"), std::string::npos) << launchIn("after");
  // Under an `if` that may test the value: one of them ("may"), not each.
  EXPECT_NE(launchIn("tested").find("paths [compiled, interpret_hlo]"), std::string::npos)
      << launchIn("tested");
  EXPECT_EQ(launchIn("tested").find("pallas.every_path"), std::string::npos) << launchIn("tested");
}

TEST(Interpret, ExpressionsOverConstantsAreFoldedAsPythonDoes) {
  std::string text = lowerToText(R"py(
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ON_GPU = False
MODE = "debug"
CONFIG = {"block": 128, "interpret": True, "interpret": False}
MODES = (False, True)
USER = None
GPU = plgpu.InterpretGPUParams()

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def not_flag(x):
  return pl.pallas_call(k, out_shape=x, interpret=not ON_GPU)(x)
def compare(x):
  return pl.pallas_call(k, out_shape=x, interpret=(MODE != "debug"))(x)
def last_key(x):
  return pl.pallas_call(k, out_shape=x, interpret=CONFIG["interpret"])(x)
def index(x):
  return pl.pallas_call(k, out_shape=x, interpret=MODES[-1])(x)
def either(x):
  return pl.pallas_call(k, out_shape=x, interpret=USER or GPU)(x)
def branch(x):
  return pl.pallas_call(k, out_shape=x, interpret=True if MODE == "debug" else False)(x)
def local_dict(x):
  opts = {"interpret": True}
  return pl.pallas_call(k, out_shape=x, interpret=opts["interpret"])(x)
def over_param(x, compiled=False):
  return pl.pallas_call(k, out_shape=x, interpret=not compiled)(x)
def param_branch(x, interpret=False):
  return pl.pallas_call(k, out_shape=x, interpret=interpret if MODE == "debug" else False)(x)
def unknown_key(x, key):
  return pl.pallas_call(k, out_shape=x, interpret=CONFIG[key])(x)
)py");
  // What each function's launch must say (a piece of its pallas.launch line).
  const std::vector<std::pair<std::string, std::string>> expected{
      {"not_flag", "paths [interpret_hlo]"},
      {"not_flag", "interpret module_constant"},
      {"compare", "paths [compiled]"},
      {"last_key", "paths [compiled]"}, // a repeated key: the last one wins, as in Python
      {"index", "paths [interpret_hlo]"},
      // `None or InterpretGPUParams()` is the params object: GPU interpret mode.
      {"either", "paths [interpret_gpu]"},
      {"branch", "paths [interpret_hlo]"},
      {"local_dict", "paths [interpret_hlo]"},
      // A parameter's value comes from its callers: `not compiled` is not
      // folded from the default, and a branch that is the parameter keeps
      // its name for the call contexts.
      {"over_param", "paths [unknown]"},
      {"param_branch", "interpret default_param"},
      {"param_branch", "interpret_text = \"interpret\""},
      {"unknown_key", "paths [unknown]"},
  };
  for (const auto& [fn, piece] : expected) {
    size_t at = text.find("pallas.func def @" + fn + " ");
    ASSERT_NE(at, std::string::npos) << fn;
    size_t l = text.find("pallas.launch", at);
    std::string line = text.substr(l, text.find('\n', l) - l);
    EXPECT_NE(line.find(piece), std::string::npos) << fn << ": " << line;
  }
}

// What a module-level function returns is followed where the text fixes
// it (8.31): unpacked (also nested, also through a name), subscripted, or a
// field of the object it builds; returns that differ, a returned parameter
// or a name the function binds itself stay unknown.
TEST(Interpret, ReturnedValuesAreFollowedIntoTheLaunch) {
  std::string text = lowerToText(R"py(
import dataclasses
import os
from jax.experimental import pallas as pl

DEBUG = True

@dataclasses.dataclass
class Cfg:
  interpret: bool = False

def settings():
  return 128, True
def nested():
  return 128, (False, "f32")
def module_names():
  return 128, DEBUG
def options():
  return {"interpret": True}
def make_cfg():
  return Cfg(interpret=True)
def differ():
  if os.environ.get("D"):
    return 128, True
  return 128, False
def passthrough(flag):
  return 128, flag
def shadow():
  DEBUG = False
  return 128, DEBUG

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def unpack(x):
  block, interp = settings()
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def unpack_nested(x):
  block, (interp, dtype) = nested()
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def unpack_name(x):
  got = settings()
  block, interp = got
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def unpack_module(x):
  block, interp = module_names()
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def index(x):
  cfg = settings()
  return pl.pallas_call(k, out_shape=x, interpret=cfg[1])(x)
def key(x):
  return pl.pallas_call(k, out_shape=x, interpret=options()["interpret"])(x)
def field(x):
  cfg = make_cfg()
  return pl.pallas_call(k, out_shape=x, interpret=cfg.interpret)(x)
def member(x):
  return pl.pallas_call(k, out_shape=x, interpret="debug" in ("debug", "check"))(x)
def returns_differ(x):
  block, interp = differ()
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def returns_param(x):
  block, interp = passthrough(True)
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
def returns_own_local(x):
  block, interp = shadow()
  return pl.pallas_call(k, out_shape=x, interpret=interp)(x)
)py");
  const std::vector<std::pair<std::string, std::string>> expected{
      {"unpack", "paths [interpret_hlo]"},      {"unpack_nested", "paths [compiled]"},
      {"unpack_name", "paths [interpret_hlo]"}, {"unpack_module", "paths [interpret_hlo]"},
      {"index", "paths [interpret_hlo]"},       {"key", "paths [interpret_hlo]"},
      {"field", "paths [interpret_hlo]"},       {"member", "paths [interpret_hlo]"},
      {"returns_differ", "paths [unknown]"},    {"returns_param", "paths [unknown]"},
      {"returns_own_local", "paths [unknown]"},
  };
  for (const auto& [fn, piece] : expected) {
    size_t at = text.find("pallas.func def @" + fn + " ");
    ASSERT_NE(at, std::string::npos) << fn;
    size_t l = text.find("pallas.launch", at);
    std::string line = text.substr(l, text.find('\n', l) - l);
    EXPECT_NE(line.find(piece), std::string::npos) << fn << ": " << line;
  }
}

// An expression over parameters of the def around the launch is marked
// with them and their defaults, for CallContexts (8.30); one over a local
// or a call is not.
TEST(Interpret, ExpressionsOverParametersAreMarkedForTheCallers) {
  std::string text = lowerToText(R"py(
from jax.experimental import pallas as pl

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def compare(x, mode="fast"):
  return pl.pallas_call(k, out_shape=x, interpret=(mode == "debug"))(x)
def member(x, *, mode):
  return pl.pallas_call(k, out_shape=x, interpret=mode in ("debug", "check"))(x)
def over_local(x):
  mode = x.mode
  return pl.pallas_call(k, out_shape=x, interpret=(mode == "debug"))(x)
def over_call(x, mode="fast"):
  return pl.pallas_call(k, out_shape=x, interpret=(mode.lower() == "debug"))(x)
)py");
  auto launchOf = [&](const std::string& fn) {
    size_t at = text.find("pallas.func def @" + fn + " ");
    size_t l = text.find("pallas.launch", at);
    return text.substr(l, text.find('\n', l) - l);
  };
  EXPECT_NE(launchOf("compare").find("pallas.interpret_parameters = {mode = \"\\22fast\\22\"}"),
            std::string::npos)
      << launchOf("compare");
  EXPECT_NE(launchOf("member").find("pallas.interpret_parameters = {mode = \"\"}"),
            std::string::npos)
      << launchOf("member");
  EXPECT_EQ(launchOf("over_local").find("pallas.interpret_parameters"), std::string::npos);
  EXPECT_EQ(launchOf("over_call").find("pallas.interpret_parameters"), std::string::npos);
}

// Attributes a method stores, followed along the calls on the object in
// execution order (8.32): a chain `Op().debug()`, statements on a name,
// a builder's argument. A setter under an `if`, or on a receiver that is
// not followed, leaves it unknown.
TEST(Interpret, AttributesSetByMethodCallsFollowTheObject) {
  auto lowerWith = [](const std::string& use) {
    return lowerToText(R"py(
import os
from jax.experimental import pallas as pl

def k(x_ref, o_ref):
  o_ref[...] = x_ref[...]

class Op:
  def __init__(self):
    self.interpret = False
  def debug(self):
    self.interpret = True
    return self
  def with_interpret(self, value):
    self.interpret = value
    return self
  def __call__(self, x):
    return pl.pallas_call(k, out_shape=x, interpret=self.interpret)(x)

def main(x):
)py" + use);
  };
  auto paths = [](const std::string& text) {
    size_t at = text.find("pallas.func method @Op.__call__ ");
    size_t l = text.find("pallas.launch", at);
    std::string line = text.substr(l, text.find('\n', l) - l);
    return line.substr(line.find("paths"),
                       line.find(']', line.find("paths")) - line.find("paths") + 1);
  };
  EXPECT_EQ(paths(lowerWith("  return Op().debug()(x)\n")), "paths [interpret_hlo]");
  EXPECT_EQ(paths(lowerWith("  op = Op()\n  op.debug()\n  return op(x)\n")),
            "paths [interpret_hlo]");
  EXPECT_EQ(paths(lowerWith("  return Op().with_interpret(False)(x)\n")), "paths [compiled]");
  // Used before the setter runs, and after: both values.
  EXPECT_EQ(paths(lowerWith("  op = Op()\n  y = op(x)\n  op.debug()\n  return op(y)\n")),
            "paths [compiled, interpret_hlo]");
  EXPECT_EQ(
      paths(lowerWith("  op = Op()\n  if os.environ.get('D'):\n    op.debug()\n  return op(x)\n")),
      "paths [unknown]");
  // A bound setter taken from the object, or a method called by a computed
  // name, may run at any time: unknown.
  EXPECT_EQ(paths(lowerWith("  op = Op()\n  m = op.debug\n  m()\n  return op(x)\n")),
            "paths [unknown]");
  EXPECT_EQ(paths(lowerWith("  op = Op()\n  getattr(op, 'debug')()\n  return op(x)\n")),
            "paths [unknown]");
  // A setter called on a receiver that is not followed (a parameter of
  // another function) makes every object's value unknown.
  EXPECT_EQ(paths(lowerWith("  return Op()(x)\n\ndef enable(op):\n  op.debug()\n")),
            "paths [unknown]");
  EXPECT_EQ(paths(lowerWith("  op = Op()\n  run(op)\n  op.debug()\n  return op(x)\n")),
            "paths [unknown]");
}

TEST(Bodies, HigherOrderConstructs) {
  std::string text = lowerToText(R"py(
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

def kernel(a_gmem, b_gmem, o_gmem):
  def pipeline_body(idx, a_smem, b_smem, o_smem):
    o_smem[...] = a_smem[...] + b_smem[...]
  plgpu.emit_pipeline(pipeline_body, grid=(4,), in_specs=[], out_specs=[])(a_gmem, b_gmem, o_gmem)

  @functools.partial(pl.run_scoped, acc=plgpu.ACC((64, 64), jnp.float32), tmp=plgpu.SMEM((64,), jnp.float32))
  def _(acc, tmp):
    plgpu.wgmma(acc, tmp, tmp)

  pl.run_scoped(lambda s, bar: plgpu.barrier_wait(bar), plgpu.SMEM((8,), jnp.float32), plgpu.Barrier())

  @pl.loop(0, 4)
  def _(i):
    o_gmem[i] = a_gmem[i]

  def step(i, carry):
    return carry + b_gmem[i]
  lax.fori_loop(0, 4, step, 0.0)

  def state_body(refs):
    x_ref, y_ref = refs
    y_ref[...] = x_ref[...]
  pl.run_state(state_body)((1.0, 2.0))
)py");
  auto pipe = linesWith(text, {"pallas.scope \"plgpu.emit_pipeline\""});
  ASSERT_EQ(pipe.size(), 1u) << text;
  // The body is a closure defined earlier: its parameters become the
  // scope's block arguments (indices, then the pipeline's SMEM buffers).
  EXPECT_NE(pipe[0].find("arg_origins [value, pipeline, pipeline, pipeline]"), std::string::npos)
      << pipe[0];
  EXPECT_EQ(
      linesWith(text, {"pallas.call_indirect", "origins [value, pipeline, pipeline, pipeline]"})
          .size(),
      1u)
      << text;
  auto scoped = linesWith(text, {"pallas.scope \"pl.run_scoped\"", "allocations [acc, smem]"});
  ASSERT_EQ(scoped.size(), 1u) << text;
  EXPECT_NE(scoped[0].find("arg_origins [acc, run_scoped]"), std::string::npos) << scoped[0];
  EXPECT_EQ(
      linesWith(text, {"pallas.prim \"plgpu.wgmma\"", "origins [acc, run_scoped, run_scoped]"})
          .size(),
      1u)
      << text;
  EXPECT_EQ(
      linesWith(text, {"pallas.scope \"pl.run_scoped\"", "allocations [smem, barrier]"}).size(), 1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.call_indirect", "origins [run_scoped, run_scoped]"}).size(),
            1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.scope \"pl.loop\"", "arg_origins [value]"}).size(), 1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.scope \"lax.fori_loop\""}).size(), 1u) << text;
  EXPECT_EQ(linesWith(text, {"pallas.scope \"pl.run_state\"", "arg_origins [run_state]"}).size(),
            1u)
      << text;
  // Inside state_body (a closure) the unpacked refs stay "arg" of the closure.
  EXPECT_EQ(linesWith(text, {"pallas.call_indirect", "origins [run_state]"}).size(), 1u) << text;
}

TEST(Bodies, PipelineBodyInPlace) {
  std::string text = lowerToText(R"py(
import functools
from jax.experimental.pallas import mosaic_gpu as plgpu
def kernel(a_gmem, o_gmem):
  @functools.partial(plgpu.emit_pipeline, grid=(4,), in_specs=[], out_specs=[])
  def pipeline(idx, a_smem, o_smem):
    o_smem[...] = a_smem[...]
  pipeline(a_gmem, o_gmem)
)py");
  auto pipe = linesWith(text, {"pallas.scope \"plgpu.emit_pipeline\""});
  ASSERT_EQ(pipe.size(), 1u) << text;
  EXPECT_NE(pipe[0].find("arg_origins [value, pipeline, pipeline]"), std::string::npos) << pipe[0];
  EXPECT_EQ(linesWith(text, {"ref.__setitem__", "origins [pipeline"}).size(), 1u) << text;
}

TEST(Bodies, WhenAndLambdaCaptureKernelRefs) {
  std::string text = lowerToText(R"py(
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
def kernel(x_ref, o_ref, barrier):
  @pl.when(pl.program_id(0) == 0)
  def _():
    plgpu.barrier_arrive(barrier)
  f = lambda r: plgpu.barrier_wait(r)
  f(barrier)
)py");
  auto when = linesWith(text, {"pallas.scope \"pl.when\""});
  ASSERT_EQ(when.size(), 1u) << text;
  EXPECT_NE(when[0].find("origins [value]"), std::string::npos) << "the condition is an operand";
  EXPECT_EQ(
      linesWith(text, {"plgpu.barrier_arrive\"(%arg2)", "arg_indices = array<i64: 2>"}).size(), 1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.closure lambda \"<lambda>\""}).size(), 1u) << text;
}

TEST(CrossFile, HelpersReExportsAndDependents) {
  TempDir dir;
  dir.write("mylib/__init__.py", "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                                 "from .copies import copy_in as fetch\n");
  std::string copies =
      dir.write("mylib/copies.py", "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                                   "def copy_in(src, dst, bar):\n"
                                   "  plgpu.copy_gmem_to_smem(src, dst, bar)\n"
                                   "  plgpu.barrier_wait(bar)\n");
  std::string helpers =
      dir.write("helpers.py", "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                              "def inline_mgpu(x):\n  return x\n");
  std::string mainPath = dir.write("main.py", "");
  std::string main = R"py(
from jax.experimental import pallas as pl
from mylib import plgpu, fetch
from mylib.copies import copy_in
import mylib.copies as cp
from helpers import inline_mgpu

def kernel(x_gmem, o_gmem, x_smem, bar):
  fetch(x_gmem, x_smem, bar)
  copy_in(x_gmem, x_smem, bar)
  cp.copy_in(x_gmem, x_smem, bar)
  inline_mgpu(x_smem)
  plgpu.commit_smem()
)py";
  ProjectOptions options;
  options.workspaceRoots.push_back(dir.path());
  Project project(options);
  project.setDocument(mainPath, main);
  std::string text = project.mlirText(mainPath);
  EXPECT_EQ(linesWith(text, {"pallas.call @copy_in", "callee_file = \"" + copies + "\""}).size(),
            3u)
      << text;
  EXPECT_EQ(
      linesWith(text, {"pallas.call @inline_mgpu", "callee_file = \"" + helpers + "\""}).size(), 1u)
      << text;
  EXPECT_EQ(linesWith(text, {"pallas.prim \"plgpu.commit_smem\""}).size(), 1u)
      << "re-exported plgpu";
  EXPECT_EQ(count(text, "pallas.inline_mgpu"), 0u);
  auto deps = project.dependents(copies);
  EXPECT_NE(std::find(deps.begin(), deps.end(), mainPath), deps.end());
  EXPECT_TRUE(verifyModule(project, mainPath));

  std::string helperText = project.mlirText(copies); // lowered once already
  EXPECT_NE(helperText.find("@copy_in "), std::string::npos) << helperText;

  // Renaming the helper on disk: main's calls no longer resolve there, and
  // the helper's own module is lowered again from the new text.
  dir.write("mylib/copies.py", "def copy_into(src, dst, bar):\n  pass\n");
  project.fileChanged(copies);
  text = project.mlirText(mainPath);
  EXPECT_EQ(linesWith(text, {"pallas.call @copy_in"}).size(), 0u) << text;
  EXPECT_TRUE(verifyModule(project, mainPath));
  helperText = project.mlirText(copies);
  EXPECT_NE(helperText.find("@copy_into "), std::string::npos) << helperText;
  EXPECT_EQ(helperText.find("@copy_in "), std::string::npos) << helperText;
}

TEST(CrossFile, WorkspaceIndexFindsFiles) {
  TempDir dir;
  dir.write("a.py", "def f():\n  pass\n");
  dir.write("pkg/b.py", "from a import f\n");
  dir.write(".venv/lib/site.py", "x = 1\n");
  dir.write("node_modules/x.py", "x = 1\n");
  ProjectOptions options;
  options.workspaceRoots.push_back(dir.path());
  Project project(options);
  EXPECT_EQ(project.indexWorkspace(), 2u);
  auto deps = project.dependents(dir.path() + "/a.py");
  ASSERT_EQ(deps.size(), 1u);
  EXPECT_EQ(deps[0], dir.path() + "/pkg/b.py");
}

TEST(Robustness, SyntaxErrorInTheMiddleLeavesOthersAnalysed) {
  std::string text = lowerToText(R"py(
from jax.experimental.pallas import mosaic_gpu as plgpu
def first(x_ref, s, b):
  plgpu.copy_gmem_to_smem(x_ref, s, b)

def broken(x_ref:
  plgpu.barrier_wait(x_ref
  y = = 3

def last(x_ref, s, b):
  plgpu.copy_smem_to_gmem(s, x_ref)
)py");
  EXPECT_EQ(linesWith(text, {"pallas.prim \"plgpu.copy_gmem_to_smem\"", "origins [arg"}).size(), 1u)
      << text;
  EXPECT_EQ(
      linesWith(text, {"pallas.prim \"plgpu.copy_smem_to_gmem\"", "origins [arg, arg]"}).size(), 1u)
      << text;
  EXPECT_GE(count(text, "pallas.func def @last"), 1u);
  Project p;
  p.setDocument("/v/t.py", "def f(:\n  (((\n");
  EXPECT_TRUE(verifyModule(p, "/v/t.py"));
}

TEST(Robustness, NonAsciiCommentsOnlyAndEmpty) {
  std::string text = lowerToText(
      "# ядро — カーネル\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n"
      "def kernel_ñ(x_ref, s, b):\n  msg = \"é→✓\"; plgpu.copy_gmem_to_smem(x_ref, s, b)\n");
  // Columns are UTF-8 bytes + 1: `  msg = "é→✓"; ` is 2+3+3+1+2+3+3+1+1+1 = 20 bytes.
  auto copy = linesWith(text, {"plgpu.copy_gmem_to_smem"});
  ASSERT_EQ(copy.size(), 1u) << text;
  EXPECT_NE(copy[0].find("t.py\":4:21)"), std::string::npos) << copy[0];
  EXPECT_EQ(count(text, "kernel_\\C3\\B1"), 1u) << text; // MLIR escapes non-ASCII symbol bytes

  Project p;
  for (const char* src :
       {"", "# only\n# comments\n", "\n\n\n", "\xff\xfe\x00garbage", "\"\"\"unterminated"}) {
    p.setDocument("/v/e.py", src);
    EXPECT_TRUE(verifyModule(p, "/v/e.py")) << src;
  }
  p.setDocument("/v/e.py", "# only\n# comments\n");
  EXPECT_EQ(p.lastUpdate("/v/e.py").functionsTotal, 0u);
}

// Regression: a name assigned in every branch of an if/elif/else chain gets a
// join op after each pallas.if, so the chain must not take "the block's last
// op" for the if it just built (it did, and crashed on ordinary stdlib code).
TEST(Robustness, ElifChainAssigningTheSameNameLowersAndVerifies) {
  std::string text = lowerToText("def f(value):\n"
                                 "    if value[0]:\n        a = g(value)\n"
                                 "    elif value[1]:\n        a = h(value)\n"
                                 "    elif value[2]:\n        a = j(value)\n"
                                 "    else:\n        a = k(value)\n"
                                 "    return a\n");
  EXPECT_EQ(count(text, "pallas.if"), 3u) << text;
  for (const char* callee : {"\"g\"", "\"h\"", "\"j\"", "\"k\""})
    EXPECT_EQ(linesWith(text, {"pallas.global", callee}).size(), 1u) << callee << "\n" << text;
}

TEST(Robustness, DeeplyNestedExpressionDoesNotOverflow) {
  std::string src = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  src += "y = " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  Project p;
  p.setDocument("/v/deep.py", src);
  EXPECT_TRUE(verifyModule(p, "/v/deep.py"));
}

TEST(Robustness, FiveMegabyteFile) {
  std::string src = "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas "
                    "import mosaic_gpu as plgpu\n";
  unsigned n = 0;
  while (src.size() < 5 * 1024 * 1024) {
    src += "def kernel_" + std::to_string(n) +
           "(x_ref, o_ref, s, b):\n"
           "  plgpu.copy_gmem_to_smem(x_ref, s, b)\n  plgpu.barrier_wait(b)\n"
           "  @pl.when(pl.program_id(0) == " +
           std::to_string(n % 7) +
           ")\n  def _():\n"
           "    o_ref[...] = s[...] * 2 + x_ref[...]\n\n";
    ++n;
  }
  Project p;
  UpdateStats s = p.setDocument("/v/big.py", src);
  EXPECT_EQ(s.functionsTotal, n + 2);
  EXPECT_TRUE(s.verified);
  EXPECT_TRUE(verifyModule(p, "/v/big.py"));
  std::string text = p.mlirText("/v/big.py");
  EXPECT_EQ(count(text, "pallas.prim \"plgpu.copy_gmem_to_smem\""), n);
}

} // namespace
