#include "CodeActions.h"

#include "lib/RunCommand.h"

#include <algorithm>
#include <set>

namespace pallas::server::features {
namespace {

using analysis::Finding;
using analysis::Fix;
using analysis::FixSafety;
using analysis::SourcePos;
using nlohmann::json;

json lspRange(const CodeActionConverters& conv, const std::string& path,
              const analysis::SourceRange& r) {
  return {{"start", conv.position(path, r.start)}, {"end", conv.position(path, r.end)}};
}

// LSP positions compare as (line, character).
bool before(const json& a, const json& b) {
  auto al = a.value("line", 0), bl = b.value("line", 0);
  return al != bl ? al < bl : a.value("character", 0) < b.value("character", 0);
}

bool overlaps(const json& r1, const json& r2) {
  // Touching ranges overlap: a cursor at the end of a diagnostic still asks for it.
  return !before(r1["end"], r2["start"]) && !before(r2["end"], r1["start"]);
}

json diagnosticOf(const Finding& f, const CodeActionConverters& conv) {
  if (conv.diagnostic) {
    json d = conv.diagnostic(f);
    if (!d.is_null())
      return d;
  }
  return {{"range", lspRange(conv, f.location.path, f.location.range)},
          {"code", f.code},
          {"source", "pallas-lsp"},
          {"message", f.message}};
}

json workspaceEdit(const std::vector<analysis::TextEdit>& edits, const CodeActionConverters& conv) {
  json changes = json::object();
  for (const auto& e : edits) {
    std::string uri = conv.uri(e.path);
    if (!changes.contains(uri))
      changes[uri] = json::array();
    changes[uri].push_back({{"range", lspRange(conv, e.path, e.range)}, {"newText", e.newText}});
  }
  return {{"changes", changes}};
}

bool wants(const json& only, const std::string& kind) {
  if (!only.is_array())
    return kind == "quickfix"; // no filter: the quick fixes
  for (const auto& o : only) {
    if (!o.is_string())
      continue;
    std::string k = o.get<std::string>();
    // `only` entries are prefixes: "source" asks for "source.fixAll.pallas-lsp".
    if (kind == k ||
        (kind.size() > k.size() && kind.compare(0, k.size(), k) == 0 && kind[k.size()] == '.'))
      return true;
  }
  return false;
}

} // namespace

json fixAllEdit(const std::vector<Finding>& findings, const CodeActionConverters& conv) {
  std::vector<const Fix*> fixes;
  for (const auto& f : findings)
    for (const auto& fix : f.fixes)
      if (fix.safety == FixSafety::Safe && !fix.edits.empty())
        fixes.push_back(&fix);
  auto firstPos = [](const Fix* f) {
    SourcePos p = f->edits.front().range.start;
    for (const auto& e : f->edits)
      p = std::min(p, e.range.start);
    return p;
  };
  // Document order; findings' order breaks ties (a plain sort on an index
  // pair: libstdc++'s stable_sort trips a deprecation warning under clang 22).
  std::vector<std::pair<SourcePos, size_t>> order;
  order.reserve(fixes.size());
  for (size_t i = 0; i < fixes.size(); ++i)
    order.push_back({firstPos(fixes[i]), i});
  std::sort(order.begin(), order.end());
  std::vector<const Fix*> sorted;
  sorted.reserve(order.size());
  for (const auto& [pos, i] : order)
    sorted.push_back(fixes[i]);
  fixes.swap(sorted);
  std::vector<analysis::TextEdit> taken;
  for (const Fix* fix : fixes) {
    bool clash = false;
    for (const auto& e : fix->edits)
      for (const auto& t : taken)
        clash |= e.path == t.path &&
                 !(e.range.end <= t.range.start || t.range.end <= e.range.start) &&
                 !(e.range.start == e.range.end && t.range.start == t.range.end &&
                   e.range.start != t.range.start);
    if (clash)
      continue; // a fix is applied whole or not at all
    taken.insert(taken.end(), fix->edits.begin(), fix->edits.end());
  }
  return workspaceEdit(taken, conv);
}

json codeActions(const std::vector<Finding>& findings, const json& params,
                 const CodeActionConverters& conv) {
  json out = json::array();
  const json& context = params.contains("context") ? params["context"] : json::object();
  const json only = context.contains("only") ? context["only"] : json();
  if (wants(only, "quickfix") && params.contains("range")) {
    const json& range = params["range"];
    auto action = [&](const Fix& fix, const json& diag) {
      json a = {{"title", fix.title}, {"kind", "quickfix"}};
      if (!diag.is_null())
        a["diagnostics"] = json::array({diag});
      if (!fix.edits.empty())
        a["edit"] = workspaceEdit(fix.edits, conv);
      if (fix.run)
        a["command"] = runCommand(*fix.run, fix.title);
      return a;
    };
    std::set<std::string> pathFixesGiven; // titles: several findings share a selector
    for (const Finding& f : findings) {
      json fr = lspRange(conv, f.location.path, f.location.range);
      if (!overlaps(fr, range))
        continue;
      json diag = diagnosticOf(f, conv);
      bool preferredGiven = false;
      for (const Fix& fix : f.fixes) {
        json a = action(fix, diag);
        // The first fix that edits the code is the one the finding is about
        // (the rewrite for PLS001); ignore comments and commands never are.
        if (!preferredGiven && !fix.edits.empty() && fix.safety != FixSafety::DisplayOnly) {
          a["isPreferred"] = true;
          preferredGiven = true;
        }
        if (fix.decidesPath)
          pathFixesGiven.insert(fix.title);
        out.push_back(std::move(a));
      }
    }
    // Where the path is decided (the `interpret=True` written lines below
    // the launch, or passed by a caller): the fixes that change it, with the
    // hint shown there.
    for (const Finding& f : findings) {
      if (!f.selectedAt || f.selectedAt->path != f.location.path ||
          !overlaps(lspRange(conv, f.selectedAt->path, f.selectedAt->range), range))
        continue;
      json hint = conv.hint ? conv.hint(f) : json();
      for (const Fix& fix : f.fixes)
        if (fix.decidesPath && pathFixesGiven.insert(fix.title).second)
          out.push_back(action(fix, hint));
    }
  }
  if (only.is_array() && wants(only, kFixAllKind)) {
    json edit = fixAllEdit(findings, conv);
    if (!edit["changes"].empty())
      out.push_back({{"title", "Fix all pallas-lsp auto-fixable problems"},
                     {"kind", kFixAllKind},
                     {"edit", edit}});
  }
  return out;
}

} // namespace pallas::server::features
