// `github`: GitHub Actions workflow commands, one per finding, which the
// runner turns into annotations on the pull request's diff.
#include "Report.h"

namespace pallas::check {

void writeGithub(std::ostream& out, const Report& report) {
  for (const analysis::Finding& f : report.findings) {
    const char* command = f.severity == analysis::Severity::Error     ? "error"
                          : f.severity == analysis::Severity::Warning ? "warning"
                                                                      : "notice";
    const auto& range = f.location.range;
    std::string path = displayPath(f.location.path, report.base);
    out << "::" << command << " file=" << githubEscapeProperty(path)
        << ",line=" << range.start.line + 1
        << ",col=" << displayColumn(report, f.location.path, range.start)
        << ",endLine=" << range.end.line + 1
        << ",endColumn=" << displayColumn(report, f.location.path, range.end)
        << ",title=" << githubEscapeProperty(f.code) << "::"
        << githubEscapeData(path + ":" + std::to_string(range.start.line + 1) + ":" +
                            std::to_string(displayColumn(report, f.location.path, range.start)) +
                            ": " + f.code + " " + f.message)
        << '\n';
  }
}

} // namespace pallas::check
