// After the rewrite replaces an inline_mgpu region, the Mosaic GPU imports it
// used (`mgpu`, `ir`, `memref`, often `plgpu`) may be used nowhere else: the
// rewrite deletes those import statements too, so the file does not keep
// imports of a module it no longer needs (ruff would flag them, F401).
#pragma once

#include "SourceIndex.h"

#include <string>
#include <vector>

namespace pallas::analysis::rewrite {

// Deletions of the module-level import statements each of whose names is
// used nowhere outside [from, to) and not in `replacement`. A statement that
// binds one still-used name is kept whole. Conservative: any identifier with
// the name (a parameter, an attribute of something else) counts as a use.
std::vector<TextEdit> unusedImportRemovals(const SourceIndex& src, const std::string& path,
                                           SourcePos from, SourcePos to,
                                           const std::string& replacement);

} // namespace pallas::analysis::rewrite
