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

// Depth of syntax the lowering follows; deeper expressions become
// py.error "too_deep".
inline constexpr unsigned kMaxLoweredNesting = 256;

} // namespace pallas::py
