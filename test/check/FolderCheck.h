// `check` over a whole scratch folder, as a user runs it there with no
// configuration file: the real walker and the real analysis.
#pragma once

#include "TempDir.h"
#include "check/Checker.h"

namespace pallas::check::testing {

inline CheckResult checkFolder(const TempDir& dir) {
  CheckOptions options;
  options.paths = {dir.path()};
  options.configMode = CheckOptions::ConfigMode::None;
  return runCheck(options);
}

} // namespace pallas::check::testing
