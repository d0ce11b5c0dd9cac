// `json`: the Finding structure as is (0-based lines, UTF-8 byte columns), so
// tools can map it back onto the analysis's own positions.
#include "JsonText.h"
#include "NotebookFiles.h"
#include "Report.h"
#include "config/Rules.h"

#include <nlohmann/json.hpp>

namespace pallas::check {

// ordered_json: keys come out in the documented order, for people reading it.
using json = nlohmann::ordered_json;

namespace {

json position(const analysis::SourcePos& p) {
  return {{"line", p.line}, {"column", p.column}};
}
json range(const analysis::SourceRange& r) {
  return {{"start", position(r.start)}, {"end", position(r.end)}};
}

json findingJson(const analysis::Finding& f) {
  json related = json::array();
  for (const analysis::RelatedInfo& r : f.related)
    related.push_back(
        {{"path", r.location.path}, {"range", range(r.location.range)}, {"message", r.message}});
  json fixes = json::array();
  for (const analysis::Fix& fix : f.fixes) {
    json edits = json::array();
    for (const analysis::TextEdit& e : fix.edits)
      edits.push_back({{"path", e.path}, {"range", range(e.range)}, {"newText", e.newText}});
    fixes.push_back({{"title", fix.title},
                     {"safety", analysis::fixSafetyName(fix.safety)},
                     {"edits", std::move(edits)}});
  }
  json out = {
      {"code", f.code},
      {"severity", analysis::severityName(f.severity)},
      {"path", f.location.path},
      {"range", range(f.location.range)},
      {"message", f.message},
      // The one-line form (<= 100 characters) editors and `--format text` show
      // first; `message` keeps every detail.
      {"headline", analysis::headline(f)},
      {"executionPath", f.executionPath},
      {"launch", f.launch ? json{{"path", f.launch->path}, {"range", range(f.launch->range)}}
                          : json(nullptr)},
      {"callChain", f.callChain},
      {"related", std::move(related)},
      {"jaxVersion", f.jaxVersion},
      {"jaxError", f.jaxException.empty()
                       ? json(nullptr)
                       : json{{"type", f.jaxException}, {"firstLine", f.jaxErrorFirstLine}}},
      {"fixes", std::move(fixes)},
  };
  // A notebook's finding: its cell (1-based, as Jupyter numbers cells) and
  // the range within it; `range` stays the position in the cells' module.
  auto start = notebook::cellLine(f.location.path, f.location.range.start.line);
  auto end = notebook::cellLine(f.location.path, f.location.range.end.line);
  if (start) {
    analysis::SourceRange r = f.location.range;
    r.start.line = start->line;
    r.end.line = end && end->cell == start->cell ? end->line : start->line;
    out["cell"] = start->cell;
    out["cellRange"] = range(r);
  }
  return out;
}

// The path matrix of one launch: {"compiled_sm90a": {"runs": "yes"}, ...}.
json launchJson(const analysis::LaunchPaths& l) {
  json paths = json::object();
  for (const analysis::LaunchPathVerdict& v : l.paths) {
    json p = {{"runs", v.verdict}};
    if (v.verdict != "yes") {
      p["primitive"] = v.primitive;
      p["api"] = v.api;
      p["error"] = v.error;
      p["at"] = v.at ? json{{"path", v.at->path}, {"range", range(v.at->range)}} : json(nullptr);
    }
    paths[v.path] = std::move(p);
  }
  json out = {{"path", l.launch.path},
              {"range", range(l.launch.range)},
              {"api", l.api},
              {"selects", l.selects},
              {"paths", std::move(paths)}};
  // The shared memory the launch requests (PLS005's budget), when computed.
  if (l.smem) {
    json parts = json::array();
    for (const auto& [name, bytes] : l.smem->parts)
      parts.push_back({{"name", name}, {"bytes", bytes}});
    out["smem"] = {{"bytes", l.smem->total},    {"exact", l.smem->unknown.empty()},
                   {"limit", l.smem->limit},    {"limitSource", l.smem->limitSource},
                   {"parts", std::move(parts)}, {"unknown", l.smem->unknown},
                   {"summary", l.smem->summary}};
    // The limit on each GPU the compiled paths target (issue 33).
    json targets = json::object();
    for (const auto& [label, bytes] : l.smem->targetLimits)
      targets[label] = bytes;
    out["smem"]["targetLimits"] = std::move(targets);
    if (l.smem->tmemCols > 0) { // Blackwell tensor memory, in columns
      json tparts = json::array();
      for (const auto& [name, cols] : l.smem->tmemParts)
        tparts.push_back({{"name", name}, {"columns", cols}});
      out["tmem"] = {{"columns", l.smem->tmemCols},
                     {"allocated", l.smem->tmemAllocated},
                     {"limit", l.smem->tmemLimit},
                     {"parts", std::move(tparts)}};
    }
  }
  return out;
}

} // namespace

void writeJson(std::ostream& out, const Report& report) {
  json findings = json::array();
  size_t errors = 0, warnings = 0;
  for (const analysis::Finding& f : report.findings) {
    findings.push_back(findingJson(f));
    if (f.severity == analysis::Severity::Error)
      ++errors;
    if (f.severity == analysis::Severity::Warning)
      ++warnings;
  }
  json doc = {
      {"version", std::string(toolVersion())},
      {"jaxVersion", report.jaxVersion},
      {"findings", std::move(findings)},
      {"summary",
       {{"files", report.files},
        {"findings", report.findings.size()},
        {"errors", errors},
        {"warnings", warnings}}},
  };
  if (!report.launches.empty()) {
    json launches = json::array();
    for (const analysis::LaunchPaths& l : report.launches)
      launches.push_back(launchJson(l));
    doc["launches"] = std::move(launches);
  }
  // Bytes that are not UTF-8 (a file name is any bytes) come out as
  // \udc80-\udcff escapes, never U+FFFD: the path named is the one on disk.
  out << dumpKeepingBytes(doc, 2) << '\n';
}

} // namespace pallas::check
