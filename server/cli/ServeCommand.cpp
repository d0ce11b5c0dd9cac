// `pallas-lsp serve`: the language server on stdio or TCP.
#include "Command.h"

#include "lib/Serve.h"

#include <charconv>
#include <stdexcept>

namespace pallas::cli {
namespace {

// Reads the value of `flag` from args[i+1] or from "--flag=value".
bool takeValue(const std::vector<std::string>& args, size_t& i, const std::string& flag,
               std::string& value) {
  const std::string& a = args[i];
  if (a == flag) {
    if (i + 1 >= args.size()) throw UsageError{flag + " needs a value"};
    value = args[++i];
    return true;
  }
  if (a.rfind(flag + "=", 0) == 0) {
    value = a.substr(flag.size() + 1);
    return true;
  }
  return false;
}

int runServe(const std::vector<std::string>& args) {
  server::ServeOptions options;
  bool stdio = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--stdio") {
      stdio = true;
    } else if (takeValue(args, i, "--listen", value)) {
      // HOST:PORT or just PORT (loopback).
      size_t colon = value.rfind(':');
      std::string host = colon == std::string::npos ? "127.0.0.1" : value.substr(0, colon);
      std::string port = colon == std::string::npos ? value : value.substr(colon + 1);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
      unsigned p = 0;
      auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
      if (host.empty() || ec != std::errc() || end != port.data() + port.size() || p > 65535)
        throw UsageError{"--listen expects HOST:PORT, got '" + value + "'"};
      options.tcp = true;
      options.host = host;
      options.port = static_cast<uint16_t>(p);
    } else if (takeValue(args, i, "--log-level", value)) {
      auto level = protocol::parseLogLevel(value);
      if (!level)
        throw UsageError{"--log-level must be error, warn, info or debug, got '" + value + "'"};
      options.logLevel = *level;
    } else if (takeValue(args, i, "--log-file", value)) {
      options.logFile = value;
    } else if (takeValue(args, i, "--debounce-ms", value)) {
      unsigned ms = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc() || end != value.data() + value.size())
        throw UsageError{"--debounce-ms expects a number, got '" + value + "'"};
      options.server.debounce = std::chrono::milliseconds(ms);
    } else if (args[i] == "--test-methods") {
      options.server.testMethods = true;
    } else {
      throw UsageError{"serve: unknown option '" + args[i] + "'"};
    }
  }
  if (stdio && options.tcp) throw UsageError{"serve: --stdio and --listen are exclusive"};
  try {
    return server::serve(options);
  } catch (const std::runtime_error& e) {
    throw UsageError{std::string("serve: ") + e.what()};
  }
}

const CommandRegistration registration{Command{
    "serve",
    "serve [--stdio | --listen HOST:PORT] [--log-level error|warn|info|debug] [--log-file FILE]"
    " [--debounce-ms N]",
    "run the language server (stdio by default; --listen 127.0.0.1:PORT for TCP)",
    runServe}};

} // namespace
} // namespace pallas::cli
