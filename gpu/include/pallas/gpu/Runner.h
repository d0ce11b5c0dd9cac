// The kernel runner, C++ side: runs a user's entry function in the user's
// Python with JAX (gpu/runner/pallas_lsp_runner.py) in a supervised process
// group, reports progress, and parses the runner's JSON result into types
// the server can publish (diagnostics at the user's frames, a message).
// Knows nothing of LSP.
#pragma once

#include "pallas/gpu/Process.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pallas::gpu {

enum class RunMode {
  Compiled,     // every pallas_call / plgpu.kernel / pl.kernel / core_map off interpret
  Interpret,    // interpret=True (the HLO interpreter, state discharge)
  GpuInterpret, // interpret=InterpretGPUParams() (Mosaic GPU's own interpreter)
  Compare,      // two modes (RunRequest::compareModes), outputs diffed
};
const char* runModeName(RunMode mode); // "compiled", "interpret", "gpu-interpret", "compare"
std::optional<RunMode> parseRunMode(std::string_view name);

struct RunRequest {
  std::string file;  // the user's Python file
  std::string entry; // function name; empty: the one marked `# pallas-lsp: entry`
  RunMode mode = RunMode::Interpret;
  // For Compare: the two sides, in order. Neither may be Compare.
  RunMode compareFirst = RunMode::Compiled;
  RunMode compareSecond = RunMode::Interpret;
  int repetitions = 5;        // timed runs after the first (compile) call
  std::string python;         // empty: resolvePython("")
  std::string runner;         // empty: locateRunnerScript()
  std::string launchTemplate; // empty: kDefaultLaunchTemplate
  // Fd3 keeps the user's stdout apart; Stdout for launch templates that
  // forward only the standard streams (ssh, srun: resultChannelFor): the
  // runner then frames the user's stdout onto the channel.
  ResultChannel resultChannel = ResultChannel::Fd3;
  std::string workingDirectory; // empty: the file's directory
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds killGrace{std::chrono::seconds(2)};
  std::uint64_t memoryLimitBytes = 0;     // RLIMIT_AS of the process tree; 0: none (CUDA needs a
                                          // large address space: leave 0 for compiled runs)
  std::size_t outputHeadCap = 64 * 1024;  // per stream, bytes kept from the start
  std::size_t outputTailCap = 192 * 1024; // per stream, bytes kept from the end
  std::vector<std::string> environment;   // extra NAME=value for the child
};

// Output: what the program wrote to stdout, as it arrives (`message` is the
// text), for live output; the whole of it is also in RunResult::stdoutText.
enum class Phase { Started, Compiling, Running, Finished, Output };
const char* phaseName(Phase phase);

struct Progress {
  Phase phase = Phase::Started;
  std::string mode;    // "compiled", ... (empty for Started/Finished/Output)
  std::string message; // "compiling (interpret)", "run 3/5 (compiled)"; Output: the text
  std::optional<int> percent;
};

// A frame of a Python traceback. `user` marks frames in the user's project
// (not JAX, not the standard library, not the runner).
struct Frame {
  std::string file;
  int line = 0; // 1-based, as Python reports it
  std::string function;
  std::string code;
  bool user = false;
};

struct PythonError {
  std::string type;          // "NotImplementedError"
  std::string message;       // "inline_mgpu_p does not support discharge."
  std::vector<Frame> frames; // outermost first
  std::string traceback;     // the formatted text
  // The innermost user frame, where a diagnostic belongs.
  const Frame* innermostUserFrame() const;
};

struct OutputSummary {
  std::string path; // pytree path: "" for a single array, "[0]", "['out']"
  std::vector<std::int64_t> shape;
  std::string dtype;
  std::string checksum; // sha256 prefix of the bytes
  std::optional<double> sum, min, max;
  std::string kind; // "array", "scalar", "none", "other"
};

struct ModeResult {
  std::string mode;
  bool ok = false;
  std::optional<PythonError> error;
  std::string timingMethod; // "jit" (lower+compile, then calls) or "eager"
  std::optional<double> compileSeconds;
  std::optional<double> runSecondsMedian;
  int runs = 0;
  std::vector<OutputSummary> outputs;
};

struct Comparison {
  std::string path;
  bool comparable = false; // false: shapes/dtypes differ or a side is missing
  std::optional<double> maxAbsDiff, maxRelDiff;
  std::string note;
  // The runner's per-element error map ("heat_map", gpu/README.md), passed
  // through to the editors as it came; null when the runner sent none.
  nlohmann::json heatMap;
};

struct RunResult {
  enum class Status {
    Succeeded,    // every mode ran
    Failed,       // the entry raised, or the environment cannot run the mode (reported by Python)
    Crashed,      // the process died without a result (signal, abort, exit)
    TimedOut,     // killed after RunRequest::timeout
    Cancelled,    // killed through the CancelToken
    LaunchFailed, // the command could not start, or the template is bad
    ProtocolError // the process exited but its result could not be read
  };
  Status status = Status::LaunchFailed;
  std::string message; // one plain-English paragraph for showMessage / the CLI
  std::string file, entry, mode;
  std::vector<ModeResult> modes;
  std::vector<Comparison> comparisons;
  std::optional<PythonError> setupError; // import of the file, entry lookup, capability check
  std::string stdoutText, stderrText;    // capped head+tail
  bool outputTruncated = false;
  std::vector<std::string> command; // the expanded argv
  int exitCode = -1, signal = 0;
  bool processGroupGone = false;
  double wallSeconds = 0;
  nlohmann::json document;    // the runner's raw result document (null if none)
  nlohmann::json environment; // python/jax/devices as the runner saw them

  bool ok() const { return status == Status::Succeeded; }
  nlohmann::json toJson() const;
  std::string report() const; // multi-line human summary
};
const char* runStatusName(RunResult::Status status);

using ProgressCallback = std::function<void(const Progress&)>;

// Runs the request to its end on the calling thread. Progress is reported on
// that thread. Never throws for anything the user's code or machine does.
RunResult runKernel(const RunRequest& request, const ProgressCallback& progress = {},
                    const CancelToken* cancel = nullptr);

// The result channel that survives a launch template: fd 3 locally (the
// default template), stdout through any other (ssh and srun forward only
// stdin, stdout and stderr; fd 3 arrives closed).
ResultChannel resultChannelFor(const std::string& launchTemplate);

// Python to use: `explicitPython` if set, else env PALLAS_LSP_PYTHON, else
// `detected` (the project's own, see detectProjectPython) if set, else
// "python3" (looked up on PATH at launch, or remotely by the template).
std::string resolvePython(const std::string& explicitPython, const std::string& detected = "");

// The project's own interpreter, when one is plainly there: a virtual
// environment in a workspace root (.venv, venv, env), else the activated one
// the server was started from ($VIRTUAL_ENV, $CONDA_PREFIX). Empty when none.
// Its bin/python must be executable; nothing is run.
std::string detectProjectPython(const std::vector<std::string>& workspaceRoots);

// The runner script: env PALLAS_LSP_RUNNER, else <exe>/../share/pallas-lsp/,
// else the source tree it was built from. Empty if none exists.
std::string locateRunnerScript();

// The arguments passed to the runner for a request (without python/runner).
std::vector<std::string> runnerArguments(const RunRequest& request);

// Runs `{python} {runner} --doctor` through the template and returns the
// environment document (python, jax, jaxlib, plugins, devices), or an
// object with "error".
nlohmann::json
inspectPythonEnvironment(const std::string& python, const std::string& launchTemplate = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

} // namespace pallas::gpu
