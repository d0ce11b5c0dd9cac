#include "Diagnostics.h"

#include "config/Rules.h"
#include "pallas/support/Uri.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace pallas::server {

using protocol::json;

std::string diagnosticMessage(const analysis::Finding& f) {
  // The headline first: virtual text and one-line displays show only it.
  // The path, the call chain and the JAX version are not repeated here: the
  // headline names the path, the message the JAX version, and `data`
  // (executionPath, callChain, jaxVersion) and relatedInformation carry them
  // (a 761-character message was mostly such repeats).
  std::string m = analysis::headline(f);
  if (m != f.message)
    m += "\n" + f.message;
  return m;
}

const DiagnosticConverter::Cached& DiagnosticConverter::cached(const std::string& path) {
  for (const Cached& c : cache_)
    if (c.path == path)
      return c;
  Cached& c = cache_.emplace_back(Cached{path, lookup_ ? lookup_(path) : std::nullopt, {}});
  if (c.text)
    c.lines.emplace(*c.text);
  return c;
}

json DiagnosticConverter::position(const std::string& path, const analysis::SourcePos& p) {
  return json{{"line", p.line}, {"character", character(path, p)}};
}

uint32_t DiagnosticConverter::character(const std::string& path, const analysis::SourcePos& p) {
  uint32_t character = p.column;
  const Cached& c = cached(path);
  if (c.lines && p.line < c.lines->lineCount())
    character = protocol::byteColumnToUnits(c.lines->lineText(p.line), p.column, enc_);
  return character;
}

json DiagnosticConverter::range(const std::string& path, const analysis::SourceRange& r) {
  return json{{"start", position(path, r.start)}, {"end", position(path, r.end)}};
}

json DiagnosticConverter::location(const analysis::SourceLocation& loc) {
  return json{{"uri", support::pathToUri(loc.path)}, {"range", range(loc.path, loc.range)}};
}

json DiagnosticConverter::diagnostic(const analysis::Finding& f) {
  json d{{"range", range(f.location.path, f.location.range)},
         {"severity", static_cast<int>(f.severity)},
         {"code", f.code},
         {"codeDescription", {{"href", check::ruleDocsUri(f.code)}}}, // the registry's page
         {"source", kDiagnosticSource},
         {"message", diagnosticMessage(f)}};
  json related = json::array();
  if (f.launch)
    related.push_back(
        {{"location", location(*f.launch)},
         {"message", f.executionPath.empty() ? std::string("launched here")
                                             : "launched here on the path " + f.executionPath}});
  for (const auto& r : f.related)
    related.push_back({{"location", location(r.location)}, {"message", r.message}});
  if (!related.empty())
    d["relatedInformation"] = std::move(related);

  json fixes = json::array();
  for (const auto& fix : f.fixes) {
    json edits = json::array();
    for (const auto& e : fix.edits)
      edits.push_back({{"uri", support::pathToUri(e.path)},
                       {"range", range(e.path, e.range)},
                       {"newText", e.newText}});
    json jf{
        {"title", fix.title}, {"safety", analysis::fixSafetyName(fix.safety)}, {"edits", edits}};
    if (fix.run)
      jf["command"] = runCommand(*fix.run);
    fixes.push_back(std::move(jf));
  }
  json data{{"executionPath", f.executionPath},
            {"callChain", f.callChain},
            {"jaxVersion", f.jaxVersion},
            {"fixes", std::move(fixes)}};
  if (f.launch)
    data["launch"] = location(*f.launch);
  d["data"] = std::move(data);
  return d;
}

namespace {

std::string lineText(uint32_t line0) {
  return "line " + std::to_string(line0 + 1);
}

std::string hintMessage(const analysis::Finding& f) {
  bool may = f.severity != analysis::Severity::Error;
  return std::string(may ? "may select " : "selects ") + analysis::shortPathName(f.executionPath) +
         ", which cannot run " + f.subject + " (" + lineText(f.location.range.start.line) + ")";
}

} // namespace

