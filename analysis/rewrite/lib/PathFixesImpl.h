// The path quick fixes over a parsed document: Rewrite.h's text-taking
// functions parse the text for one fix; attachFixes parses each document once
// for all its findings (a parse per fix made `check` spend most of its time in
// tree-sitter).
#pragma once

#include "SourceIndex.h"
#include "pallas/analysis/Finding.h"

#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::rewrite {

std::optional<Fix> runCompiledFix(const SourceIndex& src, const std::string& path,
                                  SourcePos launchPos);
// The path chosen by a caller's value (Finding::selectedAt, outside the
// launch call): that value replaced by False.
std::optional<Fix> passCompiledFix(const SourceIndex& src, const std::string& path,
                                   SourceRange selector);
std::optional<Fix> gpuInterpretFix(const SourceIndex& src, const std::string& path,
                                   SourcePos launchPos);
std::optional<Fix> runOnGpuFix(const SourceIndex& src, const std::string& path,
                               SourcePos launchPos);
std::optional<Fix> ignoreFix(const SourceIndex& src, const std::string& path, uint32_t line,
                             const std::string& code);
std::vector<Fix> pathFixes(const SourceIndex& src, const Finding& finding);

} // namespace pallas::analysis::rewrite
