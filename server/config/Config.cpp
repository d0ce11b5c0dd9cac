#include "Config.h"

#include "TomlLimits.h"
#include "pallas/support/FileReading.h"

#include <sstream>
#include <system_error>

// toml++ (Debian's libtomlplusplus-dev) in header-only mode: the parser is
// compiled into this translation unit, so nothing needs linking.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

namespace fs = std::filesystem;

namespace pallas::check {

const std::vector<std::string>& defaultExcludes() {
  // Never destroyed: an analysis still running on the server's pool while the
  // process exits reads it after static destructors ran (ThreadSanitizer:
  // heap-use-after-free in Config::Config at exit).
  static const auto* excludes = new std::vector<std::string>{
      ".git",        ".hg",           ".svn",          ".venv",       "venv",
      ".tox",        ".nox",          ".mypy_cache",   ".ruff_cache", ".pytest_cache",
      "__pycache__", "site-packages", "node_modules",  "build",       "dist",
      "_build",      "buck-out",      "__pypackages__"};
  return *excludes;
}

Config::Config() {
  for (const std::string& p : defaultExcludes())
    exclude.emplace_back(p);
}

namespace {

// `path` relative to `root` ('/'-separated), or nullopt when not below it.
std::optional<std::string> relativeTo(const fs::path& path, const fs::path& root) {
  if (root.empty())
    return std::nullopt;
  fs::path rel = path.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..")
    return std::nullopt;
  if (rel == ".")
    return std::string();
  return rel.generic_string();
}

bool anyMatch(const std::vector<PathPattern>& patterns, const std::string& rel) {
  for (const PathPattern& p : patterns)
    if (p.matches(rel))
      return true;
  return false;
}

} // namespace

bool Config::excluded(const fs::path& path) const {
  std::string rel = relativeTo(path, root).value_or(path.filename().generic_string());
  if (rel.empty())
    return false; // the config folder itself
  return anyMatch(exclude, rel) || anyMatch(extendExclude, rel);
}

std::vector<std::string> Config::ignoredFor(const fs::path& file) const {
  std::vector<std::string> codes;
  std::string rel = relativeTo(file, root).value_or(file.filename().generic_string());
  for (const auto& [pattern, ignored] : perFileIgnores)
    if (pattern.matches(rel))
      codes.insert(codes.end(), ignored.begin(), ignored.end());
  return codes;
}

std::optional<analysis::Severity> Config::severityFor(std::string_view code) const {
  std::optional<analysis::Severity> best;
  size_t bestLen = 0;
  for (const auto& [selector, sev] : severity) {
    bool all = selector == "ALL";
    if (!all && code.substr(0, selector.size()) != selector)
      continue;
    size_t len = all ? 0 : selector.size();
    if (!best || len >= bestLen)
      best = sev, bestLen = len;
  }
  return best;
}

namespace {

[[noreturn]] void fail(const fs::path& file, const toml::source_region& where,
                       const std::string& reason) {
  std::ostringstream msg;
  msg << file.string() << ':' << where.begin.line << ':' << where.begin.column << ": " << reason;
  throw ConfigError(msg.str());
}

std::string keyName(std::string_view key) {
  return "tool.pallas-lsp." + std::string(key);
}

std::string requireString(const fs::path& file, const toml::node& node, const std::string& what) {
  if (auto s = node.value<std::string>(); s && node.is_string())
    return *s;
  fail(file, node.source(), what + " must be a string");
}

std::string requirePattern(const fs::path& file, const toml::node& node, const std::string& what) {
  std::string pattern = requireString(file, node, what);
  if (pattern.size() > kMaxGlobPatternLength)
    fail(file, node.source(),
         what + ": a pattern longer than " + std::to_string(kMaxGlobPatternLength) +
             " characters (no path is that long)");
  return pattern;
}

std::vector<std::string> requireStringArray(const fs::path& file, const toml::node& node,
                                            const std::string& what) {
  const toml::array* array = node.as_array();
  if (!array)
    fail(file, node.source(), what + " must be an array of strings");
  std::vector<std::string> out;
  for (const toml::node& item : *array)
    out.push_back(requireString(file, item, what + " entries"));
  return out;
}

std::vector<std::string> requirePatternArray(const fs::path& file, const toml::node& node,
                                             const std::string& what) {
  const toml::array* array = node.as_array();
  if (!array)
    fail(file, node.source(), what + " must be an array of strings");
  std::vector<std::string> out;
  for (const toml::node& item : *array)
    out.push_back(requirePattern(file, item, what + " entries"));
  return out;
}

std::vector<std::string> requireSelectors(const fs::path& file, const toml::node& node,
                                          const std::string& what) {
  std::vector<std::string> selectors = requireStringArray(file, node, what);
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < selectors.size(); ++i)
    if (auto error = validateSelector(selectors[i]))
      fail(file, array[i].source(), what + ": " + *error);
  return selectors;
}

analysis::Severity parseSeverity(const fs::path& file, const toml::node& node,
                                 const std::string& what) {
  std::string s = requireString(file, node, what);
  if (s == "error")
    return analysis::Severity::Error;
  if (s == "warning")
    return analysis::Severity::Warning;
  if (s == "information" || s == "info")
    return analysis::Severity::Information;
  if (s == "hint")
    return analysis::Severity::Hint;
  fail(file, node.source(),
       what + " must be one of error, warning, information, hint (got '" + s + "')");
}

} // namespace

