// Glob matching shared by .gitignore rules, `exclude` and `per-file-ignores`.
// Paths are relative, '/'-separated. Syntax (gitignore's, which is also
// what ruff's globs accept for these settings):
//   *      any run of characters except '/'
//   ?      one character except '/'
//   [a-z]  a character class; [!...] or [^...] negates it
//   **     as a whole segment: zero or more directories ("**/x", "a/**/b",
//          "a/**"); anywhere else it behaves like '*'
//   \c     the character c literally
#pragma once

#include <string>
#include <string_view>

namespace pallas::check {

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
  std::string text_;    // as written, for messages
  std::string pattern_; // normalised
  bool basenameOnly_ = false;
};

} // namespace pallas::check
