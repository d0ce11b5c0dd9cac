// Running a kernel: the runner's arguments, the supervised run with its
// progress events and result channel, and the environment probe (--doctor).
#include "RunnerInternal.h"
#include "pallas/gpu/LaunchTemplate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <sys/random.h>
#include <unistd.h>

namespace pallas::gpu {
using nlohmann::json;
namespace fs = std::filesystem;
using detail::absorbDocument;
using detail::describeMessage;
using detail::lastLines;
using detail::optionalNumber;
using detail::stringField;

std::vector<std::string> runnerArguments(const RunRequest& request) {
  std::vector<std::string> args = {"--file", request.file,
                                   "--mode", runModeName(request.mode),
                                   "--runs", std::to_string(std::max(1, request.repetitions))};
  if (!request.entry.empty()) {
    args.push_back("--entry");
    args.push_back(request.entry);
  }
  if (request.mode == RunMode::Compare) {
    args.push_back("--compare");
    args.push_back(std::string(runModeName(request.compareFirst)) + "," +
                   runModeName(request.compareSecond));
  }
  if (request.resultChannel == ResultChannel::Stdout) {
    args.push_back("--result-stdout");
  } else {
    args.push_back("--result-fd");
    args.push_back("3");
  }
  // The run's secret arrives on stdin (not in argv or the environment, which
  // the user's code could read back from /proc/self).
  args.push_back("--result-secret-stdin");
  return args;
}

namespace {

// 128 random bits, hex: the secret of one run's result channel.
std::string runSecret() {
  unsigned char bytes[16] = {};
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n <= 0)
      break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof bytes) { // no getrandom: std::random_device
    std::random_device device;
    for (unsigned char& b : bytes)
      b = static_cast<unsigned char>(device());
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

} // namespace

RunResult runKernel(const RunRequest& request, const ProgressCallback& progress,
                    const CancelToken* cancel) {
  RunResult result;
  result.file = request.file;
  result.entry = request.entry;
  result.mode = runModeName(request.mode);
  auto report = [&](Phase phase, std::string mode, std::string message, std::optional<int> pct) {
    if (progress)
      progress(Progress{phase, std::move(mode), std::move(message), pct});
  };
  auto launchFailed = [&](std::string why) {
    result.status = RunResult::Status::LaunchFailed;
    result.message = std::move(why);
    result.message = describeMessage(result, request);
    report(Phase::Finished, "", result.message, std::nullopt);
    return result;
  };
  if (request.mode == RunMode::Compare &&
      (request.compareFirst == RunMode::Compare || request.compareSecond == RunMode::Compare))
    return launchFailed("compare needs two concrete modes");

  LaunchValues values;
  values.python = resolvePython(request.python);
  values.runner = request.runner.empty() ? locateRunnerScript() : request.runner;
  if (values.runner.empty())
    return launchFailed(
        "the runner script pallas_lsp_runner.py was not found (set PALLAS_LSP_RUNNER)");
  // The child runs in the file's directory: relative paths would break.
  auto anchor = [](std::string& path) {
    std::error_code error;
    if (path.find('/') != std::string::npos && path.front() != '/')
      if (fs::path absolutePath = fs::absolute(path, error); !error)
        path = absolutePath.lexically_normal().string();
  };
  anchor(values.python);
  anchor(values.runner);
  RunRequest absolute = request;
  if (std::error_code error; !absolute.file.empty()) {
    fs::path path = fs::absolute(absolute.file, error);
    if (!error)
      absolute.file = path.lexically_normal().string();
  }
  values.args = runnerArguments(absolute);
  try {
    result.command = expandLaunchTemplate(
        request.launchTemplate.empty() ? kDefaultLaunchTemplate : request.launchTemplate, values);
  } catch (const LaunchTemplateError& error) {
    return launchFailed(error.what());
  }

  ProcessSpec spec;
  spec.argv = result.command;
  spec.environment = request.environment;
  // Python must not buffer the user's prints in memory where a crash loses them.
  spec.environment.push_back("PYTHONUNBUFFERED=1");
  spec.workingDirectory = request.workingDirectory;
  if (spec.workingDirectory.empty()) {
    std::error_code error;
    fs::path parent = fs::absolute(request.file, error).parent_path();
    if (!error && fs::is_directory(parent, error))
      spec.workingDirectory = parent.string();
  }
  spec.timeout = request.timeout;
  spec.killGrace = request.killGrace;
  spec.memoryLimitBytes = request.memoryLimitBytes;
  spec.outputHeadCap = request.outputHeadCap;
  spec.outputTailCap = request.outputTailCap;
  spec.resultChannel = request.resultChannel;
  const std::string secret = runSecret();
  spec.stdinData = secret + "\n";

  json document;
  // With the result channel on stdout, what the program printed arrives
  // framed on it (output events), kept the way stdout is kept otherwise.
  CappedBuffer framedStdout(request.outputHeadCap, request.outputTailCap);
  std::string protocolProblem;
  bool forged = false; // a line without the secret (written by the user's code)
  spec.onResultLine = [&](std::string_view line) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      return;
    json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object()) {
      if (protocolProblem.empty())
        protocolProblem =
            "a line on the result channel is not JSON: " + std::string(line.substr(0, 200));
      return;
    }
    // Only the runner knows this run's secret: anything else on the channel
    // was written by the user's code and is not believed.
    auto given = event.find("secret");
    if (given == event.end() || !given->is_string() || *given != secret) {
      forged = true;
      return;
    }
    event.erase("secret");
    const std::string kind = stringField(event, "event");
    if (kind == "result") {
      document = std::move(event);
    } else if (kind == "output") {
      const std::string text = stringField(event, "text");
      framedStdout.append(text);
      report(Phase::Output, "", text, std::nullopt);
    } else if (kind == "progress") {
      const std::string phase = stringField(event, "phase");
      Phase mapped = phase == "compiling" ? Phase::Compiling
                     : phase == "running" ? Phase::Running
                                          : Phase::Started;
      if (phase == "finished")
        return; // reported once, below, with the parsed outcome
      report(mapped, stringField(event, "mode"), stringField(event, "message"),
             optionalNumber<int>(event, "percent"));
    }
  };

  if (spec.resultChannel != ResultChannel::Stdout)
    spec.onStdout = [&](std::string_view data) {
      report(Phase::Output, "", std::string(data), std::nullopt);
    };
  report(Phase::Started, "", "starting " + result.command.front(), std::nullopt);
  ProcessOutcome outcome = runSupervised(spec, cancel);
  const bool framed = spec.resultChannel == ResultChannel::Stdout;
  result.stdoutText = framed ? framedStdout.text() : outcome.out.text();
  result.stderrText = outcome.err.text();
  result.outputTruncated =
      (framed ? framedStdout.truncated() : outcome.out.truncated()) || outcome.err.truncated();
  result.exitCode = outcome.exitCode;
  result.signal = outcome.signal;
  result.processGroupGone = outcome.groupGone;
  result.wallSeconds = outcome.wallSeconds;

  using End = ProcessOutcome::End;
  switch (outcome.end) {
  case End::SpawnFailed:
    return launchFailed(outcome.spawnError);
  case End::TimedOut:
    result.status = RunResult::Status::TimedOut;
    break;
  case End::Cancelled:
    result.status = RunResult::Status::Cancelled;
    break;
  case End::Signaled:
  case End::Exited:
    if (document.is_object()) {
      absorbDocument(result, document);
      result.status =
          document.value("ok", false) ? RunResult::Status::Succeeded : RunResult::Status::Failed;
    } else if (outcome.end == End::Signaled || outcome.exitCode != 0) {
      result.status = RunResult::Status::Crashed;
    } else {
      result.status = RunResult::Status::ProtocolError;
      result.message = protocolProblem.empty() ? "the runner sent no result" : protocolProblem;
      if (forged)
        result.message += "; a line on the result channel without this run's secret was "
                          "ignored (written by the program itself, not by the runner)";
      if (outcome.resultTruncated)
        result.message += " (the result channel exceeded its size cap)";
    }
    break;
  }
  result.message = describeMessage(result, request);
  report(Phase::Finished, "", result.message, std::nullopt);
  return result;
}

