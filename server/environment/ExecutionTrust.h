// The one rule for what pallas-lsp may execute on behalf of a workspace,
// used by every entry point (the server's knowledge, runs and doctor; the
// `check`, `doctor` and `run` commands). docs/security-execution.md states it
// for users.
//
//   - Reading is not executing: a workspace's environment is always located
//     by its layout and its JAX read from disk by pallas-lsp's own Python.
//   - An untrusted workspace (the client says workspaceTrusted: false):
//     nothing of it is executed; knowledge is bundled or read statically,
//     runs and interpreter probes are refused with a message.
//   - A trusted workspace in the server: the interpreter the user named
//     (setting pallasLsp.python), else the workspace's own environment
//     (.venv/venv/env, $VIRTUAL_ENV, $CONDA_PREFIX).
//   - The command line: only an interpreter the user named on the command
//     line (`--python`) is executed for the analysis. The `python` of a
//     repository's pyproject.toml locates the environment whose JAX is read,
//     and runs only with `check --trust-config-python` (a cloned repository
//     must not choose a program for `check` to run); a workspace's .venv is
//     never started because it exists.
#pragma once

#include "pallas/knowledge/KnowledgeBase.h"

#include <string>
#include <vector>

namespace pallas::server {

struct ExecutionContext {
  bool workspaceTrusted = true;
  std::string configuredPython; // named by the user: setting, --python (may run)
  // Named by a file of the workspace (the `python` of its pyproject.toml):
  // its environment is read for the knowledge, it is never executed.
  std::string locatedPython;
  std::string detectedPython;      // the workspace's own environment's interpreter
  bool workspaceEnvMayRun = false; // server: true; command line: false
  std::vector<std::string> workspaceRoots;
};

struct ExecutionDecision {
  std::string python;  // the interpreter that may be executed; "" when none
  std::string refusal; // when none may be: why, in words for the user
};

// The interpreter this context may execute (for the import-based knowledge
// and environment probes).
ExecutionDecision interpreterFor(const ExecutionContext& ctx);

// The interpreter a run uses: the same choice as the analysis, falling back
// to $PALLAS_LSP_PYTHON / python3 only when nothing else is known. Empty with
// a refusal when the workspace is not trusted.
ExecutionDecision runInterpreterFor(const ExecutionContext& ctx);

// The knowledge request that follows from the rule.
knowledge::KnowledgeRequest knowledgeRequestFor(const ExecutionContext& ctx);

inline constexpr const char* kUntrustedRefusal =
    "the workspace is not trusted, so nothing from it is executed";

} // namespace pallas::server
