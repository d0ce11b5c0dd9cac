// A RunResult in words and as JSON: the one-paragraph message of how a run
// ended, RunResult::toJson() and RunResult::report().
#include "RunnerInternal.h"
#include "pallas/gpu/Process.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace pallas::gpu {

using nlohmann::json;

namespace detail {

std::string errorLine(const PythonError& error) {
  std::string text = error.type + ": " + error.message;
  if (const Frame* frame = error.innermostUserFrame())
    text +=
        " (at " + frame->file + ":" + std::to_string(frame->line) + " in " + frame->function + ")";
  return text;
}

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

} // namespace detail

using detail::errorLine;

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
                               {"note", c.note},
                               {"heat_map", c.heatMap}});
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

// "; worst at [1, 0]: 1.25 vs 1" from a comparison's heat map (gpu/README.md),
// or "" when there is none or every element is equal.
static std::string worstElement(const json& heat) {
  if (!heat.is_object() || !heat.contains("worst") || !heat["worst"].is_object())
    return "";
  const json& differing = heat.contains("differing") ? heat["differing"] : json();
  if (!differing.is_number() || differing.get<double>() == 0)
    return "";
  const json& worst = heat["worst"];
  const json& index = worst.value("index", json::array());
  if (!index.is_array())
    return "";
  std::string where;
  for (const json& i : index)
    where += (where.empty() ? "" : ", ") + i.dump();
  auto side = [&](const char* key) {
    const json& v = worst.contains(key) ? worst[key] : json();
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  return "; worst at [" + where + "]: " + side("first") + " vs " + side("second");
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
    text += worstElement(c.heatMap) + "\n";
  }
  if (!stdoutText.empty())
    text += "--- stdout ---\n" + stdoutText + (stdoutText.back() == '\n' ? "" : "\n");
  if (!stderrText.empty() && status != Status::Succeeded)
    text += "--- stderr ---\n" + stderrText + (stderrText.back() == '\n' ? "" : "\n");
  return text;
}

} // namespace pallas::gpu
