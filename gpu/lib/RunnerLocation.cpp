// Which Python runs a kernel and where the runner script is: the explicit
// interpreter, the project's own environment, $PALLAS_LSP_PYTHON or python3;
// the runner next to the binary or in the source tree.
#include "pallas/gpu/Runner.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#ifndef PALLAS_LSP_RUNNER_SOURCE
#define PALLAS_LSP_RUNNER_SOURCE ""
#endif

namespace pallas::gpu {
namespace fs = std::filesystem;

std::string resolvePython(const std::string& explicitPython, const std::string& detected) {
  if (!explicitPython.empty())
    return explicitPython;
  if (const char* env = std::getenv("PALLAS_LSP_PYTHON"); env != nullptr && *env != '\0')
    return env;
  if (!detected.empty())
    return detected;
  return "python3";
}

std::string detectProjectPython(const std::vector<std::string>& workspaceRoots) {
  auto usable = [](const fs::path& prefix) {
    fs::path python = prefix / "bin" / "python";
    return ::access(python.c_str(), X_OK) == 0 ? python.string() : std::string();
  };
  for (const std::string& root : workspaceRoots)
    for (const char* name : {".venv", "venv", "env"})
      if (std::string p = usable(fs::path(root) / name); !p.empty())
        return p;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* prefix = std::getenv(var); prefix != nullptr && *prefix != '\0')
      if (std::string p = usable(prefix); !p.empty())
        return p;
  return "";
}

std::string locateRunnerScript() {
  if (const char* env = std::getenv("PALLAS_LSP_RUNNER"); env != nullptr && *env != '\0')
    return env;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed =
        exe.parent_path().parent_path() / "share" / "pallas-lsp" / "pallas_lsp_runner.py";
    if (fs::exists(installed, error))
      return installed.string();
  }
  const fs::path source = PALLAS_LSP_RUNNER_SOURCE;
  if (!source.empty() && fs::exists(source, error))
    return source.string();
  return "";
}

} // namespace pallas::gpu
