// A cheap, textual reading of a Python file's import statements: which
// workspace files they may name, without parsing or binding the file. Shared
// by `check`'s pre-pass (which files of a run can matter, which files call a
// launching file) and by the language server's index of the workspace
// (which files, never opened, call a function of an open document), so the
// two agree on who imports whom. The module rule itself is
// ModuleCandidates.h, the analysis' own.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::analysis {

// The names a file's import statements mention (module path components and
// imported names; not the local names after `as`).
std::vector<std::string_view> importedNames(std::string_view text);

// The files of the workspace an import statement of `file` may name, as
// the analysis resolves them (moduleCandidates): a relative import (`from
// .m import x`, `from . import m`) against the importing file's folder, an
// absolute one (`import a.b`, `from a.b import c`) against that folder and
// each of `roots`; each as a module file and as a package (`a/b.py`,
// `a/b/__init__.py`), and each imported name as a submodule. Imports of
// `jax`/`jax.*`/`functools` modules are left out: the analysis resolves
// those by name, never to a user's file. Lexically normal, generic ('/')
// paths, whether or not they exist.
std::vector<std::string> workspaceImportedPaths(const std::filesystem::path& file,
                                                std::string_view text,
                                                const std::vector<std::filesystem::path>& roots);

// Whether a file that imports a launching file may decide what its launches
// do: it passes `interpret=` or a kernel (it spells `interpret`, Pallas or
// Mosaic), or it is a program that calls them with arrays it makes, after
// setting up JAX (a GPU interpret mode set through another import, say): it
// spells `jax`. A file that names none of them is not JAX code.
bool mayChooseForLaunches(std::string_view text);

} // namespace pallas::analysis
