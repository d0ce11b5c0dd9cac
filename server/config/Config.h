// `[tool.pallas-lsp]` in pyproject.toml, found like ruff finds `[tool.ruff]`:
// the nearest pyproject.toml upward from a file that has the table (one
// without it is skipped). Keys:
//   select = ["PLS"]                     codes or prefixes to report ("ALL")
//   ignore = ["PLS003"]                  codes or prefixes not to report
//   exclude = ["generated"]              replaces the default excludes
//   extend-exclude = ["tests/data/*.py"] adds to them
//   per-file-ignores = { "tests/*" = ["PLS003"] }
//   python = ".venv/bin/python"          interpreter whose JAX the knowledge comes from
//   respect-gitignore = true
//   [tool.pallas-lsp.severity]
//   PLS003 = "error"                     error | warning | information | hint
// Patterns are relative to the folder of the pyproject.toml. Anything else
// in the table, or a value of the wrong type, is an error with file:line:col.
// The LSP server uses the same resolver so the editor and CI agree.
#pragma once

#include "Glob.h"
#include "Rules.h"
#include "pallas/analysis/Finding.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pallas::check {

// A configuration that cannot be used; what() is "path:line:col: reason".
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The default `exclude` (ruff's idea: `exclude` replaces it,
// `extend-exclude` adds to it). Hidden paths and folders holding a
// `pyvenv.cfg` are skipped regardless (see FileWalker).
const std::vector<std::string>& defaultExcludes();

struct Config {
  std::filesystem::path file; // the pyproject.toml; empty for the defaults
  std::filesystem::path root; // its folder: patterns are relative to it
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
  std::vector<PathPattern> exclude; // defaults unless `exclude` is set
  std::vector<PathPattern> extendExclude;
  std::vector<std::pair<PathPattern, std::vector<std::string>>> perFileIgnores;
  std::optional<std::string> python;
  bool respectGitignore = true;
  std::vector<std::pair<std::string, analysis::Severity>> severity; // selector -> severity

  Config();
  // Is `path` (absolute) excluded by `exclude`/`extend-exclude`? Paths
  // outside `root` are matched by their last component only.
  bool excluded(const std::filesystem::path& path) const;
  // Codes (prefixes) that per-file-ignores switch off for `file` (absolute).
  std::vector<std::string> ignoredFor(const std::filesystem::path& file) const;
  // The severity override for `code`, if any (the longest selector wins).
  std::optional<analysis::Severity> severityFor(std::string_view code) const;
};

// Parses pyproject.toml text. Returns nullopt when it has no
// [tool.pallas-lsp] table. Throws ConfigError.
std::optional<Config> parsePyproject(std::string_view text, const std::filesystem::path& file);
// Reads and parses a file; throws ConfigError (also when it cannot be read).
std::optional<Config> loadPyproject(const std::filesystem::path& file);

// Finds the configuration for each file, caching per folder. Thread-safe.
class ConfigResolver {
public:
  // Nearest pyproject.toml with [tool.pallas-lsp] upward from each path.
  static ConfigResolver discover();
  // One file for everything (`--config FILE`); the file need not have the
  // table (then defaults apply, rooted at its folder). Throws ConfigError.
  static ConfigResolver fixed(const std::filesystem::path& file);
  // Defaults only (`--no-config`), rooted at `root`.
  static ConfigResolver none(const std::filesystem::path& root);

  // The configuration for a file or folder (absolute). Throws ConfigError.
  std::shared_ptr<const Config> forPath(const std::filesystem::path& path,
                                        bool isDirectory = false) const;

private:
  struct State {
    std::mutex mutex;
    std::map<std::filesystem::path, std::shared_ptr<const Config>> byFolder;
  };
  std::shared_ptr<const Config> fixed_; // set for fixed() and none()
  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::shared_ptr<const Config> defaults_ = std::make_shared<Config>();
};

} // namespace pallas::check
