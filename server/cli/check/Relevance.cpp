#include "Relevance.h"

#include "PythonCode.h"
#include "pallas/analysis/ImportScan.h"

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

} // namespace

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
    imports[i] = analysis::importedNames(texts[i]);
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
    imports_[i] = analysis::workspaceImportedPaths(files_[i], texts_[i], {root_});
  return *imports_[i];
}

namespace {

bool spellsCaseless(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}

// Names another Pallas backend (TPU or Triton) and nothing of GPUs at all:
// not "gpu" in any case, so no plgpu / mosaic_gpu import, GPU interpret
// mode or a comment about running on one.
bool namesOnlyAnotherBackend(std::string_view text) {
  static constexpr std::string_view kOther[] = {
      "pltpu",      "pallas.tpu",    "pallas import tpu",
      "mosaic_tpu", "pallas.triton", "pallas import triton"};
  bool other = std::any_of(std::begin(kOther), std::end(kOther), [&](std::string_view w) {
    return memmem(text.data(), text.size(), w.data(), w.size()) != nullptr;
  });
  return other && !spellsCaseless(text, "gpu");
}

// A file whose launches are all for another backend is not analysed: the
// analysis would lower it only to skip each launch (isMosaicGpuLaunch). It
// must name that backend, and neither it nor a run file it imports (its
// helpers) may mention GPUs: a launch without backend arguments there could
// run the imported Mosaic GPU code. On vllm-project/tpu-inference this skips
// 50 of its 53 launching files.
bool otherBackendOnly(RunImports& run, size_t i, const std::map<std::string, size_t>& byFile) {
  if (!namesOnlyAnotherBackend(run.text(i)))
    return false;
  for (const std::string& imported : run.importsOf(i))
    if (auto it = byFile.find(imported);
        it != byFile.end() && spellsCaseless(run.text(it->second), "gpu"))
      return false;
  return true;
}

} // namespace

std::vector<bool> launchingFiles(RunImports& run) {
  std::vector<bool> launching(run.size(), false);
  const std::map<std::string, size_t> all =
      byPath(run.files(), std::vector<bool>(run.size(), true));
  for (size_t i = 0; i < run.size(); ++i)
    launching[i] = spellsLaunch(run.text(i)) && !otherBackendOnly(run, i, all);
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

namespace {
// How many imports deep a caller's reach is followed, and how many callers
// through other modules a launching file gets at most.
constexpr unsigned kCallerImportDepth = 3;
constexpr size_t kMaxIndirectCallers = 4;
} // namespace

std::vector<std::vector<size_t>> interpretCallers(RunImports& run,
                                                  const std::vector<bool>& launching) {
  std::vector<std::vector<size_t>> callers(run.size());
  // Callers through other modules, with how many imports away, per launcher.
  std::vector<std::vector<std::pair<unsigned, size_t>>> indirect(run.size());
  const std::map<std::string, size_t> launchers = byPath(run.files(), launching);
  const std::map<std::string, size_t> all =
      byPath(run.files(), std::vector<bool>(run.size(), true));
  for (size_t i = 0; i < run.size(); ++i) {
    if (!analysis::mayChooseForLaunches(run.text(i)))
      continue;
    // The launching files its imports reach: directly, or through modules
    // (a package's __init__ re-exports its modules' functions; a program's
    // main.py imports launch.py, which imports the kernels, and
    // `python -m pkg.main` runs them), a few imports deep.
    std::set<size_t> seen{i};
    std::vector<size_t> frontier{i};
    for (unsigned depth = 0; depth < kCallerImportDepth && !frontier.empty(); ++depth) {
      std::vector<size_t> next;
      for (size_t from : frontier)
        for (const std::string& imported : run.importsOf(from)) {
          auto it = all.find(imported);
          if (it == all.end() || !seen.insert(it->second).second)
            continue;
          size_t j = it->second;
          if (launchers.count(imported))
            (depth == 0 ? callers[j].push_back(i) : indirect[j].push_back({depth, i}));
          next.push_back(j);
        }
      frontier = std::move(next);
    }
  }
  // Every direct importer, then the nearest of the others (a library's test
  // suite reaches its kernels from hundreds of files).
  for (size_t l = 0; l < run.size(); ++l) {
    std::sort(indirect[l].begin(), indirect[l].end()); // by depth, then file order
    for (size_t k = 0; k < indirect[l].size() && k < kMaxIndirectCallers; ++k)
      callers[l].push_back(indirect[l][k].second);
  }
  return callers;
}

} // namespace pallas::check
