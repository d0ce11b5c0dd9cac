// Failures a test asks for, or that the program handles. A test that checks JAX rejects a kernel
// builds the kernel and runs it inside `with self.assertRaises(E):` (or assertRaisesRegex,
// pytest.raises): the error pallas-lsp predicts is the one the test wants, and reporting it would
// flag code that works as intended (JAX's own test suite is full of these).
#pragma once

#include "Syntax.h"
#include "pallas/analysis/Finding.h"

#include <string_view>

namespace pallas::analysis {

// Whether the test function (a def named test*) around `at` expects
// `exception` (JAX's exception class name, e.g. "NotImplementedError"):
// it calls assertRaises / assertRaisesRegex / pytest.raises with that class
// or one of its bases (RuntimeError for NotImplementedError; Exception).
bool testExpectsFailure(const syntax::ParsedSource& doc, SourcePos at, std::string_view exception);

// Whether the launch at `at` runs inside the body of a `try` with a handler
// that catches `exception` (that class, a base as above, or a bare
// `except:`): the program handles the failure itself (a fallback to
// another implementation), so nothing escapes on that path.
bool handledWhereItRuns(const syntax::ParsedSource& doc, SourcePos at, std::string_view exception);

} // namespace pallas::analysis
