#include "Suppression.h"

#include "Rules.h"

#include <cctype>
#include <string>

namespace pallas::check {

bool SuppressionDirective::covers(std::string_view code) const {
  if (allCodes)
    return true;
  for (const std::string& c : codes)
    if (!c.empty() && code.substr(0, c.size()) == c)
      return true;
  return false;
}

namespace {

void skipSpaces(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
    ++i;
}

// Parses the directives in one comment (text after the first '#', which may
// hold further '#'-separated parts: "# noqa: E501  # pallas-lsp: ignore").
void parseComment(std::string_view comment, uint32_t line, std::vector<SuppressionDirective>& file,
                  std::map<uint32_t, SuppressionDirective>& lines) {
  static constexpr std::string_view kTool = "pallas-lsp";
  size_t pos = 0;
  while ((pos = comment.find(kTool, pos)) != std::string_view::npos) {
    size_t i = pos + kTool.size();
    pos = i;
    skipSpaces(comment, i);
    if (i >= comment.size() || comment[i] != ':')
      continue;
    ++i;
    skipSpaces(comment, i);
    bool fileLevel = false;
    if (comment.substr(i, 11) == "ignore-file") {
      fileLevel = true;
      i += 11;
    } else if (comment.substr(i, 6) == "ignore") {
      i += 6;
    } else {
      continue;
    }
    // "ignore" must end there ("ignored", "ignore_x" are not directives).
    if (i < comment.size() && (std::isalnum(static_cast<unsigned char>(comment[i])) ||
                               comment[i] == '_' || comment[i] == '-'))
      continue;
    SuppressionDirective directive;
    directive.line = line;
    skipSpaces(comment, i);
    if (i < comment.size() && comment[i] == '[') {
      size_t close = comment.find(']', i);
      if (close == std::string_view::npos)
        continue; // malformed: no effect
      directive.codes = splitSelectors(comment.substr(i + 1, close - i - 1));
      if (directive.codes.empty())
        continue; // "ignore[]" suppresses nothing
      pos = close + 1;
    } else {
      directive.allCodes = true;
    }
    if (fileLevel) {
      file.push_back(std::move(directive));
    } else {
      SuppressionDirective& merged = lines[line];
      merged.line = line;
      merged.allCodes = merged.allCodes || directive.allCodes;
      for (std::string& c : directive.codes)
        merged.codes.push_back(std::move(c));
    }
  }
}

} // namespace

Suppressions Suppressions::parse(std::string_view given) {
  // A lone '\r' ends a line too (Python, LSP and the analysis count it so):
  // read it as '\n', which keeps every offset and line number.
  std::string normalised;
  std::string_view text = given;
  for (size_t k = 0; k < given.size(); ++k)
    if (given[k] == '\r' && (k + 1 == given.size() || given[k + 1] != '\n')) {
      normalised.assign(given);
      for (size_t j = k; j < normalised.size(); ++j)
        if (normalised[j] == '\r' && (j + 1 == normalised.size() || normalised[j + 1] != '\n'))
          normalised[j] = '\n';
      text = normalised;
      break;
    }
  Suppressions out;
  uint32_t line = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (c == '#') {
      size_t end = text.find('\n', i);
      if (end == std::string_view::npos)
        end = n;
      parseComment(text.substr(i + 1, end - i - 1), line, out.fileLevel_, out.lineLevel_);
      i = end;
    } else if (c == '\'' || c == '"') {
      // A string literal (any prefix letters before it are plain identifier
      // characters to this scanner). Skip to its end, counting newlines.
      bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      size_t quoteLen = triple ? 3 : 1;
      i += quoteLen;
      while (i < n) {
        if (text[i] == '\\' && i + 1 < n) {
          if (text[i + 1] == '\n')
            ++line;
          i += 2;
        } else if (text[i] == c &&
                   (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
          i += quoteLen;
          break;
        } else if (text[i] == '\n') {
          ++line, ++i;
          if (!triple)
            break; // unterminated single-quoted string ends here
        } else {
          ++i;
        }
      }
    } else {
      ++i;
    }
  }
  return out;
}

bool Suppressions::suppresses(std::string_view code, uint32_t line) const {
  for (const SuppressionDirective& d : fileLevel_)
    if (d.covers(code))
      return true;
  auto it = lineLevel_.find(line);
  return it != lineLevel_.end() && it->second.covers(code);
}

} // namespace pallas::check
