// Which module-level functions get the "Run on GPU" lenses (RunnerEntries.h):
// a function without required parameters that launches a kernel, one marked
// `# pallas-lsp: entry`, `main` and `test_*`; a launching function that needs
// arguments gets the lenses of the entry that calls it.
#include "RunnerEntries.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace pallas::server::runner {
namespace {

std::string describe(const std::vector<RunTarget>& targets) {
  std::string out;
  for (const RunTarget& t : targets)
    out += t.function + "@" + std::to_string(t.line) + "->" + t.entry + " (" + t.why + ")\n";
  return out;
}

TEST(RunnerEntries, EntriesAreFunctionsThatCanRunWithoutArguments) {
  const char* source = R"(import jax
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...]

def launch(x):
  return pl.pallas_call(kernel, out_shape=x)(x)

def demo(n=8):
  return pl.pallas_call(kernel, out_shape=n)(n)

# pallas-lsp: entry
def marked(x):
  return x

def main():
  return launch(1)

def test_copy():
  pass

def helper(y):
  return y
)";
  std::vector<RunTarget> t = findRunTargets(source);
  EXPECT_EQ(describe(t), "launch@6->main (called by main)\n"
                         "demo@9->demo (launches a kernel)\n"
                         "marked@13->marked (marked)\n"
                         "main@16->main (launches a kernel)\n"
                         "test_copy@19->test_copy (test)\n")
      << "kernel and helper are no entries; main launches through launch()";
}

TEST(RunnerEntries, NestedAndIndentedDefsAreNotModuleFunctions) {
  const char* source = R"(class K:
  def main(self):
    pass

def outer():
  def main():
    pass
  return main
)";
  EXPECT_EQ(describe(findRunTargets(source)), "");
}

// Each spelling of a launch the runner forces into a mode, and the ones that
// only look like it (a longer name, `kernel` of another module).
TEST(RunnerEntries, EveryLaunchSpellingMakesAnEntry) {
  const char* source = R"(def a():
  return pl.pallas_call(k, out_shape=o)(x)

def b():
  return plgpu . kernel(k, out_shape=o)(x)

def c():
  return (pl.
          kernel(k, out_shape=o, mesh=m))(x)

async   def d():
  return jax.shard_map(core_map(m)(k))

def e():
  f = functools.partial(mgpu.kernel, k)

def   f  ():
  @pl.kernel(out_shape=o, mesh=m)
  def body(o_ref): pass

def no_longer_name():
  return my_pallas_call(k)

def no_other_module():
  return jnp.kernel(k) + plgpux.kernel(k)

def no_attribute_of_it():
  return pl.kernels(k)

def 9bad():
  return pl.pallas_call(k)

defx g():
  return pl.pallas_call(k)
)";
  EXPECT_EQ(describe(findRunTargets(source)), "a@0->a (launches a kernel)\n"
                                              "b@3->b (launches a kernel)\n"
                                              "c@6->c (launches a kernel)\n"
                                              "d@10->d (launches a kernel)\n"
                                              "e@13->e (launches a kernel)\n"
                                              "f@16->f (launches a kernel)\n");
}

} // namespace
} // namespace pallas::server::runner
