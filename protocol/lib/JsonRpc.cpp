#include "pallas/protocol/JsonRpc.h"

namespace pallas::protocol {

namespace {

bool validId(const json& id) {
  return id.is_string() || id.is_number_integer();
}

const char* typeName(json::value_t t) {
  switch (t) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  default:
    return "a value";
  }
}

bool hasType(const json& v, json::value_t t) {
  switch (t) {
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return v.is_number_integer();
  case json::value_t::number_float:
    return v.is_number();
  default:
    return v.type() == t;
  }
}

} // namespace

Message classifyMessage(const json& j) {
  return classifyMessage(json(j));
}

Message classifyMessage(json&& j) {
  if (!j.is_object())
    return InvalidMessage{nullptr, "a JSON-RPC message must be an object"};
  json id = nullptr;
  auto idIt = j.find("id");
  bool hasId = idIt != j.end();
  if (hasId && validId(*idIt))
    id = *idIt;
  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0")
    return InvalidMessage{id, "missing or wrong \"jsonrpc\" member (must be \"2.0\")"};
  auto method = j.find("method");
  if (method != j.end()) {
    if (!method->is_string())
      return InvalidMessage{id, "\"method\" must be a string"};
    json params = nullptr;
    if (auto p = j.find("params"); p != j.end()) {
      if (!p->is_object() && !p->is_array())
        return InvalidMessage{id, "\"params\" must be an object or an array"};
      params = std::move(*p);
    }
    if (!hasId)
      return Notification{method->get<std::string>(), std::move(params)};
    if (!validId(*idIt))
      return InvalidMessage{nullptr, "\"id\" must be an integer or a string"};
    return Request{*idIt, method->get<std::string>(), std::move(params)};
  }
  // A response to one of our requests.
  if (!hasId)
    return InvalidMessage{nullptr, "message has neither \"method\" nor \"id\""};
  auto result = j.find("result");
  auto err = j.find("error");
  if ((result == j.end()) == (err == j.end()))
    return InvalidMessage{nullptr, "a response must have exactly one of \"result\" and \"error\""};
  if (result != j.end())
    return Response{*idIt, true, std::move(*result), nullptr};
  if (!err->is_object() || !err->contains("code"))
    return InvalidMessage{nullptr, "\"error\" must be an object with a \"code\""};
  return Response{*idIt, false, nullptr, std::move(*err)};
}

std::optional<size_t> findExcessNesting(std::string_view text, size_t maxDepth) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return i;
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

RequestId idOfDeepMessage(std::string_view text, size_t maxDepth) {
  json::parser_callback_t keepShallow = [maxDepth](int depth, json::parse_event_t event, json&) {
    // Containers below the limit are skipped whole (with what they hold).
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start)
      return static_cast<size_t>(depth) < maxDepth;
    return true;
  };
  json j = json::parse(text, keepShallow, /*allow_exceptions=*/false);
  if (!j.is_object())
    return nullptr;
  auto id = j.find("id");
  if (id == j.end() || !(id->is_string() || id->is_number_integer()))
    return nullptr;
  return *id;
}

json makeResponse(const RequestId& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeErrorResponse(const RequestId& id, ErrorCode code, const std::string& message,
                       const json& data) {
  json err{{"code", static_cast<int>(code)}, {"message", message}};
  if (!data.is_null())
    err["data"] = data;
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

json makeRequest(const RequestId& id, const std::string& method, json params) {
  json j{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null())
    j["params"] = std::move(params);
  return j;
}

json makeNotification(const std::string& method, json params) {
  json j{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null())
    j["params"] = std::move(params);
  return j;
}

void requireObject(const json& params, const char* context) {
  if (!params.is_object())
    throw RpcError(ErrorCode::InvalidParams,
                   std::string(context) + " must be an object, got " + typeName(params.type()));
}

const json* optionalField(const json& object, const char* field, json::value_t type,
                          const char* context) {
  requireObject(object, context);
  auto it = object.find(field);
  if (it == object.end() || it->is_null())
    return nullptr;
  if (!hasType(*it, type))
    throw RpcError(ErrorCode::InvalidParams, std::string(context) + "." + field + " must be " +
                                                 typeName(type) + ", got " + typeName(it->type()));
  return &*it;
}

const json& requireField(const json& object, const char* field, json::value_t type,
                         const char* context) {
  const json* v = optionalField(object, field, type, context);
  if (!v)
    throw RpcError(ErrorCode::InvalidParams, std::string(context) + "." + field + " is required");
  return *v;
}

} // namespace pallas::protocol
