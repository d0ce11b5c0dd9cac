#include "PrivateCache.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

namespace pallas::knowledge::detail {
namespace fs = std::filesystem;

namespace {

std::string randomSuffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (int i = 0; i < 12; ++i)
    out += digits[rng() % 36];
  return out;
}

bool processAlive(long pid) {
  if (pid <= 0)
    return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

} // namespace

std::string preparePrivateDir(const std::string& dir) {
  std::error_code ec;
  fs::path p(dir);
  if (p.has_parent_path())
    fs::create_directories(p.parent_path(), ec); // ~/.cache itself: the user's
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot create " + dir + ": " + std::strerror(errno);
  struct stat st{};
  if (::lstat(dir.c_str(), &st) != 0)
    return "cannot inspect " + dir + ": " + std::strerror(errno);
  if (S_ISLNK(st.st_mode))
    return dir + " is a symbolic link; not used as the knowledge cache";
  if (!S_ISDIR(st.st_mode))
    return dir + " is not a directory";
  if (st.st_uid != ::geteuid())
    return dir + " belongs to another user; not used as the knowledge cache";
  if ((st.st_mode & 0777) != 0700 && ::chmod(dir.c_str(), 0700) != 0)
    return "cannot make " + dir + " private: " + std::strerror(errno);
  return {};
}

std::string writeFileAtomically(const std::string& dir, const std::string& name,
                                const std::string& content) {
  // With a file size limit (ulimit -f) a long write raises SIGXFSZ, whose
  // default action ends the process: take the write's EFBIG instead.
  static const bool ignored = [] {
    ::signal(SIGXFSZ, SIG_IGN);
    return true;
  }();
  (void)ignored;
  std::string tmp =
      (fs::path(dir) / (name + ".tmp." + std::to_string(::getpid()) + "." + randomSuffix()))
          .string();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return "cannot create " + tmp + ": " + std::strerror(errno);
  size_t done = 0;
  std::string error;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write " + tmp + ": " + std::strerror(n < 0 ? errno : ENOSPC);
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error.empty() && ::fsync(fd) != 0)
    error = "cannot write " + tmp + ": " + std::strerror(errno);
  if (::close(fd) != 0 && error.empty())
    error = "cannot write " + tmp + ": " + std::strerror(errno);
  std::string target = (fs::path(dir) / name).string();
  if (error.empty() && ::rename(tmp.c_str(), target.c_str()) != 0)
    error = "cannot rename " + tmp + " to " + target + ": " + std::strerror(errno);
  if (!error.empty())
    ::unlink(tmp.c_str());
  return error;
}

std::optional<std::string> readPrivateFile(const std::string& path, size_t maxBytes,
                                           std::string* error) {
  auto fail = [&](std::string why) -> std::optional<std::string> {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail("cannot read " + path + ": " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(path + " is not a regular file");
  }
  if (static_cast<size_t>(st.st_size) > maxBytes) {
    ::close(fd);
    return fail(path + " is larger than " + std::to_string(maxBytes) + " bytes");
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return fail("cannot read " + path + ": " + std::strerror(e));
    }
    if (n == 0)
      break;
    if (out.size() + static_cast<size_t>(n) > maxBytes) {
      ::close(fd);
      return fail(path + " is larger than " + std::to_string(maxBytes) + " bytes");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

int cleanStaleFiles(const std::string& dir) {
  static const std::regex versionFile(R"(jax-version\.(\d+))");
  static const std::regex tmpFile(R"(.*\.tmp\.?(\d+)(\.[0-9a-z]+)?)");
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::smatch m;
    bool stale = false;
    if (std::regex_match(name, m, versionFile))
      stale = true; // no version of pallas-lsp writes these any more
    else if (std::regex_match(name, m, tmpFile))
      stale = !processAlive(std::strtol(m[1].str().c_str(), nullptr, 10));
    if (stale && ::unlink(it->path().c_str()) == 0)
      ++removed;
  }
  return removed;
}

} // namespace pallas::knowledge::detail
