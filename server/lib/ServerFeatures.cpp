// The registry of server features (LspServer.h): each file in
// server/features/ adds one with a static ServerFeatureRegistration; LspServer::start
// installs them all on every new server.
#include "LspServer.h"

namespace pallas::server {

static std::vector<ServerFeature>& featureRegistry() {
  static std::vector<ServerFeature> features; // function-local: static init order safe
  return features;
}

void registerFeature(ServerFeature feature) {
  featureRegistry().push_back(std::move(feature));
}

const std::vector<ServerFeature>& registeredFeatures() {
  return featureRegistry();
}

} // namespace pallas::server
