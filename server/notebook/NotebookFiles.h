// .ipynb files on disk for `pallas-lsp check`: the module it analyses for a
// notebook (its Python code cells joined, NotebookModule.h), and, for the
// reports, which cell and line a module line is (a process-wide cache: the
// renderers ask per finding, the file is read once).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace pallas::notebook {

bool isNotebookPath(const std::string& path);

// The module of a notebook's text; nullopt with `why` when it is not an
// nbformat-4 notebook or its language is not Python.
std::optional<std::string> moduleOfIpynb(const std::string& json, std::string* why = nullptr);

struct CellLine {
  size_t cell = 0;   // 1-based, as Jupyter numbers cells (markdown counted)
  uint32_t line = 0; // 0-based within the cell
};

// For a module line of the .ipynb file at `path` (read once, then cached).
std::optional<CellLine> cellLine(const std::string& path, uint32_t moduleLine);

// Retells "line 24" and "name.ipynb:24" (1-based module lines) in a message as
// "cell 3, line 2" / "name.ipynb cell 3, line 2"; `locate` maps a 0-based
// module line (nullopt: left as it is).
std::string retellLines(const std::string& message,
                        const std::function<std::optional<CellLine>(uint32_t)>& locate);

} // namespace pallas::notebook
