#include "InlineRegions.h"

#include <cctype>
#include <optional>

namespace pallas::server {
namespace {

bool within(const analysis::SourceRange& r, analysis::SourcePos p) {
  return !(p < r.start) && !(r.end < p);
}

std::optional<size_t> indentOf(std::string_view l) {
  size_t i = l.find_first_not_of(" \t");
  if (i == std::string_view::npos || l[i] == '#')
    return std::nullopt; // blank or comment: part of whatever surrounds it
  return i;
}

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace

bool InlineRegionSpots::answersAt(analysis::SourcePos pos) const {
  if (within(decorator, pos) || (!name.empty() && within(nameRange, pos)))
    return true;
  for (const analysis::SourceRange& c : calls)
    if (within(c, pos))
      return true;
  return false;
}

InlineRegionSpots inlineRegionSpots(const support::LineIndex& lines, analysis::SourcePos decorator,
                                    const analysis::SourceRange& extent) {
  InlineRegionSpots out;
  const auto count = static_cast<uint32_t>(lines.lineCount());
  if (decorator.line >= count)
    return out;
  size_t indent = indentOf(lines.lineText(decorator.line)).value_or(0);
  out.decorator = {{decorator.line, static_cast<uint32_t>(indent)},
                   {decorator.line, static_cast<uint32_t>(lines.lineText(decorator.line).size())}};
  // The def at the decorator's depth; the decorator runs up to the line above.
  for (uint32_t line = decorator.line; line < count && line <= extent.end.line; ++line) {
    std::string_view l = lines.lineText(line);
    std::optional<size_t> i = indentOf(l);
    if (!i || *i != indent)
      continue;
    std::string_view rest = l.substr(*i);
    size_t def = rest.starts_with("def ")         ? 4
                 : rest.starts_with("async def ") ? 10
                                                  : std::string_view::npos;
    if (def == std::string_view::npos)
      continue; // the decorator's arguments, a further decorator
    size_t begin = *i + def;
    while (begin < l.size() && l[begin] == ' ')
      ++begin;
    size_t end = begin;
    while (end < l.size() && identifierChar(l[end]))
      ++end;
    out.name = std::string(l.substr(begin, end - begin));
    out.nameRange = {{line, static_cast<uint32_t>(begin)}, {line, static_cast<uint32_t>(end)}};
    break;
  }
  // The decorator's lines reach the def (its arguments, further decorators).
  if (out.nameRange.start.line > decorator.line + 1)
    out.decorator.end = {
        out.nameRange.start.line - 1,
        static_cast<uint32_t>(lines.lineText(out.nameRange.start.line - 1).size())};
  if (out.name.empty())
    return out;
  // Calls of the name in the rest of the block around the region: `name(`,
  // not `obj.name(`, before any comment on the line.
  for (uint32_t line = extent.end.line + 1; line < count; ++line) {
    std::string_view l = lines.lineText(line);
    std::optional<size_t> i = indentOf(l);
    if (i && *i < indent)
      break;
    size_t stop = l.find('#');
    for (size_t at = l.find(out.name); at != std::string_view::npos && at < stop;
         at = l.find(out.name, at + 1)) {
      size_t after = at + out.name.size();
      if ((at > 0 && (identifierChar(l[at - 1]) || l[at - 1] == '.')) ||
          (after < l.size() && identifierChar(l[after])))
        continue;
      size_t paren = l.find_first_not_of(' ', after);
      if (paren == std::string_view::npos || l[paren] != '(')
        continue;
      out.calls.push_back(
          {{line, static_cast<uint32_t>(at)}, {line, static_cast<uint32_t>(after)}});
    }
  }
  return out;
}

} // namespace pallas::server
