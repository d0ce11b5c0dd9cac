// Incremental modules: what an edit lowers again, that reused functions keep
// correct locations, and that the module verifies after every update.
#include "AnalysisTestUtil.h"

#include <gtest/gtest.h>
#include <random>

using namespace pallas::analysis;
using namespace pallas::analysis::test;

namespace {

std::string manyFunctions(unsigned n) {
  std::string src = "from jax.experimental import pallas as pl\n"
                    "from jax.experimental.pallas import mosaic_gpu as plgpu\n\n";
  for (unsigned i = 0; i < n; ++i)
    src += "def kernel_" + std::to_string(i) +
           "(x_ref, o_ref, smem, barrier):\n"
           "  plgpu.copy_gmem_to_smem(x_ref, smem, barrier)\n"
           "  plgpu.barrier_wait(barrier)\n"
           "  o_ref[...] = smem[...] + " +
           std::to_string(i) + "\n\n";
  return src;
}

ByteEdit replaceAt(const std::string& text, const std::string& needle, const std::string& with) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return ByteEdit{at, at + needle.size(), with};
}

TEST(Incremental, EditingOneOf200FunctionsRelowersOne) {
  Project p;
  const std::string path = "/v/many.py";
  std::string src = manyFunctions(200);
  UpdateStats first = p.setDocument(path, src);
  EXPECT_EQ(first.functionsTotal, 202u); // 2 imports + 200 defs
  EXPECT_EQ(first.functionsRelowered, 202u);

  // One character inside kernel_117's body.
  UpdateStats s = p.editDocument(path, {replaceAt(src, "smem[...] + 117", "smem[...] - 117")});
  EXPECT_EQ(s.functionsRelowered, 1u);
  EXPECT_EQ(s.functionsTotal, 202u);
  EXPECT_TRUE(s.verified);
  EXPECT_TRUE(verifyModule(p, path));
  EXPECT_NE(p.documentText(path).find("smem[...] - 117"), std::string::npos);

  // The same edit again is a no-op for the module: nothing changes text.
  src = p.documentText(path);
  s = p.editDocument(path, {});
  EXPECT_EQ(s.functionsRelowered, 0u);
}

TEST(Incremental, LinesInsertedAboveMoveReusedLocations) {
  Project p;
  const std::string path = "/v/shift.py";
  std::string src = manyFunctions(3);
  p.setDocument(path, src);
  std::string before = p.mlirText(path);
  // kernel_2's copy is on line 5 + 5*2 = 15.
  EXPECT_EQ(linesWith(before, {"plgpu.copy_gmem_to_smem", "shift.py\":15:3"}).size(), 1u) << before;
  UpdateStats s = p.editDocument(path, {ByteEdit{0, 0, "# a\n# b\n"}});
  EXPECT_EQ(s.functionsRelowered, 0u) << "no unit's text changed";
  std::string after = p.mlirText(path);
  EXPECT_EQ(linesWith(after, {"plgpu.copy_gmem_to_smem", "shift.py\":17:3"}).size(), 1u) << after;
  // kernel_0's parameters are located at its def, now line 6.
  EXPECT_EQ(count(before, "shift.py\":6:1)"), 0u);
  EXPECT_EQ(count(after, "%arg0: !pallas.value loc(\"/v/shift.py\":6:1)"), 1u) << after;
  EXPECT_TRUE(verifyModule(p, path));
}

TEST(Incremental, ChangedImportRelowersItsUsersOnly) {
  Project p;
  const std::string path = "/v/imports.py";
  std::string src = "from jax.experimental import pallas as pl\n"
                    "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                    "def a(x, s, b):\n  plgpu.copy_gmem_to_smem(x, s, b)\n"
                    "def b(x):\n  return x + 1\n"
                    "def c(b):\n  plgpu.barrier_wait(b)\n";
  p.setDocument(path, src);
  // plgpu now names something else: a and c change meaning, b does not.
  UpdateStats s =
      p.editDocument(path, {replaceAt(src, "import mosaic_gpu as plgpu", "import tpu as plgpu")});
  EXPECT_EQ(s.functionsRelowered, 3u); // the import statement, a, c
  std::string text = p.mlirText(path);
  EXPECT_EQ(count(text, "plgpu.copy_gmem_to_smem"), 0u) << text;
  EXPECT_EQ(count(text, "pallas.prim \"pl.tpu.copy_gmem_to_smem\""), 1u) << text;
}

