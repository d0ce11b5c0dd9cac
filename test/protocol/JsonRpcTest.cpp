#include "pallas/protocol/JsonRpc.h"

#include <gtest/gtest.h>

using namespace pallas::protocol;

namespace {

TEST(JsonRpc, ClassifiesRequest) {
  auto m =
      classifyMessage(json::parse(R"({"jsonrpc":"2.0","id":3,"method":"m","params":{"a":1}})"));
  auto* r = std::get_if<Request>(&m);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 3);
  EXPECT_EQ(r->method, "m");
  EXPECT_EQ(r->params["a"], 1);
}

TEST(JsonRpc, ClassifiesStringIdAndNotification) {
  auto m = classifyMessage(json::parse(R"({"jsonrpc":"2.0","id":"x","method":"m"})"));
  ASSERT_TRUE(std::get_if<Request>(&m));
  EXPECT_TRUE(std::get<Request>(m).params.is_null());
  m = classifyMessage(json::parse(R"({"jsonrpc":"2.0","method":"n","params":[1]})"));
  ASSERT_TRUE(std::get_if<Notification>(&m));
}

TEST(JsonRpc, ClassifiesResponses) {
  auto m = classifyMessage(json::parse(R"({"jsonrpc":"2.0","id":1,"result":null})"));
  ASSERT_TRUE(std::get_if<Response>(&m));
  EXPECT_TRUE(std::get<Response>(m).ok);
  m = classifyMessage(
      json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}})"));
  ASSERT_TRUE(std::get_if<Response>(&m));
  EXPECT_FALSE(std::get<Response>(m).ok);
  EXPECT_EQ(std::get<Response>(m).error["code"], -32601);
}

TEST(JsonRpc, RejectsNonJsonRpc) {
  for (const char* text :
       {R"([1,2])", R"("str")", R"({"id":1,"method":"m"})", R"({"jsonrpc":"1.0","method":"m"})",
        R"({"jsonrpc":"2.0","method":5})", R"({"jsonrpc":"2.0","id":{},"method":"m"})",
        R"({"jsonrpc":"2.0","method":"m","params":3})", R"({"jsonrpc":"2.0"})",
        R"({"jsonrpc":"2.0","id":1})", R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})",
        R"({"jsonrpc":"2.0","id":1,"error":"bad"})"}) {
    auto m = classifyMessage(json::parse(text));
    EXPECT_TRUE(std::get_if<InvalidMessage>(&m)) << text;
  }
}

TEST(JsonRpc, InvalidMessageKeepsRecoverableId) {
  auto m = classifyMessage(json::parse(R"({"jsonrpc":"2.0","id":7,"method":"m","params":"x"})"));
  auto* inv = std::get_if<InvalidMessage>(&m);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->id, 7);
}

TEST(JsonRpc, Builders) {
  EXPECT_EQ(makeResponse(1, json{{"a", 1}}).dump(), R"({"id":1,"jsonrpc":"2.0","result":{"a":1}})");
  auto e = makeErrorResponse(nullptr, ErrorCode::ParseError, "bad");
  EXPECT_TRUE(e["id"].is_null());
  EXPECT_EQ(e["error"]["code"], -32700);
  EXPECT_FALSE(makeNotification("n", nullptr).contains("params"));
  EXPECT_EQ(makeRequest(2, "m", json::object())["method"], "m");
}

TEST(JsonRpc, FieldAccessors) {
  json p = json::parse(R"({"s":"x","n":1,"o":{}})");
  EXPECT_EQ(requireField(p, "s", json::value_t::string), "x");
  EXPECT_EQ(requireField(p, "n", json::value_t::number_integer), 1);
  EXPECT_EQ(optionalField(p, "missing", json::value_t::string), nullptr);
  try {
    requireField(p, "s", json::value_t::object);
    FAIL();
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidParams);
    EXPECT_STREQ(e.what(), "params.s must be an object, got a string");
  }
  EXPECT_THROW(requireField(p, "missing", json::value_t::string), RpcError);
  EXPECT_THROW(requireObject(json::array()), RpcError);
}

} // namespace

// ---- nesting limit (issue 14: a 100,000-deep message overflowed the stack) ----

TEST(JsonNesting, FindsTheBracketThatGoesTooDeep) {
  EXPECT_EQ(findExcessNesting("[[[]]]", 3), std::nullopt);
  EXPECT_EQ(findExcessNesting("[[[[]]]]", 3), std::optional<size_t>(3));
  EXPECT_EQ(findExcessNesting("{\"a\":{\"b\":[1]}}", 2), std::optional<size_t>(10));
  // Siblings do not add up; strings (with escaped quotes) are not nesting.
  EXPECT_EQ(findExcessNesting("[[],[],[[]]]", 3), std::nullopt);
  EXPECT_EQ(findExcessNesting("[\"[[[\\\"[[[\"]", 1), std::nullopt);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(findExcessNesting(deep), std::optional<size_t>(kMaxJsonDepth));
}

TEST(JsonNesting, IdOfADeepMessageIsRecoveredWithoutDeepValues) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(idOfDeepMessage("{\"jsonrpc\":\"2.0\",\"id\":42,\"params\":" + deep + "}"), json(42));
  EXPECT_EQ(idOfDeepMessage("{\"params\":" + deep + ",\"id\":\"x\"}"), json("x"));
  EXPECT_TRUE(idOfDeepMessage("{\"method\":\"m\",\"params\":" + deep + "}").is_null());
  EXPECT_TRUE(idOfDeepMessage(deep).is_null());
  EXPECT_TRUE(idOfDeepMessage("{\"id\":" + deep + "}").is_null());
}

TEST(JsonNesting, ClassifyMovesParamsOut) {
  json j = json::parse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2]}})");
  Message m = classifyMessage(std::move(j));
  ASSERT_TRUE(std::holds_alternative<Request>(m));
  EXPECT_EQ(std::get<Request>(m).params, json::parse(R"({"a":[1,2]})"));
}
