// The user's Python files under the workspace roots: what the analysis may
// import from, and what the language server's index of callers reads.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace pallas::analysis {

// Every *.py under `roots` (absolute, lexically normal), skipping hidden
// folders, virtual environments, site-packages, node_modules and
// __pycache__: installed packages are never the user's callers or helpers.
// Empty once `cancel` becomes true.
std::vector<std::string> workspacePythonFiles(const std::vector<std::string>& roots,
                                              const std::atomic<bool>* cancel = nullptr);

} // namespace pallas::analysis
