// A small thread-safe logger: a level, stderr or a file, and an optional
// extra sink (the server forwards records to the client as window/logMessage).
#pragma once

#include <atomic>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::protocol {

enum class LogLevel { Error = 1, Warning = 2, Info = 3, Debug = 4 };

std::optional<LogLevel> parseLogLevel(std::string_view name); // "error"|"warn"|"info"|"debug"
const char* logLevelName(LogLevel level);

class Logger {
public:
  using Sink = std::function<void(LogLevel, const std::string&)>;

  void setLevel(LogLevel level) { level_ = level; }
  LogLevel level() const { return level_; }
  // Opens (appends to) a log file; records go there instead of stderr.
  bool openFile(const std::string& path);
  // Extra sink called for every record at or above its own level.
  void setSink(Sink sink, LogLevel level);
  void clearSink();

  void log(LogLevel level, const std::string& message);
  void error(const std::string& m) { log(LogLevel::Error, m); }
  void warn(const std::string& m) { log(LogLevel::Warning, m); }
  void info(const std::string& m) { log(LogLevel::Info, m); }
  void debug(const std::string& m) { log(LogLevel::Debug, m); }
  bool enabled(LogLevel level) const { return level <= level_; }
  // Records that pass this logger's level are written by `parent` (one log
  // file or stderr shared by several sessions) instead of by this logger.
  void setParent(Logger* parent) { parent_ = parent; }
  // Writes a record to this logger's file or stderr, ignoring levels/sinks.
  void emit(LogLevel level, const std::string& message);

private:
  std::mutex mutex_;
  std::atomic<LogLevel> level_{LogLevel::Info};
  Logger* parent_ = nullptr;
  std::ofstream file_;
  Sink sink_;
  LogLevel sinkLevel_ = LogLevel::Info;
};

} // namespace pallas::protocol
