// Linked into the self-contained pallas-lsp only (pallas_static_executable).
//
// The wheel's binary should run on every glibc a JAX user is likely to have,
// Ubuntu 22.04 (glibc 2.35, also Colab's) included. Built on Debian 12, one
// symbol raises the floor to 2.36: arc4random, which the static libstdc++
// (std::random_device) calls because the build machine's glibc has it. The
// link wraps it (--wrap=arc4random) to this definition, which takes the same
// bytes from the kernel through getrandom (glibc 2.25) or /dev/urandom.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

uint32_t __wrap_arc4random(void);

uint32_t __wrap_arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t n = getrandom(&value, sizeof value, 0);
    if (n == (ssize_t)sizeof value)
      return value;
    if (n < 0 && errno != EINTR)
      break; // ENOSYS on a very old kernel: fall back to the device
  }
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, &value, sizeof value);
    close(fd);
    if (n == (ssize_t)sizeof value)
      return value;
  }
  abort(); // arc4random cannot fail; neither may this
}
