// Which module-level functions of a Python file can be run by `pallas.run`
// (the code lenses "Run on GPU", "Run interpreted", "Compare").
//
// A line scanner, not the analysis: lenses are asked for on every scroll and
// must not wait for the analysis lock, and the runner itself (which uses
// Python's ast) is the authority on what an entry is. The rules mirror it:
// an entry is a module-level function without required parameters that
// launches a kernel, is marked `# pallas-lsp: entry` (on the def line, a
// decorator line or the comment lines right above), or is `main` / `test_*`.
// A launching function that needs arguments gets the lenses of the entry
// that calls it, when the file has one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pallas::server::runner {

struct RunTarget {
  std::string function; // where the lens is shown
  unsigned line = 0;    // 0-based line of its `def`
  std::string entry;    // what pallas.run runs (itself, or an entry calling it)
  std::string why;      // "launches a kernel", "marked", "main", "test", "calls f"
};

std::vector<RunTarget> findRunTargets(std::string_view source);

} // namespace pallas::server::runner
