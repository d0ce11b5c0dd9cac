#include "Glob.h"

namespace pallas::check {
namespace {

// Matches a bracket expression starting at pattern[pi] == '['. On success sets
// `next` to the index after ']' and returns whether `c` is in the class. A '['
// without a closing ']' is a literal '['.
bool matchClass(std::string_view p, size_t pi, char c, size_t& next, bool& wellFormed) {
  size_t i = pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    ++i;
  }
  bool matched = false;
  bool first = true;
  for (; i < p.size(); ++i) {
    char lo = p[i];
    if (lo == ']' && !first) {
      next = i + 1;
      wellFormed = true;
      return matched != negate;
    }
    first = false;
    if (lo == '\\' && i + 1 < p.size())
      lo = p[++i];
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = p[i + 2];
      if (hi == '\\' && i + 3 < p.size())
        hi = p[++i + 2];
      i += 2;
    }
    if (lo <= c && c <= hi)
      matched = true;
  }
  wellFormed = false;
  return false;
}

bool matchFrom(std::string_view p, size_t pi, std::string_view s, size_t si) {
  while (pi < p.size()) {
    char c = p[pi];
    // "**" as a whole segment spans directories.
    if (c == '*' && pi + 1 < p.size() && p[pi + 1] == '*' && (pi == 0 || p[pi - 1] == '/') &&
        (pi + 2 == p.size() || p[pi + 2] == '/')) {
      if (pi + 2 == p.size())
        return true;        // "a/**": everything below
      size_t rest = pi + 3; // after "**/"
      if (matchFrom(p, rest, s, si))
        return true;
      for (size_t k = si; k < s.size(); ++k)
        if (s[k] == '/' && matchFrom(p, rest, s, k + 1))
          return true;
      return false;
    }
    if (c == '*') {
      while (pi < p.size() && p[pi] == '*')
        ++pi;
      for (size_t k = si;; ++k) {
        if (matchFrom(p, pi, s, k))
          return true;
        if (k == s.size() || s[k] == '/')
          return false;
      }
    }
    if (si == s.size())
      return false;
    if (c == '?') {
      if (s[si] == '/')
        return false;
      ++pi, ++si;
      continue;
    }
    if (c == '[') {
      size_t next = 0;
      bool wellFormed = false;
      bool in = matchClass(p, pi, s[si], next, wellFormed);
      if (wellFormed) {
        if (!in || s[si] == '/')
          return false;
        pi = next, ++si;
        continue;
      }
      // An unclosed '[' is literal.
    }
    if (c == '\\' && pi + 1 < p.size())
      c = p[++pi];
    if (s[si] != c)
      return false;
    ++pi, ++si;
  }
  return si == s.size();
}

} // namespace

bool globMatch(std::string_view pattern, std::string_view path) {
  return matchFrom(pattern, 0, path, 0);
}

PathPattern::PathPattern(std::string pattern) : text_(pattern) {
  while (pattern.size() > 1 && pattern.back() == '/')
    pattern.pop_back();
  if (pattern.rfind("./", 0) == 0) {
    pattern.erase(0, 2);
  } else if (!pattern.empty() && pattern[0] == '/') {
    pattern.erase(0, 1);
  } else if (pattern.find('/') == std::string::npos) {
    basenameOnly_ = true;
  }
  pattern_ = std::move(pattern);
}

bool PathPattern::matches(std::string_view relativePath) const {
  if (basenameOnly_) {
    size_t slash = relativePath.rfind('/');
    std::string_view base =
        slash == std::string_view::npos ? relativePath : relativePath.substr(slash + 1);
    return globMatch(pattern_, base);
  }
  return globMatch(pattern_, relativePath);
}

} // namespace pallas::check
