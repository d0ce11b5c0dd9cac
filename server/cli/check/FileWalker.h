// Which files `pallas-lsp check PATH...` analyses. Files named on the command
// line are always checked, whatever their name. Folders are walked for `.py`
// and `.ipynb` (Jupyter notebook) files, skipping: hidden entries, virtual environments (a folder
// holding `pyvenv.cfg`), the configuration's `exclude`/`extend-exclude` (whose defaults cover
// `venv`, `site-packages`, `node_modules`, `__pycache__`, ...), and paths ignored by .gitignore
// files. Symbolic links to folders are not followed (no cycles, no walking out of the tree).
#pragma once

#include "config/Config.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pallas::check {

struct WalkResult {
  std::vector<std::filesystem::path> files; // absolute, lexically normal, sorted, unique
  std::vector<std::string> errors;          // "path: reason", for paths that could not be read
};

// `paths` may be relative (to the current folder). Throws ConfigError from
// the resolver.
WalkResult discoverFiles(const std::vector<std::filesystem::path>& paths,
                         const ConfigResolver& configs);

// The absolute, lexically normal form of a path given by the user.
std::filesystem::path normalisePath(const std::filesystem::path& path);

// The deepest folder containing every path (a file contributes its folder).
std::filesystem::path commonRoot(const std::vector<std::filesystem::path>& absolutePaths);

} // namespace pallas::check
