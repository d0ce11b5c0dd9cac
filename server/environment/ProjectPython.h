// The interpreter a project names in `[tool.pallas-lsp] python` (the nearest
// pyproject.toml with the table), as `check` reads it: runs, the doctor and
// the knowledge use it too (the README promises that the editor honours the
// same configuration). Whether it may be executed is the trust rule's call
// (ExecutionTrust.h): a project's file names it, so in the language server
// only a trusted workspace's is.
#pragma once

#include <optional>
#include <string>

namespace pallas::server::environment {

// `python` of the configuration for `near` (a file or a folder): a relative
// path with a folder in it (".venv/bin/python") made absolute against the
// configuration's folder, a bare name ("python3") left for PATH. nullopt
// when no configuration names one, or it cannot be read (`why` then says
// why, when given).
std::optional<std::string> projectPython(const std::string& near, std::string* why = nullptr);

} // namespace pallas::server::environment
