// libFuzzer target: arbitrary bytes as a Python document, then edits derived
// from the same bytes, through parse, lower, the MLIR verifier and the
// passes. Seeded with the repository's kernels (test/suites/80-sanitizers.sh)
// and test/fuzz/python.dict. Any crash,
// sanitizer report or verifier failure is a bug (bad input never kills the
// server).
#include "pallas/analysis/Project.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using pallas::analysis::ByteEdit;
using pallas::analysis::Project;
using pallas::analysis::verifyModule;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Project* project = new Project(); // reused, like a server's
  const std::string path = "/fuzz/input.py";
  std::string text(reinterpret_cast<const char*>(data), size);
  // Prefix with real Pallas so lowering of launches/scopes is exercised.
  static const std::string prelude = "import functools\nfrom jax.experimental import pallas as pl\n"
                                     "from jax.experimental.pallas import mosaic_gpu as plgpu\n";
  auto s = project->setDocument(path, prelude + text);
  if (!s.verified || !verifyModule(*project, path))
    std::abort();
  // The passes (discharge walk, path rules, PLS003/PLS004) on the module.
  (void)project->findings(path);
  // Edits: move a slice of the input to another place, a byte at a time.
  size_t docSize = prelude.size() + text.size();
  for (size_t i = 0; i + 2 < size && i < 24; i += 3) {
    size_t start = data[i] * docSize / 256;
    size_t len = data[i + 1] % 8;
    if (start + len > docSize)
      len = docSize - start;
    std::string ins(reinterpret_cast<const char*>(data + i + 2), 1);
    s = project->editDocument(path, {ByteEdit{start, start + len, ins}});
    docSize = docSize - len + 1;
    if (!s.verified || !verifyModule(*project, path))
      std::abort();
  }
  return 0;
}
