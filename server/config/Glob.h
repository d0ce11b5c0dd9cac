// Glob matching shared by .gitignore rules, `exclude` and `per-file-ignores`.
// Paths are relative, '/'-separated. Syntax (gitignore's, which is also
// what ruff's globs accept for these settings):
//   *      any run of characters except '/'
//   ?      one character except '/'
//   [a-z]  a character class; [!...] or [^...] negates it
//   **     as a whole segment: zero or more directories ("**/x", "a/**/b",
//          "a/**"); anywhere else it behaves like '*'
//   \c     the character c literally
//
// Matching is linear in the pattern times the path (a pattern is compiled
// into a small automaton and the path is read once, keeping the set of
// places the pattern may be at), never exponential: backtracking over
// `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` against a 60-character name never ended
// (issue 34). git's wildmatch and ruff's globset bound it the same way.
#pragma once

#include <bitset>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

// Patterns longer than this never match (no path is longer: PATH_MAX), so
// a hostile one costs nothing; configuration reports them as errors.
inline constexpr size_t kMaxGlobPatternLength = 4096;

// A pattern compiled once and matched against many paths.
class Glob {
public:
  Glob() = default;
  explicit Glob(std::string_view pattern);
  // True when `path` (relative, '/'-separated) matches as a whole.
  bool matches(std::string_view path) const;

private:
  enum class Kind : unsigned char {
    Literal,  // `c`
    AnyChar,  // '?': one character except '/'
    Class,    // [..]: one character of `classIndex`'s set, never '/'
    Star,     // '*': any run without '/'
    AnyRun,   // the "**" of a whole segment: any run, '/' included
    SkipDirs, // before the AnyRun and '/' of "**/": both may match nothing
  };
  struct Step {
    Kind kind = Kind::Literal;
    char c = 0;
    unsigned classIndex = 0;
  };
  std::vector<Step> steps_;
  std::vector<std::bitset<256>> classes_;
  bool tooLong_ = false;
};

// True when `path` (relative, '/'-separated) matches `pattern` as a whole.
bool globMatch(std::string_view pattern, std::string_view path);

// A path pattern in the style of ruff's `exclude` / `per-file-ignores`: a
// pattern without '/' matches the last component of a path ("venv",
// "test_*.py"); one with a '/' matches the whole path relative to the
// folder the pattern was written in ("tests/fixtures/*.py"). A leading "./"
// or "/" anchors the pattern to that folder.
class PathPattern {
public:
  explicit PathPattern(std::string pattern);
  // `relativePath` is relative to the folder the pattern was written in.
  bool matches(std::string_view relativePath) const;
  const std::string& text() const { return text_; }

private:
  std::string text_; // as written, for messages
  Glob glob_;        // normalised
  bool basenameOnly_ = false;
};

} // namespace pallas::check
