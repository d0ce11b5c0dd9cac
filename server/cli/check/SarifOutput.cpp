// `sarif`: SARIF 2.1.0 (OASIS), the format code-scanning services ingest.
// Paths are relative to %SRCROOT% (the folder the run was started in) where
// possible, so results line up with the repository; columns are Unicode code
// points (run.columnKind), lines 1-based.
#include "JsonText.h"
#include "Report.h"
#include "config/Rules.h"
#include "pallas/support/Uri.h"

#include <nlohmann/json.hpp>

namespace pallas::check {

// ordered_json: keys come out in the documented order, for people reading it.
using json = nlohmann::ordered_json;

namespace {

const char* level(analysis::Severity s) {
  switch (s) {
  case analysis::Severity::Error:
    return "error";
  case analysis::Severity::Warning:
    return "warning";
  case analysis::Severity::Information:
  case analysis::Severity::Hint:
    return "note";
  }
  return "error";
}

json artifactLocation(const Report& report, const std::string& path) {
  std::string rel = displayPath(path, report.base);
  if (rel != path || !std::filesystem::path(path).is_absolute())
    return {{"uri", support::percentEncodePath(rel)}, {"uriBaseId", "%SRCROOT%"}};
  return {{"uri", support::pathToUri(path)}};
}

json region(const Report& report, const std::string& path, const analysis::SourceRange& r) {
  return {{"startLine", r.start.line + 1},
          {"startColumn", displayColumn(report, path, r.start)},
          {"endLine", r.end.line + 1},
          {"endColumn", displayColumn(report, path, r.end)}};
}

json physicalLocation(const Report& report, const analysis::SourceLocation& loc) {
  return {{"physicalLocation",
           {{"artifactLocation", artifactLocation(report, loc.path)},
            {"region", region(report, loc.path, loc.range)}}}};
}

json rules() {
  json out = json::array();
  for (const RuleInfo& rule : knownRules()) {
    out.push_back({
        {"id", rule.code},
        {"name", rule.name},
        {"shortDescription", {{"text", rule.summary}}},
        {"fullDescription", {{"text", rule.description}}},
        {"helpUri", ruleDocsUri(rule.code)},
        {"help", {{"text", std::string(rule.summary) + " See " + ruleDocsUri(rule.code)}}},
        {"defaultConfiguration", {{"level", level(rule.defaultSeverity)}}},
    });
  }
  return out;
}

json result(const Report& report, const analysis::Finding& f) {
  json r = {
      {"ruleId", f.code},
      {"level", level(f.severity)},
      {"message", {{"text", f.message}}},
      {"locations", json::array({physicalLocation(report, f.location)})},
  };
  auto all = knownRules();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].code == f.code)
      r["ruleIndex"] = i;

  json related = json::array();
  int id = 0;
  if (f.launch) {
    json loc = physicalLocation(report, *f.launch);
    loc["id"] = id++;
    loc["message"] = {{"text", "launch that selects " + f.executionPath}};
    related.push_back(std::move(loc));
  }
  for (const analysis::RelatedInfo& info : f.related) {
    json loc = physicalLocation(report, info.location);
    loc["id"] = id++;
    loc["message"] = {{"text", info.message}};
    related.push_back(std::move(loc));
  }
  if (!related.empty())
    r["relatedLocations"] = std::move(related);

  // The call chain from the kernel to the primitive, as a thread flow: each
  // step is a message ("kernel (k.py:12)"), the last one the finding itself.
  if (!f.callChain.empty()) {
    json steps = json::array();
    for (const std::string& step : f.callChain)
      steps.push_back({{"location", {{"message", {{"text", step}}}}}});
    steps.push_back({{"location", physicalLocation(report, f.location)}});
    steps.back()["location"]["message"] = {{"text", f.message}};
    r["codeFlows"] =
        json::array({{{"threadFlows", json::array({{{"locations", std::move(steps)}}})}}});
  }

  json fixes = json::array();
  for (const analysis::Fix& fix : f.fixes) {
    if (fix.edits.empty())
      continue; // SARIF fixes need at least one change
    json changes = json::array();
    for (const analysis::TextEdit& e : fix.edits) {
      changes.push_back(
          {{"artifactLocation", artifactLocation(report, e.path)},
           {"replacements", json::array({{{"deletedRegion", region(report, e.path, e.range)},
                                          {"insertedContent", {{"text", e.newText}}}}})}});
    }
    fixes.push_back(
        {{"description", {{"text", fix.title}}}, {"artifactChanges", std::move(changes)}});
  }
  if (!fixes.empty())
    r["fixes"] = std::move(fixes);

  r["properties"] = {
      {"executionPath", f.executionPath}, {"callChain", f.callChain}, {"jaxVersion", f.jaxVersion}};
  return r;
}

} // namespace

void writeSarif(std::ostream& out, const Report& report) {
  json results = json::array();
  for (const analysis::Finding& f : report.findings)
    results.push_back(result(report, f));
  std::string base = support::pathToUri(report.base.generic_string());
  if (base.back() != '/')
    base += '/'; // a base URI must end with a slash
  json run = {
      {"tool",
       {{"driver",
         {{"name", "pallas-lsp"},
          {"version", std::string(toolVersion())},
          {"semanticVersion", std::string(toolVersion())},
          {"informationUri", std::string(homepageUri())},
          {"rules", rules()}}}}},
      {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", base}}}}},
      {"columnKind", "unicodeCodePoints"},
      {"results", std::move(results)},
      {"properties", {{"jaxVersion", report.jaxVersion}, {"filesChecked", report.files}}},
  };
  json doc = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::array({std::move(run)})},
  };
  // Bytes that are not UTF-8 (a file name is any bytes) come out as
  // \udc80-\udcff escapes, never U+FFFD: the path named is the one on disk.
  out << dumpKeepingBytes(doc, 2) << '\n';
}

} // namespace pallas::check