ResultChannel resultChannelFor(const std::string& launchTemplate) {
  return launchTemplate.empty() || launchTemplate == kDefaultLaunchTemplate ? ResultChannel::Fd3
                                                                            : ResultChannel::Stdout;
}

json inspectPythonEnvironment(const std::string& python, const std::string& launchTemplate,
                              std::chrono::milliseconds timeout) {
  LaunchValues values;
  values.python = resolvePython(python);
  values.runner = locateRunnerScript();
  if (values.runner.empty())
    return {{"error", "the runner script pallas_lsp_runner.py was not found"}};
  // Through a template that forwards only the standard streams, stdout.
  const ResultChannel channel = resultChannelFor(launchTemplate);
  values.args = {"--doctor"};
  if (channel == ResultChannel::Stdout) {
    values.args.push_back("--result-stdout");
  } else {
    values.args.push_back("--result-fd");
    values.args.push_back("3");
  }
  ProcessSpec spec;
  try {
    spec.argv = expandLaunchTemplate(
        launchTemplate.empty() ? kDefaultLaunchTemplate : launchTemplate, values);
  } catch (const LaunchTemplateError& error) {
    return {{"error", error.what()}};
  }
  spec.timeout = timeout;
  spec.resultChannel = channel;
  ProcessOutcome outcome = runSupervised(spec);
  json environment;
  std::istringstream lines(outcome.result);
  for (std::string line; std::getline(lines, line);) {
    json event = json::parse(line, nullptr, false);
    if (event.is_object() && event.value("event", "") == "result")
      environment = event.value("environment", json());
  }
  if (environment.is_object())
    return environment;
  std::string why;
  if (outcome.end == ProcessOutcome::End::SpawnFailed)
    why = outcome.spawnError;
  else if (outcome.end == ProcessOutcome::End::TimedOut)
    why = "timed out";
  else
    why = "no report; stderr: " + lastLines(outcome.err.text(), 3);
  return {{"error", values.python + ": " + why}};
}

} // namespace pallas::gpu
