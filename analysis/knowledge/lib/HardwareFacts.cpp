#include "pallas/knowledge/HardwareFacts.h"

#include <charconv>

namespace pallas::knowledge {

namespace {

bool number(std::string_view s, int& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

} // namespace

std::optional<ComputeCapability> ComputeCapability::parse(std::string_view text) {
  text = trimmed(text);
  size_t dot = text.find('.');
  ComputeCapability c;
  if (!number(text.substr(0, dot), c.major))
    return std::nullopt;
  if (dot != std::string_view::npos && !number(text.substr(dot + 1), c.minor))
    return std::nullopt;
  return c;
}

std::string ComputeCapability::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

bool HardwareRequirement::allows(ComputeCapability c) const {
  if (equals.empty() && atLeast.empty() && majorIn.empty())
    return true;
  for (auto e : equals)
    if (e == c)
      return true;
  for (auto a : atLeast)
    if (c >= a)
      return true;
  for (int m : majorIn)
    if (m == c.major)
      return true;
  return false;
}

std::string HardwareRequirement::constraint() const {
  std::string s;
  auto add = [&](const std::string& t) { s += (s.empty() ? "" : " or ") + t; };
  for (auto e : equals)
    add(e.str());
  for (auto a : atLeast)
    add(">= " + a.str());
  for (int m : majorIn)
    add(std::to_string(m) + ".x");
  return s;
}

std::string HardwareRequirement::needs() const {
  return requires_.empty() ? "compute capability " + constraint()
                           : requires_ + " (compute capability " + constraint() + ")";
}

std::string HardwareRequirement::description() const {
  return requires_ + " [" + source + "]";
}

} // namespace pallas::knowledge
