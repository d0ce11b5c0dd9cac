#include "Diagnostics.h"

#include "pallas/protocol/Uri.h"

namespace pallas::server {

using protocol::json;

const char* fixSafetyName(analysis::FixSafety s) {
  switch (s) {
  case analysis::FixSafety::Safe: return "safe";
  case analysis::FixSafety::Unsafe: return "unsafe";
  case analysis::FixSafety::DisplayOnly: return "display-only";
  }
  return "display-only";
}

std::string diagnosticMessage(const analysis::Finding& f) {
  std::string m = f.message;
  if (!f.executionPath.empty()) m += "\nexecution path: " + f.executionPath;
  if (!f.callChain.empty()) {
    m += "\ncall chain: ";
    for (size_t i = 0; i < f.callChain.size(); ++i) m += (i ? " -> " : "") + f.callChain[i];
  }
  if (!f.jaxVersion.empty()) m += "\n(JAX " + f.jaxVersion + ")";
  return m;
}

const DiagnosticConverter::Cached& DiagnosticConverter::cached(const std::string& path) {
  for (const Cached& c : cache_)
    if (c.path == path) return c;
  Cached c{path, lookup_ ? lookup_(path) : std::nullopt, {}};
  if (c.text) {
    c.lineStarts.push_back(0);
    for (size_t i = 0; i < c.text->size(); ++i)
      if ((*c.text)[i] == '\n') c.lineStarts.push_back(i + 1);
  }
  cache_.push_back(std::move(c));
  return cache_.back();
}

json DiagnosticConverter::position(const std::string& path, const analysis::SourcePos& p) {
  uint32_t character = p.column;
  const Cached& c = cached(path);
  if (c.text && p.line < c.lineStarts.size()) {
    // The same line as protocol::lineBounds gives, without the scan.
    size_t start = c.lineStarts[p.line];
    size_t end = p.line + 1 < c.lineStarts.size() ? c.lineStarts[p.line + 1] - 1 : c.text->size();
    if (end > start && (*c.text)[end - 1] == '\r') --end;
    std::string_view line(c.text->data() + start, end - start);
    character = protocol::byteColumnToUnits(line, p.column, enc_);
  }
  return json{{"line", p.line}, {"character", character}};
}

json DiagnosticConverter::range(const std::string& path, const analysis::SourceRange& r) {
  return json{{"start", position(path, r.start)}, {"end", position(path, r.end)}};
}

json DiagnosticConverter::location(const analysis::SourceLocation& loc) {
  return json{{"uri", protocol::pathToUri(loc.path)}, {"range", range(loc.path, loc.range)}};
}

json DiagnosticConverter::diagnostic(const analysis::Finding& f) {
  json d{{"range", range(f.location.path, f.location.range)},
         {"severity", static_cast<int>(f.severity)},
         {"code", f.code},
         {"codeDescription", {{"href", std::string(kCodeDocsBase) + f.code + ".md"}}},
         {"source", kDiagnosticSource},
         {"message", diagnosticMessage(f)}};
  json related = json::array();
  if (f.launch)
    related.push_back({{"location", location(*f.launch)},
                       {"message", f.executionPath.empty()
                                       ? std::string("launched here")
                                       : "launched here on the path " + f.executionPath}});
  for (const auto& r : f.related)
    related.push_back({{"location", location(r.location)}, {"message", r.message}});
  if (!related.empty()) d["relatedInformation"] = std::move(related);

  json fixes = json::array();
  for (const auto& fix : f.fixes) {
    json edits = json::array();
    for (const auto& e : fix.edits)
      edits.push_back({{"uri", protocol::pathToUri(e.path)},
                       {"range", range(e.path, e.range)},
                       {"newText", e.newText}});
    json jf{{"title", fix.title}, {"safety", fixSafetyName(fix.safety)}, {"edits", edits}};
    if (fix.command) {
      json args = json::array();
      for (const auto& a : fix.commandArguments) {
        // Arguments are JSON-encoded by the analysis; keep a bad one as text.
        json parsed = json::parse(a, nullptr, false);
        args.push_back(parsed.is_discarded() ? json(a) : parsed);
      }
      jf["command"] = {{"command", *fix.command}, {"arguments", args}};
    }
    fixes.push_back(std::move(jf));
  }
  json data{{"executionPath", f.executionPath},
            {"callChain", f.callChain},
            {"jaxVersion", f.jaxVersion},
            {"fixes", std::move(fixes)}};
  if (f.launch) data["launch"] = location(*f.launch);
  d["data"] = std::move(data);
  return d;
}

json DiagnosticConverter::diagnostics(const std::vector<analysis::Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings) out.push_back(diagnostic(f));
  return out;
}

} // namespace pallas::server
