#include "pallas/support/Uri.h"

#include <gtest/gtest.h>

using namespace pallas::support;

TEST(Uri, RoundTrips) {
  for (std::string path : {"/a/b.py", "/a b/c#d.py", "/ünï/çødé.py", "/x/%41.py"}) {
    EXPECT_EQ(uriToPath(pathToUri(path)), path) << path;
  }
  EXPECT_EQ(pathToUri("/a b/c.py"), "file:///a%20b/c.py");
  EXPECT_EQ(uriToPath("file:///a%20b/c.py"), "/a b/c.py");
  EXPECT_EQ(uriToPath("file://host/a.py"), "/a.py");
}

TEST(Uri, NonFileUrisAreKeys) {
  EXPECT_EQ(uriToPath("untitled:Untitled-1"), "untitled:Untitled-1");
  EXPECT_EQ(pathToUri("untitled:Untitled-1"), "untitled:Untitled-1");
  EXPECT_EQ(uriToPath("file:///bad%zzescape"), "/bad%zzescape");
  EXPECT_EQ(uriToPath("file:///trailing%4"), "/trailing%4");
}
