#include "PythonCode.h"

#include <cctype>

namespace pallas::check {

namespace {

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool isIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())))
    return false;
  for (char c : s)
    if (!identChar(c))
      return false;
  return true;
}

// The length of a string prefix (r, b, u, f, rb, fr, ... in any case) that
// ends right before `quoteAt`, or 0; `isF` says whether it holds an f.
size_t prefixBefore(std::string_view s, size_t quoteAt, bool& isF) {
  size_t n = 0;
  isF = false;
  while (n < 2 && n < quoteAt) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[quoteAt - n - 1])));
    if (c != 'r' && c != 'b' && c != 'u' && c != 'f')
      break;
    isF = isF || c == 'f';
    ++n;
  }
  // Part of a longer name (`buffer"..."` is no prefix; nor is `xr'`).
  if (n > 0 && quoteAt > n && identChar(s[quoteAt - n - 1])) {
    isF = false;
    return 0;
  }
  return n;
}

void blank(std::string& out, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (out[i] != '\n' && out[i] != '\r')
      out[i] = ' ';
}

} // namespace

std::string codeOnly(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '#') {
      size_t end = s.find('\n', i);
      end = end == std::string_view::npos ? s.size() : end;
      blank(out, i, end);
      i = end;
      continue;
    }
    if (c != '\'' && c != '"') {
      ++i;
      continue;
    }
    bool isF = false;
    prefixBefore(s, i, isF);
    bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
    size_t open = triple ? 3 : 1;
    size_t body = i + open;
    // Find the closing quote; a backslash always escapes the next character
    // for where the literal ends (raw strings too). Inside an f-string's
    // braces the text is code and stays.
    size_t j = body;
    bool closed = false;
    int braces = 0;
    size_t textFrom = body; // start of the literal text not yet blanked
    while (j < s.size()) {
      char d = s[j];
      if (braces > 0) {
        if (d == '{')
          ++braces;
        else if (d == '}' && --braces == 0)
          textFrom = j + 1;
        else if (d == '\n' && !triple)
          break;
        ++j;
        continue;
      }
      if (d == '\\') {
        j += 2;
        continue;
      }
      if (!triple && d == '\n')
        break; // unterminated one-line string: ends at the line
      if (isF && d == '{') {
        if (j + 1 < s.size() && s[j + 1] == '{') {
          j += 2;
          continue;
        }
        blank(out, textFrom, j);
        ++braces;
        ++j;
        continue;
      }
      if (d == c && (!triple || (j + 2 < s.size() && s[j + 1] == c && s[j + 2] == c))) {
        closed = true;
        break;
      }
      ++j;
    }
    if (!closed && triple)
      return out; // the rest is kept: a file mid-edit is not guessed at
    size_t end = std::min(j, s.size());
    if (!isIdentifier(s.substr(body, end - body)))
      blank(out, textFrom, end);
    i = closed ? end + open : end;
  }
  return out;
}

} // namespace pallas::check
