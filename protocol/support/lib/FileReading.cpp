#include "pallas/support/FileReading.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pallas::support {

namespace {

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a folder";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

std::string sizeText(size_t bytes) {
  constexpr size_t kMiB = size_t{1024} * 1024;
  if (bytes % kMiB == 0)
    return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

} // namespace

std::optional<std::string> readSourceFile(const std::string& path, std::string* why,
                                          size_t maxBytes) {
  auto fail = [&](std::string reason) -> std::optional<std::string> {
    if (why)
      *why = std::move(reason);
    return std::nullopt;
  };
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    return fail(std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(std::string("not a regular file (") + kindOf(st.st_mode) + ")");
  }
  if (static_cast<unsigned long long>(st.st_size) > maxBytes) {
    ::close(fd);
    return fail("larger than " + sizeText(maxBytes));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  text.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  for (;;) {
    // The file may hold more than fstat said (procfs says 0) or grow while
    // it is read: read until EOF, but stop once past the cap (an endless
    // file would otherwise be read forever).
    if (got > maxBytes)
      break;
    // The end is probed with a small buffer first, so the usual file (as
    // large as fstat said) is neither grown nor copied.
    if (got == text.size()) {
      char probe[4096];
      ssize_t n = ::read(fd, probe, sizeof probe);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (n == 0)
          break;
        int error = errno;
        ::close(fd);
        return fail(std::strerror(error));
      }
      text.append(probe, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
      // Room for more, up to one byte past the cap; never below what is
      // already read (a probe can cross the cap).
      text.resize(std::max(got, std::min(maxBytes + 1, got + size_t{64} * 1024)));
      continue;
    }
    ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return fail(std::strerror(error));
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got > maxBytes)
    return fail("larger than " + sizeText(maxBytes));
  text.resize(got);
  return text;
}

} // namespace pallas::support
