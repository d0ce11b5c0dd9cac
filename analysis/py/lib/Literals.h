// Python literal syntax: numbers, string prefixes and escapes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pallas::py {

struct Number {
  enum Kind { Int, BigInt, Float, Complex, Bad } kind = Bad;
  int64_t i = 0;
  double f = 0;     // Float; Complex: the imaginary part
  std::string text; // BigInt: decimal digits (with sign)
};
// An integer / float / imaginary literal as written (`0x1F`, `1_000`, `2.5e3`, `3j`).
Number parseNumber(std::string_view text);

struct StringPrefix {
  bool raw = false, bytes = false, formatted = false;
};
// The prefix letters of a string_start token (`rb'`, `f"""`).
StringPrefix parsePrefix(std::string_view start);

// The value of a non-raw literal's content: \n, \t, \x41, \u00e9, \N{...}
// (kept as written), octal escapes, line continuations; UTF-8 out.
std::string decodeEscapes(std::string_view content, bool bytes);

} // namespace pallas::py
