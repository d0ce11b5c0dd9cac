#include "pallas/protocol/Logger.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace pallas::protocol {

std::optional<LogLevel> parseLogLevel(std::string_view name) {
  if (name == "error")
    return LogLevel::Error;
  if (name == "warn" || name == "warning")
    return LogLevel::Warning;
  if (name == "info")
    return LogLevel::Info;
  if (name == "debug" || name == "verbose" || name == "trace")
    return LogLevel::Debug;
  return std::nullopt;
}

const char* logLevelName(LogLevel level) {
  switch (level) {
  case LogLevel::Error:
    return "E";
  case LogLevel::Warning:
    return "W";
  case LogLevel::Info:
    return "I";
  case LogLevel::Debug:
    return "D";
  }
  return "?";
}

bool Logger::openFile(const std::string& path) {
  std::lock_guard lock(mutex_);
  file_.open(path, std::ios::app);
  return file_.is_open();
}

void Logger::setSink(Sink sink, LogLevel level) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
  sinkLevel_ = level;
}

void Logger::clearSink() {
  std::lock_guard lock(mutex_);
  sink_ = nullptr;
}

void Logger::emit(LogLevel level, const std::string& message) {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count()));
  std::lock_guard lock(mutex_);
  if (file_.is_open()) {
    file_ << logLevelName(level) << '[' << stamp << "] " << message << '\n';
    file_.flush();
  } else {
    std::fprintf(stderr, "%s[%s] %s\n", logLevelName(level), stamp, message.c_str());
  }
}

void Logger::log(LogLevel level, const std::string& message) {
  if (level > level_.load())
    return;
  if (parent_)
    parent_->emit(level, message);
  else
    emit(level, message);
  Sink sink;
  {
    std::lock_guard lock(mutex_);
    if (sink_ && level <= sinkLevel_)
      sink = sink_;
  }
  // The sink may send a message, which may log; a record logged from inside
  // the sink is not fed back into it.
  thread_local bool inSink = false;
  if (sink && !inSink) {
    inSink = true;
    try {
      sink(level, message);
    } catch (...) { // NOLINT(bugprone-empty-catch): a failing sink has nowhere to report to
    }
    inSink = false;
  }
}

} // namespace pallas::protocol
