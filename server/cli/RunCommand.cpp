// `pallas-lsp run FILE --entry FN [--mode compiled|interpret|gpu-interpret|compare] ...`:
// runs a kernel's entry function in the user's Python with JAX (gpu::runKernel)
// and prints what happened. Ctrl-C cancels the run and kills its process group.
#include "Command.h"
#include "ExecutionTrust.h"
#include "pallas/gpu/Runner.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace pallas::cli {
namespace {

const gpu::CancelToken* gInterruptToken = nullptr;

extern "C" void onInterrupt(int) {
  if (gInterruptToken != nullptr)
    gInterruptToken->cancel(); // an atomic store and a write(): async-signal-safe
}

std::string value(const std::vector<std::string>& args, std::size_t& i) {
  if (i + 1 >= args.size())
    throw UsageError{"run: " + args[i] + " needs a value"};
  return args[++i];
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
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--entry") {
      request.entry = value(args, i);
    } else if (arg == "--mode") {
      request.mode = mode(value(args, i));
    } else if (arg == "--compare") {
      const std::string pair = value(args, i);
      const auto comma = pair.find(',');
      if (comma == std::string::npos)
        throw UsageError{"run: --compare needs two modes, like compiled,interpret"};
      request.compareFirst = mode(pair.substr(0, comma));
      request.compareSecond = mode(pair.substr(comma + 1));
      request.mode = gpu::RunMode::Compare;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--quiet" || arg == "-q") {
      quiet = true;
    } else if (arg == "--timeout") {
      request.timeout =
          std::chrono::milliseconds(static_cast<long long>(number(arg, value(args, i)) * 1000));
    } else if (arg == "--launch-template") {
      request.launchTemplate = value(args, i);
    } else if (arg == "--python") {
      request.python = value(args, i);
    } else if (arg == "--runner") {
      request.runner = value(args, i);
    } else if (arg == "--runs") {
      request.repetitions = static_cast<int>(number(arg, value(args, i)));
    } else if (arg == "--memory-limit") {
      request.memoryLimitBytes =
          static_cast<std::uint64_t>(number(arg, value(args, i)) * 1024 * 1024);
    } else if (arg == "--result-channel") {
      const std::string channel = value(args, i);
      if (channel == "fd")
        request.resultChannel = gpu::ResultChannel::Fd3;
      else if (channel == "stdout")
        request.resultChannel = gpu::ResultChannel::Stdout;
      else
        throw UsageError{"run: --result-channel is fd or stdout"};
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError{"run: unknown option '" + arg + "'"};
    } else if (request.file.empty()) {
      request.file = arg;
    } else {
      throw UsageError{"run: more than one FILE ('" + request.file + "', '" + arg + "')"};
    }
  }
  if (request.file.empty())
    throw UsageError{"run: FILE is required"};
  {
    // The trust rule of the command line (server/lib/ExecutionTrust.h), as
    // doctor reports it: --python, else $PALLAS_LSP_PYTHON, else python3.
    server::ExecutionContext ctx;
    ctx.configuredPython = request.python;
    request.python = server::runInterpreterFor(ctx).python;
  }
  if (const char* env = std::getenv("PALLAS_LSP_LAUNCH_TEMPLATE");
      request.launchTemplate.empty() && env != nullptr)
    request.launchTemplate = env;

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
        if (showProgress)
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
    "[--result-channel fd|stdout]",
    "run a kernel's entry function for real (compiled on a GPU, or interpreted) and report",
    runRun}};

} // namespace
} // namespace pallas::cli
