// Where a `plgpu.inline_mgpu` region is spelled, for the hover: its
// decorator, the name its def gives it and the calls of that name in the
// function around it. The hover answers there and nowhere else in the
// region (a hover on every token of the body hid the user's other servers'
// hovers). Text only, like inlineRegionExtent: the hover facts of a version
// are made without the analysis lock.
#pragma once

#include "pallas/analysis/Finding.h"
#include "pallas/support/LineIndex.h"

#include <string>
#include <vector>

namespace pallas::server {

struct InlineRegionSpots {
  analysis::SourceRange decorator; // the decorator(s), up to the def line
  std::string name;                // the def's name ("" when not found)
  analysis::SourceRange nameRange;
  std::vector<analysis::SourceRange> calls; // each call's callee name
  bool answersAt(analysis::SourcePos pos) const;
};

// `decorator`: where the inline_mgpu decorator starts; `extent`: the region
// from the decorator to its body's last line (inlineRegionExtent).
InlineRegionSpots inlineRegionSpots(const support::LineIndex& lines, analysis::SourcePos decorator,
                                    const analysis::SourceRange& extent);

} // namespace pallas::server
