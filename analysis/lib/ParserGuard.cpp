#include "ParserGuard.h"

#include <array>
#include <cctype>

namespace pallas::analysis::syntax {

namespace {

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Keywords that wait for an operand or a block (and so may stay open).
bool opensSomething(std::string_view word) {
  static constexpr std::array<std::string_view, 18> kWords = {
      "not", "lambda", "if",   "else",   "elif",  "await", "yield",  "and", "or",
      "in",  "is",     "from", "return", "raise", "del",   "assert", "for", "while"};
  for (std::string_view w : kWords)
    if (word == w)
      return true;
  return false;
}

bool isOperatorChar(char c) {
  switch (c) {
  case '+':
  case '-':
  case '*':
  case '/':
  case '%':
  case '@':
  case '&':
  case '|':
  case '^':
  case '~':
  case '<':
  case '>':
  case '=':
  case '!':
  case ':':
    return true;
  default:
    return false;
  }
}

} // namespace

std::optional<size_t> findParserOverload(std::string_view text, size_t limit) {
  size_t depth = 0;     // open brackets
  size_t open = 0;      // counted in this logical line
  size_t carried = 0;   // from the run of block headers before it
  size_t lineStart = 0; // start of this logical line
  size_t runStart = 0;  // start of that run
  char lastSignificant = 0;
  const size_t n = text.size();
  auto endLogicalLine = [&](size_t next) {
    // A line ending in ':' is a block header: its body (on the next line)
    // is still to come, so what it left open carries over. A blank or
    // comment-only line (also the "\n" of a "\r\n") changes nothing.
    if (lastSignificant == 0) {
      lineStart = next;
      return;
    }
    if (lastSignificant == ':') {
      if (carried == 0)
        runStart = lineStart;
      carried += open + 1;
    } else {
      carried = 0;
    }
    open = 0;
    lastSignificant = 0;
    lineStart = next;
  };
  for (size_t i = 0; i < n;) {
    if (open + carried > limit)
      return carried ? runStart : lineStart;
    char c = text[i];
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r')
        ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (text[i] == '\\') {
          i += 2;
          continue;
        }
        if (!triple && (text[i] == '\n' || text[i] == '\r'))
          break; // unterminated
        if (text[i] == c && (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      lastSignificant = c;
      continue;
    }
    if (c == '\\' && i + 1 < n && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      // An explicit line continuation, "\\\n" or "\\\r\n" (the "\n" of a
      // CRLF must not end the logical line the backslash continues).
      i += text[i + 1] == '\r' && i + 2 < n && text[i + 2] == '\n' ? 3 : 2;
      continue;
    }
    if (c == '\n' || c == '\r') {
      ++i;
      if (depth == 0)
        endLogicalLine(i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
      ++open;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0)
        --depth;
    } else if (isOperatorChar(c)) {
      ++open;
    } else if (isWordChar(c)) {
      size_t start = i;
      while (i < n && isWordChar(text[i]))
        ++i;
      if (opensSomething(text.substr(start, i - start)))
        ++open;
      lastSignificant = 'w';
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\f')
      lastSignificant = c;
    ++i;
  }
  if (open + carried > limit)
    return carried ? runStart : lineStart;
  return std::nullopt;
}

bool normaliseLoneCarriageReturns(std::string& text) {
  bool changed = false;
  for (size_t i = 0; i < text.size(); ++i)
    if (isLoneCarriageReturn(text, i)) {
      text[i] = '\n';
      changed = true;
    }
  return changed;
}

void blankFrom(std::string& text, size_t from) {
  for (size_t i = from; i < text.size(); ++i)
    if (text[i] != '\n' && text[i] != '\r')
      text[i] = ' ';
}

} // namespace pallas::analysis::syntax
