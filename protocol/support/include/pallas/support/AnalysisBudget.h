// How much of one file the analysis takes on. Parsing and lowering cost
// about 160 bytes of memory per byte of source: a generated 50 MB module
// needed more than 8 GB, aborted `check` under a 4 GB limit and, opened in
// an editor, killed the server with every session in it (issue 34). A file
// over the budget is not analysed; `check` and the server report it with
// its own finding code (PLS010, "skipped: too large to analyse (...)"), and
// the analysis does not read it from disk either (an import of it resolves
// to nothing).
//
// Two measures, both linear to take: the bytes of source, and its syntax
// tokens (names, numbers, operators; a string literal or comment counts
// once), since memory follows the syntax nodes more than the bytes. The
// limits are far above real code (the largest Python file in JAX, jaxlib
// and NumPy is under 1 MB) and can be set with PALLAS_LSP_ANALYSIS_MAX_BYTES
// and PALLAS_LSP_ANALYSIS_MAX_TOKENS (whole numbers; read once).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::support {

inline constexpr size_t kDefaultAnalysisMaxBytes = size_t{4} << 20;
inline constexpr size_t kDefaultAnalysisMaxTokens = 1'000'000;

struct AnalysisBudget {
  size_t maxBytes = kDefaultAnalysisMaxBytes;
  size_t maxTokens = kDefaultAnalysisMaxTokens;
};

// The budget in force (the defaults, or the environment's).
const AnalysisBudget& analysisBudget();

// Syntax tokens of Python source, counting stops a little after `stopAfter`.
size_t countSyntaxTokens(std::string_view text, size_t stopAfter = ~size_t{0});

// "too large to analyse (47.7 MiB > 4 MiB limit)" when `text` is over the
// budget, else nullopt.
std::optional<std::string> overAnalysisBudget(std::string_view text,
                                              const AnalysisBudget& budget = analysisBudget());

} // namespace pallas::support
