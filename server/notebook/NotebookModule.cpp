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

// Whether JSON text nests arrays/objects deeper than `maxDepth` (the rule
// the wire applies to messages, protocol::findExcessNesting): a notebook is
// a file from the repository, and nesting that deep is never nbformat.
bool nestsDeeperThan(const std::string& text, size_t maxDepth) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// The string at `key` of an object, or nullopt for anything else (a missing
// key, null, a number: nbformat written by hand or by an attacker).
std::optional<std::string> stringField(const nlohmann::json& j, const char* key) {
  if (!j.is_object())
    return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
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
  constexpr size_t kMaxDepth = 256;
  if (nestsDeeperThan(text, kMaxDepth))
    return fail("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return fail("not JSON");
  auto cells = j.find("cells");
  if (cells == j.end() || !cells->is_array())
    return fail("no \"cells\" list (nbformat 4 is read)");
  Notebook nb;
  // Every field is read by its type: a wrong one (`"cell_type": null`, a
  // number) is skipped, never an exception (one such notebook aborted the
  // whole `check` run, issue 34).
  if (auto md = j.find("metadata"); md != j.end() && md->is_object()) {
    auto kernelspec = md->find("kernelspec");
    auto info = md->find("language_info");
    if (auto language =
            kernelspec != md->end() ? stringField(*kernelspec, "language") : std::nullopt)
      nb.language = *language;
    else if (auto name = info != md->end() ? stringField(*info, "name") : std::nullopt)
      nb.language = *name;
  }
  for (size_t i = 0; i < cells->size(); ++i) {
    const auto& c = (*cells)[i];
    if (stringField(c, "cell_type") != "code")
      continue;
    std::string source;
    if (auto s = c.find("source"); s != c.end()) {
      if (s->is_string())
        source = s->get<std::string>();
      else if (s->is_array())
        for (const auto& part : *s)
          if (part.is_string())
            source += part.get_ref<const std::string&>();
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
