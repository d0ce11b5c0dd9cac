// Names of the runner's vocabulary: run modes, progress phases, result
// statuses, and the innermost user frame of an exception.
#include "pallas/gpu/Runner.h"

namespace pallas::gpu {

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
  case Phase::Output:
    return "output";
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

} // namespace pallas::gpu
