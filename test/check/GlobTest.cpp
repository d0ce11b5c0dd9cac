#include "config/Glob.h"

#include <gtest/gtest.h>

using pallas::check::globMatch;
using pallas::check::PathPattern;

TEST(Glob, StarDoesNotCrossSlash) {
  EXPECT_TRUE(globMatch("*.py", "a.py"));
  EXPECT_FALSE(globMatch("*.py", "d/a.py"));
  EXPECT_TRUE(globMatch("d/*.py", "d/a.py"));
  EXPECT_FALSE(globMatch("*.py", "a.pyc"));
  EXPECT_TRUE(globMatch("*", ""));
}

TEST(Glob, QuestionMarkAndClasses) {
  EXPECT_TRUE(globMatch("a?.py", "ab.py"));
  EXPECT_FALSE(globMatch("a?.py", "a/.py"));
  EXPECT_TRUE(globMatch("test_[a-c].py", "test_b.py"));
  EXPECT_FALSE(globMatch("test_[a-c].py", "test_d.py"));
  EXPECT_TRUE(globMatch("test_[!a-c].py", "test_d.py"));
  EXPECT_FALSE(globMatch("test_[!a-c].py", "test_a.py"));
  EXPECT_TRUE(globMatch("[]]", "]"));
  EXPECT_TRUE(globMatch("a[b", "a[b")); // unclosed class is literal
}

TEST(Glob, DoubleStar) {
  EXPECT_TRUE(globMatch("**/x.py", "x.py"));
  EXPECT_TRUE(globMatch("**/x.py", "a/b/x.py"));
  EXPECT_TRUE(globMatch("a/**/b", "a/b"));
  EXPECT_TRUE(globMatch("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(globMatch("a/**/b", "a/x/y/c"));
  EXPECT_TRUE(globMatch("a/**", "a/x/y"));
  EXPECT_FALSE(globMatch("a/**", "a"));
  EXPECT_FALSE(globMatch("a/**", "b/x"));
  // "**" that is not a whole segment behaves like "*".
  EXPECT_TRUE(globMatch("a**.py", "abc.py"));
  EXPECT_FALSE(globMatch("a**.py", "a/c.py"));
}

TEST(Glob, Escapes) {
  EXPECT_TRUE(globMatch("\\*.py", "*.py"));
  EXPECT_FALSE(globMatch("\\*.py", "a.py"));
}

TEST(PathPattern, BasenameVersusRelative) {
  PathPattern base("test_*.py");
  EXPECT_TRUE(base.matches("test_a.py"));
  EXPECT_TRUE(base.matches("deep/dir/test_a.py"));
  PathPattern rel("tests/*.py");
  EXPECT_TRUE(rel.matches("tests/a.py"));
  EXPECT_FALSE(rel.matches("x/tests/a.py"));
  PathPattern anchored("./gen");
  EXPECT_TRUE(anchored.matches("gen"));
  EXPECT_FALSE(anchored.matches("x/gen"));
  PathPattern dir("build/");
  EXPECT_TRUE(dir.matches("a/build"));
}

// ---- issue 34: linear-time matching ----------------------------------------------

// Backtracking over `*a*a*...*b` against sixty a's never finished (check
// hung in exclude / .gitignore, the server in per-file-ignores). The
// automaton reads the path once: these return at once (ctest's timeout is
// the bound, as in test/hardening).
TEST(Glob, PathologicalPatternsAreLinear) {
  std::string stars;
  for (int i = 0; i < 14; ++i)
    stars += "*a";
  EXPECT_FALSE(globMatch(stars + "*b", std::string(60, 'a')));
  EXPECT_TRUE(globMatch(stars + "*b", std::string(60, 'a') + "b"));
  std::string many;
  for (int i = 0; i < 2000; ++i)
    many += "*a";
  EXPECT_FALSE(globMatch(many + "*b", std::string(4000, 'a')));
  std::string segments;
  for (int i = 0; i < 200; ++i)
    segments += "**/a/";
  EXPECT_FALSE(globMatch(segments + "b", [] {
    std::string p;
    for (int i = 0; i < 1000; ++i)
      p += "a/";
    return p + "c";
  }()));
  PathPattern evil(stars + "*b");
  EXPECT_FALSE(evil.matches("dir/" + std::string(60, 'a')));
}

TEST(Glob, OverlongPatternsNeverMatch) {
  std::string pattern(pallas::check::kMaxGlobPatternLength + 1, '*');
  EXPECT_FALSE(globMatch(pattern, "a"));
  EXPECT_TRUE(globMatch(std::string(pallas::check::kMaxGlobPatternLength, '*'), "a"));
}

// The compiled matcher keeps every rule of the old one.
TEST(Glob, SemanticsAreKept) {
  EXPECT_TRUE(globMatch("**/x", "/x"));       // an empty folder name
  EXPECT_TRUE(globMatch("a/**/**/b", "a/b")); // consecutive segments
  EXPECT_TRUE(globMatch("a/**/b", "a//b"));
  EXPECT_FALSE(globMatch("a/**/b", "ab"));
  EXPECT_TRUE(globMatch("***", "abc")); // not a segment: a star
  EXPECT_FALSE(globMatch("***", "a/c"));
  EXPECT_TRUE(globMatch("a/**", "a/"));
  EXPECT_TRUE(globMatch("[a-]", "-"));
  EXPECT_TRUE(globMatch("[\\]]", "]"));
  EXPECT_FALSE(globMatch("[!a]", "/")); // a class never matches '/'
  EXPECT_TRUE(globMatch("x\\", "x\\")); // a trailing backslash is literal
  EXPECT_TRUE(globMatch("[^\xc3\xa9]", "z"));
  EXPECT_TRUE(globMatch("", ""));
  EXPECT_FALSE(globMatch("", "a"));
}
