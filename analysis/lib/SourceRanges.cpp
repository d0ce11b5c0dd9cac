// Source ranges from a document's lines (SourceRanges.h).
#include "SourceRanges.h"

#include <cctype>

namespace pallas::analysis {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

SourceRange nameAt(const std::vector<std::string_view>& lines, uint32_t line, uint32_t column) {
  if (line >= lines.size())
    return {};
  std::string_view text = lines[line];
  size_t begin = column;
  if (begin >= text.size())
    return {};
  if (text[begin] == '@')
    ++begin;
  size_t end = begin;
  auto nameChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  while (end < text.size() && nameChar(text[end]))
    ++end;
  return {{line, static_cast<uint32_t>(begin)}, {line, static_cast<uint32_t>(end)}};
}

void widen(SourceLocation& at, const std::vector<std::string_view>* lines) {
  if (at.range.start != at.range.end || !lines)
    return;
  SourceRange r = nameAt(*lines, at.range.start.line, at.range.start.column);
  for (int hops = 0; hops < 2 && r.start != r.end; ++hops) {
    std::string_view line = (*lines)[r.start.line];
    std::string_view word = line.substr(r.start.column, r.end.column - r.start.column);
    if (word != "def" && word != "async" && word != "class")
      break;
    size_t next = line.find_first_not_of(' ', r.end.column);
    if (next == std::string_view::npos)
      break;
    r = nameAt(*lines, r.start.line, static_cast<uint32_t>(next));
  }
  if (r.start != r.end)
    at.range = r;
}

SourceRange inlineMgpuDecorator(const std::vector<std::string_view>& lines, uint32_t defLine) {
  if (defLine >= lines.size())
    return {};
  auto indent = [](std::string_view l) { return l.find_first_not_of(" \t"); };
  size_t defIndent = indent(lines[defLine]);
  for (uint32_t l = defLine; l-- > 0;) {
    std::string_view line = lines[l];
    size_t i = indent(line);
    if (i == std::string_view::npos)
      return {}; // blank: the decorators ended
    if (i <= defIndent && line[i] != '@' && line[i] != ')' && line[i] != ']')
      return {};
    if (i != defIndent || line[i] != '@')
      continue;
    SourceRange r = nameAt(lines, l, static_cast<uint32_t>(i));
    std::string_view name = line.substr(r.start.column, r.end.column - r.start.column);
    if (name == "inline_mgpu" || name.ends_with(".inline_mgpu"))
      return r;
  }
  return {};
}

} // namespace pallas::analysis
