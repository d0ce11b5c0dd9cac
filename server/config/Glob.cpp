#include "Glob.h"

#include <algorithm>

namespace pallas::check {
namespace {

// The set of a bracket expression starting at p[pi] == '[' ("[a-z]", "[!a]",
// "[]]", "\]" inside): on success `next` is the index after ']'. A '['
// without a closing ']' is a literal '[' (returns false). Membership is
// decided as chars compare (signed), as the matcher always has.
bool parseClass(std::string_view p, size_t pi, std::bitset<256>& set, size_t& next) {
  size_t i = pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    ++i;
  }
  std::vector<std::pair<char, char>> ranges;
  bool first = true;
  for (; i < p.size(); ++i) {
    char lo = p[i];
    if (lo == ']' && !first) {
      next = i + 1;
      for (unsigned v = 0; v < 256; ++v) {
        char c = static_cast<char>(v);
        bool in = false;
        for (auto [a, b] : ranges)
          in = in || (a <= c && c <= b);
        set[v] = in != negate;
      }
      return true;
    }
    first = false;
    if (lo == '\\' && i + 1 < p.size())
      lo = p[++i];
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = p[i + 2];
      if (hi == '\\' && i + 3 < p.size())
        hi = p[i + 3], ++i;
      i += 2;
    }
    ranges.emplace_back(lo, hi);
  }
  return false;
}

// "**" as a whole segment of the pattern (at its start or after '/', and at
// its end or before '/').
bool wholeSegmentDoubleStar(std::string_view p, size_t pi) {
  return p[pi] == '*' && pi + 1 < p.size() && p[pi + 1] == '*' && (pi == 0 || p[pi - 1] == '/') &&
         (pi + 2 == p.size() || p[pi + 2] == '/');
}

} // namespace

Glob::Glob(std::string_view p) {
  if (p.size() > kMaxGlobPatternLength) {
    tooLong_ = true;
    return;
  }
  for (size_t pi = 0; pi < p.size();) {
    char c = p[pi];
    if (wholeSegmentDoubleStar(p, pi)) {
      if (pi + 2 == p.size()) { // "a/**": everything below
        steps_.push_back({Kind::AnyRun, 0, 0});
        pi += 2;
        continue;
      }
      // "**/": nothing, or any run that ends with '/'. Only at its start may
      // both be skipped (a run already read must end with the '/').
      steps_.push_back({Kind::SkipDirs, 0, 0});
      steps_.push_back({Kind::AnyRun, 0, 0});
      steps_.push_back({Kind::Literal, '/', 0});
      pi += 3;
      continue;
    }
    if (c == '*') {
      while (pi < p.size() && p[pi] == '*')
        ++pi;
      steps_.push_back({Kind::Star, 0, 0});
      continue;
    }
    if (c == '?') {
      steps_.push_back({Kind::AnyChar, 0, 0});
      ++pi;
      continue;
    }
    if (c == '[') {
      std::bitset<256> set;
      size_t next = 0;
      if (parseClass(p, pi, set, next)) {
        steps_.push_back({Kind::Class, 0, static_cast<unsigned>(classes_.size())});
        classes_.push_back(set);
        pi = next;
        continue;
      }
      // An unclosed '[' is literal.
    }
    if (c == '\\' && pi + 1 < p.size())
      c = p[++pi];
    steps_.push_back({Kind::Literal, c, 0});
    ++pi;
  }
}

bool Glob::matches(std::string_view path) const {
  if (tooLong_)
    return false;
  // The places the pattern may be at after the path read so far (n: all of
  // it matched). Only forward moves without a character (a star matching
  // nothing, "**/" matching no folder), so one pass in order closes a set.
  const size_t n = steps_.size();
  std::vector<unsigned char> at(n + 1, 0), next(n + 1, 0);
  auto close = [&](std::vector<unsigned char>& set) {
    for (size_t i = 0; i < n; ++i) {
      if (!set[i])
        continue;
      const Step& s = steps_[i];
      if (s.kind == Kind::Star || s.kind == Kind::AnyRun || s.kind == Kind::SkipDirs)
        set[i + 1] = 1;
      if (s.kind == Kind::SkipDirs)
        set[i + 3] = 1; // past the AnyRun and its '/'
    }
  };
  at[0] = 1;
  close(at);
  for (char ch : path) {
    std::fill(next.begin(), next.end(), 0);
    bool alive = false;
    for (size_t i = 0; i < n; ++i) {
      if (!at[i])
        continue;
      const Step& s = steps_[i];
      switch (s.kind) {
      case Kind::Literal:
        if (ch == s.c)
          next[i + 1] = 1, alive = true;
        break;
      case Kind::AnyChar:
        if (ch != '/')
          next[i + 1] = 1, alive = true;
        break;
      case Kind::Class:
        if (ch != '/' && classes_[s.classIndex][static_cast<unsigned char>(ch)])
          next[i + 1] = 1, alive = true;
        break;
      case Kind::Star:
        if (ch != '/')
          next[i] = 1, alive = true;
        break;
      case Kind::AnyRun:
        next[i] = 1, alive = true;
        break;
      case Kind::SkipDirs:
        break; // reads nothing
      }
    }
    if (!alive)
      return false;
    close(next);
    at.swap(next);
  }
  return at[n] != 0;
}

bool globMatch(std::string_view pattern, std::string_view path) {
  return Glob(pattern).matches(path);
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
  glob_ = Glob(pattern);
}

bool PathPattern::matches(std::string_view relativePath) const {
  if (basenameOnly_) {
    size_t slash = relativePath.rfind('/');
    std::string_view base =
        slash == std::string_view::npos ? relativePath : relativePath.substr(slash + 1);
    return glob_.matches(base);
  }
  return glob_.matches(relativePath);
}

} // namespace pallas::check
