// The default a def's parameter is written with (shared by the walk's
// parameter values and the argparse contexts).
#pragma once

#include "Syntax.h"
#include "pallas/analysis/detail/Passes.h"

namespace pallas::analysis::passes {

// The value node of parameter `index`'s default in `def` of `doc` (a
// pallas.func, or a pallas.closure: a nested def or a lambda), with the
// document it is read from; null when the parameter has no default or the
// document's syntax is not known.
TSNode parameterDefaultNode(const detail::Workspace& ws, const std::string& doc,
                            mlir::Operation* def, unsigned index,
                            const syntax::ParsedSource*& source);

} // namespace pallas::analysis::passes
