#include "Numbers.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace pallas::check {

namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// digits [ '.' digits ] [ ('e'|'E') ['+'|'-'] digits ], or '.' digits: what a
// person writes for a quantity. from_chars alone would also take "inf",
// "nan" and hexadecimal floats.
bool plainDecimal(std::string_view t) {
  size_t i = 0, digits = 0;
  while (i < t.size() && isDigit(t[i]))
    ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && isDigit(t[i]))
      ++i, ++digits;
  }
  if (digits == 0)
    return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-'))
      ++i;
    size_t exponent = 0;
    while (i < t.size() && isDigit(t[i]))
      ++i, ++exponent;
    if (exponent == 0)
      return false;
  }
  return i == t.size();
}

std::string shortNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

} // namespace

std::optional<double> parseDecimal(std::string_view text) {
  if (!plainDecimal(text))
    return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt; // 1e400 does not fit
  return value;
}

std::optional<uint64_t> parseWholeNumber(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  for (char c : text)
    if (!isDigit(c))
      return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<std::string> timeoutProblem(double seconds, bool zeroMeansNone) {
  if (!std::isfinite(seconds))
    return std::string("not a finite number");
  if (zeroMeansNone && seconds == 0)
    return std::nullopt;
  if (seconds < kMinTimeoutSeconds || seconds > kMaxTimeoutSeconds)
    return "outside " + shortNumber(kMinTimeoutSeconds) + " to " + shortNumber(kMaxTimeoutSeconds) +
           " seconds (a week)";
  return std::nullopt;
}

std::chrono::milliseconds timeoutMilliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000.0)));
}

} // namespace pallas::check
