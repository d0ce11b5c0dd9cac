// `pallas-lsp version`: this build and the JAX version its knowledge comes from.
#include "Command.h"
#include "pallas/analysis/Project.h"

#include <cstdio>

#ifndef PALLAS_LSP_VERSION
#define PALLAS_LSP_VERSION "0.0.0"
#endif

namespace pallas::cli {
namespace {

int runVersion(const std::vector<std::string>& args) {
  if (!args.empty())
    throw UsageError{"version: unexpected argument '" + args[0] + "'"};
  std::printf("pallas-lsp %s (JAX knowledge: %s)\n", PALLAS_LSP_VERSION,
              analysis::knowledgeJaxVersion("").c_str());
  return kExitOk;
}

const CommandRegistration registration{Command{
    "version", "version", "print the version and the JAX version of the knowledge", runVersion}};

} // namespace
} // namespace pallas::cli
