// The outcome of one `pallas-lsp check` run and its four renderings:
//   text    path:line:col: severity[CODE] message   (1-based, code-point
//           columns, like ruff's concise output), then a summary line
//   json    pallas-lsp's own schema (0-based lines, UTF-8 byte columns,
//           exactly the analysis's Finding)
//   sarif   SARIF 2.1.0 for code-scanning services
//   github  GitHub Actions workflow commands (::error file=...::message)
#pragma once

#include "SourceText.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Project.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

enum class OutputFormat { Text, Json, Sarif, Github };
std::optional<OutputFormat> parseOutputFormat(std::string_view name);

struct Report {
  std::vector<analysis::Finding> findings; // sorted by path, line, column, code
  size_t files = 0;                        // files checked
  std::string jaxVersion;                  // of the knowledge the analysis used
  std::filesystem::path base;              // paths are shown relative to it
  // Line index of a file the run read, or nullptr (columns then fall back
  // to UTF-8 bytes).
  std::function<const LineIndex*(const std::string& path)> lines;
  size_t fixesApplied = 0;  // findings fixed by --fix
  size_t fixableSafe = 0;   // remaining findings with a safe fix
  size_t fixableUnsafe = 0; // remaining findings with only unsafe fixes
  bool quiet = false;       // text: no summary lines
  // The path matrix of each Mosaic GPU launch (when asked for: JSON).
  std::vector<analysis::LaunchPaths> launches;
};

// Orders findings by path, line, column, code, then message.
void sortFindings(std::vector<analysis::Finding>& findings);

void writeReport(std::ostream& out, OutputFormat format, const Report& report);
void writeText(std::ostream& out, const Report& report);
void writeJson(std::ostream& out, const Report& report);
void writeSarif(std::ostream& out, const Report& report);
void writeGithub(std::ostream& out, const Report& report);

// Helpers shared by the renderers (and tested on their own).
std::string displayPath(const std::string& path, const std::filesystem::path& base);
uint32_t displayColumn(const Report& report, const std::string& path, analysis::SourcePos pos);
// GitHub workflow-command escaping: message data escapes %, \r, \n;
// property values also escape ':' and ','.
std::string githubEscapeData(std::string_view s);
std::string githubEscapeProperty(std::string_view s);
// A file:// URI for an absolute path, percent-encoding what RFC 3986 needs.
std::string fileUri(const std::filesystem::path& absolute);
// Percent-encodes a relative '/'-separated path for a URI reference.
std::string uriPath(std::string_view path);

} // namespace pallas::check
