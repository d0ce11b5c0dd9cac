#include "pallas/gpu/Runner.h"

#include "pallas/gpu/LaunchTemplate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <sys/random.h>
#include <unistd.h>

#ifndef PALLAS_LSP_RUNNER_SOURCE
#define PALLAS_LSP_RUNNER_SOURCE ""
#endif

namespace pallas::gpu {
namespace fs = std::filesystem;
using nlohmann::json;

const char* runModeName(RunMode mode) {
  switch (mode) {
  case RunMode::Compiled:
    return "compiled";
  case RunMode::Interpret:
    return "interpret";
  case RunMode::GpuInterpret:
    return "gpu-interpret";
  case RunMode::Compare:
    return "compare";
  }
  return "?";
}

std::optional<RunMode> parseRunMode(std::string_view name) {
  for (RunMode mode :
       {RunMode::Compiled, RunMode::Interpret, RunMode::GpuInterpret, RunMode::Compare})
    if (name == runModeName(mode))
      return mode;
  return std::nullopt;
}

const char* phaseName(Phase phase) {
  switch (phase) {
  case Phase::Started:
    return "started";
  case Phase::Compiling:
    return "compiling";
  case Phase::Running:
    return "running";
  case Phase::Finished:
    return "finished";
  }
  return "?";
}

const char* runStatusName(RunResult::Status status) {
  switch (status) {
  case RunResult::Status::Succeeded:
    return "succeeded";
  case RunResult::Status::Failed:
    return "failed";
  case RunResult::Status::Crashed:
    return "crashed";
  case RunResult::Status::TimedOut:
    return "timed-out";
  case RunResult::Status::Cancelled:
    return "cancelled";
  case RunResult::Status::LaunchFailed:
    return "launch-failed";
  case RunResult::Status::ProtocolError:
    return "protocol-error";
  }
  return "?";
}

const Frame* PythonError::innermostUserFrame() const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (it->user)
      return &*it;
  return nullptr;
}

std::string resolvePython(const std::string& explicitPython, const std::string& detected) {
  if (!explicitPython.empty())
    return explicitPython;
  if (const char* env = std::getenv("PALLAS_LSP_PYTHON"); env != nullptr && *env != '\0')
    return env;
  if (!detected.empty())
    return detected;
  return "python3";
}

std::string detectProjectPython(const std::vector<std::string>& workspaceRoots) {
  auto usable = [](const fs::path& prefix) {
    fs::path python = prefix / "bin" / "python";
    return ::access(python.c_str(), X_OK) == 0 ? python.string() : std::string();
  };
  for (const std::string& root : workspaceRoots)
    for (const char* name : {".venv", "venv", "env"})
      if (std::string p = usable(fs::path(root) / name); !p.empty())
        return p;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* prefix = std::getenv(var); prefix != nullptr && *prefix != '\0')
      if (std::string p = usable(prefix); !p.empty())
        return p;
  return "";
}

std::string locateRunnerScript() {
  if (const char* env = std::getenv("PALLAS_LSP_RUNNER"); env != nullptr && *env != '\0')
    return env;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed =
        exe.parent_path().parent_path() / "share" / "pallas-lsp" / "pallas_lsp_runner.py";
    if (fs::exists(installed, error))
      return installed.string();
  }
  const fs::path source = PALLAS_LSP_RUNNER_SOURCE;
  if (!source.empty() && fs::exists(source, error))
    return source.string();
  return "";
}

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

template <typename T> std::optional<T> optionalNumber(const json& object, const char* key) {
  if (auto it = object.find(key); it != object.end() && it->is_number())
    return it->get<T>();
  return std::nullopt;
}

std::string stringField(const json& object, const char* key) {
  if (auto it = object.find(key); it != object.end() && it->is_string())
    return it->get<std::string>();
  return "";
}

std::optional<PythonError> parseError(const json& value) {
  if (!value.is_object())
    return std::nullopt;
  PythonError error;
  error.type = stringField(value, "type");
  error.message = stringField(value, "message");
  error.traceback = stringField(value, "traceback");
  if (auto frames = value.find("frames"); frames != value.end() && frames->is_array()) {
    for (const json& f : *frames) {
      if (!f.is_object())
        continue;
      Frame frame;
      frame.file = stringField(f, "file");
      frame.line = optionalNumber<int>(f, "line").value_or(0);
      frame.function = stringField(f, "function");
      frame.code = stringField(f, "code");
      frame.user = f.value("user", false);
      error.frames.push_back(std::move(frame));
    }
  }
  return error;
}

