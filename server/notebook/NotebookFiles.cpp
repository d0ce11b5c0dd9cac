#include "NotebookFiles.h"

#include "NotebookModule.h"
#include "pallas/support/FileReading.h"

#include <map>
#include <mutex>
#include <regex>

namespace pallas::notebook {

bool isNotebookPath(const std::string& path) {
  return path.size() > 6 && path.compare(path.size() - 6, 6, ".ipynb") == 0;
}

namespace {

struct Parsed {
  Notebook nb;
  Module module;
};

std::optional<Parsed> parse(const std::string& json, std::string* why) {
  auto nb = parseIpynb(json, why);
  if (!nb)
    return std::nullopt;
  if (!isPython(*nb)) {
    if (why)
      *why = "a " + nb->language + " notebook";
    return std::nullopt;
  }
  std::vector<std::string> texts;
  for (const CodeCell& c : nb->codeCells)
    texts.push_back(c.source);
  Parsed p{std::move(*nb), concatenate(texts)};
  return p;
}

} // namespace

std::optional<std::string> moduleOfIpynb(const std::string& json, std::string* why) {
  auto p = parse(json, why);
  if (!p)
    return std::nullopt;
  return std::move(p->module.text);
}

std::optional<CellLine> cellLine(const std::string& path, uint32_t moduleLine) {
  if (!isNotebookPath(path))
    return std::nullopt;
  static std::mutex mutex;
  static std::map<std::string, std::optional<Parsed>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(path);
  if (it == cache.end()) {
    // Bounded, regular files only, like every read of a user's file.
    std::optional<std::string> text = support::readSourceFile(path);
    it = cache.emplace(path, text ? parse(*text, nullptr) : std::nullopt).first;
  }
  if (!it->second)
    return std::nullopt;
  auto place = it->second->module.locate(moduleLine);
  if (!place)
    return std::nullopt;
  return CellLine{it->second->nb.codeCells[place->cell].index + 1, place->line};
}

std::string retellLines(const std::string& message,
                        const std::function<std::optional<CellLine>(uint32_t)>& locate) {
  static const std::regex lineRef(R"(\bline (\d+)\b|\.ipynb:(\d+)\b)");
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(message.begin(), message.end(), lineRef);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += message.substr(last, m.position(0) - last);
    bool fileRef = m[2].matched;
    std::string digits = fileRef ? m[2].str() : m[1].str();
    long n = digits.size() < 10 ? std::stol(digits) : 0;
    auto place = n > 0 ? locate(static_cast<uint32_t>(n - 1)) : std::nullopt;
    if (place)
      out += std::string(fileRef ? ".ipynb " : "") + "cell " + std::to_string(place->cell) +
             ", line " + std::to_string(place->line + 1);
    else
      out += m.str(0);
    last = m.position(0) + m.length(0);
  }
  return out + message.substr(last);
}

} // namespace pallas::notebook
