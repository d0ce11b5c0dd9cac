// One `pallas-lsp check` run, without the command line: discover the files,
// read them, keep those that can hold findings (Relevance.h), analyse them
// on parallel workers with a Project each (cross-file helpers are read on
// demand), apply the policy (selection, per-file-ignores, suppressions,
// severities), optionally apply fixes and analyse again.
#pragma once

#include "FixApplier.h"
#include "Report.h"
#include "config/Config.h"
#include "config/Policy.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pallas::check {

struct CheckOptions {
  std::vector<std::filesystem::path> paths;
  unsigned jobs = 0; // 0: hardware concurrency
  SelectionOverrides selection;
  enum class ConfigMode { Discover, File, None } configMode = ConfigMode::Discover;
  std::filesystem::path configFile; // for ConfigMode::File
  bool fix = false;
  FixOptions fixOptions;
  // Compute capability of the local GPU ("9.0"; empty: none), from the device
  // probe, so PLS003 (hardware requirements) can run.
  std::string gpuComputeCapability;
  // The first GPU's shared_memory_per_block_optin (JAX's SMEM limit, PLS005);
  // 0: no GPU, JAX's default.
  long long gpuSharedMemoryPerBlockOptin = 0;
  // The knowledge table for the checked workspace: called with the
  // interpreter named (`python` below, else the `python` of the
  // configuration at the common root, made absolute; empty when neither),
  // whether it may be executed (named on the command line, or
  // `trustConfigPython`), and the common root; returns a table path ("" =
  // the bundled table). Unset: bundled.
  std::function<std::string(const std::string& python, bool mayRun, const std::string& root)>
      knowledgeFor;
  // `--python`: overrides the configuration's `python`.
  std::string python;
  // `--trust-config-python`: the configuration's `python` may be executed
  // (else its environment is only read).
  bool trustConfigPython = false;
  // Judge every launch as if this path were chosen ("interpret",
  // "gpu-interpret", "compiled"; empty: each launch's own paths).
  std::string assumePath;
  // Also compute each launch's path matrix (Report::launches; JSON output).
  bool launchMatrix = false;
};

struct CheckResult {
  Report report;
  // Problems that make the run exit 2 (unreadable paths), already worded.
  std::vector<std::string> errors;
  // Notes for stderr that do not change the exit code (fixes left alone).
  std::vector<std::string> notes;
  std::vector<std::string> fixedFiles;
};

// Throws ConfigError for an unusable configuration.
CheckResult runCheck(const CheckOptions& options);

// Runs fn(i) for i in [0, count) on up to `jobs` threads.
void parallelFor(size_t count, unsigned jobs, const std::function<void(size_t)>& fn);

} // namespace pallas::check
