#include "pallas/support/AnalysisBudget.h"

#include <cstdio>
#include <cstdlib>

namespace pallas::support {

namespace {

// A whole number from the environment; `fallback` when unset or not one.
size_t fromEnvironment(const char* name, size_t fallback) {
  const char* value = std::getenv(name);
  if (!value || !*value)
    return fallback;
  size_t n = 0;
  for (const char* p = value; *p; ++p) {
    if (*p < '0' || *p > '9' || n > (~size_t{0} - 9) / 10)
      return fallback;
    n = n * 10 + static_cast<size_t>(*p - '0');
  }
  return n;
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == '\\';
}

bool isWordByte(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' ||
         u >= 0x80;
}

std::string mebibytes(size_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  char out[32];
  if (bytes % (size_t{1} << 20) == 0)
    std::snprintf(out, sizeof out, "%zu MiB", bytes >> 20);
  else
    std::snprintf(out, sizeof out, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  return out;
}

} // namespace

const AnalysisBudget& analysisBudget() {
  static const AnalysisBudget budget{
      fromEnvironment("PALLAS_LSP_ANALYSIS_MAX_BYTES", kDefaultAnalysisMaxBytes),
      fromEnvironment("PALLAS_LSP_ANALYSIS_MAX_TOKENS", kDefaultAnalysisMaxTokens)};
  return budget;
}

size_t countSyntaxTokens(std::string_view t, size_t stopAfter) {
  size_t count = 0;
  for (size_t i = 0; i < t.size() && count <= stopAfter;) {
    char c = t[i];
    if (isSpace(c)) {
      ++i;
    } else if (c == '#') {
      while (i < t.size() && t[i] != '\n' && t[i] != '\r')
        ++i;
    } else if (c == '"' || c == '\'') {
      // One token for the whole literal (prefixes like f/b/r were a word).
      ++count;
      bool triple = i + 2 < t.size() && t[i + 1] == c && t[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < t.size()) {
        if (t[i] == '\\') {
          i += 2;
        } else if (t[i] == c && (!triple || (i + 2 < t.size() && t[i + 1] == c && t[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        } else if (!triple && (t[i] == '\n' || t[i] == '\r')) {
          break; // unterminated: the line ends it
        } else {
          ++i;
        }
      }
    } else if (isWordByte(c)) {
      ++count;
      while (i < t.size() && isWordByte(t[i]))
        ++i;
    } else {
      ++count; // an operator or delimiter character
      ++i;
    }
  }
  return count;
}

std::optional<std::string> overAnalysisBudget(std::string_view text, const AnalysisBudget& budget) {
  if (text.size() > budget.maxBytes)
    return "too large to analyse (" + mebibytes(text.size()) + " > " + mebibytes(budget.maxBytes) +
           " limit)";
  if (text.size() <= budget.maxTokens)
    return std::nullopt; // never more tokens than bytes
  size_t tokens = countSyntaxTokens(text, budget.maxTokens);
  if (tokens > budget.maxTokens)
    return "too large to analyse (more than " + std::to_string(budget.maxTokens) +
           " syntax tokens, the limit)";
  return std::nullopt;
}

} // namespace pallas::support
