// Suppression comments in Python source, ruff's `noqa` in pallas-lsp form:
//   x = f()  # pallas-lsp: ignore[PLS001]          one code on this line
//   x = f()  # pallas-lsp: ignore[PLS001, PLS002]  several codes
//   x = f()  # pallas-lsp: ignore                  every code on this line
//   # pallas-lsp: ignore-file                      every code in the file
//   # pallas-lsp: ignore-file[PLS003]              one code in the file
// Only real comments count: the text is tokenised far enough to skip string
// literals (including triple-quoted ones spanning lines), so a directive
// inside a string does nothing. Codes inside the brackets are code prefixes
// ("PLS00" covers every registered code it starts), like the rule selectors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

struct SuppressionDirective {
  uint32_t line = 0;              // 0-based line of the comment
  bool allCodes = false;          // bare "ignore" / "ignore-file"
  std::vector<std::string> codes; // otherwise
  bool covers(std::string_view code) const;
};

class Suppressions {
public:
  // Scans `text` (a Python file) for directives.
  static Suppressions parse(std::string_view text);
  // Is a finding with `code` starting on `line` (0-based) suppressed?
  bool suppresses(std::string_view code, uint32_t line) const;
  const std::vector<SuppressionDirective>& fileLevel() const { return fileLevel_; }
  const std::map<uint32_t, SuppressionDirective>& lineLevel() const { return lineLevel_; }

private:
  std::vector<SuppressionDirective> fileLevel_;
  std::map<uint32_t, SuppressionDirective> lineLevel_; // by line
};

} // namespace pallas::check
