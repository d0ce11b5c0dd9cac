#include "FileWalker.h"

#include "Gitignore.h"

#include <algorithm>
#include <system_error>

namespace fs = std::filesystem;

namespace pallas::check {

fs::path normalisePath(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec)
    absolute = path;
  fs::path normal = absolute.lexically_normal();
  // "dir/" normalises to "dir/" (empty last component); drop it.
  if (normal.has_parent_path() && normal.filename().empty())
    normal = normal.parent_path();
  return normal;
}

fs::path commonRoot(const std::vector<fs::path>& absolutePaths) {
  std::optional<fs::path> root;
  std::error_code ec;
  for (const fs::path& p : absolutePaths) {
    fs::path folder = fs::is_directory(p, ec) ? p : p.parent_path();
    if (!root) {
      root = folder;
      continue;
    }
    fs::path common;
    auto a = root->begin(), b = folder.begin();
    for (; a != root->end() && b != folder.end() && *a == *b; ++a, ++b)
      common /= *a;
    root = common;
  }
  return root.value_or(fs::current_path(ec));
}

namespace {

bool isPythonFile(const fs::path& p) {
  // Jupyter notebooks too: their code cells are checked as one module.
  return p.extension() == ".py" || p.extension() == ".ipynb";
}

class Walker {
public:
  Walker(const ConfigResolver& configs, WalkResult& out) : configs_(configs), out_(out) {}

  void walk(const fs::path& folder, const GitignoreStack& ignores) {
    std::error_code ec;
    fs::directory_iterator it(folder, fs::directory_options::none, ec);
    if (ec) {
      out_.errors.push_back(folder.string() + ": " + ec.message());
      return;
    }
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec)
        break;
      entries.push_back(*it);
    }
    if (ec)
      out_.errors.push_back(folder.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path() < b.path(); });
    std::shared_ptr<const Config> config = configs_.forPath(folder, /*isDirectory=*/true);
    for (const fs::directory_entry& entry : entries) {
      const fs::path& path = entry.path();
      std::string name = path.filename().string();
      if (name.empty() || name[0] == '.')
        continue; // hidden
      std::error_code typeEc;
      bool isLink = entry.is_symlink(typeEc);
      bool isDir = !isLink && entry.is_directory(typeEc);
      if (isDir) {
        if (config->excluded(path))
          continue;
        if (fs::exists(path / "pyvenv.cfg", typeEc))
          continue; // a virtual environment
        if (config->respectGitignore && ignores.ignored(path, true))
          continue;
        walk(path, config->respectGitignore ? ignores.enter(path, &out_.errors) : ignores);
      } else if (isPythonFile(path) && entry.is_regular_file(typeEc)) {
        if (config->excluded(path))
          continue;
        if (config->respectGitignore && ignores.ignored(path, false))
          continue;
        out_.files.push_back(path);
      }
    }
  }

private:
  const ConfigResolver& configs_;
  WalkResult& out_;
};

} // namespace

WalkResult discoverFiles(const std::vector<fs::path>& paths, const ConfigResolver& configs) {
  WalkResult result;
  Walker walker(configs, result);
  for (const fs::path& given : paths) {
    fs::path path = normalisePath(given);
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      result.errors.push_back(given.string() + ": " +
                              (ec ? ec.message() : std::string("no such file or directory")));
      continue;
    }
    if (fs::is_directory(status)) {
      GitignoreStack ignores;
      if (configs.forPath(path, true)->respectGitignore)
        ignores = GitignoreStack::forFolder(path, &result.errors);
      walker.walk(path, ignores);
    } else {
      result.files.push_back(path); // named explicitly: always checked
    }
  }
  std::sort(result.files.begin(), result.files.end());
  result.files.erase(std::unique(result.files.begin(), result.files.end()), result.files.end());
  return result;
}

} // namespace pallas::check
