#include "Environment.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace pallas::server::environment {

namespace fs = std::filesystem;

const gpu::ProbeResult& gpuProbe() {
  // Probed once (thread-safe), and never destroyed: the server's environment
  // worker copies it from its own thread, which may still be running while
  // the process exits and runs static destructors (ASan saw the copy read a
  // freed string).
  static const gpu::ProbeResult* probe = new gpu::ProbeResult(gpu::probeDevices());
  return *probe;
}

std::string bestCapability(const gpu::ProbeResult& probe) {
  const gpu::DeviceInfo* best = nullptr;
  for (const gpu::DeviceInfo& d : probe.devices)
    if (!best || d.capability > best->capability)
      best = &d;
  if (!best)
    return {};
  return std::to_string(best->capability.major) + "." + std::to_string(best->capability.minor);
}

knowledge::KnowledgeBase::Loaded loadKnowledge(const ExecutionContext& ctx) {
  // The environment's JAX is located by its layout and read from disk
  // (bundled table of its version, else a static read by our own Python);
  // its interpreter runs only when the trust rule allows and static reading
  // failed.
  try {
    return knowledge::KnowledgeBase::forEnvironment(knowledgeRequestFor(ctx));
  } catch (const std::exception& e) {
    knowledge::KnowledgeBase::Loaded loaded = knowledge::KnowledgeBase::bundled();
    loaded.how = "bundled";
    loaded.fallbackReason = std::string("loading the environment's knowledge failed: ") + e.what();
    return loaded;
  }
}

std::string launchTemplate(const std::string& configured) {
  if (!configured.empty())
    return configured;
  const char* env = std::getenv("PALLAS_LSP_LAUNCH_TEMPLATE");
  return env != nullptr ? std::string(env) : std::string();
}

std::string launchTemplateText(const std::string& launchTemplate) {
  return launchTemplate.empty() ? std::string("{python} {runner} {args}") : launchTemplate;
}

std::vector<std::string> knowledgeTables() {
  std::vector<fs::path> places;
  if (const char* env = std::getenv("PALLAS_LSP_KNOWLEDGE"); env != nullptr && *env != '\0')
    places.emplace_back(env);
  // Where the analysis takes its bundled table from (beside an installed
  // binary, else the source tree it was built from): a binary copied into a
  // virtual environment's bin/ still uses those, and doctor and
  // :checkhealth said "none found" next to the table in use (issue 35).
  places.push_back(fs::path(knowledge::KnowledgeBase::bundledPath()).parent_path());
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    places.push_back(exe.parent_path().parent_path() / "share" / "pallas-lsp" / "knowledge");
    for (fs::path dir = exe.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
      places.push_back(dir / "analysis" / "knowledge");
  }
  for (const fs::path& place : places) {
    std::vector<std::string> found;
    if (fs::is_regular_file(place, error))
      found.push_back(place.string());
    else if (fs::is_directory(place, error))
      for (const auto& entry : fs::directory_iterator(place, error))
        if (entry.path().extension() == ".json")
          found.push_back(entry.path().string());
    if (!found.empty()) {
      std::sort(found.begin(), found.end());
      return found;
    }
  }
  return {};
}

} // namespace pallas::server::environment
