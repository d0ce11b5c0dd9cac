// How a budget reads (SmemBudget.h): byte counts with commas, KiB, and the
// hover's one-line summary.
#include "SmemBudget.h"

#include <algorithm>
#include <cstdio>

namespace pallas::analysis::detail {

std::string withCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0)
      out += ',';
    out += digits[k];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string bytesText(int64_t n) {
  if (n >= 1024 && n % 1024 == 0)
    return withCommas(n / 1024) + " KiB";
  if (n >= 1024) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024.0);
    return buf;
  }
  return std::to_string(n) + " B";
}

std::string SmemBudget::summary(size_t maxParts) const {
  std::string out = "SMEM " + std::string(exact() ? "" : "at least ") + withCommas(total) + " / " +
                    withCommas(limit) + " B";
  std::vector<SmemPart> sorted = parts;
  std::sort(sorted.begin(), sorted.end(), [](const SmemPart& a, const SmemPart& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
  });
  for (size_t k = 0; k < sorted.size() && k < maxParts; ++k)
    out += (k ? ", " : ": ") + sorted[k].name + " " + bytesText(sorted[k].bytes);
  if (sorted.size() > maxParts)
    out += ", ...";
  if (!unknown.empty()) {
    out += " (unknown: ";
    for (size_t k = 0; k < unknown.size() && k < 3; ++k)
      out += (k ? ", " : "") + unknown[k];
    out += unknown.size() > 3 ? ", ...)" : ")";
  }
  if (tmem.cols > 0)
    out += "; " + tmemSummary();
  return out;
}

std::string SmemBudget::tmemSummary() const {
  std::string out = "TMEM " + withCommas(tmem.cols) + " / " + withCommas(tmem.limit) + " columns";
  if (tmem.allocated != tmem.cols)
    out += " (" + withCommas(tmem.allocated) + " allocated)";
  std::vector<SmemPart> sorted = tmem.parts;
  std::sort(sorted.begin(), sorted.end(), [](const SmemPart& a, const SmemPart& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
  });
  for (size_t k = 0; k < sorted.size(); ++k)
    out += (k ? ", " : ": ") + sorted[k].name + " " + withCommas(sorted[k].bytes) + " cols";
  return out;
}

} // namespace pallas::analysis::detail
