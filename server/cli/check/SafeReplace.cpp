#include "SafeReplace.h"

#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <unistd.h>

namespace pallas::check {

namespace {

// The temporary file's path while it has a name, for the signal handler
// (plain storage: the handler may only read it and call unlink).
char gTempPath[PATH_MAX];
volatile sig_atomic_t gTempNamed = 0;

extern "C" void removeTemporaryAndEnd(int sig) {
  if (gTempNamed)
    ::unlink(gTempPath);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// While alive, the termination signals that would end the process
// (default action) first remove the named temporary file. Signals the
// process ignores or handles itself are left alone.
class TerminationCleanup {
public:
  TerminationCleanup() {
    struct sigaction action{};
    action.sa_handler = removeTemporaryAndEnd;
    sigemptyset(&action.sa_mask);
    for (int sig : kSignals)
      sigaddset(&action.sa_mask, sig);
    for (size_t i = 0; i < kSignals.size(); ++i) {
      struct sigaction current{};
      installed_[i] = ::sigaction(kSignals[i], nullptr, &current) == 0 &&
                      current.sa_handler == SIG_DFL &&
                      ::sigaction(kSignals[i], &action, &previous_[i]) == 0;
    }
  }
  ~TerminationCleanup() {
    gTempNamed = 0;
    for (size_t i = 0; i < kSignals.size(); ++i)
      if (installed_[i])
        ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  TerminationCleanup(const TerminationCleanup&) = delete;
  TerminationCleanup& operator=(const TerminationCleanup&) = delete;

private:
  static constexpr std::array<int, 4> kSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  std::array<struct sigaction, 4> previous_{};
  std::array<bool, 4> installed_{};
};

void rememberTemporary(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  if (path.size() >= sizeof gTempPath)
    return;
  gTempNamed = 0;
  std::memcpy(gTempPath, path.c_str(), path.size() + 1);
  gTempNamed = 1;
}

void forgetTemporary() {
  gTempNamed = 0;
}

// ".NAME.pallas-fix-XXXXXX" beside the file (a short name when NAME is
// long, so the result stays under NAME_MAX).
std::string temporaryName(const std::string& name) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::string suffix;
  for (int i = 0; i < 6; ++i)
    suffix += kChars[random() % (sizeof kChars - 1)];
  return "." + (name.size() > 200 ? std::string() : name) + ".pallas-fix-" + suffix;
}

std::string errorText(int error) {
  return std::strerror(error);
}

std::optional<std::string> writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errorText(errno); // EFBIG (SIGXFSZ ignored), ENOSPC, EIO, ...
    if (n == 0)
      return errorText(ENOSPC);
    done += static_cast<size_t>(n);
  }
  return std::nullopt;
}

constexpr const char* kUnnamedUnavailable = "unnamed temporary files are not available here";

// Writes `text` to a new file in the folder (`dirfd`, path `dir`) with the
// permissions and owner of `st`, flushed to disk and named `tempName` on
// success. `unnamed`: written as an O_TMPFILE and named only at the end.
// On failure nothing is left and `tempName` is empty.
std::optional<std::string> writeTemporary(int dirfd, const std::string& dir,
                                          const std::string& name, const std::string& text,
                                          const struct stat& st, bool unnamed,
                                          std::string& tempName) {
  tempName.clear();
  int fd = -1;
  if (unnamed) {
    fd = ::openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
      return std::string(kUnnamedUnavailable);
  } else {
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      tempName = temporaryName(name);
      rememberTemporary(dir, tempName); // before it exists: a signal may come at once
      fd = ::openat(dirfd, tempName.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
      if (fd < 0 && errno != EEXIST) {
        int error = errno;
        forgetTemporary();
        tempName.clear();
        return "cannot create a temporary file: " + errorText(error);
      }
    }
    if (fd < 0) {
      forgetTemporary();
      tempName.clear();
      return std::string("cannot create a temporary file: every name tried exists");
    }
  }
  std::optional<std::string> error = writeAll(fd, text);
  if (error)
    error = "cannot write: " + *error;
  if (!error && ::fchmod(fd, st.st_mode & 07777) != 0)
    error = "cannot keep the permissions: " + errorText(errno);
  if (!error) {
    [[maybe_unused]] int owner = ::fchown(fd, st.st_uid, st.st_gid); // best effort
    if (::fsync(fd) != 0)
      error = "cannot write: " + errorText(errno);
  }
  if (!error && unnamed) {
    // Named only now, for the rename. Through /proc (linkat with
    // AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
    std::string self = "/proc/self/fd/" + std::to_string(fd);
    int linkError = EEXIST;
    for (int attempt = 0; attempt < 100 && linkError == EEXIST; ++attempt) {
      tempName = temporaryName(name);
      rememberTemporary(dir, tempName);
      linkError = ::linkat(AT_FDCWD, self.c_str(), dirfd, tempName.c_str(), AT_SYMLINK_FOLLOW) == 0
                      ? 0
                      : errno;
    }
    if (linkError != 0) {
      forgetTemporary();
      tempName.clear();
      error = kUnnamedUnavailable; // no /proc: the caller writes a named file instead
    }
  }
  ::close(fd);
  if (error && !tempName.empty()) {
    ::unlinkat(dirfd, tempName.c_str(), 0);
    forgetTemporary();
    tempName.clear();
  }
  return error;
}

} // namespace

void ignoreFileSizeSignal() {
  ::signal(SIGXFSZ, SIG_IGN);
}

std::optional<std::string> replaceFileContents(const std::filesystem::path& target,
                                               const struct stat& st, const std::string& text) {
  std::string dir = target.parent_path().string();
  if (dir.empty())
    dir = ".";
  std::string name = target.filename().string();
  int dirfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return "cannot open its folder: " + errorText(errno);
  TerminationCleanup cleanup;
  std::string tempName;
  std::optional<std::string> error =
      writeTemporary(dirfd, dir, name, text, st, /*unnamed=*/true, tempName);
  if (error && *error == kUnnamedUnavailable)
    error = writeTemporary(dirfd, dir, name, text, st, /*unnamed=*/false, tempName);
  if (!error && ::renameat(dirfd, tempName.c_str(), dirfd, name.c_str()) != 0) {
    error = "cannot replace the file: " + errorText(errno);
    ::unlinkat(dirfd, tempName.c_str(), 0);
  }
  forgetTemporary();
  if (!error)
    ::fsync(dirfd); // the rename itself reaches the disk
  ::close(dirfd);
  return error;
}

} // namespace pallas::check
