// The file candidates of an import (see the header).
#include "pallas/analysis/ModuleCandidates.h"

namespace fs = std::filesystem;

namespace pallas::analysis {

std::vector<fs::path> moduleCandidates(std::string_view dotted, int level, const fs::path& fromFile,
                                       const std::vector<fs::path>& roots) {
  std::vector<fs::path> bases;
  const fs::path from = fromFile.parent_path();
  if (level > 0) {
    fs::path base = from;
    for (int i = 1; i < level; ++i)
      base = base.parent_path();
    bases.push_back(base);
  } else {
    bases.push_back(from);
    for (const fs::path& r : roots)
      if (!r.empty() && r != from)
        bases.push_back(r);
  }
  fs::path rel;
  for (size_t start = 0; !dotted.empty();) {
    size_t dot = dotted.find('.', start);
    rel /=
        dotted.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  std::vector<fs::path> out;
  for (const fs::path& base : bases) {
    fs::path stem = dotted.empty() ? base : base / rel;
    if (!dotted.empty())
      out.push_back(fs::path(stem.string() + ".py").lexically_normal());
    out.push_back((stem / "__init__.py").lexically_normal());
  }
  return out;
}

bool resolvedByName(std::string_view module) {
  for (std::string_view root : {std::string_view("jax"), std::string_view("functools")})
    if (module == root ||
        (module.starts_with(root) && module.size() > root.size() && module[root.size()] == '.'))
      return true;
  return false;
}

} // namespace pallas::analysis
