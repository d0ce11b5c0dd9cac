#include "pallas/analysis/Finding.h"

namespace pallas::analysis {

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Information: return "info";
  case Severity::Hint: return "hint";
  }
  return "error";
}

} // namespace pallas::analysis
