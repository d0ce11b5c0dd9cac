// Runs a helper program (the knowledge extractors) so that it cannot outlive
// pallas-lsp or hang it: its own process group, killed with the group on
// timeout, killed by the kernel when the thread that started it dies
// (PR_SET_PDEATHSIG), its output captured through a pipe (never a file at a
// predictable name), bounded in size.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace pallas::knowledge::detail {

struct ChildResult {
  bool ok = false;    // exited with status 0
  std::string output; // its stdout (up to the cap)
  std::string error;  // why it failed, for a message
};

ChildResult runCaptured(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        size_t maxOutputBytes = 64u << 20);

} // namespace pallas::knowledge::detail
