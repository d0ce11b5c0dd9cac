// Running the language server on a transport: `pallas-lsp serve`.
#pragma once

#include "LspServer.h"
#include "pallas/protocol/Logger.h"

#include <cstdint>
#include <string>

namespace pallas::server {

struct ServeOptions {
  bool tcp = false;               // else stdio
  std::string host = "127.0.0.1"; // loopback unless the user names another address
  uint16_t port = 0;              // 0: any free port (printed on stderr)
  protocol::LogLevel logLevel = protocol::LogLevel::Info;
  std::string logFile;  // empty: stderr
  unsigned threads = 0; // request pool size; 0: hardware threads (at least 2)
  // TCP: the secret every connection must present in initialize's
  // initializationOptions.authToken (docs/security.md); empty: none (only
  // allowed on a loopback address).
  std::string token;
  // TCP: connections served at once; one more gets an error and is closed.
  // Unauthenticated ones count too, and each has 5 s to present the token.
  size_t maxConnections = 64;
  LspServer::Options server;
};

// stdio: serves one client and returns the LSP exit code (0 after shutdown +
// exit, 1 otherwise). TCP: serves every client that connects, each with its
// own session, until SIGINT/SIGTERM, then returns 0. Throws std::runtime_error
// when the log file or the listening socket cannot be opened.
int serve(const ServeOptions& options);

} // namespace pallas::server