TEST(Incremental, DuplicateNamesKeepTheLastDefinition) {
  Project p;
  const std::string path = "/v/dup.py";
  std::string src = "def f():\n  return 1\n\ndef f():\n  return 2\n\ndef g():\n  return f()\n";
  p.setDocument(path, src);
  std::string text = p.mlirText(path);
  EXPECT_EQ(count(text, "pallas.func def @f$1 "), 1u) << text;
  // @f is the second definition (it returns 2), @f$1 the first.
  size_t f = text.find("pallas.func def @f attributes"), f1 = text.find("pallas.func def @f$1 ");
  ASSERT_NE(f, std::string::npos);
  ASSERT_NE(f1, std::string::npos);
  EXPECT_NE(text.find("pallas.constant int \"2\"", f), std::string::npos);
  EXPECT_LT(text.find("pallas.constant int \"1\"", f1), f);
  EXPECT_TRUE(verifyModule(p, path));
  // Removing the second definition gives the first its name back.
  std::string second = "def f():\n  return 2\n\n";
  size_t at = src.find(second);
  UpdateStats s = p.editDocument(path, {ByteEdit{at, at + second.size(), ""}});
  EXPECT_EQ(s.functionsRelowered, 0u);
  text = p.mlirText(path);
  EXPECT_EQ(count(text, "$1"), 0u) << text;
  EXPECT_TRUE(verifyModule(p, path));
}

// Random edits (typing, deleting, pasting fragments) over a kernel file: the
// module verifies after every update, and matches a from-scratch lowering.
TEST(Incremental, VerifierAfterEveryRandomEdit) {
  const std::string path = "/v/random.py";
  std::string src = manyFunctions(6) + R"py(
import functools
@functools.partial(pl.pallas_call, out_shape=None, interpret=True)
def decorated(x_ref, o_ref):
  @pl.when(True)
  def _():
    o_ref[...] = x_ref[...]
)py";
  const std::vector<std::string> fragments = {
      "(",           ")",  ":", "\n", "  ", "def ", "x", "[...]", "plgpu.", "@pl.loop(0, 4)\n",
      "lambda r: r", "\"", "#", "é",  "\t"};
  Project p;
  p.setDocument(path, src);
  std::mt19937 rng(1234);
  for (int i = 0; i < 300; ++i) {
    std::string text = p.documentText(path);
    size_t start = text.empty() ? 0 : rng() % (text.size() + 1);
    size_t len = rng() % 3 == 0 ? std::min<size_t>(rng() % 8, text.size() - start) : 0;
    std::string ins = rng() % 4 == 0 ? "" : fragments[rng() % fragments.size()];
    UpdateStats s = p.editDocument(path, {ByteEdit{start, start + len, ins}});
    ASSERT_TRUE(s.verified) << "edit " << i;
    ASSERT_TRUE(verifyModule(p, path)) << "edit " << i << "\n" << p.documentText(path);
  }
}

void expectSameAsFresh(Project& p, const std::string& path, const std::string& what) {
  std::string incremental = p.mlirText(path);
  Project fresh;
  fresh.setDocument(path, p.documentText(path));
  std::string scratch = fresh.mlirText(path);
  if (incremental == scratch)
    return;
  auto a = linesWith(incremental, {""}), b = linesWith(scratch, {""});
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k])
    ++k;
  ADD_FAILURE() << what << " diverges at line " << k
                << ":\n  incremental: " << (k < a.size() ? a[k] : "")
                << "\n  fresh:       " << (k < b.size() ? b[k] : "") << "\ntext:\n"
                << p.documentText(path);
}

