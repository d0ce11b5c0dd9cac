#include "ChildProcess.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace pallas::knowledge::detail {
namespace fs = std::filesystem;

namespace {

// PATH lookup before fork: between fork and exec only async-signal-safe
// calls are allowed, and execvp's search may allocate.
std::string findProgram(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return {};
}

void killGroup(pid_t pid) {
  ::kill(-pid, SIGKILL); // the group: what the helper started too
  ::kill(pid, SIGKILL);
}

} // namespace

ChildResult runCaptured(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        size_t maxOutputBytes) {
  ChildResult result;
  if (argv.empty()) {
    result.error = "nothing to run";
    return result;
  }
  std::string program = findProgram(argv[0]);
  if (program.empty()) {
    result.error = "cannot start " + argv[0] + ": not found";
    return result;
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    result.error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) // the parent died before prctl took effect
      ::_exit(127);
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::dup2(devnull, 2);
    }
    ::dup2(out[1], 1);
    ::execve(program.c_str(), args.data(), environ);
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also from here: no window where the group does not exist
  ::close(out[1]);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timedOut = false, tooLarge = false;
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (r < 0 && errno != EINTR)
      break;
    if (r <= 0)
      continue;
    ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; // EOF: the child closed its stdout (normally: it exited)
    if (result.output.size() + static_cast<size_t>(n) > maxOutputBytes) {
      tooLarge = true;
      break;
    }
    result.output.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  if (timedOut || tooLarge)
    killGroup(pid);
  int status = 0;
  // After EOF the child is exiting; bound the wait anyway (it may have
  // closed stdout and kept running).
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR) {
      result.error = "waitpid failed";
      return result;
    }
    if (std::chrono::steady_clock::now() >= deadline && !timedOut) {
      timedOut = true;
      killGroup(pid);
    }
    ::usleep(10000);
  }
  ::kill(-pid, SIGKILL); // anything it left behind in its group
  if (timedOut) {
    result.error = argv[0] + " timed out after " + std::to_string(timeout.count() / 1000) + "s";
    return result;
  }
  if (tooLarge) {
    result.error = argv[0] + " wrote more than " + std::to_string(maxOutputBytes) + " bytes";
    return result;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.ok = true;
    return result;
  }
  result.error = argv[0] + " failed (" +
                 (WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status))
                                    : "signal " + std::to_string(WTERMSIG(status))) +
                 ")";
  return result;
}

} // namespace pallas::knowledge::detail
