#include "ExecutionTrust.h"

#include <cstdlib>

namespace pallas::server {

ExecutionDecision interpreterFor(const ExecutionContext& ctx) {
  if (!ctx.workspaceTrusted)
    return {"", kUntrustedRefusal};
  if (!ctx.configuredPython.empty())
    return {ctx.configuredPython, ""};
  if (ctx.workspaceEnvMayRun && !ctx.detectedPython.empty())
    return {ctx.detectedPython, ""};
  return {"", "no Python configured"};
}

ExecutionDecision runInterpreterFor(const ExecutionContext& ctx) {
  if (!ctx.workspaceTrusted)
    return {"", kUntrustedRefusal};
  ExecutionDecision d = interpreterFor(ctx);
  if (d.python.empty()) { // as gpu::resolvePython(""): $PALLAS_LSP_PYTHON, else python3
    const char* env = std::getenv("PALLAS_LSP_PYTHON");
    d = {env && *env ? env : "python3", ""};
  }
  return d;
}

knowledge::KnowledgeRequest knowledgeRequestFor(const ExecutionContext& ctx) {
  knowledge::KnowledgeRequest r;
  r.environment.configuredPython =
      ctx.configuredPython.empty() ? ctx.locatedPython : ctx.configuredPython;
  r.environment.workspaceRoots = ctx.workspaceRoots;
  r.python = interpreterFor(ctx).python;
  r.cacheDir = knowledge::KnowledgeBase::defaultCacheDir();
  if (const char* t = std::getenv("PALLAS_LSP_KNOWLEDGE_TIMEOUT"); t && *t)
    if (long s = std::strtol(t, nullptr, 10); s > 0)
      r.timeout = std::chrono::seconds(s);
  return r;
}

} // namespace pallas::server
