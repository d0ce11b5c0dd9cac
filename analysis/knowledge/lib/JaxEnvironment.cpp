#include "pallas/knowledge/JaxEnvironment.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace pallas::knowledge {
namespace fs = std::filesystem;

namespace {

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool hasJax(const fs::path& site) {
  std::error_code ec;
  return fs::is_regular_file(site / "jax" / "__init__.py", ec);
}

// The first 64 KiB of a file (version.py is a few KiB; a planted huge or
// special file must not hang or exhaust the caller).
std::string head(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec))
    return {};
  std::ifstream in(p, std::ios::binary);
  std::string out(size_t{64} * 1024, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

bool plausibleVersion(const std::string& v) {
  return isSafeVersionText(v) && std::isdigit(static_cast<unsigned char>(v[0]));
}

} // namespace

bool isSafeVersionText(const std::string& v) {
  return !v.empty() && v.size() < 64 &&
         std::all_of(
             v.begin(), v.end(),
             [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' ||
                      c == '-' || c == '_';
             });
}

std::vector<std::pair<std::string, std::string>> candidateEnvironments(const EnvironmentQuery& q) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const fs::path& root, const std::string& via) {
    if (root.empty() || !isDir(root))
      return;
    std::string s = root.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/')
      s.pop_back();
    for (const auto& [have, _] : out)
      if (have == s)
        return;
    out.emplace_back(s, via);
  };
  if (!q.configuredPython.empty()) {
    fs::path py(q.configuredPython);
    // <env>/bin/python (venv, uv, conda); not resolved through symlinks: a
    // venv's python links to the base interpreter, outside the environment.
    if (py.has_parent_path() && py.parent_path().filename() == "bin")
      add(py.parent_path().parent_path(), "python setting");
    else if (py.has_parent_path())
      add(py.parent_path(), "python setting"); // Windows-style <env>/python.exe
  }
  for (const std::string& root : q.workspaceRoots)
    for (const char* name : {".venv", "venv", "env"})
      add(fs::path(root) / name, std::string("workspace ") + name);
  if (q.processEnvironment)
    for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
      if (const char* v = std::getenv(var); v && *v)
        add(v, std::string("$") + var);
  return out;
}

std::vector<std::string> sitePackagesWithJax(const std::string& environment) {
  std::vector<std::string> out;
  fs::path env(environment);
  if (hasJax(env)) // the root is itself a site-packages directory
    out.push_back(env.string());
  for (const char* lib : {"lib", "lib64"}) {
    std::error_code ec;
    std::vector<fs::path> pythons;
    for (fs::directory_iterator it(env / lib, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind("python3", 0) == 0)
        pythons.push_back(it->path());
    }
    // Newest first when an environment holds several (python3.13 before python3.12).
    std::sort(pythons.begin(), pythons.end(), [](const fs::path& a, const fs::path& b) {
      auto minor = [](const fs::path& p) {
        std::string n = p.filename().string().substr(7);
        int v = 0;
        if (n.size() > 1 && n[0] == '.' && // "python3.11" -> 11
            std::from_chars(n.data() + 1, n.data() + n.size(), v).ec != std::errc())
          return 0;
        return v;
      };
      return minor(a) > minor(b);
    });
    for (const fs::path& py : pythons)
      if (hasJax(py / "site-packages"))
        out.push_back((py / "site-packages").string());
  }
  if (hasJax(env / "Lib" / "site-packages"))
    out.push_back((env / "Lib" / "site-packages").string());
  return out;
}

std::optional<std::string> jaxVersionAt(const std::string& sitePackages) {
  static const std::regex assign(R"re((?:^|\n)_version\s*(?::\s*str\s*)?=\s*["']([^"'\n]+)["'])re");
  std::smatch m;
  std::string text = head(fs::path(sitePackages) / "jax" / "version.py");
  if (std::regex_search(text, m, assign) && plausibleVersion(m[1].str()))
    return m[1].str();
  std::error_code ec;
  std::vector<std::string> found;
  for (fs::directory_iterator it(sitePackages, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    const std::string prefix = "jax-", suffix = ".dist-info";
    if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string v = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      if (plausibleVersion(v))
        found.push_back(v);
    }
  }
  if (found.size() == 1)
    return found.front();
  return std::nullopt; // none, or several (a broken environment): not guessed
}

std::optional<JaxLocation> locateJax(const EnvironmentQuery& q) {
  for (const auto& [env, via] : candidateEnvironments(q))
    for (const std::string& site : sitePackagesWithJax(env))
      if (auto version = jaxVersionAt(site))
        return JaxLocation{site, *version, env, via};
  return std::nullopt;
}

} // namespace pallas::knowledge
