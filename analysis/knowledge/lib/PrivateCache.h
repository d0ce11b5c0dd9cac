// The knowledge cache directory (~/.cache/pallas-lsp): private to the user
// and written so that another local user, a crash or a full disk cannot
// damage a table or make pallas-lsp write through a planted link.
#pragma once

#include <optional>
#include <string>

namespace pallas::knowledge::detail {

// Creates `dir` (0700) or checks the existing one: a real directory (not a
// symlink) owned by this user; tightens its mode to 0700. "" when usable,
// otherwise why not.
std::string preparePrivateDir(const std::string& dir);

// Writes `content` to dir/name atomically: a temporary with a random name
// opened O_CREAT|O_EXCL|O_NOFOLLOW (0600), written, fsynced, renamed over
// dir/name. A failed write (full disk, file size limit) removes the
// temporary and leaves any previous dir/name as it was. "" or why it failed.
std::string writeFileAtomically(const std::string& dir, const std::string& name,
                                const std::string& content);

// Reads dir/name without following a symlink, up to `maxBytes`; nullopt
// (with `error` set) when it is missing, unreadable, not a regular file or
// too large.
std::optional<std::string> readPrivateFile(const std::string& path, size_t maxBytes,
                                           std::string* error);

// Removes what interrupted writers left: `jax-version.<pid>` files of older
// versions and `*.tmp<pid>` / `*.tmp.<pid>.<random>` temporaries whose process
// is gone. Returns how many were removed.
int cleanStaleFiles(const std::string& dir);

} // namespace pallas::knowledge::detail
