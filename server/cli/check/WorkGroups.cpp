#include "WorkGroups.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <utility>

namespace fs = std::filesystem;

namespace pallas::check {

std::vector<std::vector<std::string>> workGroups(const std::vector<std::string>& documents,
                                                 const std::vector<size_t>& sizes, unsigned jobs) {
  std::map<std::string, std::vector<size_t>> folders; // folder -> indexes, in input order
  for (size_t i = 0; i < documents.size(); ++i)
    folders[fs::path(documents[i]).parent_path().string()].push_back(i);
  // About four pieces per worker over the whole run: enough to even out the
  // end, few enough that a folder's helpers are read by few workers.
  // One worker keeps its Project for the whole run: nothing to even out.
  size_t piece =
      jobs <= 1 ? documents.size() + 1 : std::max<size_t>(1, documents.size() / (size_t(jobs) * 4));
  struct Group {
    std::vector<std::string> files;
    size_t bytes = 0;
  };
  std::vector<Group> groups;
  for (auto& [_, indexes] : folders)
    for (size_t from = 0; from < indexes.size(); from += piece) {
      Group g;
      for (size_t k = from; k < std::min(indexes.size(), from + piece); ++k) {
        g.files.push_back(documents[indexes[k]]);
        g.bytes += k < sizes.size() ? sizes[indexes[k]] : 0;
      }
      groups.push_back(std::move(g));
    }
  // Largest first (ties by first path, so runs are repeatable).
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.files.front() < b.files.front();
  });
  std::vector<std::vector<std::string>> out;
  out.reserve(groups.size());
  for (Group& g : groups)
    out.push_back(std::move(g.files));
  return out;
}

} // namespace pallas::check
