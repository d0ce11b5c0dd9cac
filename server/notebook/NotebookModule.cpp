#include "NotebookModule.h"

#include <nlohmann/json.hpp>

namespace pallas::notebook {

namespace {

// Replaces the first non-blank character of a line with '#'.
void commentOut(std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i != std::string::npos)
    line[i] = '#';
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

} // namespace

std::string neutraliseIpython(const std::string& cellText) {
  std::vector<std::string> lines = splitLines(cellText);
  // A cell magic (%%bash, %%timeit, ...) makes the whole cell something else.
  size_t first = 0;
  while (first < lines.size() && lines[first].find_first_not_of(" \t\r") == std::string::npos)
    ++first;
  bool cellMagic = first < lines.size() && lines[first].rfind("%%", 0) == 0;
  bool continued = false; // a magic line ending in a backslash continues
  for (std::string& line : lines) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos)
      continue;
    size_t end = line.find_last_not_of(" \t\r");
    bool magic = cellMagic || continued || line[i] == '%' || line[i] == '!' ||
                 (line[end] == '?' && line[i] != '#');
    if (magic) {
      commentOut(line);
      continued = line[end] == '\\';
    }
  }
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k)
      out += '\n';
    out += lines[k];
  }
  return out;
}

std::optional<Module::Place> Module::locate(uint32_t moduleLine) const {
  for (size_t i = 0; i < cells.size(); ++i)
    if (moduleLine >= cells[i].firstLine && moduleLine < cells[i].firstLine + cells[i].lineCount)
      return Place{i, moduleLine - cells[i].firstLine};
  return std::nullopt;
}

Module concatenate(const std::vector<std::string>& cellTexts) {
  Module m;
  uint32_t line = 0;
  for (const std::string& raw : cellTexts) {
    std::string text = neutraliseIpython(raw);
    if (text.empty() || text.back() != '\n')
      text += '\n';
    uint32_t lines = 0;
    for (char c : text)
      lines += c == '\n';
    m.cells.push_back({line, lines});
    line += lines;
    m.text += text;
  }
  return m;
}

std::optional<Notebook> parseIpynb(const std::string& text, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<Notebook> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return fail("not JSON");
  if (!j.contains("cells") || !j["cells"].is_array())
    return fail("no \"cells\" list (nbformat 4 is read)");
  Notebook nb;
  if (j.contains("metadata") && j["metadata"].is_object()) {
    const auto& md = j["metadata"];
    if (md.contains("kernelspec") && md["kernelspec"].is_object() &&
        md["kernelspec"].contains("language") && md["kernelspec"]["language"].is_string())
      nb.language = md["kernelspec"]["language"].get<std::string>();
    else if (md.contains("language_info") && md["language_info"].is_object() &&
             md["language_info"].contains("name") && md["language_info"]["name"].is_string())
      nb.language = md["language_info"]["name"].get<std::string>();
  }
  const auto& cells = j["cells"];
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    if (!c.is_object() || c.value("cell_type", "") != "code")
      continue;
    std::string source;
    if (c.contains("source")) {
      if (c["source"].is_string())
        source = c["source"].get<std::string>();
      else if (c["source"].is_array())
        for (const auto& part : c["source"])
          if (part.is_string())
            source += part.get<std::string>();
    }
    nb.codeCells.push_back({i, std::move(source)});
  }
  return nb;
}

bool isPython(const Notebook& nb) {
  if (nb.language.empty())
    return true;
  std::string l;
  for (char c : nb.language)
    l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "python" || l.rfind("python", 0) == 0;
}

} // namespace pallas::notebook
