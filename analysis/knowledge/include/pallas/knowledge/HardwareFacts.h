// The GPU hardware a primitive needs, as the knowledge table states it: the
// capability gates JAX's own tests use (jax._src.test_util skip_unless_*),
// typed. The one place a compute capability is compared with what a
// primitive needs (PLS003, the hover, the path matrix's compiled columns).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::knowledge {

struct ComputeCapability {
  int major = 0, minor = 0;
  friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
  // "9.0" -> {9, 0}; "10" -> {10, 0}; nullopt for anything else.
  static std::optional<ComputeCapability> parse(std::string_view text);
  std::string str() const; // "9.0"
};

struct HardwareRequirement {
  std::string requires_; // "Blackwell (tcgen05 / TMEM)"
  std::string gate;      // the test gate it comes from: "skip_unless_tcgen05"
  std::string source;    // where that gate is defined: "jax/_src/test_util.py"
  std::vector<ComputeCapability> equals, atLeast;
  std::vector<int> majorIn;

  // Whether a GPU of `cc` has it (no constraint at all: every GPU).
  bool allows(ComputeCapability cc) const;
  // The constraint in words: "9.0", ">= 10.0", "10.x or 11.x".
  std::string constraint() const;
  // What it needs, as a finding says it: "Blackwell (tcgen05 / TMEM) (compute
  // capability 10.x or 11.x)".
  std::string needs() const;
  // With its source, as the hover shows it: "Blackwell (tcgen05 / TMEM) [jax/_src/test_util.py]".
  std::string description() const;
};

} // namespace pallas::knowledge
