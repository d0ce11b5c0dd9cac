// The client's `select` / `ignore` settings (section "pallas-lsp": from
// initializationOptions, workspace/configuration or didChangeConfiguration)
// layered over `[tool.pallas-lsp]` by the findings pipeline, like `check
// --select/--ignore`. A change re-publishes every open document.
#include "LspServer.h"

namespace pallas::server::features {
namespace {

ServerFeatureRegistration registration{{"policy-settings", [](LspServer& server) {
                                          server.onConfiguration([&server](const json& settings) {
                                            if (!server.findingsPipeline().applySettings(settings))
                                              return;
                                            auto docs = server.documents().all();
                                            // Pull clients: one document's scheduling asks the
                                            // client to re-pull all.
                                            if (server.client().pullDiagnostics && !docs.empty())
                                              docs.resize(1);
                                            for (const OpenDocument& doc : docs)
                                              server.scheduleDiagnostics(doc.path);
                                          });
                                        }}};

} // namespace
} // namespace pallas::server::features
