// Which parameters of a kernel body receive its Refs: Python's binding of
// the call Pallas makes (`kernel(*operand_refs, *scratch_refs)`), read from
// the def and from the launch's body argument.
#pragma once

#include "ShapeEval.h"
#include "Syntax.h"
#include "mlir/IR/Location.h"

#include <string>
#include <vector>

namespace pallas::analysis::passes {

// The def or lambda node a pallas.func or pallas.closure op at `loc` stands
// for; null when the document or the node is not there.
TSNode defNodeAt(const shape::Evaluator& eval, const std::string& path, mlir::Location loc);

// The launch's body argument (`pl.pallas_call(BODY, ...)`) when it is a
// `functools.partial(...)` call, the name resolved in `scope` (an alias of
// functools.partial counts); null otherwise.
TSNode partialCallOf(const shape::Evaluator& eval, TSNode bodyArgument, const shape::Scope& scope);

// The parameters of `def` that take Refs positionally, in order: those
// before a bare `*` or a `*args` (then given as "*args": it takes all the
// Refs after the named ones), without `**kwargs`, keyword-only parameters,
// and those `partialCall` binds (partialCallOf: its positional arguments
// bind from the front, its keywords by name). `partialCall` may be null
// (`callDoc` then too).
std::vector<std::string> refParameters(const syntax::ParsedSource& defDoc, TSNode def,
                                       const syntax::ParsedSource* callDoc, TSNode partialCall);

} // namespace pallas::analysis::passes
