// Running a command under supervision (runSupervised): spawning it in a
// process group of its own, feeding stdin, reading output and the result
// channel, and ending the whole group on timeout, cancel or exit.
#include "pallas/gpu/Process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace pallas::gpu {

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0)
      close(fd);
    fd = -1;
  }
};

bool makePipe(Fd& read, Fd& write) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  read.fd = fds[0];
  write.fd = fds[1];
  return true;
}

// PATH lookup in the parent: execvp may allocate, which is not safe in a
// child forked from a multithreaded server.
std::string resolveExecutable(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos)
    return name;
  std::string path;
  for (const std::string& entry : env)
    if (entry.rfind("PATH=", 0) == 0)
      path = entry.substr(5);
  if (path.empty())
    if (const char* p = std::getenv("PATH"))
      path = p;
  if (path.empty())
    path = "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos)
      end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool overridden = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
      return x.size() > name.size() && x.compare(0, name.size(), name) == 0 &&
             x[name.size()] == '=';
    });
    if (!overridden)
      env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (std::string& s : strings)
    result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

int pidfdOpen(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  return -1;
#endif
}

bool groupAlive(pid_t pgid) {
  return processGroupAlive(pgid);
}

// ---- the supervisor (async-signal-safe: raw syscalls, stack buffers) ----------

// Writes the decimal digits of `value` at `out`; returns the end.
char* appendNumber(char* out, long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && n < 23);
  while (n > 0)
    *out++ = digits[--n];
  return out;
}

// The parent pid in /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may
// hold spaces and parentheses: parse after the last ')'); -1 when unknown.
long parentOf(long pid) {
  char path[64] = "/proc/";
  char* end = appendNumber(path + 6, pid);
  const char tail[] = "/stat";
  for (char c : tail)
    *end++ = c;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buffer[512];
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0)
    return -1;
  const char* close = nullptr;
  for (ssize_t i = 0; i < n; ++i)
    if (buffer[i] == ')')
      close = buffer + i;
  if (close == nullptr || close + 4 >= buffer + n)
    return -1;
  const char* p = close + 4; // ") S " then the ppid
  long ppid = 0;
  while (p < buffer + n && *p >= '0' && *p <= '9')
    ppid = ppid * 10 + (*p++ - '0');
  return ppid;
}

// Sends `sig` to every child of this process (after a subreaper's children
// die, their children are its children). Returns how many it found.
int signalChildren(int sig) {
  int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  const long self = getpid();
  int found = 0;
  alignas(8) char buffer[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n <= 0)
      break;
    for (long offset = 0; offset < n;) {
      struct Entry {
        uint64_t inode;
        int64_t next;
        unsigned short length;
        unsigned char type;
        char name[1];
      };
      const auto* entry = reinterpret_cast<const Entry*>(buffer + offset);
      offset += entry->length;
      long pid = 0;
      const char* c = entry->name;
      if (*c < '0' || *c > '9')
        continue;
      while (*c >= '0' && *c <= '9')
        pid = pid * 10 + (*c++ - '0');
      if (*c == '\0' && parentOf(pid) == self) {
        kill(static_cast<pid_t>(pid), sig);
        ++found;
      }
    }
  }
  close(fd);
  return found;
}

// The supervisor's life: wait for the command, pass on a stop request, then
// kill and reap every descendant and exit as the command did.
[[noreturn]] void supervise(pid_t command, pid_t server, const sigset_t& watched) {
  int status = 0;
  bool done = false;
  auto reaped = [&](pid_t r, int st) {
    if (r == command) {
      status = st;
      done = true;
    }
  };
  bool force = getppid() != server; // the server died before PDEATHSIG was set
  while (!done && !force) {
    siginfo_t info{};
    struct timespec wait{0, 200L * 1000 * 1000};
    int sig = sigtimedwait(&watched, &info, &wait);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
      // A stop (the parent signals the whole group; this reaches what left
      // it with setsid, too).
      kill(command, SIGTERM);
      signalChildren(SIGTERM);
    } else if (sig == SIGUSR1 || getppid() != server) {
      force = true;
    }
    int st = 0;
    for (pid_t r; (r = waitpid(-1, &st, WNOHANG)) > 0;)
      reaped(r, st);
  }
  // Every descendant goes: kill the children (a killed child's own children
  // become ours), reap, until there are none.
  for (;;) {
    int st = 0;
    pid_t r = waitpid(-1, &st, WNOHANG);
    if (r > 0) {
      reaped(r, st);
      continue;
    }
    if (r < 0)
      break; // ECHILD: nothing left
    signalChildren(SIGKILL);
    r = waitpid(-1, &st, 0);
    if (r > 0)
      reaped(r, st);
  }
  if (done && WIFEXITED(status))
    _exit(WEXITSTATUS(status));
  int sig = done && WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  // End the same way (without a core file of the supervisor).
  struct rlimit noCore{0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  kill(getpid(), sig);
  _exit(128 + sig);
}

} // namespace

