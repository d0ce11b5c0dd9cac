// textDocument/codeAction: the fixes of the document's findings as quick
// fixes, and `source.fixAll.pallas-lsp` (every safe fix in one edit). The
// findings are the server's (LspServer::findings: analysis -> fixes ->
// policy), so an action exists exactly for a diagnostic the editor shows and
// a suppressed or deselected finding offers nothing.
#include "CodeActions.h"
#include "LspServer.h"
#include "pallas/protocol/Uri.h"

namespace pallas::server::features {
namespace {

json codeAction(LspServer& server, const json& params, const RequestContext& ctx) {
  std::string path = LspServer::documentPath(params);
  if (!server.project().hasDocument(path))
    return json::array();
  std::vector<analysis::Finding> findings = server.findings(path);
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
    return protocol::pathToUri(p);
  };
  // The published diagnostic itself, so the client matches the action to it.
  converters.diagnostic = [&conv](const analysis::Finding& f) { return conv.diagnostic(f); };
  return codeActions(findings, params, converters);
}

FeatureRegistration registration{
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
