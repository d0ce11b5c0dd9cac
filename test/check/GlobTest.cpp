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
