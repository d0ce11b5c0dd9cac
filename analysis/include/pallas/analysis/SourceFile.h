// Reading a user's source file: the analysis uses the support library's
// reader (protocol/support, pallas/support/FileReading.h) under its own names.
#pragma once

#include "pallas/support/FileReading.h"

namespace pallas::analysis {

using support::kMaxSourceFileBytes;
using support::readSourceFile;

} // namespace pallas::analysis
