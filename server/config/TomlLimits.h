// Limits on a TOML text before toml++ parses it. A pyproject.toml comes
// with the repository, so it is untrusted input: a dotted key of 100,000
// parts (`a.a.a...`, 300 KB, in a table header or a key, under any table)
// overflowed the stack inside toml++ and killed `check` and the server
// (issue 34). toml++ bounds the nesting of arrays and inline tables (256)
// but not the tables that dotted keys open, so this linear scan measures
// the depth of every key path first: the parts of the table header, of the
// key, and of the inline tables and arrays the value opens.
//
// The scan is lexical (strings, comments, brackets, dots between keys) and
// conservative; it never decides what the text means. Malformed TOML passes
// it and toml++ reports the syntax error, except where toml++ itself would
// not check (a table header that does not start with a key: fuzz_config
// found toml++ 3.3 assuming it does), which is refused here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::check {

// No real configuration comes near these.
inline constexpr size_t kMaxTomlBytes = size_t{1} << 20; // a pyproject.toml: 1 MiB
inline constexpr size_t kMaxTomlDepth = 64;              // tables and values, nested

struct TomlLimitError {
  size_t line = 1;   // 1-based, where the limit was passed
  size_t column = 1; // 1-based, in bytes
  std::string reason;
};

// Why `text` may not be given to the parser, or nullopt when it may.
std::optional<TomlLimitError> checkTomlLimits(std::string_view text);

} // namespace pallas::check
