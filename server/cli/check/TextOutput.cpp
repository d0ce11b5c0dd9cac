// `text`: one line per finding (its headline, with the details on an indented
// line below when it has one), then ruff's summary lines.
#include "NotebookFiles.h"
#include "Report.h"

namespace pallas::check {
namespace {

std::string plural(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

} // namespace

void writeText(std::ostream& out, const Report& report) {
  size_t errors = 0, others = 0;
  for (const analysis::Finding& f : report.findings) {
    const auto& start = f.location.range.start;
    // A notebook's finding names its cell (ruff's `nb.ipynb:cell 3:2:5:`).
    auto cell = notebook::cellLine(f.location.path, start.line);
    auto inCells = [&](const std::string& text) {
      if (!notebook::isNotebookPath(f.location.path))
        return text;
      return notebook::retellLines(
          text, [&](uint32_t line) { return notebook::cellLine(f.location.path, line); });
    };
    out << displayPath(f.location.path, report.base);
    if (cell)
      out << ":cell " << cell->cell;
    out << ':' << (cell ? cell->line : start.line) + 1 << ':'
        << displayColumn(report, f.location.path, start) << ": "
        << analysis::severityName(f.severity) << '[' << f.code << "] ";
    // A finding with a headline prints it, then its details indented below
    // (ruff's full format); one without keeps the message on its one line.
    std::string head = analysis::headline(f);
    if (f.subject.empty() || head == f.message)
      out << inCells(f.message) << '\n';
    else
      out << inCells(head) << "\n    " << inCells(f.message) << '\n';
    (f.severity == analysis::Severity::Error ? errors : others) += 1;
  }
  if (report.quiet)
    return;
  size_t remaining = report.findings.size();
  if (remaining == 0 && report.fixesApplied == 0) {
    out << "All checks passed!\n";
    return;
  }
  if (report.fixesApplied > 0) {
    out << "Found " << plural(remaining + report.fixesApplied, "error") << " ("
        << report.fixesApplied << " fixed, " << remaining << " remaining).\n";
  } else if (others == 0) {
    out << "Found " << plural(errors, "error") << ".\n";
  } else if (errors == 0) {
    out << "Found " << plural(others, "warning") << ".\n";
  } else {
    out << "Found " << plural(errors, "error") << " and " << plural(others, "warning") << ".\n";
  }
  if (report.fixableSafe > 0)
    out << "[*] " << report.fixableSafe << " fixable with the `--fix` option.\n";
  if (report.fixableUnsafe > 0)
    out << "No fixes available (" << report.fixableUnsafe
        << (report.fixableUnsafe == 1 ? " hidden fix" : " hidden fixes")
        << " can be enabled with the `--unsafe-fixes` option).\n";
}

} // namespace pallas::check
