// Source ranges from a document's lines: the passes locate a finding or an
// op where it starts (the dialect keeps start positions only); an editor
// needs the range of the name written there to underline or to hover.
#pragma once

#include "pallas/analysis/Finding.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace pallas::analysis {

// A document's lines (without their '\n'), split once per request: looking a
// position up by rescanning the text from its start would make a request
// over many positions quadratic in the file's size.
std::vector<std::string_view> splitLines(std::string_view text);

// The name written at a 0-based (line, byte column): a dotted name, after an
// optional '@' of a decorator. Empty range when there is none.
SourceRange nameAt(const std::vector<std::string_view>& lines, uint32_t line, uint32_t column);

// Widen an empty range to the name written there: the callee of a call
// (`plgpu.wgmma`, `touch`), the Ref of a subscript, the name after `def` /
// `async def` / `class` (not the keyword). No-op without `lines`.
void widen(SourceLocation& at, const std::vector<std::string_view>* lines);

// The `@...inline_mgpu(...)` decorator of the def at 0-based `defLine` (an
// inline_mgpu op is located at its def): the nearest decorator line above it
// whose name ends in "inline_mgpu", walking over decorator lines and their
// continuations (indented deeper, or closing brackets at the def's indent).
SourceRange inlineMgpuDecorator(const std::vector<std::string_view>& lines, uint32_t defLine);

} // namespace pallas::analysis
