// The facts about the user's machine that pallas-lsp depends on, gathered in
// one place for every entry point: the language server (the GPU runner
// feature's knowledge and `pallas.doctor`), `check`, `doctor` and `run`.
//
//   - the GPU: the CUDA driver probe, made once per process, and the best
//     local compute capability (what PLS003 checks against);
//   - the JAX knowledge: the table of the environment's own JAX, loaded by
//     the trust rule (ExecutionTrust.h) and never throwing: a failure falls
//     back to the bundled table, saying why;
//   - the launch template (setting or flag, else $PALLAS_LSP_LAUNCH_TEMPLATE)
//     and the bundled knowledge tables this binary can find.
#pragma once

#include "ExecutionTrust.h"
#include "pallas/gpu/DeviceProbe.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <string>
#include <vector>

namespace pallas::server::environment {

// The GPU probe of this process, made on first use (the driver and devices
// do not change under a running process).
const gpu::ProbeResult& gpuProbe();

// "9.0" of the device with the highest compute capability (the best local
// GPU); "" when there is none.
std::string bestCapability(const gpu::ProbeResult& probe);

// The knowledge for the environment `ctx` names. Never throws: when loading
// fails, the bundled table with how = "bundled" and the reason in
// fallbackReason.
knowledge::KnowledgeBase::Loaded loadKnowledge(const ExecutionContext& ctx);

// `configured` (a setting or flag), else $PALLAS_LSP_LAUNCH_TEMPLATE, else ""
// (the default: run the runner with the interpreter directly).
std::string launchTemplate(const std::string& configured);
// How a launch template is shown: the default spelled out.
std::string launchTemplateText(const std::string& launchTemplate);

// Bundled knowledge tables: env PALLAS_LSP_KNOWLEDGE, the install location
// next to the binary, or analysis/knowledge/ of the source tree the binary
// was built in (a build directory inside the checkout).
std::vector<std::string> knowledgeTables();

} // namespace pallas::server::environment