// Edits that keep the file valid Python (renumbering, moving and deleting
// functions, blank lines, import changes): after each, the incrementally
// kept module is exactly what a fresh lowering of the text gives. (With
// syntax errors tree-sitter's incremental recovery may differ from a fresh
// parse, so broken text is only verified, above.)
TEST(Incremental, ValidEditsMatchFreshLowering) {
  const std::string path = "/v/valid.py";
  Project p;
  p.setDocument(path, manyFunctions(12));
  std::mt19937 rng(99);
  for (int i = 0; i < 120; ++i) {
    std::string text = p.documentText(path);
    std::vector<size_t> defs;
    for (size_t at = text.find("\ndef "); at != std::string::npos; at = text.find("\ndef ", at + 1))
      defs.push_back(at + 1);
    ByteEdit e;
    switch (rng() % 6) {
    case 0: { // a digit in a body
      size_t at = text.find("+ ", defs[rng() % defs.size()]);
      e = ByteEdit{at + 2, at + 3, std::to_string(rng() % 10)};
      break;
    }
    case 1: { // blank lines at a random function boundary
      size_t at = defs[rng() % defs.size()];
      e = ByteEdit{at, at, std::string(1 + rng() % 3, '\n')};
      break;
    }
    case 2: { // delete a whole function
      if (defs.size() < 3)
        continue;
      size_t k = rng() % (defs.size() - 1);
      e = ByteEdit{defs[k], defs[k + 1], ""};
      break;
    }
    case 3: { // duplicate a function at the end (same name: shadowing)
      size_t k = rng() % (defs.size() - 1);
      e = ByteEdit{text.size(), text.size(), text.substr(defs[k], defs[k + 1] - defs[k])};
      break;
    }
    case 4: { // switch the plgpu import on and off
      std::string from = "import mosaic_gpu as plgpu", to = "import tpu as plgpu";
      size_t at = text.find(from);
      if (at == std::string::npos)
        std::swap(from, to), at = text.find(from);
      e = ByteEdit{at, at + from.size(), to};
      break;
    }
    default: { // a new function in the middle
      size_t at = defs[rng() % defs.size()];
      e = ByteEdit{at, at, "def extra_" + std::to_string(i) + "(r):\n  plgpu.barrier_wait(r)\n\n"};
    }
    }
    p.editDocument(path, {e});
    ASSERT_TRUE(verifyModule(p, path));
    expectSameAsFresh(p, path, "valid edit " + std::to_string(i));
    if (HasFailure())
      return;
  }
}

TEST(Incremental, EditsOutsideTheTextAreRejected) {
  Project p;
  p.setDocument("/v/x.py", "x = 1\n");
  EXPECT_THROW(p.editDocument("/v/x.py", {ByteEdit{3, 100, ""}}), std::out_of_range);
  EXPECT_THROW(p.editDocument("/v/nope.py", {}), std::invalid_argument);
  EXPECT_TRUE(verifyModule(p, "/v/x.py"));
}

TEST(Incremental, DebugLogSaysHowManyFunctionsWereLowered) {
  std::vector<std::string> lines;
  ProjectOptions o;
  o.debugLog = [&](const std::string& l) { lines.push_back(l); };
  Project p(o);
  std::string src = manyFunctions(4);
  p.setDocument("/v/log.py", src);
  p.editDocument("/v/log.py", {replaceAt(src, "smem[...] + 2", "smem[...] + 9")});
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("1 of 6 functions lowered again"), std::string::npos) << lines.back();
}

} // namespace

namespace {

const char* kWrapperSource = "from jax.experimental import pallas as pl\n"
                             "class Base:\n"
                             "  def pallas_call(self, *args, **kwargs):\n"
                             "    return pl.pallas_call(*args, **kwargs)\n"
                             "class T(Base):\n"
                             "  def test(self, x):\n"
                             "    def kernel(x_ref, o_ref):\n"
                             "      o_ref[...] = x_ref[...]\n"
                             "    return self.pallas_call(kernel, out_shape=x)(x)\n";

} // namespace

// A launch wrapper inherited from a base class makes `self.pallas_call(...)`
// a launch (docs/analysis.md §8.13); editing only the wrapper's body (no
// header of the caller changes) must re-lower the caller, both ways.
TEST(Incremental, EditingALaunchWrapperRelowersItsCallers) {
  Project p;
  const std::string path = "/v/wrapper.py";
  std::string src = kWrapperSource;
  p.setDocument(path, src);
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch \"pl.pallas_call\""), 1u) << p.mlirText(path);
  // The method no longer forwards to a launch: the call is a plain call.
  p.editDocument(path, {replaceAt(src, "return pl.pallas_call(*args, **kwargs)",
                                  "return print(*args, **kwargs)")});
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch"), 0u) << p.mlirText(path);
  EXPECT_TRUE(verifyModule(p, path));
  // And back: the launch is there again.
  std::string now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "return print(*args, **kwargs)",
                                  "return pl.pallas_call(*args, **kwargs)")});
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch \"pl.pallas_call\""), 1u) << p.mlirText(path);
  // A subclass line that drops the base: no wrapper, no launch.
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "class T(Base):", "class T:")});
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch"), 0u) << p.mlirText(path);
  EXPECT_TRUE(verifyModule(p, path));
}

namespace {

const char* kKernelTakingWrapperSource = "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
                                         "class Base:\n"
                                         "  def pallas_call(self, kernel_fn, *, out_shape):\n"
                                         "    @plgpu.kernel(out_shape=out_shape)\n"
                                         "    def launched(*refs):\n"
                                         "      kernel_fn(*refs)\n"
                                         "    return launched\n"
                                         "class T(Base):\n"
                                         "  def test(self, x):\n"
                                         "    def kernel(x_ref, o_ref):\n"
                                         "      o_ref[...] = x_ref[...]\n"
                                         "    return self.pallas_call(kernel, out_shape=x)(x)\n";

} // namespace

