#include "Relevance.h"

#include "PythonCode.h"
#include "pallas/analysis/ModuleCandidates.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <string>

namespace pallas::check {

namespace {

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool spellsJax(std::string_view text) {
  return memmem(text.data(), text.size(), "jax", 3) != nullptr;
}

// Splits "a.b.c" / "a.b as x, d" / "(a, b as c)" into identifiers, leaving
// out the names after `as` (local aliases, not modules).
void addIdentifiers(std::string_view s, std::vector<std::string_view>& out) {
  bool afterAs = false;
  for (size_t i = 0; i < s.size();) {
    if (!identChar(s[i])) {
      if (s[i] == ',')
        afterAs = false;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && identChar(s[j]))
      ++j;
    std::string_view word = s.substr(i, j - i);
    if (word == "as")
      afterAs = true;
    else if (!afterAs && word != "import")
      out.push_back(word);
    i = j;
  }
}

} // namespace

namespace {

// Calls `fn(rest, from)` for each line that starts an import statement
// (`from M import names` or `import M[, N]`, indented or not), with the text
// after `from ` / `import ` and without its comment.
template <typename Fn> void forEachImportLine(std::string_view text, Fn fn) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos)
      continue;
    line.remove_prefix(i);
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    bool from = line.starts_with("from ");
    if (from || line.starts_with("import "))
      fn(line.substr(from ? 5 : 7), from);
  }
}

} // namespace

std::vector<std::string_view> importedNames(std::string_view text) {
  std::vector<std::string_view> out;
  // The names of a parenthesised list on the next lines are covered by the
  // folder test (the package M matches a relevant file inside it).
  forEachImportLine(text, [&](std::string_view rest, bool) { addIdentifiers(rest, out); });
  return out;
}

namespace {

// The first identifier-or-dot run of `s` (a dotted module, maybe with
// leading dots), after leading blanks and an opening parenthesis.
std::string_view leadingDotted(std::string_view s) {
  s.remove_prefix(std::min(s.size(), s.find_first_not_of(" \t(")));
  size_t end = 0;
  while (end < s.size() && (identChar(s[end]) || s[end] == '.'))
    ++end;
  return s.substr(0, end);
}

} // namespace

