// Where a Python import looks for a module among the user's files: the one
// rule shared by the analysis (Project's module resolution) and by `check`'s
// cheap import pre-pass (which files an import may bring in), so the two can
// never disagree about which file `from .m import x` names.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace pallas::analysis {

// The files `dotted` may be, in the order Python's import would try them:
// for each base folder, the module file `base/a/b.py` then the package
// `base/a/b/__init__.py`. A relative import (level > 0) has one base: the
// importing file's folder, one step up per extra dot. An absolute one
// (level 0) tries the importing file's folder first (a script's own folder
// is on sys.path), then each of `roots` (the workspace). An empty `dotted`
// (`from . import m`) names the base folder itself, a package only.
// Lexically normal paths; existence is the caller's question.
std::vector<std::filesystem::path>
moduleCandidates(std::string_view dotted, int level, const std::filesystem::path& fromFile,
                 const std::vector<std::filesystem::path>& roots);

// A module the analysis never looks for among the user's files: it knows
// their APIs by name (`jax`, `jax.*`, `functools`, `functools.*`).
bool resolvedByName(std::string_view module);

} // namespace pallas::analysis
