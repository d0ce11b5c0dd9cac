// JSON reports keep bytes that are not UTF-8 (check/JsonText.h, issue 34):
// a path on disk is any bytes, and nlohmann wrote U+FFFD, naming a file that
// does not exist. Each such byte is a \udcXX escape (PEP 383).
#include "check/JsonText.h"

#include <gtest/gtest.h>

using pallas::check::dumpKeepingBytes;
using json = nlohmann::ordered_json;

TEST(JsonText, InvalidBytesBecomeSurrogateEscapes) {
  json doc = {{"path", std::string("/w/k\xff\xfe-\xc3(.py")},
              {"ok", "caf\xc3\xa9 \xf0\x9f\x98\x80"}};
  EXPECT_EQ(dumpKeepingBytes(doc, -1), R"({"path":"/w/k\udcff\udcfe-\udcc3(.py","ok":"café 😀"})");
}

TEST(JsonText, EverythingElseIsAsNlohmannWritesIt) {
  json plain = {{"a", {1, 2.5, nullptr, true}},
                {"s", std::string("\x01 \\u0001 \" \\ \n \x7f \x01"
                                  "01")},
                {"nested", {{"k", "v"}, {"empty", json::array()}}}};
  EXPECT_EQ(dumpKeepingBytes(plain, 2), plain.dump(2));
  EXPECT_EQ(dumpKeepingBytes(plain, -1), plain.dump());
  // A key that is not UTF-8 is kept too, in its place.
  json doc = {{"first", 1}, {std::string("k\x80"), "v"}, {"last", 2}};
  EXPECT_EQ(dumpKeepingBytes(doc, -1), R"({"first":1,"k\udc80":"v","last":2})");
}
