// Where a launch's path is decided, as the user wrote it: the `interpret=`
// argument of the launch call (however many lines below `pl.pallas_call(` it
// is written), for Finding::selectedAt and LaunchPaths::selectedAt. The
// editors put the path hint, the path fixes and the path-matrix hover there.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/analysis/detail/Passes.h"

#include <optional>
#include <string>

namespace pallas::analysis::passes {

// The `interpret=...` keyword argument written in the call that launches at
// `launchAt` in document `doc` (the launch call itself, or the call around
// it: `functools.partial(pl.pallas_call, ..., interpret=True)`); nullopt
// when that call writes none, or the document is not known.
std::optional<SourceLocation> interpretArgumentOf(const detail::Workspace& ws,
                                                  const std::string& doc,
                                                  const SourceLocation& launchAt);

} // namespace pallas::analysis::passes
