// `pallas-lsp serve`: the language server on stdio or TCP.
#include "Arguments.h"
#include "Command.h"
#include "config/Numbers.h"
#include "lib/Serve.h"

#include <boost/asio/ip/address.hpp>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace pallas::cli {
namespace {

// The token of `--token-file`: the file must be a regular file of this user
// that nobody else can read or write (like ssh's private keys), holding at
// least 16 characters (surrounding whitespace is ignored).
std::string readToken(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    throw UsageError{"--token-file " + path + ": " + std::strerror(errno) +
                     (errno == ELOOP ? " (a symbolic link is not accepted)" : "")};
  struct stat st{};
  bool ok = ::fstat(fd, &st) == 0;
  std::string problem;
  if (!ok || !S_ISREG(st.st_mode))
    problem = "not a regular file";
  else if (st.st_uid != ::geteuid())
    problem = "owned by another user";
  else if ((st.st_mode & 077) != 0)
    problem = "readable or writable by others (chmod 600 it)";
  else if (st.st_size > 4096)
    problem = "larger than 4 KiB";
  std::string token(problem.empty() ? static_cast<size_t>(st.st_size) : 0, '\0');
  if (problem.empty() && !token.empty() &&
      ::read(fd, token.data(), token.size()) != static_cast<ssize_t>(token.size()))
    problem = std::string("cannot be read: ") + std::strerror(errno);
  ::close(fd);
  if (!problem.empty())
    throw UsageError{"--token-file " + path + ": " + problem};
  size_t b = token.find_first_not_of(" \t\r\n"), e = token.find_last_not_of(" \t\r\n");
  token = b == std::string::npos ? "" : token.substr(b, e - b + 1);
  if (token.size() < 16)
    throw UsageError{"--token-file " + path + ": the token must have at least 16 characters"};
  return token;
}

int runServe(const std::vector<std::string>& args) {
  server::ServeOptions options;
  bool stdio = false, allowRemote = false;
  std::string tokenFile;
  Arguments arg("serve", args);
  while (arg.next()) {
    std::string value; // of the option that takes one
    // A positional argument matches no option and ends at arg.unknown().
    if (arg.is("--stdio")) {
      arg.flag();
      stdio = true;
    } else if (arg.is("--listen")) {
      value = arg.value();
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
    } else if (arg.is("--log-level")) {
      value = arg.value();
      auto level = protocol::parseLogLevel(value);
      if (!level)
        throw UsageError{"--log-level must be error, warn, info or debug, got '" + value + "'"};
      options.logLevel = *level;
    } else if (arg.is("--log-file")) {
      value = arg.value();
      options.logFile = value;
    } else if (arg.is("--debounce-ms")) {
      value = arg.value();
      std::optional<uint64_t> ms = check::parseWholeNumber(value);
      if (!ms || *ms > 60000)
        throw UsageError{"--debounce-ms expects a whole number of milliseconds from 0 to 60000, "
                         "got '" +
                         value + "'"};
      options.server.debounce = std::chrono::milliseconds(*ms);
    } else if (arg.is("--max-connections")) {
      value = arg.value();
      std::optional<uint64_t> n = check::parseWholeNumber(value);
      if (!n || *n < 1 || *n > 4096)
        throw UsageError{"--max-connections expects a whole number from 1 to 4096, got '" + value +
                         "'"};
      options.maxConnections = static_cast<size_t>(*n);
    } else if (arg.is("--allow-remote")) {
      arg.flag();
      allowRemote = true;
    } else if (arg.is("--token-file")) {
      value = arg.value();
      tokenFile = value;
    } else if (arg.is("--test-methods")) {
      arg.flag();
      options.server.testMethods = true;
    } else {
      arg.unknown();
    }
  }
  if (stdio && options.tcp)
    throw UsageError{"serve: --stdio and --listen are exclusive"};
  if (options.tcp) {
    boost::system::error_code ec;
    auto address = boost::asio::ip::make_address(options.host, ec);
    bool loopback = !ec && address.is_loopback();
    // Whoever connects can make the server run programs (a configured
    // interpreter, kernel runs): another machine must not, unless asked
    // for, and then only with the token.
    if (!ec && !loopback && !allowRemote)
      throw UsageError{"serve: refusing to listen on " + options.host +
                       ", which is not a loopback address: anyone who can reach it could use "
                       "the server. Use 127.0.0.1, or --allow-remote --token-file FILE "
                       "(docs/security.md)"};
    if (!ec && !loopback && tokenFile.empty())
      throw UsageError{"serve: --allow-remote needs --token-file FILE: every connection must "
                       "present that token (docs/security.md)"};
  } else if (allowRemote || !tokenFile.empty()) {
    throw UsageError{"serve: --allow-remote and --token-file apply to --listen only"};
  }
  if (!tokenFile.empty())
    options.token = readToken(tokenFile);
  try {
    return server::serve(options);
  } catch (const std::runtime_error& e) {
    throw UsageError{std::string("serve: ") + e.what()};
  }
}

const CommandRegistration registration{Command{
    "serve",
    "serve [--stdio | --listen HOST:PORT [--allow-remote] [--token-file FILE] "
    "[--max-connections N]] [--log-level error|warn|info|debug] [--log-file FILE] "
    "[--debounce-ms N]",
    "run the language server (stdio by default; --listen 127.0.0.1:PORT for TCP)", runServe}};

} // namespace
} // namespace pallas::cli
