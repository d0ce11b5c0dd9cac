// Replacing a file's contents so that no failure, signal or crash ever
// leaves it half-written (`check --fix`, docs/security.md): the new text is
// written to a temporary file in the same folder, flushed to disk (fsync),
// given the original's permissions (and owner, when allowed), and renamed
// over the original; the folder is flushed too. A reader sees the old file
// or the new one, never a mix.
//
// The temporary file has no name while it is written (O_TMPFILE, where the
// file system has it): a process killed even by SIGKILL leaves nothing
// behind. It is named only for the instant before the rename
// (`.NAME.pallas-fix-XXXXXX`); SIGINT, SIGTERM, SIGHUP and SIGQUIT arriving
// then remove it before the process ends. Where O_TMPFILE is missing the
// named file is written instead, under the same signal handling. A full
// disk (ENOSPC) or a file size limit (EFBIG; SIGXFSZ is ignored, so the
// write fails instead of killing the process: under `ulimit -f` the in-place
// rewrite used to leave a hard-linked file holding the first 4,096 bytes of
// the new text, issue 34) is an error that names the file, and the
// temporary file is removed: the original is untouched.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <sys/stat.h>

namespace pallas::check {

// Replaces `target` (a regular file with one link; resolved: not a symbolic
// link) with `text`, keeping the permissions and owner in `st` (its stat).
// nullopt on success, else why not ("cannot write: File too large"); on
// failure `target` is as it was and no temporary file is left.
std::optional<std::string> replaceFileContents(const std::filesystem::path& target,
                                               const struct stat& st, const std::string& text);

// SIGXFSZ ignored for the rest of the process, so that writing past a file
// size limit fails with EFBIG instead of killing it.
void ignoreFileSizeSignal();

} // namespace pallas::check
