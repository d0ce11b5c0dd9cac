// The registry of server features (LspServer.h): each file in
// server/features/ adds one with a static FeatureRegistration; LspServer::start
// installs them all on every new server.
#include "LspServer.h"

namespace pallas::server {

static std::vector<Feature>& featureRegistry() {
  static std::vector<Feature> features; // function-local: static init order safe
  return features;
}

void registerFeature(Feature feature) {
  featureRegistry().push_back(std::move(feature));
}

const std::vector<Feature>& registeredFeatures() {
  return featureRegistry();
}

} // namespace pallas::server