// A kernel-taking wrapper (its caller passes the kernel, docs/analysis.md
// §8.13): the caller's call is a launch of the caller's kernel. Editing only
// the wrapper's body so that it no longer runs the kernel it is given must
// re-lower the caller, both ways.
TEST(Incremental, EditingAKernelTakingWrapperRelowersItsCallers) {
  Project p;
  const std::string path = "/v/kernel_wrapper.py";
  std::string src = kKernelTakingWrapperSource;
  p.setDocument(path, src);
  // The wrapper's own launch and the caller's.
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch \"plgpu.kernel\""), 2u) << p.mlirText(path);
  EXPECT_TRUE(verifyModule(p, path));
  p.editDocument(path, {replaceAt(src, "      kernel_fn(*refs)", "      print(*refs)")});
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch \"plgpu.kernel\""), 1u) << p.mlirText(path);
  std::string now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "      print(*refs)", "      kernel_fn(*refs)")});
  EXPECT_EQ(count(p.mlirText(path), "pallas.launch \"plgpu.kernel\""), 2u) << p.mlirText(path);
  EXPECT_TRUE(verifyModule(p, path));
}

namespace {

// The severities of the PLS001 findings of `path`, in order.
std::vector<Severity> pls001Severities(Project& p, const std::string& path) {
  std::vector<Severity> out;
  for (const Finding& f : p.findings(path))
    if (f.code == "PLS001")
      out.push_back(f.severity);
  return out;
}

std::string readFixture(const std::string& name) {
  return readFile(std::string(PALLAS_ANALYSIS_TEST_DIR) + "/../oracle/fixtures/" + name);
}

} // namespace

// What a module-level name holds is derived once per tree and reused by every
// launch's walk (names::moduleValue); each edit gives a new tree, so the value
// the next analysis sees is the edited one. The `global` rebinding run at
// module level is removed (the name may then hold either value: a "may"),
// restored, and edited inside the rebinding function's body, which alone
// decides the launch's interpret= (it is no launch's code).
TEST(Incremental, ModuleValuesFollowEveryEdit) {
  Project p;
  const std::string path = "/v/flow.py";
  p.setDocument(path, readFixture("flow_global_rebound_by_module_call.py"));
  auto severities = [&] { return pls001Severities(p, path); };
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
  std::string now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "\nenable_debug()\n", "\npass\n")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Warning});
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "\npass\n", "\nenable_debug()\n")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "  INTERPRET = True", "  INTERPRET = False")});
  EXPECT_EQ(severities(), std::vector<Severity>{});
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "  INTERPRET = False", "  INTERPRET = True")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
}

// A setter called before the launch in the launching function (8.39): only
// the setter's body (another unit, no launch's code) decides the launch's
// interpret=; editing it, or removing the call, lowers the caller again.
TEST(Incremental, AGlobalSetterCalledBeforeTheLaunchFollowsItsBody) {
  Project p;
  const std::string path = "/v/setter.py";
  p.setDocument(path, readFixture("flow_global_setter_called_before_launch.py"));
  auto severities = [&] { return pls001Severities(p, path); };
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
  std::string now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "  INTERPRET = True", "  INTERPRET = False")});
  EXPECT_EQ(severities(), std::vector<Severity>{});
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "  INTERPRET = False", "  INTERPRET = True")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
  // Without the call the setter may or may not have run: a "may".
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "  enable_debug()\n  x", "  pass\n  x")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Warning});
}

// A launch reading `self.interpret` depends on the calls that build the
// object, in another unit (8.25): editing only that call (typing inside a
// function body rebinds no name) still lowers the class's unit again.
TEST(Incremental, InstanceAttributeFollowsTheConstructionSite) {
  Project p;
  const std::string path = "/v/instance.py";
  p.setDocument(path, readFixture("flow_instance_init_positional_interpret.py"));
  auto severities = [&] { return pls001Severities(p, path); };
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
  std::string now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "Scaler(128, True)", "Scaler(128, False)")});
  EXPECT_EQ(severities(), std::vector<Severity>{});
  now = p.documentText(path);
  p.editDocument(path, {replaceAt(now, "Scaler(128, False)", "Scaler(128, True)")});
  EXPECT_EQ(severities(), std::vector<Severity>{Severity::Error});
}