json DiagnosticConverter::mergedDiagnostic(const std::vector<const analysis::Finding*>& group) {
  const analysis::Finding& first = *group.front();
  json d = diagnostic(first);
  if (group.size() == 1)
    return d;
  // One diagnostic listing every launch that reaches the site: the same
  // finding from two launches looked like a duplicate.
  bool samePath = true;
  int severity = static_cast<int>(first.severity);
  std::string lines;
  for (const analysis::Finding* f : group) {
    samePath &= f->executionPath == first.executionPath;
    severity = std::min(severity, static_cast<int>(f->severity));
    if (f->launch)
      lines += (lines.empty() ? "" : ", ") + std::to_string(f->launch->range.start.line + 1);
  }
  std::string verb = severity == static_cast<int>(analysis::Severity::Error)
                         ? " can't run under "
                         : " may not run under ";
  std::string head = first.subject + verb +
                     (samePath ? analysis::shortPathName(first.executionPath)
                               : std::to_string(group.size()) + " launches' paths") +
                     " (launches at lines " + lines + ")";
  std::string message = analysis::shortened(head, analysis::kHeadlineMax);
  json related = json::array();
  json launches = json::array();
  json fixes = json::array();
  for (const analysis::Finding* f : group) {
    std::string from =
        f->launch ? "launch at " + lineText(f->launch->range.start.line) : "a launch";
    message += "\n\n" + from + " (" + f->executionPath + "): " + f->message;
    json one = diagnostic(*f);
    for (auto& r : one.value("relatedInformation", json::array()))
      related.push_back(r);
    if (f->launch)
      launches.push_back(location(*f->launch));
    for (auto& fix : one["data"]["fixes"]) {
      bool seen = false;
      for (const auto& g : fixes)
        seen |= g["title"] == fix["title"];
      if (!seen)
        fixes.push_back(fix);
    }
  }
  d["message"] = message;
  d["severity"] = severity;
  if (!related.empty())
    d["relatedInformation"] = related;
  d["data"]["launches"] = launches;
  d["data"]["fixes"] = fixes;
  return d;
}

json DiagnosticConverter::selectionHint(const analysis::Finding& f) {
  // The line that selects the failing path gets its own hint, since most
  // editors (Neovim among them) do not show relatedInformation.
  std::string message = hintMessage(f);
  return json{
      {"range", range(f.selectedAt->path, f.selectedAt->range)},
      {"severity", static_cast<int>(analysis::Severity::Hint)},
      {"code", f.code},
      {"source", kDiagnosticSource},
      {"message", message},
      {"data",
       {{"selects", true}, {"site", location(f.location)}, {"executionPath", f.executionPath}}}};
}

std::vector<DiagnosticConverter::Item>
DiagnosticConverter::plan(const std::vector<analysis::Finding>& findings) {
  std::vector<Item> out;
  // Sites by (code, path, range, subject): findings of one site form one
  // group, in the order of their first finding (a hash lookup per finding;
  // comparing every pair was quadratic in the findings).
  std::unordered_map<std::string, size_t> groupOf; // site key -> index in `groups`
  std::vector<std::vector<const analysis::Finding*>> groups;
  for (const analysis::Finding& f : findings) {
    if (!f.subject.empty()) {
      const auto& r = f.location.range;
      std::string key = f.code + '\0' + f.location.path + '\0' + std::to_string(r.start.line) +
                        ':' + std::to_string(r.start.column) + ':' + std::to_string(r.end.line) +
                        ':' + std::to_string(r.end.column) + '\0' + f.subject;
      auto [it, inserted] = groupOf.try_emplace(std::move(key), groups.size());
      if (!inserted) {
        groups[it->second].push_back(&f);
        continue;
      }
    }
    groups.push_back({&f});
  }
  std::unordered_set<std::string> hinted; // one hint per selector range and text
  for (auto& group : groups) {
    out.push_back(Item{group, nullptr});
    for (const analysis::Finding* f : group) {
      // Hints in this document only: the findings given are this document's.
      if (!f->selectedAt || f->selectedAt->path != f->location.path || f->subject.empty())
        continue;
      const auto& r = f->selectedAt->range;
      std::string key = std::to_string(r.start.line) + ':' +
                        std::to_string(character(f->selectedAt->path, r.start)) + ':' +
                        std::to_string(r.end.line) + ':' +
                        std::to_string(character(f->selectedAt->path, r.end)) + '\0' +
                        hintMessage(*f);
      if (!hinted.insert(std::move(key)).second)
        continue;
      out.push_back(Item{{}, f});
    }
  }
  return out;
}

json DiagnosticConverter::convert(const Item& item) {
  return item.hint ? selectionHint(*item.hint) : mergedDiagnostic(item.group);
}

json DiagnosticConverter::diagnostics(const std::vector<analysis::Finding>& findings) {
  json out = json::array();
  for (const Item& item : plan(findings))
    out.push_back(convert(item));
  return out;
}

} // namespace pallas::server