ProcessOutcome runSupervised(const ProcessSpec& spec, const CancelToken* cancel) {
  ProcessOutcome outcome;
  outcome.out = CappedBuffer(spec.outputHeadCap, spec.outputTailCap);
  outcome.err = CappedBuffer(spec.outputHeadCap, spec.outputTailCap);
  const auto started = Clock::now();
  auto finish = [&]() -> ProcessOutcome {
    outcome.wallSeconds = std::chrono::duration<double>(Clock::now() - started).count();
    return std::move(outcome);
  };
  if (spec.argv.empty()) {
    outcome.spawnError = "empty command";
    return finish();
  }

  std::vector<std::string> env = mergedEnvironment(spec.environment);
  const std::string executable = resolveExecutable(spec.argv[0], env);
  if (executable.empty()) {
    outcome.spawnError = spec.argv[0] + ": command not found on PATH";
    return finish();
  }
  std::vector<std::string> argv = spec.argv;
  std::vector<char*> argvPointers = pointers(argv);
  std::vector<char*> envPointers = pointers(env);

  Fd outRead, outWrite, errRead, errWrite, resRead, resWrite, execRead, execWrite;
  const bool fd3 = spec.resultChannel == ResultChannel::Fd3;
  if (!makePipe(outRead, outWrite) || !makePipe(errRead, errWrite) ||
      (fd3 && !makePipe(resRead, resWrite)) || !makePipe(execRead, execWrite)) {
    outcome.spawnError = std::string("pipe: ") + std::strerror(errno);
    return finish();
  }
  // stdin: /dev/null, or a pipe already holding the given bytes (a pipe
  // buffer holds 64 KiB, so the write cannot block) and closed behind them.
  Fd devNull;
  if (spec.stdinData.empty()) {
    devNull.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  } else {
    Fd inWrite;
    if (spec.stdinData.size() > 65536 || !makePipe(devNull, inWrite) ||
        write(inWrite.fd, spec.stdinData.data(), spec.stdinData.size()) !=
            static_cast<ssize_t>(spec.stdinData.size())) {
      outcome.spawnError = "cannot pass the child its stdin";
      return finish();
    }
  }
  const char* workdir = spec.workingDirectory.empty() ? nullptr : spec.workingDirectory.c_str();
  const pid_t server = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    outcome.spawnError = std::string("fork: ") + std::strerror(errno);
    return finish();
  }
  if (pid == 0) {
    // The supervisor. Only async-signal-safe calls from here on (the parent
    // has other threads; one may hold the malloc lock).
    setsid(); // own session and process group
    // Orphans of everything below come here instead of going to init.
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    sigset_t watched;
    sigemptyset(&watched);
    for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1})
      sigaddset(&watched, sig);
    sigprocmask(SIG_BLOCK, &watched, nullptr);
    // The server gone (even by SIGKILL): end the run.
    prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
    // Fds 0-3 are about to be overwritten; move the pipe ends above them first
    // so a pipe that happens to sit at 0-3 is not clobbered.
    int in = fcntl(devNull.fd, F_DUPFD, 10), out = fcntl(outWrite.fd, F_DUPFD, 10),
        err = fcntl(errWrite.fd, F_DUPFD, 10), res = fd3 ? fcntl(resWrite.fd, F_DUPFD, 10) : -1;
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (fd3)
      dup2(res, 3);
    // The exec-error pipe goes right after the standard fds (close-on-exec),
    // then every other inherited descriptor (the server's sockets, files) is
    // closed.
    const int reportFd = fd3 ? 4 : 3;
    dup3(fcntl(execWrite.fd, F_DUPFD_CLOEXEC, 10), reportFd, O_CLOEXEC);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, reportFd + 1, ~0U, 0) != 0)
