// Mosaic GPU's shared-memory arithmetic on plain values (issue 33): sizes
// in, bytes out, nothing about where the shapes came from. The budget walk
// (SmemBudgetWalk.h, SmemPipelines.cpp) reads shapes and dtypes from the
// shape evaluator and asks these; a new evaluator can call them the same way.
// What each rule is, and that the installed JAX still computes so, is the
// knowledge table's "mosaicGpuSmemModel" (SmemRules.cpp checks it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace pallas::analysis::detail::smem {

inline int64_t alignUp(int64_t x, int64_t a) {
  return a > 0 && x % a ? x + a - x % a : x;
}

// One SMEM allocation of `elems` elements of `bits` bits: rounded up to the
// alignment on its own (Resources.__post_init__, allocationAligned).
inline int64_t allocationBytes(int64_t elems, int64_t bits, int64_t alignment) {
  return alignUp(elems * bits / 8, alignment);
}

// A pipeline's buffer for one spec: `slots` blocks of `elems` elements
// (emit_pipeline's SMEM((max_concurrent_steps, *block)), pipelineSlots).
inline int64_t stagedBytes(int64_t slots, int64_t elems, int64_t bits, int64_t alignment) {
  return allocationBytes(slots * elems, bits, alignment);
}

// A plgpu.RefUnion: each group lays its members (elements, bits) out one
// after the other, each starting at the alignment (_ref_group_size); the
// union is its largest group, rounded as one allocation (refUnionCombine).
inline int64_t refUnionBytes(const std::vector<std::vector<std::pair<int64_t, int64_t>>>& groups,
                             int64_t alignment) {
  int64_t largest = 0;
  for (const auto& group : groups) {
    int64_t bytes = 0;
    for (const auto& [elems, bits] : group)
      bytes = alignUp(bytes, alignment) + elems * bits / 8;
    largest = std::max(largest, bytes);
  }
  return alignUp(largest, alignment);
}

// Barriers after the rounded buffers, unrounded (barriersAfterScratch).
inline int64_t mbarrierTotalBytes(int64_t numBarriers, int64_t bytesPerBarrier) {
  return numBarriers * bytesPerBarrier;
}

} // namespace pallas::analysis::detail::smem
