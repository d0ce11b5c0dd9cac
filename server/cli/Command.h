// The `pallas-lsp` subcommand registry. Each subcommand lives in its own file
// in server/cli/ and registers itself with a static CommandRegistration, so
// adding one touches no other file.
#pragma once

#include <string>
#include <vector>

namespace pallas::cli {

// Exit codes shared by every subcommand (ruff's convention).
enum ExitCode : int { kExitOk = 0, kExitFindings = 1, kExitUsage = 2 };

struct Command {
  std::string name;    // "check"
  std::string usage;   // "check PATH... [--format text|json|sarif|github] ..."
  std::string summary; // one line for `pallas-lsp --help`
  // args excludes the program and subcommand names. Returns the exit code.
  int (*run)(const std::vector<std::string>& args);
};

// Thrown by a subcommand for a usage error; main prints
// "pallas-lsp: <message>" on one line and exits 2.
struct UsageError {
  std::string message;
};

void registerCommand(Command command);
const std::vector<Command>& registeredCommands();

struct CommandRegistration {
  explicit CommandRegistration(Command command) { registerCommand(std::move(command)); }
};

} // namespace pallas::cli
