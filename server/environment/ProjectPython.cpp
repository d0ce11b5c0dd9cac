#include "ProjectPython.h"

#include "config/Config.h"

#include <filesystem>

namespace pallas::server::environment {
namespace fs = std::filesystem;

std::optional<std::string> projectPython(const std::string& near, std::string* why) {
  if (near.empty())
    return std::nullopt;
  try {
    std::error_code ec;
    fs::path at = fs::absolute(near, ec);
    if (ec)
      return std::nullopt;
    // A fresh resolver each time: pyproject.toml may have changed since.
    auto config = check::ConfigResolver::discover().forPath(at, fs::is_directory(at, ec));
    if (!config || !config->python || config->python->empty())
      return std::nullopt;
    fs::path p(*config->python);
    if (p.is_relative() && p.has_parent_path())
      return (config->root / p).lexically_normal().string();
    return p.string();
  } catch (const check::ConfigError& error) {
    if (why)
      *why = error.what();
    return std::nullopt;
  }
}

} // namespace pallas::server::environment