ModeResult parseMode(const json& value) {
  ModeResult mode;
  mode.mode = stringField(value, "mode");
  mode.ok = value.value("ok", false);
  if (auto error = value.find("error"); error != value.end())
    mode.error = parseError(*error);
  if (auto timing = value.find("timing"); timing != value.end() && timing->is_object()) {
    mode.timingMethod = stringField(*timing, "method");
    mode.compileSeconds = optionalNumber<double>(*timing, "compile_s");
    mode.runSecondsMedian = optionalNumber<double>(*timing, "run_s_median");
    mode.runs = optionalNumber<int>(*timing, "runs").value_or(0);
  }
  if (auto outputs = value.find("outputs"); outputs != value.end() && outputs->is_array()) {
    for (const json& o : *outputs) {
      OutputSummary summary;
      summary.path = stringField(o, "path");
      summary.kind = stringField(o, "kind");
      summary.dtype = stringField(o, "dtype");
      summary.checksum = stringField(o, "checksum");
      if (auto shape = o.find("shape"); shape != o.end() && shape->is_array())
        for (const json& d : *shape)
          if (d.is_number_integer())
            summary.shape.push_back(d.get<std::int64_t>());
      summary.sum = optionalNumber<double>(o, "sum");
      summary.min = optionalNumber<double>(o, "min");
      summary.max = optionalNumber<double>(o, "max");
      mode.outputs.push_back(std::move(summary));
    }
  }
  return mode;
}

// Fills the typed fields from the runner's result document.
void absorbDocument(RunResult& result, const json& document) {
  result.document = document;
  result.entry = stringField(document, "entry");
  result.environment = document.value("environment", json());
  if (auto setup = document.find("setup_error"); setup != document.end())
    result.setupError = parseError(*setup);
  if (auto modes = document.find("modes"); modes != document.end() && modes->is_array())
    for (const json& m : *modes)
      if (m.is_object())
        result.modes.push_back(parseMode(m));
  if (auto comps = document.find("comparisons"); comps != document.end() && comps->is_array()) {
    for (const json& c : *comps) {
      Comparison comparison;
      comparison.path = stringField(c, "path");
      comparison.comparable = c.value("comparable", false);
      comparison.maxAbsDiff = optionalNumber<double>(c, "max_abs_diff");
      comparison.maxRelDiff = optionalNumber<double>(c, "max_rel_diff");
      comparison.note = stringField(c, "note");
      result.comparisons.push_back(std::move(comparison));
    }
  }
}

std::string errorLine(const PythonError& error) {
  std::string text = error.type + ": " + error.message;
  if (const Frame* frame = error.innermostUserFrame())
    text +=
        " (at " + frame->file + ":" + std::to_string(frame->line) + " in " + frame->function + ")";
  return text;
}

// The last non-empty lines of a text, for crash reports.
std::string lastLines(const std::string& text, int count) {
  std::size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos)
    return "";
  std::size_t start = end + 1;
  for (int i = 0; i < count && start > 0; ++i) {
    std::size_t newline = text.rfind('\n', start - 1 == 0 ? 0 : start - 2);
    start = newline == std::string::npos ? 0 : newline + 1;
    if (newline == std::string::npos)
      break;
  }
  return text.substr(start, end + 1 - start);
}

