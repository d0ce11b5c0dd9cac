// Whether a run on the compiled path can happen from this server: the GPU
// runner feature records what its device probe found (and whether a launch
// template sends runs to another machine); code actions read it to mark
// GPU-only actions "(needs a GPU)" and offer an interpreted run instead.
#pragma once

namespace pallas::server {

class LspServer;

enum class GpuPresence {
  Unknown, // the probe has not finished
  None,    // no usable GPU here and no launch template
  Present, // a local GPU, or runs go elsewhere through a launch template
};

void setGpuPresence(const LspServer& server, GpuPresence presence);
GpuPresence gpuPresence(const LspServer& server);

} // namespace pallas::server
