#include "pallas/protocol/Framing.h"

#include <gtest/gtest.h>

using namespace pallas::protocol;

namespace {

std::vector<FrameEvent> drain(FrameReader& r) {
  std::vector<FrameEvent> out;
  while (auto ev = r.next())
    out.push_back(std::move(*ev));
  return out;
}

TEST(Framing, ReadsOneMessage) {
  FrameReader r;
  r.feed(frameMessage("{\"a\":1}"));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Message);
  EXPECT_EQ(evs[0].body, "{\"a\":1}");
  EXPECT_EQ(r.buffered(), 0u);
}

// A body given in parts (publishDiagnostics: the diagnostics array is not
// concatenated first) frames as the whole body does: one length over every
// part, multi-byte UTF-8 counted in bytes.
TEST(Framing, PartsFrameAsTheWholeBody) {
  std::vector<std::string_view> parts{R"({"uri":)", R"("file:///é.py")", R"(,"d":[1,2])", "}"};
  std::string whole;
  for (std::string_view p : parts)
    whole += p;
  EXPECT_EQ(frameMessageParts(parts), frameMessage(whole));
  EXPECT_EQ(frameMessageParts({}), frameMessage(""));
  FrameReader r;
  r.feed(frameMessageParts(parts));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].body, whole);
}

TEST(Framing, ByteAtATime) {
  FrameReader r;
  std::string stream = frameMessage("{\"x\":\"é\"}") + frameMessage("[]");
  std::vector<FrameEvent> evs;
  for (char c : stream) {
    r.feed(std::string_view(&c, 1));
    for (auto& e : drain(r))
      evs.push_back(e);
  }
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].body, "{\"x\":\"é\"}");
  EXPECT_EQ(evs[1].body, "[]");
}

TEST(Framing, IgnoresContentTypeAndCase) {
  FrameReader r;
  r.feed("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].body, "{}");
}

TEST(Framing, AcceptsBareLineFeeds) {
  FrameReader r;
  r.feed("Content-Length: 2\n\n{}");
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].body, "{}");
}

TEST(Framing, MalformedHeaderThenRecovers) {
  FrameReader r;
  r.feed("this is not a header\r\n\r\n" + frameMessage("{}"));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
  EXPECT_NE(evs[0].error.find("malformed header"), std::string::npos);
  EXPECT_EQ(evs[1].kind, FrameEvent::Kind::Message);
  EXPECT_EQ(evs[1].body, "{}");
}

TEST(Framing, MissingContentLength) {
  FrameReader r;
  r.feed("Content-Type: x\r\n\r\n{\"junk\":1}" + frameMessage("{\"ok\":1}"));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
  EXPECT_NE(evs[0].error.find("missing Content-Length"), std::string::npos);
  EXPECT_EQ(evs[1].body, "{\"ok\":1}");
}

TEST(Framing, HugeContentLengthIsCapped) {
  FrameReader r(1024);
  r.feed("Content-Length: 1025\r\n\r\n");
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
  EXPECT_NE(evs[0].error.find("exceeds the limit of 1024"), std::string::npos);
  // The body bytes of the refused message are skipped, the next one is read.
  r.feed(std::string(1025, 'x') + frameMessage("{}"));
  evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].body, "{}");
}

TEST(Framing, AbsurdContentLengthDigits) {
  FrameReader r;
  r.feed("Content-Length: 99999999999999999999999\r\n\r\n" + frameMessage("{}"));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
  EXPECT_EQ(evs[1].body, "{}");
}

TEST(Framing, NegativeOrTextContentLength) {
  for (std::string bad : {"-5", "abc", "", "1 2"}) {
    FrameReader r;
    r.feed("Content-Length: " + bad + "\r\n\r\n" + frameMessage("{}"));
    auto evs = drain(r);
    ASSERT_EQ(evs.size(), 2u) << bad;
    EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error) << bad;
    EXPECT_EQ(evs[1].body, "{}") << bad;
  }
}

// Issue 34: two Content-Length headers that disagree. The resync used to
// search from inside the bad header block, found its second header, read
// the bad body with that length and ate the first byte of the next message,
// whose request then never got a reply. Now the whole block and the body
// it announced are skipped, and every good message after it is read whole.
TEST(Framing, ConflictingContentLengthsSkipTheirMessageOnly) {
  for (std::string body : {std::string("{}"), std::string("{\"id\":9}"), std::string(50, 'x')}) {
    for (bool byteAtATime : {false, true}) {
      FrameReader r;
      std::string stream = "Content-Length: " + std::to_string(body.size()) +
                           "\r\nContent-Length: " + std::to_string(body.size() + 3) + "\r\n\r\n" +
                           body + frameMessage(R"({"id":1})") + frameMessage(R"({"id":2})");
      std::vector<FrameEvent> evs;
      if (byteAtATime) {
        for (char c : stream) {
          r.feed(std::string_view(&c, 1));
          for (auto& e : drain(r))
            evs.push_back(e);
        }
      } else {
        r.feed(stream);
        evs = drain(r);
      }
      ASSERT_EQ(evs.size(), 3u) << body << byteAtATime;
      EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
      EXPECT_NE(evs[0].error.find("conflicting Content-Length"), std::string::npos);
      EXPECT_EQ(evs[1].body, R"({"id":1})") << body << byteAtATime;
      EXPECT_EQ(evs[2].body, R"({"id":2})") << body << byteAtATime;
    }
  }
}

TEST(Framing, EndlessHeaderIsAnError) {
  FrameReader r;
  r.feed("Content-Length: 2\r\nX: " + std::string(kMaxHeaderBlock + 10, 'a'));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].kind, FrameEvent::Kind::Error);
  r.feed("\r\n\r\n" + frameMessage("{}"));
  evs = drain(r);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].body, "{}");
}

TEST(Framing, TruncatedBodyAtEndOfStream) {
  FrameReader r;
  r.feed("Content-Length: 10\r\n\r\n{\"a\"");
  EXPECT_TRUE(drain(r).empty());
  auto ev = r.finish();
  ASSERT_TRUE(ev);
  EXPECT_NE(ev->error.find("got 4 of 10 bytes"), std::string::npos);
}

TEST(Framing, CleanEndOfStream) {
  FrameReader r;
  r.feed(frameMessage("{}") + "\r\n");
  drain(r);
  EXPECT_FALSE(r.finish());
}

TEST(Framing, UnreadPutsBytesBack) {
  FrameReader r;
  // A 30-byte Content-Length over a 4-byte body swallows the start of the
  // next message (23 bytes) and 3 bytes of the one after.
  r.feed("Content-Length: 30\r\n\r\n{\"a\"" + frameMessage("{}") + frameMessage("[1]"));
  auto evs = drain(r);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].body.size(), 30u);
  size_t p = findContentLengthHeader(evs[0].body);
  ASSERT_EQ(p, 4u);
  r.unread(evs[0].body.substr(p));
  // The swallowed message is read again; its extra bytes are junk.
  auto again = drain(r);
  ASSERT_GE(again.size(), 1u);
  EXPECT_EQ(again[0].body, "{}");
}

TEST(Framing, FrameMessageFormat) {
  EXPECT_EQ(frameMessage("{}"), "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(frameMessage("é"), "Content-Length: 2\r\n\r\né"); // bytes, not characters
}

} // namespace