std::vector<std::string> workspaceImportedPaths(const std::filesystem::path& file,
                                                std::string_view text,
                                                const std::filesystem::path& root) {
  std::vector<std::string> out;
  const std::vector<std::filesystem::path> roots{root};
  // The module `dotted` (maybe empty: the base folder itself) and the
  // submodules `names` of it, wherever the analysis would look for them.
  auto add = [&](std::string_view dotted, int level, const std::vector<std::string_view>& names) {
    for (const auto& candidate : analysis::moduleCandidates(dotted, level, file, roots))
      out.push_back(candidate.generic_string());
    for (std::string_view n : names) {
      std::string sub =
          dotted.empty() ? std::string(n) : std::string(dotted) + "." + std::string(n);
      for (const auto& candidate : analysis::moduleCandidates(sub, level, file, roots))
        out.push_back(candidate.generic_string());
    }
  };
  forEachImportLine(text, [&](std::string_view rest, bool from) {
    if (!from) {
      // `import a.b as c, jax.numpy as jnp`: each module on its own.
      for (size_t start = 0; start <= rest.size();) {
        size_t comma = rest.find(',', start);
        std::string_view module = leadingDotted(rest.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (!module.empty() && module.front() != '.' && !analysis::resolvedByName(module))
          add(module, 0, {});
        if (comma == std::string_view::npos)
          break;
        start = comma + 1;
      }
      return;
    }
    std::string_view module = leadingDotted(rest);
    size_t level = module.find_first_not_of('.');
    level = level == std::string_view::npos ? module.size() : level;
    std::string_view dotted = module.substr(level);
    if (level == 0 && (dotted.empty() || analysis::resolvedByName(dotted)))
      return;
    // The imported names may be submodules (`from . import helpers`).
    std::vector<std::string_view> names;
    if (size_t at = rest.find(" import "); at != std::string_view::npos)
      addIdentifiers(rest.substr(at + 8), names);
    add(dotted, static_cast<int>(level), names);
  });
  return out;
}

std::vector<bool> relevantFiles(const std::vector<std::filesystem::path>& files,
                                const std::vector<std::string_view>& texts,
                                const std::filesystem::path& root) {
  std::vector<bool> relevant(files.size(), false);
  std::set<std::string, std::less<>> names; // stems and folder names of relevant files
  auto addNames = [&](const std::filesystem::path& p) {
    std::string stem = p.stem().string();
    if (stem != "__init__")
      names.insert(stem);
    // Up to the root's own name (a checked package folder is a package).
    for (auto dir = p.parent_path(); dir.has_filename(); dir = dir.parent_path()) {
      names.insert(dir.filename().string());
      if (dir == root || dir == dir.parent_path())
        break;
    }
  };
  std::vector<size_t> pending;
  for (size_t i = 0; i < files.size(); ++i) {
    if (spellsJax(texts[i])) {
      relevant[i] = true;
      addNames(files[i]);
    } else {
      pending.push_back(i);
    }
  }
  if (names.empty())
    return relevant;
  // Imports of imports: repeat until nothing new becomes relevant.
  std::vector<std::vector<std::string_view>> imports(files.size());
  for (size_t i : pending)
    imports[i] = importedNames(texts[i]);
  for (bool grew = true; grew;) {
    grew = false;
    std::vector<size_t> still;
    for (size_t i : pending) {
      bool hit = false;
      for (std::string_view n : imports[i])
        if (names.find(n) != names.end()) {
          hit = true;
          break;
        }
      if (!hit) {
        still.push_back(i);
        continue;
      }
      relevant[i] = true;
      addNames(files[i]);
      grew = true;
    }
    pending = std::move(still);
  }
  return relevant;
}

namespace {

// `kernel` launches as `plgpu.kernel` / `pl.kernel`, or under a name
// imported on an import line; a bare `kernel` (most kernels are called
// that) is not a launch.
bool spellsKernelLaunch(std::string_view text) {
  for (size_t at = 0; (at = text.find("kernel", at)) != std::string_view::npos; at += 6) {
    if (at + 6 < text.size() && identChar(text[at + 6]))
      continue;
    if (at > 0 && text[at - 1] == '.')
      return true;
    if (at > 0 && identChar(text[at - 1]))
      continue;
    size_t lineStart = text.rfind('\n', at);
    std::string_view line = text.substr(lineStart == std::string_view::npos ? 0 : lineStart + 1);
    line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
    if (line.starts_with("from ") || line.starts_with("import "))
      return true;
  }
  return false;
}

// `word` as a whole identifier: `pallas_call_p`, `core_map_lowering_rule`
// or `interpret_pallas_call` are other names. A launch API is always spelled
// as its own identifier somewhere (the call, the import, the alias or the
// partial that binds it): the canonical API keeps the attribute as written.
// The name a `def` gives is no use of it (JAX's own pallas_call.py and
// core.py define the APIs).
bool spellsIdentifier(std::string_view text, std::string_view word) {
  auto defines = [&](size_t at) {
    size_t end = text.find_last_not_of(" \t", at == 0 ? 0 : at - 1);
    return at > 0 && end != std::string_view::npos && end >= 2 &&
           text.substr(end - 2, 3) == "def" && (end == 2 || !identChar(text[end - 3]));
  };
  for (size_t at = 0; (at = text.find(word, at)) != std::string_view::npos; at += word.size()) {
    bool startsWord = at == 0 || !identChar(text[at - 1]);
    bool endsWord = at + word.size() >= text.size() || !identChar(text[at + word.size()]);
    if (startsWord && endsWord && !defines(at))
      return true;
  }
  return false;
}

bool spellsLaunchAnywhere(std::string_view text) {
  return spellsIdentifier(text, "pallas_call") || spellsIdentifier(text, "core_map") ||
         spellsKernelLaunch(text);
}

// In code: not only in a comment, a docstring or an error message. The
// blanking runs only on the files the plain test lets through.
bool spellsLaunch(std::string_view text) {
  return spellsLaunchAnywhere(text) && spellsLaunchAnywhere(codeOnly(text));
}

} // namespace

namespace {

// The files of a run by path (lexically normal, generic), for the import
// steps below.
std::map<std::string, size_t> byPath(const std::vector<std::filesystem::path>& files,
                                     const std::vector<bool>& keep) {
  std::map<std::string, size_t> out;
  for (size_t i = 0; i < files.size(); ++i)
    if (keep[i])
      out.emplace(files[i].lexically_normal().generic_string(), i);
  return out;
}

} // namespace

RunImports::RunImports(const std::vector<std::filesystem::path>& files,
                       const std::vector<std::string_view>& texts, std::filesystem::path root)
    : files_(files), texts_(texts), root_(std::move(root)), imports_(files.size()) {}

const std::vector<std::string>& RunImports::importsOf(size_t i) {
  if (!imports_[i])
    imports_[i] = workspaceImportedPaths(files_[i], texts_[i], root_);
  return *imports_[i];
}

std::vector<bool> launchingFiles(RunImports& run) {
  std::vector<bool> launching(run.size(), false);
  for (size_t i = 0; i < run.size(); ++i)
    launching[i] = spellsLaunch(run.text(i));
  const std::map<std::string, size_t> launchers = byPath(run.files(), launching);
  // One step of imports: a name bound to a launch (a wrapper, a partial of
  // pallas_call) is called where it is imported. Deeper re-exports are not
  // followed: each step would bring most of a package whose modules import
  // each other.
  // Only files that name Pallas or Mosaic at all, and only imports of the
  // very files that launch: in a large package almost every module imports
  // a sibling whose name some launching file elsewhere has (`core`, `utils`),
  // and the importer that calls a launch wrapper is a Pallas user.
  for (size_t i = 0; i < run.size(); ++i) {
    std::string_view t = run.text(i);
    if (launching[i] || (memmem(t.data(), t.size(), "pallas", 6) == nullptr &&
                         memmem(t.data(), t.size(), "mosaic", 6) == nullptr))
      continue;
    for (const std::string& imported : run.importsOf(i))
      if (launchers.count(imported)) {
        launching[i] = true;
        break;
      }
  }
  return launching;
}

std::vector<std::vector<size_t>> interpretCallers(RunImports& run,
                                                  const std::vector<bool>& launching) {
  std::vector<std::vector<size_t>> callers(run.size());
  const std::map<std::string, size_t> launchers = byPath(run.files(), launching);
  for (size_t i = 0; i < run.size(); ++i) {
    if (run.text(i).find("interpret") == std::string_view::npos)
      continue;
    std::set<size_t> reached;
    for (const std::string& imported : run.importsOf(i))
      if (auto it = launchers.find(imported); it != launchers.end())
        if (size_t l = it->second; l != i && reached.insert(l).second)
          callers[l].push_back(i);
  }
  return callers;
}

} // namespace pallas::check
