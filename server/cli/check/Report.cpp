#include "Report.h"

#include "pallas/support/Uri.h"

#include <algorithm>
#include <tuple>

namespace pallas::check {

std::optional<OutputFormat> parseOutputFormat(std::string_view name) {
  if (name == "text")
    return OutputFormat::Text;
  if (name == "json")
    return OutputFormat::Json;
  if (name == "sarif")
    return OutputFormat::Sarif;
  if (name == "github")
    return OutputFormat::Github;
  return std::nullopt;
}

void sortFindings(std::vector<analysis::Finding>& findings) {
  // A total order on what is shown, so output never depends on thread timing.
  // (std::sort, not stable_sort: libstdc++'s stable_sort uses the deprecated
  // get_temporary_buffer, an error under -Werror with clang 22.)
  // Findings the same but for their launch (a helper reached from two
  // launches; dedupe keeps the first) are ordered by the launch too.
  static const analysis::SourceLocation kNoLaunch;
  auto launchOf = [](const analysis::Finding& f) -> const analysis::SourceLocation& {
    return f.launch ? *f.launch : kNoLaunch;
  };
  std::sort(findings.begin(), findings.end(), [&](const auto& a, const auto& b) {
    const analysis::SourceLocation& la = launchOf(a);
    const analysis::SourceLocation& lb = launchOf(b);
    return std::tie(a.location.path, a.location.range.start, a.code, a.location.range.end.line,
                    a.location.range.end.column, a.message, a.executionPath, la.path,
                    la.range.start, a.callChain) <
           std::tie(b.location.path, b.location.range.start, b.code, b.location.range.end.line,
                    b.location.range.end.column, b.message, b.executionPath, lb.path,
                    lb.range.start, b.callChain);
  });
}

void writeReport(std::ostream& out, OutputFormat format, const Report& report) {
  switch (format) {
  case OutputFormat::Text:
    return writeText(out, report);
  case OutputFormat::Json:
    return writeJson(out, report);
  case OutputFormat::Sarif:
    return writeSarif(out, report);
  case OutputFormat::Github:
    return writeGithub(out, report);
  }
}

std::string displayPath(const std::string& path, const std::filesystem::path& base) {
  if (base.empty())
    return path;
  std::filesystem::path rel = std::filesystem::path(path).lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..")
    return path;
  return rel.generic_string();
}

uint32_t displayColumn(const Report& report, const std::string& path, analysis::SourcePos pos) {
  const LineIndex* lines = report.lines ? report.lines(path) : nullptr;
  return lines ? lines->codePointColumn(pos.line, pos.column) : pos.column + 1;
}

std::string githubEscapeData(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '%':
      out += "%25";
      break;
    case '\r':
      out += "%0D";
      break;
    case '\n':
      out += "%0A";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string githubEscapeProperty(std::string_view s) {
  std::string out;
  for (char c : githubEscapeData(s)) {
    switch (c) {
    case ':':
      out += "%3A";
      break;
    case ',':
      out += "%2C";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace pallas::check
