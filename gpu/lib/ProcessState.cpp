// The small pieces of process supervision: the capped output buffer, the
// cancel token a signal handler may use, signal names, and whether a process
// or a process group is still alive (from /proc).
#include "pallas/gpu/Process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace pallas::gpu {

// ---- CappedBuffer -----------------------------------------------------------

void CappedBuffer::append(std::string_view data) {
  total_ += data.size();
  if (head_.size() < headCap_) {
    const std::size_t take = std::min(headCap_ - head_.size(), data.size());
    head_.append(data.substr(0, take));
    data.remove_prefix(take);
  }
  if (data.empty() || tailCap_ == 0)
    return;
  tail_.append(data);
  // Trim lazily (amortised O(1) per byte): let the tail grow to twice its cap.
  if (tail_.size() > 2 * tailCap_)
    tail_.erase(0, tail_.size() - tailCap_);
}

std::string CappedBuffer::text() const {
  std::string_view tail = tail_;
  if (tail.size() > tailCap_)
    tail.remove_prefix(tail.size() - tailCap_);
  const std::uint64_t kept = head_.size() + tail.size();
  std::string text = head_;
  if (total_ > kept)
    text += "\n[... " + std::to_string(total_ - kept) + " bytes omitted ...]\n";
  text.append(tail);
  return text;
}

// ---- CancelToken ------------------------------------------------------------

struct CancelToken::State {
  std::atomic<bool> cancelled{false};
  int fd = -1;
  State() : fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~State() {
    if (fd >= 0)
      close(fd);
  }
};

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::cancel() const {
  state_->cancelled.store(true);
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(state_->fd, &one, sizeof one);
}

bool CancelToken::cancelled() const {
  return state_->cancelled.load();
}
int CancelToken::pollFd() const {
  return state_->fd;
}

// ---- helpers ----------------------------------------------------------------

std::string signalName(int signal) {
  switch (signal) {
  case SIGABRT:
    return "SIGABRT";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGHUP:
    return "SIGHUP";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGXCPU:
    return "SIGXCPU";
  default:
    return "signal " + std::to_string(signal);
  }
}

// /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may contain
// spaces and parentheses, so parse from the last ')'.
static bool readStat(const std::string& path, char& state, long& pgrp) {
  FILE* file = std::fopen(path.c_str(), "re");
  if (file == nullptr)
    return false;
  char buffer[1024];
  const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, file);
  std::fclose(file);
  buffer[n] = '\0';
  const char* close = std::strrchr(buffer, ')');
  if (close == nullptr)
    return false;
  // ") S ppid pgrp": the state letter, then two numbers.
  const char* at = close + 1;
  while (*at == ' ')
    ++at;
  if (*at == '\0')
    return false;
  state = *at++;
  char* end = nullptr;
  const long ppid = std::strtol(at, &end, 10);
  if (end == at || ppid < 0)
    return false;
  at = end;
  pgrp = std::strtol(at, &end, 10);
  return end != at;
}

bool processAlive(int pid) {
  char state = 0;
  long pgrp = 0;
  if (!readStat("/proc/" + std::to_string(pid) + "/stat", state, pgrp))
    return kill(pid, 0) == 0; // no /proc: best effort
  return state != 'Z' && state != 'X';
}

bool processGroupAlive(int pgid) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr)
    return kill(-pgid, 0) == 0 || errno == EPERM;
  bool alive = false;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    char state = 0;
    long pgrp = 0;
    if (readStat(std::string("/proc/") + entry->d_name + "/stat", state, pgrp) && pgrp == pgid &&
        state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  closedir(proc);
  return alive;
}

} // namespace pallas::gpu
