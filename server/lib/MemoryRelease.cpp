#include "MemoryRelease.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pallas::server {

void MemoryRelease::documentClosed(size_t bytes) {
  ++closes_;
  bytes_ += bytes;
  if (closes_ < kClosesPerTrim && bytes_ < kBytesPerTrim)
    return;
  closes_ = 0;
  bytes_ = 0;
  ++trims_;
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

} // namespace pallas::server
