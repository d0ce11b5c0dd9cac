// pallas-lsp: dispatches to the subcommands registered in server/cli/.
#include "cli/Command.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#ifndef PALLAS_LSP_VERSION
#define PALLAS_LSP_VERSION "0.0.0"
#endif

using pallas::cli::Command;
using pallas::cli::registeredCommands;

static void printHelp(FILE* out) {
  std::fprintf(out,
               "pallas-lsp %s: a language server for JAX Pallas Mosaic GPU kernels\n\n"
               "usage: pallas-lsp <command> [options]\n\ncommands:\n",
               PALLAS_LSP_VERSION);
  size_t width = 0;
  for (const Command& c : registeredCommands())
    width = std::max(width, c.name.size());
  for (const Command& c : registeredCommands())
    std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), c.name.c_str(), c.summary.c_str());
  std::fprintf(out, "\nRun 'pallas-lsp <command> --help' for a command's options.\n"
                    "Exit codes: 0 clean, 1 findings, 2 usage or internal error.\n");
}

static int usageError(const std::string& message) {
  std::fprintf(stderr, "pallas-lsp: %s\n", message.c_str());
  return pallas::cli::kExitUsage;
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    return usageError("missing command (try 'pallas-lsp --help')");
  const std::string& name = args[0];
  if (name == "--help" || name == "-h" || name == "help") {
    printHelp(stdout);
    return pallas::cli::kExitOk;
  }
  if (name == "--version") {
    std::printf("pallas-lsp %s\n", PALLAS_LSP_VERSION);
    return pallas::cli::kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& c : registeredCommands())
    if (c.name == name)
      command = &c;
  if (!command) {
    if (!name.empty() && name[0] == '-')
      return usageError("unknown option '" + name + "' (try 'pallas-lsp --help')");
    return usageError("unknown command '" + name + "' (try 'pallas-lsp --help')");
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const std::string& a : rest) {
    if (a == "--help" || a == "-h") {
      std::printf("usage: pallas-lsp %s\n\n%s\n", command->usage.c_str(), command->summary.c_str());
      return pallas::cli::kExitOk;
    }
  }
  try {
    int code = command->run(rest);
    // The server's analysis threads may still be finishing an analysis the
    // exit made moot: ending the process here, once the output is flushed,
    // keeps the exit handlers from destroying what they still read.
    if (name == "serve") {
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  } catch (const pallas::cli::UsageError& e) {
    return usageError(e.message);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pallas-lsp: internal error: %s\n", e.what());
    return pallas::cli::kExitUsage;
  }
}
