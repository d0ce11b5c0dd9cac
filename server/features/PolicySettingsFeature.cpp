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
                                            // Every document is analysed again (its snapshot
                                            // answers pulls and code actions); pull clients
                                            // get one refresh, which re-pulls all.
                                            auto docs = server.documents().all();
                                            for (size_t i = 0; i < docs.size(); ++i) {
                                              if (i == 0)
                                                server.scheduleDiagnostics(docs[i].path);
                                              else
                                                server.scheduleAnalysis(docs[i].path);
                                            }
                                          });
                                        }}};

} // namespace
} // namespace pallas::server::features
