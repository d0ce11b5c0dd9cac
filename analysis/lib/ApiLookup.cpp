// The hover's lookup (Project::apiAt): the innermost JAX/Pallas API call
// whose callee name, as written, contains a position.
#include "ProjectImpl.h"

namespace pallas::analysis {

std::optional<ApiAt> Project::apiAt(const std::string& path, SourcePos pos) const {
  return innermostApiAt(apiSites(path), pos);
}

} // namespace pallas::analysis
