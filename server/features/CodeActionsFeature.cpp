// textDocument/codeAction: the fixes of the document's findings as quick
// fixes, and `source.fixAll.pallas-lsp` (every safe fix in one edit). The
// findings are the server's (LspServer::findings: analysis -> fixes ->
// policy), so an action exists exactly for a diagnostic the editor shows and
// a suppressed or deselected finding offers nothing.
#include "CodeActions.h"
#include "GpuPresence.h"
#include "LspServer.h"
#include "pallas/support/Uri.h"

namespace pallas::server::features {
namespace {

// A compiled run: the "Run on GPU now" command or the edit that removes
// interpret= ("Run this kernel compiled ...").
bool needsGpu(const json& action) {
  if (action.contains("command") && action["command"].value("command", "") == "pallas.run") {
    const json& args = action["command"]["arguments"];
    return args.is_array() && !args.empty() && args[0].is_object() &&
           args[0].value("mode", "") == "compiled";
  }
  return action.value("title", "").rfind("Run this kernel compiled", 0) == 0;
}

// Titles name the tool (next to ruff's "Ruff: ..." the user sees who offers
// what). Where the probe found no GPU, GPU-only actions say so, and a compiled
// run is paired with the same run in interpret mode, which can work here.
json presented(const json& actions, GpuPresence gpu) {
  json out = json::array();
  for (json a : actions) {
    bool gpuOnly = gpu == GpuPresence::None && needsGpu(a);
    std::string title = "Pallas: " + a.value("title", "") + (gpuOnly ? " (needs a GPU)" : "");
    a["title"] = title;
    if (a.contains("command"))
      a["command"]["title"] = title;
    // ... unless the finding is about interpret=True itself: run that way,
    // the kernel fails with the very error the finding predicts.
    std::string path;
    if (a.contains("diagnostics") && a["diagnostics"].is_array() && !a["diagnostics"].empty() &&
        a["diagnostics"][0].contains("data") && a["diagnostics"][0]["data"].is_object())
      path = a["diagnostics"][0]["data"].value("executionPath", "");
    bool compiledRun = gpuOnly && a.contains("command") && path.rfind("interpret=True", 0) != 0;
    json interpreted;
    if (compiledRun) {
      interpreted = a;
      json args = interpreted["command"]["arguments"];
      args[0]["mode"] = "interpret";
      std::string entry = args[0].value("entry", "");
      std::string t =
          "Pallas: Run in interpret mode now" + (entry.empty() ? "" : " (" + entry + ")");
      interpreted["title"] = t;
      interpreted["command"] = {{"title", t}, {"command", "pallas.run"}, {"arguments", args}};
      interpreted.erase("isPreferred");
    }
    out.push_back(std::move(a));
    if (compiledRun)
      out.push_back(std::move(interpreted));
  }
  return out;
}

json codeAction(LspServer& server, const json& params, const RequestContext& ctx) {
  std::string path = LspServer::documentPath(params);
  // The findings of the analysis of the version the client sees (with
  // their fixes), from the document's snapshot: never the Project's lock.
  SnapshotPtr snapshot = server.snapshotFor(path, LspServer::SnapshotNeed::Findings, ctx);
  if (!snapshot)
    return json::array();
  std::vector<analysis::Finding> findings = *snapshot->findings;
  ctx.cancel.check();
  // Findings a kernel of this document causes in a helper file belong to
  // that file's diagnostics and code actions.
  std::erase_if(findings, [&](const analysis::Finding& f) { return f.location.path != path; });

  DiagnosticConverter conv = server.converter();
  CodeActionConverters converters;
  converters.position = [&conv](const std::string& p, analysis::SourcePos pos) {
    return conv.range(p, analysis::SourceRange{pos, pos})["start"];
  };
  converters.uri = [&server](const std::string& p) {
    if (auto doc = server.documents().get(p))
      return doc->uri;
    return support::pathToUri(p);
  };
  // The published diagnostic itself, so the client matches the action to it.
  converters.diagnostic = [&conv](const analysis::Finding& f) { return conv.diagnostic(f); };
  converters.hint = [&conv](const analysis::Finding& f) {
    return f.selectedAt ? conv.selectionHint(f) : json();
  };
  return presented(codeActions(findings, params, converters), gpuPresence(server));
}

ServerFeatureRegistration registration{
    {"code-actions", [](LspServer& server) {
       server.addCapabilities({{"codeActionProvider",
                                {{"codeActionKinds", json::array({"quickfix", kFixAllKind})},
                                 {"resolveProvider", false}}}});
       server.addRequest("textDocument/codeAction",
                         [&server](const json& params, const RequestContext& ctx) {
                           return codeAction(server, params, ctx);
                         });
     }}};

} // namespace
} // namespace pallas::server::features
