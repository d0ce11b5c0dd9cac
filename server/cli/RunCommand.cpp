// `pallas-lsp run FILE --entry FN [--mode compiled|interpret|gpu-interpret|compare] ...`:
// runs a kernel's entry function in the user's Python with JAX (gpu::runKernel)
// and prints what happened. Ctrl-C cancels the run and kills its process group.
#include "Arguments.h"
#include "Command.h"
#include "Environment.h"
#include "ProjectPython.h"
#include "config/Numbers.h"
#include "pallas/gpu/Runner.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace pallas::cli {
namespace {

const gpu::CancelToken* gInterruptToken = nullptr;

extern "C" void onInterrupt(int) {
  if (gInterruptToken != nullptr)
    gInterruptToken->cancel(); // an atomic store and a write(): async-signal-safe
}

// --timeout S: seconds, 0 for none, else from a millisecond to a week.
std::chrono::milliseconds timeoutOption(const std::string& flag, const std::string& text) {
  std::optional<double> seconds = check::parseDecimal(text);
  std::optional<std::string> problem =
      seconds ? check::timeoutProblem(*seconds, /*zeroMeansNone=*/true) : "not a number";
  if (problem)
    throw UsageError{"run: " + flag +
                     " needs a number of seconds from 0.001 to 604800 (0: no "
                     "timeout), got '" +
                     text + "' (" + *problem + ")"};
  return check::timeoutMilliseconds(*seconds);
}

// A whole number from `min` to `max` (digits only: 1e10 or 2.5 are refused,
// never truncated).
uint64_t countOption(const std::string& flag, const std::string& text, uint64_t min, uint64_t max) {
  std::optional<uint64_t> n = check::parseWholeNumber(text);
  if (!n || *n < min || *n > max)
    throw UsageError{"run: " + flag + " needs a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + text + "'"};
  return *n;
}

gpu::RunMode mode(const std::string& text) {
  if (auto parsed = gpu::parseRunMode(text))
    return *parsed;
  throw UsageError{"run: unknown mode '" + text +
                   "' (compiled, interpret, gpu-interpret, compare)"};
}

int runRun(const std::vector<std::string>& args) {
  gpu::RunRequest request;
  bool json = false;
  bool quiet = false;
  std::optional<gpu::ResultChannel> resultChannel; // --result-channel
  bool useConfig = true;                           // [tool.pallas-lsp] python
  Arguments arg("run", args);
  while (arg.next()) {
    if (!arg.isOption()) {
      if (!request.file.empty())
        throw UsageError{"run: more than one FILE ('" + request.file + "', '" + arg.current() +
                         "')"};
      request.file = arg.current();
    } else if (arg.is("--entry")) {
      request.entry = arg.value();
    } else if (arg.is("--mode")) {
      request.mode = mode(arg.value());
    } else if (arg.is("--compare")) {
      const std::string pair = arg.value();
      const auto comma = pair.find(',');
      if (comma == std::string::npos)
        throw UsageError{"run: --compare needs two modes, like compiled,interpret"};
      request.compareFirst = mode(pair.substr(0, comma));
      request.compareSecond = mode(pair.substr(comma + 1));
      request.mode = gpu::RunMode::Compare;
    } else if (arg.is("--json")) {
      arg.flag();
      json = true;
    } else if (arg.isAny("--quiet", "-q")) {
      arg.flag();
      quiet = true;
    } else if (arg.is("--timeout")) {
      request.timeout = timeoutOption(arg.name(), arg.value());
    } else if (arg.is("--launch-template")) {
      request.launchTemplate = arg.value();
    } else if (arg.is("--python")) {
      request.python = arg.value();
    } else if (arg.isAny("--isolated", "--no-config")) {
      arg.flag();
      useConfig = false;
    } else if (arg.is("--runner")) {
      request.runner = arg.value();
    } else if (arg.is("--runs")) {
      request.repetitions = static_cast<int>(countOption(arg.name(), arg.value(), 1, 100000));
    } else if (arg.is("--memory-limit")) {
      // Megabytes, 0 for none; up to 16 TiB.
      request.memoryLimitBytes =
          countOption(arg.name(), arg.value(), 0, uint64_t{16} << 20) * 1024 * 1024;
    } else if (arg.is("--result-channel")) {
      const std::string channel = arg.value();
      if (channel == "fd")
        resultChannel = gpu::ResultChannel::Fd3;
      else if (channel == "stdout")
        resultChannel = gpu::ResultChannel::Stdout;
      else
        throw UsageError{"run: --result-channel is fd or stdout"};
    } else {
      arg.unknown();
    }
  }
  if (request.file.empty())
    throw UsageError{"run: FILE is required"};
  {
    // The trust rule of the command line (server/environment/ExecutionTrust.h), as
    // doctor reports it: --python, else the `python` of FILE's configuration
    // ([tool.pallas-lsp], as `check` reads it; not with --isolated), else
    // $PALLAS_LSP_PYTHON, else python3.
    server::ExecutionContext ctx;
    std::string why;
    if (request.python.empty() && useConfig)
      if (auto named = server::environment::projectPython(request.file, &why))
        request.python = *named;
    if (!why.empty())
      std::fprintf(stderr, "pallas-lsp: %s\n", why.c_str());
    ctx.configuredPython = request.python;
    request.python = server::runInterpreterFor(ctx).python;
  }
  request.launchTemplate = server::environment::launchTemplate(request.launchTemplate);
  // Through a template (ssh, srun) the result comes on stdout unless asked otherwise.
  request.resultChannel = resultChannel.value_or(gpu::resultChannelFor(request.launchTemplate));

  gpu::CancelToken cancel;
  gInterruptToken = &cancel;
  struct sigaction action{};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  struct sigaction oldInt{}, oldTerm{};
  sigaction(SIGINT, &action, &oldInt);
  sigaction(SIGTERM, &action, &oldTerm);

  const bool showProgress = !json && !quiet && isatty(STDERR_FILENO);
  gpu::RunResult result = gpu::runKernel(
      request,
      [&](const gpu::Progress& progress) {
        if (!showProgress)
          return;
        if (progress.phase == gpu::Phase::Output) // the program's output, live
          std::fputs(progress.message.c_str(), stderr);
        else
          std::fprintf(stderr, "[%s] %s\n", gpu::phaseName(progress.phase),
                       progress.message.c_str());
      },
      &cancel);

  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGTERM, &oldTerm, nullptr);
  gInterruptToken = nullptr;

  if (json)
    std::printf("%s\n", result.toJson().dump(2).c_str());
  else
    std::fputs(result.report().c_str(), stdout);
  if (result.status == gpu::RunResult::Status::LaunchFailed)
    return kExitUsage;
  return result.ok() ? kExitOk : kExitFindings;
}

const CommandRegistration registration{Command{
    "run",
    "run FILE [--entry FN] [--mode compiled|interpret|gpu-interpret|compare] [--compare A,B] "
    "[--json] [--timeout S (0: none)] [--launch-template T] [--python P] [--runs N] "
    "[--memory-limit MB] [--isolated] [--result-channel fd|stdout]",
    "run a kernel's entry function for real (compiled on a GPU, or interpreted) and report",
    runRun}};

} // namespace
} // namespace pallas::cli
