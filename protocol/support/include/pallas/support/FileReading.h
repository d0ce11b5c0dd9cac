// Reading a user's source file from disk, for `check`, `mlir`, the server and
// the workspace index: only regular files (a FIFO would block the reader
// forever, /dev/zero would never end), and never more than a cap (what the
// server accepts from a client). Symbolic links are followed to their target.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace pallas::support {

// The largest source file read: 64 MiB, as the largest LSP message.
inline constexpr size_t kMaxSourceFileBytes = 64u * 1024 * 1024;

// The file's bytes, or nullopt with `why` set to a short reason that can
// follow the path ("not a regular file (a FIFO)", "larger than 64 MiB",
// "No such file or directory"). The open does not block on a FIFO and the
// check is made on the opened file (fstat), so nothing can be swapped in
// between.
std::optional<std::string> readSourceFile(const std::string& path, std::string* why = nullptr,
                                          size_t maxBytes = kMaxSourceFileBytes);

} // namespace pallas::support
