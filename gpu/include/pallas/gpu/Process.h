// A supervised child process: its own session and process group, stdin from
// /dev/null (or given bytes), stdout/stderr (and optionally a result
// channel) read through pipes with a memory cap, a timeout, cancellation
// from another thread, and a guaranteed end of every process it started.
// The child is started under a small supervisor process (forked, not
// exec'd) that is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the
// command starts, even with setsid or a double fork, stays its descendant,
// and when the command ends (or is stopped) the supervisor kills and reaps
// every descendant before it exits with the command's status. Knows nothing
// of Python or JAX; the kernel runner builds on it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::gpu {

// Keeps the first `headCap` and the last `tailCap` bytes of a stream, so a
// child printing gigabytes costs at most headCap + 2 * tailCap of memory.
class CappedBuffer {
public:
  CappedBuffer(std::size_t headCap = 64 * 1024, std::size_t tailCap = 192 * 1024)
      : headCap_(headCap), tailCap_(tailCap) {}
  void append(std::string_view data);
  std::uint64_t totalBytes() const { return total_; }
  bool truncated() const { return total_ > head_.size() + std::min(tail_.size(), tailCap_); }
  // head + "\n[... N bytes omitted ...]\n" + tail when truncated.
  std::string text() const;

private:
  std::size_t headCap_, tailCap_;
  std::string head_, tail_;
  std::uint64_t total_ = 0;
};

// Cancels a run from any thread. Cheap to copy; all copies share one state.
class CancelToken {
public:
  CancelToken();
  void cancel() const;
  bool cancelled() const;
  // An eventfd that becomes readable on cancel(), for poll().
  int pollFd() const;

private:
  struct State;
  std::shared_ptr<State> state_;
};

// Where the child's machine-readable result arrives.
enum class ResultChannel {
  None,   // no result channel
  Fd3,    // a dedicated pipe at fd 3 in the child (crosses env, bash -c, sudo -E ...)
  Stdout, // the child's stdout (for launchers that forward only stdio: ssh, srun)
};

struct ProcessSpec {
  std::vector<std::string> argv; // argv[0] is looked up on PATH when it has no '/'
  // Extra "NAME=value" entries set on top of this process's environment.
  std::vector<std::string> environment;
  // Written to the child's stdin, which is then closed (at most 64 KiB);
  // empty: stdin is /dev/null.
  std::string stdinData;
  std::string workingDirectory;              // empty: inherit
  std::chrono::milliseconds timeout{0};      // 0: none
  std::chrono::milliseconds killGrace{2000}; // SIGTERM -> SIGKILL delay
  std::uint64_t memoryLimitBytes = 0;        // RLIMIT_AS; 0: none
  std::size_t outputHeadCap = 64 * 1024;     // per stream
  std::size_t outputTailCap = 192 * 1024;    // per stream
  ResultChannel resultChannel = ResultChannel::None;
  std::size_t resultCap = 32 * 1024 * 1024; // result channel bytes kept
  // Called on the supervising thread for each complete line of the result
  // channel as it arrives (used for live progress events).
  std::function<void(std::string_view line)> onResultLine;
  // Called on the supervising thread with what the child writes to stdout
  // as it arrives, when stdout is not the result channel (live output).
  std::function<void(std::string_view data)> onStdout;
};

struct ProcessOutcome {
  enum class End { Exited, Signaled, TimedOut, Cancelled, SpawnFailed };
  End end = End::SpawnFailed;
  int exitCode = -1;      // for Exited
  int signal = 0;         // for Signaled (and the signal that ended a killed run)
  std::string spawnError; // for SpawnFailed
  int processGroup = 0;   // the child's pgid (= its pid)
  CappedBuffer out, err;
  std::string result; // the result channel's bytes (up to resultCap)
  bool resultTruncated = false;
  double wallSeconds = 0;
  // True when no process of the group was left once the run ended.
  bool groupGone = false;
};

// Whether a process / any process of a group is alive (zombies count as
// gone: they run nothing, and init may be slow to reap them in containers).
bool processAlive(int pid);
bool processGroupAlive(int pgid);

// "SIGABRT" for 6, "signal 99" for unknown numbers.
std::string signalName(int signal);

// Runs the process to its end. Blocks the calling thread; cancel from
// another thread with the token. Never throws for child failures.
ProcessOutcome runSupervised(const ProcessSpec& spec, const CancelToken* cancel = nullptr);

} // namespace pallas::gpu