std::string describeMessage(const RunResult& result, const RunRequest& request) {
  const std::string what =
      result.file + (result.entry.empty() ? "" : "::" + result.entry) + " (" + result.mode + ")";
  switch (result.status) {
  case RunResult::Status::Succeeded:
    return "ran " + what;
  case RunResult::Status::TimedOut:
    return what + " did not finish within its " +
           std::to_string(request.timeout.count() / 1000.0).substr(0, 6) +
           " s timeout; the run's process group was killed";
  case RunResult::Status::Cancelled:
    return what + " was cancelled; the run's process group was killed";
  case RunResult::Status::LaunchFailed:
    return "could not start " + what + ": " + result.message;
  case RunResult::Status::Crashed: {
    std::string text = "the Python process running " + what;
    if (result.signal != 0) {
      text += " was killed by " + signalName(result.signal);
      if (result.signal == 9)
        text += " (outside the runner: possibly the out-of-memory killer)";
    } else {
      text += " exited with status " + std::to_string(result.exitCode);
    }
    text += " before it reported a result";
    const std::string tail = lastLines(result.stderrText, 3);
    if (!tail.empty())
      text += "; the end of its stderr:\n" + tail;
    return text;
  }
  case RunResult::Status::ProtocolError:
    return what + " ended but its result could not be read: " + result.message;
  case RunResult::Status::Failed:
    break;
  }
  if (result.setupError)
    return what + " could not start: " + errorLine(*result.setupError);
  std::string text = what + " failed";
  for (const ModeResult& mode : result.modes)
    if (mode.error)
      text += "\n" + mode.mode + ": " + errorLine(*mode.error);
  return text;
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

  report(Phase::Started, "", "starting " + result.command.front(), std::nullopt);
  ProcessOutcome outcome = runSupervised(spec, cancel);
  result.stdoutText = outcome.out.text();
  result.stderrText = outcome.err.text();
  result.outputTruncated = outcome.out.truncated() || outcome.err.truncated();
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

json inspectPythonEnvironment(const std::string& python, const std::string& launchTemplate,
                              std::chrono::milliseconds timeout) {
  LaunchValues values;
  values.python = resolvePython(python);
  values.runner = locateRunnerScript();
  if (values.runner.empty())
    return {{"error", "the runner script pallas_lsp_runner.py was not found"}};
  values.args = {"--doctor", "--result-fd", "3"};
  ProcessSpec spec;
  try {
    spec.argv = expandLaunchTemplate(
        launchTemplate.empty() ? kDefaultLaunchTemplate : launchTemplate, values);
  } catch (const LaunchTemplateError& error) {
    return {{"error", error.what()}};
  }
  spec.timeout = timeout;
  spec.resultChannel = ResultChannel::Fd3;
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

// ---- rendering -----------------------------------------------------------------

static json errorJson(const PythonError& error) {
  json frames = json::array();
  for (const Frame& f : error.frames)
    frames.push_back({{"file", f.file},
                      {"line", f.line},
                      {"function", f.function},
                      {"code", f.code},
                      {"user", f.user}});
  return {{"type", error.type},
          {"message", error.message},
          {"frames", frames},
          {"traceback", error.traceback}};
}

template <typename T> static json orNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json RunResult::toJson() const {
  json modesJson = json::array();
  for (const ModeResult& m : modes) {
    json outputs = json::array();
    for (const OutputSummary& o : m.outputs)
      outputs.push_back({{"path", o.path},
                         {"kind", o.kind},
                         {"shape", o.shape},
                         {"dtype", o.dtype},
                         {"checksum", o.checksum},
                         {"sum", orNull(o.sum)},
                         {"min", orNull(o.min)},
                         {"max", orNull(o.max)}});
    modesJson.push_back({{"mode", m.mode},
                         {"ok", m.ok},
                         {"error", m.error ? errorJson(*m.error) : json(nullptr)},
                         {"timing",
                          {{"method", m.timingMethod},
                           {"compile_s", orNull(m.compileSeconds)},
                           {"run_s_median", orNull(m.runSecondsMedian)},
                           {"runs", m.runs}}},
                         {"outputs", outputs}});
  }
  json comparisonsJson = json::array();
  for (const Comparison& c : comparisons)
    comparisonsJson.push_back({{"path", c.path},
                               {"comparable", c.comparable},
                               {"max_abs_diff", orNull(c.maxAbsDiff)},
                               {"max_rel_diff", orNull(c.maxRelDiff)},
                               {"note", c.note}});
  return {{"status", runStatusName(status)},
          {"ok", ok()},
          {"message", message},
          {"file", file},
          {"entry", entry},
          {"mode", mode},
          {"modes", modesJson},
          {"comparisons", comparisonsJson},
          {"setup_error", setupError ? errorJson(*setupError) : json(nullptr)},
          {"stdout", stdoutText},
          {"stderr", stderrText},
          {"output_truncated", outputTruncated},
          {"command", command},
          {"exit_code", exitCode},
          {"signal", signal},
          {"process_group_gone", processGroupGone},
          {"wall_s", wallSeconds},
          {"environment", environment}};
}

static std::string seconds(double s) {
  char buffer[32];
  if (s < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buffer, sizeof buffer, "%.2f ms", s * 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.2f s", s);
  return buffer;
}

static std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::string RunResult::report() const {
  std::string text = message + "\n";
  for (const ModeResult& m : modes) {
    text += "  " + m.mode + ": " + (m.ok ? "ok" : "FAILED");
    if (m.compileSeconds)
      text += "  compile " + seconds(*m.compileSeconds);
    if (m.runSecondsMedian)
      text += "  run " + seconds(*m.runSecondsMedian) + " (median of " + std::to_string(m.runs) +
              ", " + m.timingMethod + ")";
    text += "\n";
    for (const OutputSummary& o : m.outputs) {
      std::string shape;
      for (std::size_t i = 0; i < o.shape.size(); ++i)
        shape += (i ? "," : "") + std::to_string(o.shape[i]);
      text += "    out" + o.path + ": " + o.dtype + "[" + shape + "] sha256:" + o.checksum;
      if (o.sum)
        text += " sum=" + number(*o.sum);
      text += "\n";
    }
    if (m.error)
      text += "    " + m.error->type + ": " + m.error->message.substr(0, 2000) + "\n";
  }
  for (const Comparison& c : comparisons) {
    text += "  compare out" + c.path + ": ";
    if (c.comparable && c.maxAbsDiff && c.maxRelDiff)
      text += "max |a-b| = " + number(*c.maxAbsDiff) + ", max rel = " + number(*c.maxRelDiff);
    else
      text += "not comparable";
    if (!c.note.empty())
      text += " (" + c.note + ")";
    text += "\n";
  }
  if (!stdoutText.empty())
    text += "--- stdout ---\n" + stdoutText + (stdoutText.back() == '\n' ? "" : "\n");
  if (!stderrText.empty() && status != Status::Succeeded)
    text += "--- stderr ---\n" + stderrText + (stderrText.back() == '\n' ? "" : "\n");
  return text;
}

} // namespace pallas::gpu
