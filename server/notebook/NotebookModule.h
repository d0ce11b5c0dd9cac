// A Jupyter notebook's code cells as one Python module, the way the kernel
// runs them (in order, one namespace), with the map from module lines back to
// cells. Used by the language server's notebook sync (NotebookSync.cpp) and by
// `pallas-lsp check` on .ipynb files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pallas::notebook {

// Where one cell sits in the module: lines [firstLine, firstLine + lineCount).
struct CellSpan {
  uint32_t firstLine = 0;
  uint32_t lineCount = 0;
};

struct Module {
  std::string text;
  std::vector<CellSpan> cells; // one per cell given to concatenate(), in order

  // The cell holding a module line and the line within that cell.
  struct Place {
    size_t cell = 0;
    uint32_t line = 0;
  };
  std::optional<Place> locate(uint32_t moduleLine) const;
};

// IPython syntax that is not Python (`%magic`, `!shell`, `%%cell-magic`
// cells, `obj?` help) becomes comments of the same length, so columns and
// line numbers stay those the user sees.
std::string neutraliseIpython(const std::string& cellText);

// Joins the cells (each ending with a newline) after neutraliseIpython.
Module concatenate(const std::vector<std::string>& cellTexts);

// An .ipynb file's code cells. `index` is each code cell's position among all
// cells (markdown included), as Jupyter numbers them from 1 in its UI less one.
struct CodeCell {
  size_t index = 0;
  std::string source;
};
struct Notebook {
  std::vector<CodeCell> codeCells;
  std::string language; // metadata.kernelspec.language / language_info.name; empty: unknown
};
// nullopt with `why` when the text is not nbformat-4 JSON with a cell list.
std::optional<Notebook> parseIpynb(const std::string& json, std::string* why = nullptr);

// True when the notebook's language is Python or not recorded.
bool isPython(const Notebook& nb);

} // namespace pallas::notebook
