// How `check` hands the analysed files to its workers (Checker's collect).
//
// A worker takes one group at a time. Files of one folder stay together
// (helpers usually live next to the kernels that import them, so a worker
// reads each helper once), but a folder is cut into pieces small enough for
// every worker to get a share: a repository whose kernels all sit in one
// folder (JAX's tests/pallas, a generated corpus) was analysed on one core
// while the other waited. The pieces go out largest first (by bytes), so
// the last ones handed out are small and the workers finish together.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pallas::check {

// `documents` with their sizes in bytes (sizes[i] for documents[i]), in
// groups for `jobs` workers. Every document is in exactly one group; files of
// a group share a folder; groups are in the order to hand them out.
std::vector<std::vector<std::string>> workGroups(const std::vector<std::string>& documents,
                                                 const std::vector<size_t>& sizes, unsigned jobs);

} // namespace pallas::check
