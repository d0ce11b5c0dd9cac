#include "pallas/protocol/JsonRpc.h"

namespace pallas::protocol {

namespace {

bool validId(const json& id) { return id.is_string() || id.is_number_integer(); }

const char* typeName(json::value_t t) {
  switch (t) {
  case json::value_t::null: return "null";
  case json::value_t::object: return "an object";
  case json::value_t::array: return "an array";
  case json::value_t::string: return "a string";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned: return "an integer";
  case json::value_t::number_float: return "a number";
  default: return "a value";
  }
}

bool hasType(const json& v, json::value_t t) {
  switch (t) {
  case json::value_t::number_integer:
  case json::value_t::number_unsigned: return v.is_number_integer();
  case json::value_t::number_float: return v.is_number();
  default: return v.type() == t;
  }
}

} // namespace

Message classifyMessage(const json& j) {
  if (!j.is_object()) return InvalidMessage{nullptr, "a JSON-RPC message must be an object"};
  json id = nullptr;
  auto idIt = j.find("id");
  bool hasId = idIt != j.end();
  if (hasId && validId(*idIt)) id = *idIt;
  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0")
    return InvalidMessage{id, "missing or wrong \"jsonrpc\" member (must be \"2.0\")"};
  auto method = j.find("method");
  if (method != j.end()) {
    if (!method->is_string()) return InvalidMessage{id, "\"method\" must be a string"};
    json params = nullptr;
    if (auto p = j.find("params"); p != j.end()) {
      if (!p->is_object() && !p->is_array())
        return InvalidMessage{id, "\"params\" must be an object or an array"};
      params = *p;
    }
    if (!hasId) return Notification{method->get<std::string>(), std::move(params)};
    if (!validId(*idIt)) return InvalidMessage{nullptr, "\"id\" must be an integer or a string"};
    return Request{*idIt, method->get<std::string>(), std::move(params)};
  }
  // A response to one of our requests.
  if (!hasId) return InvalidMessage{nullptr, "message has neither \"method\" nor \"id\""};
  auto result = j.find("result");
  auto err = j.find("error");
  if ((result == j.end()) == (err == j.end()))
    return InvalidMessage{nullptr, "a response must have exactly one of \"result\" and \"error\""};
  if (result != j.end()) return Response{*idIt, true, *result, nullptr};
  if (!err->is_object() || !err->contains("code"))
    return InvalidMessage{nullptr, "\"error\" must be an object with a \"code\""};
  return Response{*idIt, false, nullptr, *err};
}

json makeResponse(const RequestId& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeErrorResponse(const RequestId& id, ErrorCode code, const std::string& message,
                       const json& data) {
  json err{{"code", static_cast<int>(code)}, {"message", message}};
  if (!data.is_null()) err["data"] = data;
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

json makeRequest(const RequestId& id, const std::string& method, json params) {
  json j{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json makeNotification(const std::string& method, json params) {
  json j{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

const json& requireObject(const json& params, const char* context) {
  if (!params.is_object())
    throw RpcError(ErrorCode::InvalidParams,
                   std::string(context) + " must be an object, got " + typeName(params.type()));
  return params;
}

const json* optionalField(const json& object, const char* field, json::value_t type,
                          const char* context) {
  requireObject(object, context);
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return nullptr;
  if (!hasType(*it, type))
    throw RpcError(ErrorCode::InvalidParams, std::string(context) + "." + field + " must be " +
                                                 typeName(type) + ", got " +
                                                 typeName(it->type()));
  return &*it;
}

const json& requireField(const json& object, const char* field, json::value_t type,
                         const char* context) {
  const json* v = optionalField(object, field, type, context);
  if (!v)
    throw RpcError(ErrorCode::InvalidParams,
                   std::string(context) + "." + field + " is required");
  return *v;
}

} // namespace pallas::protocol
