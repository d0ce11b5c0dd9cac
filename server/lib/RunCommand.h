// The editor command that starts a kernel run (`pallas.run`, registered by
// server/features/GpuRunnerFeature.cpp), and the command for a run a fix
// suggests (analysis::RunSuggestion): the analysis proposes the run, the
// server spells it as LSP. Header-only: the code-action tests use it without
// the server library.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/support/Uri.h"

#include <nlohmann/json.hpp>
#include <string>

namespace pallas::server {

inline constexpr const char* kRunCommand = "pallas.run";

// {command, arguments: [{uri, entry, mode}]}, with `title` when given.
inline nlohmann::json runCommand(const analysis::RunSuggestion& run,
                                 const std::string& title = {}) {
  nlohmann::json command{
      {"command", kRunCommand},
      {"arguments",
       nlohmann::json::array({nlohmann::json{
           {"uri", support::pathToUri(run.path)}, {"entry", run.entry}, {"mode", run.mode}}})}};
  if (!title.empty())
    command["title"] = title;
  return command;
}

} // namespace pallas::server
