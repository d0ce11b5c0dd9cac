// The textual import scan (see the header).
#include "pallas/analysis/ImportScan.h"

#include "pallas/analysis/ModuleCandidates.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace pallas::analysis {

namespace {

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
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

// The first identifier-or-dot run of `s` (a dotted module, maybe with
// leading dots), after leading blanks and an opening parenthesis.
std::string_view leadingDotted(std::string_view s) {
  s.remove_prefix(std::min(s.size(), s.find_first_not_of(" \t(")));
  size_t end = 0;
  while (end < s.size() && (identChar(s[end]) || s[end] == '.'))
    ++end;
  return s.substr(0, end);
}

bool spells(std::string_view text, std::string_view word) {
  return memmem(text.data(), text.size(), word.data(), word.size()) != nullptr;
}

} // namespace

std::vector<std::string_view> importedNames(std::string_view text) {
  std::vector<std::string_view> out;
  // The names of a parenthesised list on the next lines are covered by the
  // folder test of `check` (the package M matches a relevant file inside it).
  forEachImportLine(text, [&](std::string_view rest, bool) { addIdentifiers(rest, out); });
  return out;
}

std::vector<std::string> workspaceImportedPaths(const std::filesystem::path& file,
                                                std::string_view text,
                                                const std::vector<std::filesystem::path>& roots) {
  std::vector<std::string> out;
  // The module `dotted` (maybe empty: the base folder itself) and the
  // submodules `names` of it, wherever the analysis would look for them.
  auto add = [&](std::string_view dotted, int level, const std::vector<std::string_view>& names) {
    for (const auto& candidate : moduleCandidates(dotted, level, file, roots))
      out.push_back(candidate.generic_string());
    for (std::string_view n : names) {
      std::string sub =
          dotted.empty() ? std::string(n) : std::string(dotted) + "." + std::string(n);
      for (const auto& candidate : moduleCandidates(sub, level, file, roots))
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
        if (!module.empty() && module.front() != '.' && !resolvedByName(module))
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
    if (level == 0 && (dotted.empty() || resolvedByName(dotted)))
      return;
    // The imported names may be submodules (`from . import helpers`).
    std::vector<std::string_view> names;
    if (size_t at = rest.find(" import "); at != std::string_view::npos)
      addIdentifiers(rest.substr(at + 8), names);
    add(dotted, static_cast<int>(level), names);
  });
  return out;
}

bool mayChooseForLaunches(std::string_view text) {
  return spells(text, "interpret") || spells(text, "pallas") || spells(text, "mosaic") ||
         spells(text, "jax");
}

} // namespace pallas::analysis
