// Which files of a `check` run can hold anything pallas-lsp reports.
//
// Every way to name JAX, Pallas or Mosaic GPU starts with an import of a
// module under `jax`, so a file that never spells "jax" can only reach them
// by importing a module of the run that does (a re-export such as
// `from mykernels import pl`, or a helper module). Files that do neither are
// plain Python: `check` neither parses nor lowers them, which is most of a
// large repository. Helpers they define are still found when a kernel file
// imports them (the analysis reads those on demand).
//
// The import test is textual and errs on the side of analysing: an import
// matches when any dotted component of the module (or an imported name)
// equals the stem of a relevant file or the name of a folder holding one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

// relevant[i] is true when files[i] (with text texts[i]) may hold findings.
// Folder names count up to `root` (the run's common folder) included: a
// package is named by its folders inside the project, not by where it is
// checked out.
std::vector<bool> relevantFiles(const std::vector<std::filesystem::path>& files,
                                const std::vector<std::string_view>& texts,
                                const std::filesystem::path& root);

// launching[i] is true when files[i] may launch a kernel, the only place
// findings start: every finding comes from a launch (pallas_call,
// plgpu.kernel / pl.kernel, pl.core_map) and what it reaches, and is found
// when the launching file is analysed; helpers it reaches are read on
// demand. So `check` analyses only these (of the relevant files): a file
// that spells none of `pallas_call`, `core_map` (as whole identifiers:
// `pallas_call_p` is another name), `.kernel` (or `kernel` on an import
// line) in code (a comment or a string literal does not count: codeOnly),
// and (when it names pallas or mosaic) imports nothing by the name of
// a file that does (a launch wrapper or a partial bound there) from a module
// that can be a file of the run (not `jax.*`, which the analysis resolves by
// name), cannot launch. On JAX's own repository this skips most of the files
// that spell "jax", and most of JAX's own Pallas sources.
class RunImports;
std::vector<bool> launchingFiles(RunImports& run);

// callers[i], for a launching file i: the other files of the run that may
// choose the path of i's launches, so `check` has them open (without
// reporting them unless they are analysed themselves) while it analyses i.
// A launch whose `interpret=` is a parameter takes what each caller passes
// (docs/analysis.md 8.5), and a library's tests or scripts pass
// `interpret=True` from files that never spell a launch, or that `check`
// analyses in another group (and lets go of before it reaches i). A caller
// imports i itself (analysis::workspaceImportedPaths, as launchingFiles'
// import step; the language server's index of callers reads imports the
// same way) and is JAX code (analysis::mayChooseForLaunches): besides
// `interpret=` and kernels, a program that only calls `run(x)` may have set
// the process-wide GPU interpret mode through another import.
std::vector<std::vector<size_t>> interpretCallers(RunImports& run,
                                                  const std::vector<bool>& launching);

// The files of a run with what each imports (analysis::workspaceImportedPaths),
// computed once per file on first use: both import steps above read them.
class RunImports {
public:
  RunImports(const std::vector<std::filesystem::path>& files,
             const std::vector<std::string_view>& texts, std::filesystem::path root);

  size_t size() const { return files_.size(); }
  const std::filesystem::path& file(size_t i) const { return files_[i]; }
  std::string_view text(size_t i) const { return texts_[i]; }
  const std::vector<std::filesystem::path>& files() const { return files_; }
  const std::vector<std::string>& importsOf(size_t i);

private:
  const std::vector<std::filesystem::path>& files_;
  const std::vector<std::string_view>& texts_;
  std::filesystem::path root_;
  std::vector<std::optional<std::vector<std::string>>> imports_;
};

} // namespace pallas::check
