// libFuzzer target over glob matching (issue 34): the input is a pattern
// and a path (split at the first '\n'). The compiled matcher must end in
// time linear in both (libFuzzer's per-input timeout catches a hang), and,
// where the input is small enough for backtracking to be cheap, agree with
// the recursive matcher it replaced (kept below as the reference for the
// semantics: '*', '?', classes, "**" segments, escapes, unclosed '[').
// Seeds: test/fuzz/seeds/fuzz_glob.
#include "config/Glob.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

// ---- the reference: the matcher before issue 34, exponential on
// `*a*a*a...b`, used here on small inputs only.
bool refClass(std::string_view p, size_t pi, char c, size_t& next, bool& wellFormed) {
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

bool refMatch(std::string_view p, size_t pi, std::string_view s, size_t si) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*' && pi + 1 < p.size() && p[pi + 1] == '*' && (pi == 0 || p[pi - 1] == '/') &&
        (pi + 2 == p.size() || p[pi + 2] == '/')) {
      if (pi + 2 == p.size())
        return true;
      size_t rest = pi + 3;
      if (refMatch(p, rest, s, si))
        return true;
      for (size_t k = si; k < s.size(); ++k)
        if (s[k] == '/' && refMatch(p, rest, s, k + 1))
          return true;
      return false;
    }
    if (c == '*') {
      while (pi < p.size() && p[pi] == '*')
        ++pi;
      for (size_t k = si;; ++k) {
        if (refMatch(p, pi, s, k))
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
      bool in = refClass(p, pi, s[si], next, wellFormed);
      if (wellFormed) {
        if (!in || s[si] == '/')
          return false;
        pi = next, ++si;
        continue;
      }
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nl = input.find('\n');
  std::string_view pattern = input.substr(0, nl);
  std::string_view path = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  path = path.substr(0, 4096); // no path is longer (PATH_MAX)
  pallas::check::Glob glob(pattern);
  bool got = glob.matches(path);
  (void)pallas::check::PathPattern(std::string(pattern)).matches(path);
  // Backtracking is cheap while stars are few and the strings short.
  size_t stars = static_cast<size_t>(std::count(pattern.begin(), pattern.end(), '*'));
  if (pattern.size() <= 32 && path.size() <= 32 && stars <= 5) {
    bool want = refMatch(pattern, 0, path, 0);
    if (got != want) {
      std::fprintf(stderr,
                   "glob disagrees with the reference: pattern '%.*s' path '%.*s': %d vs %d\n",
                   static_cast<int>(pattern.size()), pattern.data(), static_cast<int>(path.size()),
                   path.data(), got, want);
      std::abort();
    }
  }
  return 0;
}
