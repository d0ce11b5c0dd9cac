// Lowering of Python (a tree-sitter-python syntax tree) to the `py` dialect.
// Syntax-directed only: every statement and expression becomes an op, names
// are resolved to their namespace by the symbol table (Scopes.h), and nothing
// is evaluated. Never throws on bad input: what the parser could not read
// becomes py.error.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <vector>

namespace mlir {
class MLIRContext;
class Operation;
class ModuleOp;
} // namespace mlir

namespace pallas::py {

struct SourceView {
  std::string_view text; // the text the tree was parsed from
  TSNode root;           // the module node
  std::string path;      // for locations
  // Re-parsed pieces of a top-level ERROR node that swallowed several
  // statements (syntax::ParsedSource::recoveredChunks); may be empty.
  std::function<std::vector<TSNode>(TSNode)> recoveredChunks;
};

// The top-level statements of the module, in order (a top-level ERROR node
// that swallowed several statements gives the statements of its chunks).
std::vector<TSNode> topLevelStatements(const SourceView& src);

// One top-level statement as a detached `py.unit`.
mlir::Operation* lowerUnit(mlir::MLIRContext* context, const SourceView& src, TSNode statement);

// Appends one py.unit per top-level statement to `module`.
void lowerModule(mlir::ModuleOp module, const SourceView& src);

// What lowerUnit's result depends on for one top-level statement: its text,
// where it starts (locations are absolute) and its kind. 0 for a statement
// the parser could not read cleanly (its tree may differ for the same text),
// which is lowered again every time.
uint64_t unitKey(const SourceView& src, TSNode statement);

// Brings `module` up to `src`, keeping each unit whose statement has the
// same unitKey as before, op for op, and lowering the others: an edit in
// one function of a 10k-line file lowers one unit, not the file. `keys` are
// the units' keys in order (empty for an empty module; updated here).
// Returns how many units it lowered.
size_t updateModule(mlir::ModuleOp module, const SourceView& src, std::vector<uint64_t>& keys);

// Depth of syntax the lowering follows; deeper expressions become
// py.error "too_deep".
inline constexpr unsigned kMaxLoweredNesting = 256;

} // namespace pallas::py