#endif
      for (int fd = reportFd + 1; fd < 4096; ++fd)
        close(fd);
    const pid_t command = fork();
    if (command == 0) {
      // The command. The supervisor gone, it goes too.
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (getppid() == 1)
        _exit(127);
      if (spec.memoryLimitBytes > 0) {
        struct rlimit limit{spec.memoryLimitBytes, spec.memoryLimitBytes};
        setrlimit(RLIMIT_AS, &limit);
      }
      if (workdir != nullptr && chdir(workdir) != 0) {
        int error = errno;
        [[maybe_unused]] ssize_t n = write(reportFd, &error, sizeof error);
        _exit(127);
      }
      // Signal state survives exec: undo what a server typically sets (blocked
      // signals for a signal-handling thread, an ignored SIGPIPE) and what the
      // supervisor blocked, so the user's process reacts to SIGTERM and broken
      // pipes normally.
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      signal(SIGPIPE, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGINT, SIG_DFL);
      execve(executable.c_str(), argvPointers.data(), envPointers.data());
      int error = errno;
      [[maybe_unused]] ssize_t n = write(reportFd, &error, sizeof error);
      _exit(127);
    }
    if (command < 0) {
      int error = errno;
      [[maybe_unused]] ssize_t n = write(reportFd, &error, sizeof error);
      _exit(127);
    }
    // Drop the supervisor's copies of the command's descriptors: the parent
    // sees EOF once the command and what it started are gone.
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd <= reportFd; ++fd)
      if (fd != null)
        dup2(null, fd);
    close(null);
    close(reportFd);
    supervise(command, server, watched);
  }

  // Parent.
  outcome.processGroup = pid;
  outWrite.reset();
  errWrite.reset();
  resWrite.reset();
  execWrite.reset();
  int execError = 0;
  if (read(execRead.fd, &execError, sizeof execError) == sizeof execError) {
    waitpid(pid, nullptr, 0);
    outcome.spawnError = spec.argv[0] + ": " + std::strerror(execError);
    return finish();
  }

  // Non-blocking reads: each loop turn drains every pipe without waiting on
  // one that has nothing to say.
  for (int fd : {outRead.fd, errRead.fd, resRead.fd})
    if (fd >= 0)
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  Fd pidfd(pidfdOpen(pid));
  int* resultFd =
      fd3 ? &resRead.fd : (spec.resultChannel == ResultChannel::Stdout ? &outRead.fd : nullptr);
  std::string lineBuffer;
  auto onResult = [&](std::string_view data) {
    if (outcome.result.size() + data.size() > spec.resultCap) {
      outcome.resultTruncated = true;
      data = data.substr(0, spec.resultCap - std::min(spec.resultCap, outcome.result.size()));
    }
    outcome.result.append(data);
    if (!spec.onResultLine)
      return;
    lineBuffer.append(data);
    std::size_t newline;
    while ((newline = lineBuffer.find('\n')) != std::string::npos) {
      spec.onResultLine(std::string_view(lineBuffer).substr(0, newline));
      lineBuffer.erase(0, newline + 1);
    }
  };
  // Reads what is available on fd; closes it on EOF. Returns bytes read.
  char buffer[65536];
  auto drain = [&](int& fd) -> bool {
    if (fd < 0)
      return false;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      std::string_view data(buffer, static_cast<std::size_t>(n));
      if (&fd == resultFd) {
        onResult(data);
      } else if (&fd == &outRead.fd) {
        outcome.out.append(data);
        if (spec.onStdout)
          spec.onStdout(data);
      } else {
        outcome.err.append(data);
      }
      return true;
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(fd);
      fd = -1;
    }
    return false;
  };

  bool exited = false;
  int status = 0;
  enum class Stop { None, Timeout, Cancel } stop = Stop::None;
  Clock::time_point killAt{}; // when the SIGTERM grace ends
  bool killed = false, groupKilled = false;
  auto leaderExited = [&]() {
    // WNOWAIT: keep the leader a zombie so its pid (= the pgid) cannot be
    // reused before the group is swept.
    siginfo_t info{};
    info.si_pid = 0;
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      exited = true;
    return exited;
  };
  auto terminate = [&](Stop why) {
    if (stop != Stop::None)
      return;
    stop = why;
    kill(-pid, SIGTERM);
    killAt = Clock::now() + spec.killGrace;
  };

  while (!exited) {
    std::vector<pollfd> fds;
    for (int fd : {outRead.fd, errRead.fd, resRead.fd})
      if (fd >= 0)
        fds.push_back({fd, POLLIN, 0});
    if (pidfd.fd >= 0)
      fds.push_back({pidfd.fd, POLLIN, 0});
    if (cancel != nullptr && stop == Stop::None)
      fds.push_back({cancel->pollFd(), POLLIN, 0});

    int waitMs = pidfd.fd >= 0 ? 1000 : 50; // without pidfd, poll for the exit
    const auto now = Clock::now();
    if (stop == Stop::None && spec.timeout.count() > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(started + spec.timeout - now);
      waitMs = std::clamp<int>(static_cast<int>(left.count()), 0, waitMs);
    } else if (stop != Stop::None && !groupKilled) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(killAt - now);
      waitMs = std::clamp<int>(static_cast<int>(left.count()), 0, waitMs);
    }
    if (poll(fds.data(), fds.size(), waitMs) < 0 && errno != EINTR)
      break;
    drain(outRead.fd);
    drain(errRead.fd);
    drain(resRead.fd);

    if (cancel != nullptr && cancel->cancelled())
      terminate(Stop::Cancel);
    if (spec.timeout.count() > 0 && Clock::now() >= started + spec.timeout)
      terminate(Stop::Timeout);
    if (stop != Stop::None && !killed && Clock::now() >= killAt) {
      // The supervisor kills everything (SIGKILL on the group would kill the
      // supervisor first and orphan what escaped the group); the group gets
      // SIGKILL only if the supervisor itself does not end soon after.
      kill(pid, SIGUSR1);
      killed = true;
      killAt = Clock::now() + std::chrono::seconds(5);
    } else if (killed && !groupKilled && Clock::now() >= killAt) {
      kill(-pid, SIGKILL);
      groupKilled = true;
    }
    leaderExited();
  }

  // Sweep the group before reaping the leader: whatever the user's code left
  // running (a background job, a stuck compiler) goes with the run.
  kill(-pid, SIGKILL);
  // Drain what the processes wrote before they died; the pipes reach EOF once
  // every writer is gone. Bounded, in case something escaped into another
  // session and keeps a pipe open.
  const auto drainUntil = Clock::now() + std::chrono::seconds(2);
  while ((outRead.fd >= 0 || errRead.fd >= 0 || resRead.fd >= 0) && Clock::now() < drainUntil) {
    std::vector<pollfd> fds;
    for (int fd : {outRead.fd, errRead.fd, resRead.fd})
      if (fd >= 0)
        fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 100) <= 0)
      continue;
    drain(outRead.fd);
    drain(errRead.fd);
    drain(resRead.fd);
  }
  if (!lineBuffer.empty() && spec.onResultLine)
    spec.onResultLine(lineBuffer);

  waitpid(pid, &status, 0);
  // Children reparented to init are reaped asynchronously; give them a moment
  // to leave the group before reporting.
  for (int i = 0; i < 100 && groupAlive(pid); ++i)
    usleep(10 * 1000);
  outcome.groupGone = !groupAlive(pid);

  if (stop == Stop::Timeout) {
    outcome.end = ProcessOutcome::End::TimedOut;
  } else if (stop == Stop::Cancel) {
    outcome.end = ProcessOutcome::End::Cancelled;
  } else if (WIFSIGNALED(status)) {
    outcome.end = ProcessOutcome::End::Signaled;
  } else {
    outcome.end = ProcessOutcome::End::Exited;
  }
  if (WIFSIGNALED(status))
    outcome.signal = WTERMSIG(status);
  if (WIFEXITED(status))
    outcome.exitCode = WEXITSTATUS(status);
  return finish();
}

} // namespace pallas::gpu
