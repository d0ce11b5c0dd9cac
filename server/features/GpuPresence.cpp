#include "GpuPresence.h"

#include <map>
#include <mutex>

namespace pallas::server {
namespace {

// Keyed by server: tests run several servers in one process. An entry is a
// few bytes and servers are few, so entries are never erased. The table is
// never destroyed either: the environment worker thread may set an entry
// while the process exits.
std::mutex mutex;
std::map<const LspServer*, GpuPresence>& table() {
  static auto* t = new std::map<const LspServer*, GpuPresence>;
  return *t;
}

} // namespace

void setGpuPresence(const LspServer& server, GpuPresence presence) {
  std::lock_guard lock(mutex);
  table()[&server] = presence;
}

GpuPresence gpuPresence(const LspServer& server) {
  std::lock_guard lock(mutex);
  auto it = table().find(&server);
  return it == table().end() ? GpuPresence::Unknown : it->second;
}

} // namespace pallas::server
