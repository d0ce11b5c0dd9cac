// JSON-RPC 2.0 messages: classification of incoming JSON, construction of
// outgoing messages, and the error codes LSP uses.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace pallas::protocol {

using json = nlohmann::json;

enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

// Thrown by handlers; the dispatcher turns it into an error response.
class RpcError : public std::runtime_error {
public:
  RpcError(ErrorCode code, const std::string& message, json data = nullptr)
      : std::runtime_error(message), code(code), data(std::move(data)) {}
  ErrorCode code;
  json data;
};

// A request id: integer or string (null only in error responses).
using RequestId = json;

struct Request {
  RequestId id;
  std::string method;
  json params; // object, array, or null when absent
};
struct Notification {
  std::string method;
  json params;
};
struct Response {
  RequestId id;
  bool ok = true;
  json result; // when ok
  json error;  // {code, message, data?} when !ok
};
// JSON that is not a valid JSON-RPC message. `id` is the request's id when it
// could be recovered (so the error reply can name it), else null.
struct InvalidMessage {
  RequestId id;
  std::string reason;
};

using Message = std::variant<Request, Notification, Response, InvalidMessage>;

// Classifies parsed JSON. Never throws. The rvalue form moves params and
// results out instead of copying them.
Message classifyMessage(const json& j);
Message classifyMessage(json&& j);

// The deepest nesting of arrays and objects a message may have. LSP messages
// nest about a dozen levels; copying, comparing and printing a json value
// recurse once per level, so a deeper message is refused before it is parsed
// (a 100,000-deep one would otherwise overflow the stack).
inline constexpr size_t kMaxJsonDepth = 256;

// Offset of the '[' or '{' that takes `text` deeper than `maxDepth`, or
// nullopt. A linear scan that knows strings and escapes; it does not check
// that the text is valid JSON.
std::optional<size_t> findExcessNesting(std::string_view text, size_t maxDepth = kMaxJsonDepth);

// The "id" of a message that nests too deeply (so the refusal can answer
// it), read by a parse that keeps only the top `maxDepth` levels (the parser
// is iterative; nothing deep is stored). Null when there is none.
RequestId idOfDeepMessage(std::string_view text, size_t maxDepth = kMaxJsonDepth);

json makeResponse(const RequestId& id, json result);
json makeErrorResponse(const RequestId& id, ErrorCode code, const std::string& message,
                       const json& data = nullptr);
json makeRequest(const RequestId& id, const std::string& method, json params);
json makeNotification(const std::string& method, json params);

// Parameter access with type checks that throw RpcError(InvalidParams) naming
// the offending field, so handlers stay one line per field.
const json& requireField(const json& object, const char* field, json::value_t type,
                         const char* context = "params");
const json* optionalField(const json& object, const char* field, json::value_t type,
                          const char* context = "params");
void requireObject(const json& params, const char* context = "params");

} // namespace pallas::protocol
