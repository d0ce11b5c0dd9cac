// `check --fix`: applies the findings' fixes to the files on disk, in ruff's
// manner. One fix per finding (the first one the safety level allows: safe,
// or unsafe too with --unsafe-fixes; display-only never). A fix is applied
// whole or not at all: it is skipped when one of its edits overlaps an edit
// already accepted, lies outside its file, or touches a file that changed on
// disk since the run read it (that file is left alone, with a message).
// Everything outside the edits stays byte-identical, and line breaks inside
// the edits follow the file's ("\r\n" or "\r" where the edited line ends
// so). A file is replaced crash-safely (SafeReplace.h: a temporary file in
// its folder, fsync, rename; permissions kept); a symbolic link is written
// through to its target; a file with other hard links, or without write
// permission, is left alone, with a message.
#pragma once

#include "pallas/analysis/Finding.h"

#include <map>
#include <string>
#include <vector>

namespace pallas::check {

struct FixOptions {
  bool unsafe = false; // --unsafe-fixes
};

struct FixOutcome {
  std::vector<bool> fixed; // per finding, in the order given
  size_t findingsFixed = 0;
  std::vector<std::string> changedFiles; // absolute paths written
  std::vector<std::string> messages;     // fixes or files left alone, and why
  std::vector<std::string> errors;       // files that could not be written
};

// The fix a finding would get at this safety level, or nullptr.
const analysis::Fix* applicableFix(const analysis::Finding& finding, const FixOptions& options);

// `originals` maps absolute path -> the text the analysis saw; files a fix
// edits that are not in it are read from disk now.
FixOutcome applyFixes(const std::vector<analysis::Finding>& findings,
                      const std::map<std::string, std::string>& originals,
                      const FixOptions& options);

// The edits applied to one text (offsets already resolved), for tests and
// for the applier itself. Edits must not overlap; any order.
struct ResolvedEdit {
  size_t start = 0, end = 0;
  std::string newText;
};
std::string applyEdits(std::string text, std::vector<ResolvedEdit> edits);

} // namespace pallas::check
