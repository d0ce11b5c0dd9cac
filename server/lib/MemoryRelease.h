// Hands memory freed by closed documents back to the operating system.
//
// A document's tree, module and findings are freed on didClose, but glibc
// keeps freed pages in its per-thread arenas: 20,000 open/close cycles of
// distinct documents grew the resident set by ~25 MB that nothing used.
// malloc_trim returns those pages; it walks every arena, so it runs after
// a batch of closes (or one large document), never per keystroke.
#pragma once

#include <cstddef>

namespace pallas::server {

class MemoryRelease {
public:
  // A document of `bytes` of text was closed and its structures freed.
  void documentClosed(size_t bytes);
  // How many times memory was handed back (for tests and logs).
  unsigned trims() const { return trims_; }

private:
  static constexpr unsigned kClosesPerTrim = 256;
  static constexpr size_t kBytesPerTrim = size_t(8) << 20; // a large document's worth
  unsigned closes_ = 0;
  size_t bytes_ = 0;
  unsigned trims_ = 0;
};

} // namespace pallas::server