std::optional<Config> parsePyproject(std::string_view text, const fs::path& file) {
  // Before toml++ sees it: a key path 100,000 tables deep overflowed its
  // stack (TomlLimits.h).
  if (auto limit = checkTomlLimits(text)) {
    std::ostringstream msg;
    msg << file.string() << ':' << limit->line << ':' << limit->column << ": " << limit->reason;
    throw ConfigError(msg.str());
  }
  toml::table doc;
  try {
    doc = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    fail(file, e.source(), "invalid TOML: " + std::string(e.description()));
  }
  const toml::node* tool = doc.get("tool");
  if (!tool || !tool->is_table())
    return std::nullopt;
  const toml::node* section = tool->as_table()->get("pallas-lsp");
  if (!section)
    return std::nullopt;
  const toml::table* table = section->as_table();
  if (!table)
    fail(file, section->source(), "tool.pallas-lsp must be a table");

  Config config;
  config.file = file;
  config.root = file.parent_path();
  for (const auto& [keyObj, node] : *table) {
    std::string_view key = keyObj.str();
    std::string what = keyName(key);
    if (key == "select") {
      config.select = requireSelectors(file, node, what);
    } else if (key == "ignore") {
      config.ignore = requireSelectors(file, node, what);
    } else if (key == "exclude") {
      config.exclude.clear();
      for (std::string& p : requirePatternArray(file, node, what))
        config.exclude.emplace_back(std::move(p));
    } else if (key == "extend-exclude") {
      for (std::string& p : requirePatternArray(file, node, what))
        config.extendExclude.emplace_back(std::move(p));
    } else if (key == "per-file-ignores") {
      const toml::table* map = node.as_table();
      if (!map)
        fail(file, node.source(), what + " must be a table of pattern = [codes]");
      for (const auto& [pattern, codes] : *map) {
        if (pattern.str().size() > kMaxGlobPatternLength)
          fail(file, pattern.source(),
               what + ": a pattern longer than " + std::to_string(kMaxGlobPatternLength) +
                   " characters (no path is that long)");
        config.perFileIgnores.emplace_back(
            PathPattern(std::string(pattern.str())),
            requireSelectors(file, codes, what + "." + std::string(pattern.str())));
      }
    } else if (key == "python") {
      config.python = requireString(file, node, what);
    } else if (key == "respect-gitignore") {
      if (!node.is_boolean())
        fail(file, node.source(), what + " must be true or false");
      config.respectGitignore = *node.value<bool>();
    } else if (key == "severity") {
      const toml::table* map = node.as_table();
      if (!map)
        fail(file, node.source(), what + " must be a table of CODE = \"severity\"");
      for (const auto& [code, value] : *map) {
        if (auto error = validateSelector(code.str()))
          fail(file, code.source(), what + ": " + *error);
        config.severity.emplace_back(
            std::string(code.str()),
            parseSeverity(file, value, what + "." + std::string(code.str())));
      }
    } else {
      fail(file, keyObj.source(),
           "unknown key '" + what +
               "' (known: select, ignore, exclude, extend-exclude, "
               "per-file-ignores, python, respect-gitignore, severity)");
    }
  }
  return config;
}

std::optional<Config> loadPyproject(const fs::path& file) {
  // A regular file of bounded size only: the repository chooses what is
  // named pyproject.toml (a FIFO would block, a link to /dev/zero never end).
  std::string why;
  std::optional<std::string> text = support::readSourceFile(file.string(), &why, kMaxTomlBytes);
  if (!text)
    throw ConfigError(file.string() + ": cannot read the configuration file: " + why);
  return parsePyproject(*text, file);
}

ConfigResolver ConfigResolver::discover() {
  return ConfigResolver();
}

ConfigResolver ConfigResolver::fixed(const fs::path& file) {
  ConfigResolver resolver;
  if (auto config = loadPyproject(file)) {
    resolver.fixed_ = std::make_shared<Config>(std::move(*config));
  } else {
    auto defaults = std::make_shared<Config>();
    defaults->file = file;
    defaults->root = file.parent_path();
    resolver.fixed_ = std::move(defaults);
  }
  return resolver;
}

ConfigResolver ConfigResolver::none(const fs::path& root) {
  ConfigResolver resolver;
  auto defaults = std::make_shared<Config>();
  defaults->root = root;
  resolver.fixed_ = std::move(defaults);
  return resolver;
}

std::shared_ptr<const Config> ConfigResolver::forPath(const fs::path& path,
                                                      bool isDirectory) const {
  if (fixed_)
    return fixed_;
  fs::path start = isDirectory ? path : path.parent_path();
  std::lock_guard lock(state_->mutex);
  // Walk up until a cached folder or a pyproject.toml with our table; then
  // remember the answer for every folder on the way.
  std::vector<fs::path> visited;
  std::shared_ptr<const Config> found;
  std::error_code ec;
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (auto it = state_->byFolder.find(dir); it != state_->byFolder.end()) {
      found = it->second;
      break;
    }
    visited.push_back(dir);
    fs::path candidate = dir / "pyproject.toml";
    if (fs::is_regular_file(candidate, ec)) {
      if (auto config = loadPyproject(candidate)) {
        found = std::make_shared<Config>(std::move(*config));
        break;
      }
    }
    if (dir == dir.parent_path() || dir.empty())
      break;
  }
  if (!found) {
    // No configuration anywhere up: defaults, rooted where the search began
    // so relative patterns still have a meaning.
    auto defaults = std::make_shared<Config>();
    defaults->root = visited.empty() ? start : visited.front();
    found = std::move(defaults);
  }
  for (const fs::path& dir : visited)
    state_->byFolder[dir] = found;
  return found;
}

} // namespace pallas::check
