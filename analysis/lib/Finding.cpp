#include "pallas/analysis/Finding.h"

#include <algorithm>

namespace pallas::analysis {

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Information:
    return "info";
  case Severity::Hint:
    return "hint";
  }
  return "error";
}

const char* fixSafetyName(FixSafety s) {
  switch (s) {
  case FixSafety::Safe:
    return "safe";
  case FixSafety::Unsafe:
    return "unsafe";
  case FixSafety::DisplayOnly:
    return "display-only";
  }
  return "display-only";
}

std::string shortPathName(const std::string& executionPath) {
  std::string out = executionPath.substr(0, executionPath.find(" ("));
  return out == "compiled" ? "the compiled path" : out;
}

std::string shortened(const std::string& text, size_t max) {
  if (text.size() <= max)
    return text;
  size_t cut = text.rfind(' ', max - 3);
  if (cut == std::string::npos || cut < max / 2)
    cut = max - 3;
  while (cut > 0 && (text[cut - 1] == ',' || text[cut - 1] == ':' || text[cut - 1] == ' '))
    --cut;
  return text.substr(0, cut) + "...";
}

std::string headline(const Finding& f) {
  if (!f.subject.empty() && !f.executionPath.empty()) {
    // A launch that only may select the path says so (a run-time choice).
    bool may = f.severity != Severity::Error;
    std::string tail;
    if (f.launch)
      tail = " (launch at line " + std::to_string(f.launch->range.start.line + 1) + ")";
    std::string verb = may ? " may not run under " : " can't run under ";
    std::string line = f.subject + verb + shortPathName(f.executionPath) + tail;
    if (line.size() <= kHeadlineMax)
      return line;
    // A long subject gives way first: the path and the launch line matter more.
    size_t room = kHeadlineMax - (line.size() - f.subject.size());
    return shortened(f.subject, std::max<size_t>(room, 12)) + verb +
           shortPathName(f.executionPath) + tail;
  }
  // The first sentence of the message (PLS003/PLS004 and runs).
  std::string first = f.message.substr(0, f.message.find('\n'));
  for (size_t i = 0; i + 1 < first.size(); ++i)
    if (first[i] == '.' && first[i + 1] == ' ' && i > 20) {
      first = first.substr(0, i + 1);
      break;
    }
  return shortened(first, kHeadlineMax);
}

} // namespace pallas::analysis
