// Numbers a user writes (command-line options, editor settings), read
// strictly: a count is digits only, a quantity is a plain decimal number
// ("300", "2.5", "1e3"), and nothing else passes: no "nan", "inf", hex,
// sign, spaces or trailing text, and nothing that does not fit. Callers then
// check the range and say what they expect (exit 2 on the command line).
// `run --timeout 1e10` used to overflow into a 0.15 s timeout and report
// "100000 s", 0.0001 rounded to 0 (no timeout), and `--runs 1e10` was
// ignored (issue 34).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pallas::check {

// A finite decimal number, or nullopt.
std::optional<double> parseDecimal(std::string_view text);
// A whole number (digits only) that fits in 64 bits, or nullopt.
std::optional<uint64_t> parseWholeNumber(std::string_view text);

// A run's timeout, in seconds: 0 means none, otherwise from a millisecond to
// a week (the command line and the editor setting share the range).
inline constexpr double kMinTimeoutSeconds = 0.001;
inline constexpr double kMaxTimeoutSeconds = 7 * 24 * 3600.0;
// Why `seconds` is not a timeout (nullopt: it is one). `zeroMeansNone`:
// whether 0 (no timeout) is accepted.
std::optional<std::string> timeoutProblem(double seconds, bool zeroMeansNone);
// The timeout as milliseconds, rounded up (a valid timeout never becomes 0).
std::chrono::milliseconds timeoutMilliseconds(double seconds);

} // namespace pallas::check
