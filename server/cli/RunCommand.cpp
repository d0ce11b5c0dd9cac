// `pallas-lsp run FILE --entry FN [--mode compiled|interpret|gpu-interpret|compare] ...`:
// runs a kernel's entry function in the user's Python with JAX (gpu::runKernel)
// and prints what happened. Ctrl-C cancels the run and kills its process group.
#include "Arguments.h"
#include "Command.h"
#include "Environment.h"
#include "ProjectPython.h"
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

double number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double parsed = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || parsed < 0)
    throw UsageError{"run: " + flag + " needs a non-negative number, got '" + text + "'"};
  return parsed;
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
      request.timeout =
          std::chrono::milliseconds(static_cast<long long>(number(arg.name(), arg.value()) * 1000));
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
      request.repetitions = static_cast<int>(number(arg.name(), arg.value()));
    } else if (arg.is("--memory-limit")) {
      request.memoryLimitBytes =
          static_cast<std::uint64_t>(number(arg.name(), arg.value()) * 1024 * 1024);
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
    "[--json] [--timeout S] [--launch-template T] [--python P] [--runs N] [--memory-limit MB] "
    "[--isolated] [--result-channel fd|stdout]",
    "run a kernel's entry function for real (compiled on a GPU, or interpreted) and report",
    runRun}};

} // namespace
} // namespace pallas::cli
