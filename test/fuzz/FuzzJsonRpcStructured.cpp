// libFuzzer target: JSON-RPC messages built from the input with deep and
// wide values (arrays and objects nested up to 300,000 levels, 100,000
// elements wide, odd numbers and strings) in the places a server reads
// (params of real LSP methods, ids, results), framed and fed to a real
// Endpoint + LspServer. Any crash or sanitizer report is a bug.
#include "LspHarness.h"

#include <cstdint>
#include <fuzzer/FuzzedDataProvider.h>
#include <string>

namespace {

class JsonGenerator {
public:
  explicit JsonGenerator(FuzzedDataProvider& in) : in_(in) {}

  std::string value(int depth = 0) {
    if (depth > 8 || in_.remaining_bytes() == 0)
      return scalar();
    switch (in_.ConsumeIntegralInRange(0, 9)) {
    case 0: { // deep array, sometimes with something inside, sometimes unbalanced
      size_t n = count(300, 300000);
      std::string inner = in_.ConsumeBool() ? scalar() : "";
      bool unbalanced = n > 0 && in_.ConsumeIntegralInRange(0, 15) == 0;
      return std::string(n, '[') + inner + std::string(n - (unbalanced ? 1 : 0), ']');
    }
    case 1: { // deep object
      size_t n = count(300, 100000);
      std::string out;
      out.reserve(n * 7);
      for (size_t i = 0; i < n; ++i)
        out += "{\"a\":";
      out += scalar();
      out.append(n, '}');
      return out;
    }
    case 2: { // wide array
      std::string out = "[";
      for (size_t i = 0, n = count(20, 100000); i < n; ++i)
        out += (i ? "," : "") + scalar();
      return out + "]";
    }
    case 3: { // wide object (repeated keys too)
      std::string out = "{";
      for (size_t i = 0, n = count(20, 50000); i < n; ++i)
        out += (i ? ",\"" : "\"") + std::to_string(i % 97) + "\":" + scalar();
      return out + "}";
    }
    case 4:
      return "[" + value(depth + 1) + "," + value(depth + 1) + "]";
    case 5:
      return "{\"x\":" + value(depth + 1) + ",\"y\":" + value(depth + 1) + "}";
    default:
      return scalar();
    }
  }

  std::string scalar() {
    switch (in_.ConsumeIntegralInRange(0, 9)) {
    case 0:
      return std::to_string(in_.ConsumeIntegral<int64_t>());
    case 1:
      return in_.PickValueInArray({"1E999", "-0", "1e-400", "18446744073709551616", "0.5", "-1"});
    case 2:
      return "true";
    case 3:
      return "null";
    case 4:
      return "\"file:///tmp/f" + std::to_string(in_.ConsumeIntegralInRange(0, 3)) + ".py\"";
    case 5:
      return "\"" +
             std::string(
                 in_.PickValueInArray({"\\u0000", "\\ud800", "\\\"", "\\\\", "é", "\r\n", "\\r"})) +
             "\"";
    case 6:
      return "\"" + std::string(count(8, 100000), '[') + "\"";
    case 7:
      return "{}";
    case 8:
      return "[]";
    default: {
      std::string s = in_.ConsumeRandomLengthString(32);
      std::string out = "\"";
      for (char c : s)
        out += (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? '_' : c;
      return out + "\"";
    }
    }
  }

  // A message a client (or a broken one) could send.
  std::string message() {
    static const char* methods[] = {"textDocument/didOpen",
                                    "textDocument/didChange",
                                    "textDocument/hover",
                                    "textDocument/codeAction",
                                    "textDocument/diagnostic",
                                    "workspace/didChangeConfiguration",
                                    "workspace/executeCommand",
                                    "workspace/didChangeWatchedFiles",
                                    "$/cancelRequest",
                                    "pallas/mlir",
                                    "initialize",
                                    "shutdown",
                                    "textDocument/didClose",
                                    "codeAction/resolve"};
    std::string method = methods[in_.ConsumeIntegralInRange<size_t>(0, std::size(methods) - 1)];
    std::string id =
        in_.ConsumeBool()
            ? ""
            : ",\"id\":" +
                  (in_.ConsumeBool() ? std::to_string(in_.ConsumeIntegral<int>()) : value(7));
    std::string params;
    switch (in_.ConsumeIntegralInRange(0, 4)) {
    case 0:
      params = value();
      break;
    case 1: // the right shape, with fuzzed values in it
      params = "{\"textDocument\":{\"uri\":" + scalar() + ",\"version\":" + scalar() +
               ",\"text\":" + scalar() + "},\"position\":{\"line\":" + scalar() +
               ",\"character\":" + scalar() + "},\"contentChanges\":" + value(1) +
               ",\"range\":" + value(1) + ",\"context\":" + value(1) + ",\"settings\":" + value(1) +
               ",\"changes\":" + value(1) + ",\"command\":" + scalar() +
               ",\"arguments\":" + value(1) + ",\"id\":" + scalar() + "}";
      break;
    case 2: // a real document open, then edits
      params = "{\"textDocument\":{\"uri\":\"file:///tmp/"
               "f0.py\",\"languageId\":\"python\",\"version\":" +
               std::to_string(in_.ConsumeIntegralInRange(-2, 9)) + ",\"text\":\"import jax\\r" +
               std::string(count(4, 60000), '(') +
               "\\n\"},\"contentChanges\":[{\"text\":\"x\\r(\"}]}";
      break;
    case 3:
      params = "null";
      break;
    default:
      params = "{\"initializationOptions\":" + value(1) + ",\"capabilities\":" + value(1) + "}";
    }
    if (in_.ConsumeIntegralInRange(0, 7) == 0) // a response to one of our requests
      return "{\"jsonrpc\":\"2.0\",\"id\":" + scalar() + ",\"result\":" + value() + "}";
    return "{\"jsonrpc\":\"2.0\"" + id + ",\"method\":\"" + method + "\",\"params\":" + params +
           "}";
  }

private:
  size_t count(size_t small, size_t large) {
    return in_.ConsumeIntegralInRange(0, 7) != 0 ? in_.ConsumeIntegralInRange<size_t>(0, small)
                                                 : in_.ConsumeIntegralInRange<size_t>(0, large);
  }
  FuzzedDataProvider& in_;
};

pallas::fuzz::LspHarness& harness() {
  static auto* h = new pallas::fuzz::LspHarness(); // never destroyed: threads outlive main
  return *h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  JsonGenerator gen(in);
  auto& h = harness();
  h.ensureSession();
  for (int i = 0; i < 4 && in.remaining_bytes() > 0; ++i) {
    std::string body = gen.message();
    h.endpoint->receive(pallas::protocol::frameMessage(body));
  }
  h.drain();
  return 0;
}
