// Hardware facts about NVIDIA GPU generations, keyed by compute capability.
// Pure functions with no driver access, so the analysis (PLS003) and the
// server can classify a GPU they read from the probe, from a setting, or from
// a remote machine's report alike.
#pragma once

#include <string>

namespace pallas::gpu {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
  // "sm_90", "sm_100", ...
  std::string smName() const;
  // "9.0"
  std::string str() const;
};

enum class Generation {
  Unknown,          // major < 7 or something we have never heard of
  PreHopper,        // Volta, Turing, Ampere, Ada: too old for Mosaic GPU
  Hopper,           // sm_90
  Blackwell,        // datacenter Blackwell: sm_100, sm_103, sm_110 (tcgen05, TMEM)
  BlackwellGeForce, // sm_120, sm_121: Blackwell name, but no tcgen05 and no wgmma
  Newer,            // a major above every generation known here
};

// What a GPU must have for any Mosaic GPU kernel. Which generation a
// primitive needs (wgmma: Hopper; tcgen05/TMEM: datacenter Blackwell) is a
// JAX fact: the knowledge table's typed hardware gates decide it
// (pallas/knowledge/HardwareFacts.h), not this header.
enum class Feature {
  MosaicGpu, // compute capability >= 9.0 (Mosaic GPU's floor)
  Tma,       // bulk tensor copies: 9.0 and newer
};

Generation classify(ComputeCapability cc);
const char* generationName(Generation generation); // "Hopper", ...
const char* featureName(Feature feature);          // "wgmma", ...

// Whether a GPU of this compute capability can execute the feature.
bool supports(ComputeCapability cc, Feature feature);

// The compute capability Mosaic GPU needs at least.
inline constexpr ComputeCapability kMosaicGpuMinimum{9, 0};

} // namespace pallas::gpu
