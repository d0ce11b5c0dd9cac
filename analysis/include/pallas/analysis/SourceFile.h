// Reading a user's source file: the analysis uses the support library's
// reader (protocol/support, pallas/support/FileReading.h), and takes on only
// files within the analysis budget (pallas/support/AnalysisBudget.h): a file
// over it is not read (`why` says so), as if it were not there.
#pragma once

#include "pallas/support/AnalysisBudget.h"
#include "pallas/support/FileReading.h"

namespace pallas::analysis {

using support::kMaxSourceFileBytes;

inline std::optional<std::string> readSourceFile(const std::string& path,
                                                 std::string* why = nullptr) {
  std::optional<std::string> text = support::readSourceFile(path, why);
  if (text)
    if (std::optional<std::string> over = support::overAnalysisBudget(*text)) {
      if (why)
        *why = std::move(*over);
      return std::nullopt;
    }
  return text;
}

} // namespace pallas::analysis
