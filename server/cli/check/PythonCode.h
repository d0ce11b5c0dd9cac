#pragma once
// Python source with its comments and the text of its string literals blanked
// (each byte replaced by a space, newlines kept, so offsets and lines still
// match the original). `check`'s text pre-filters (Relevance.h) ask whether a
// file spells a launch in code: JAX's own sources name `pallas_call` in
// thousands of error messages, docstrings and comments, and each file that
// only did so was parsed and lowered for nothing.
#include <string>
#include <string_view>

namespace pallas::check {

// What is kept, so no launch written in code is lost:
// - the expressions inside an f-string's braces (they are code);
// - a string whose whole content is one identifier (`getattr(pl,
//   "pallas_call")`, `importlib.import_module("kernels")` name code);
// - from an unterminated triple-quoted string on, everything (a file mid-edit
//   is not guessed at).
std::string codeOnly(std::string_view source);

} // namespace pallas::check
