#include "pallas/gpu/Hardware.h"

namespace pallas::gpu {

std::string ComputeCapability::smName() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::string ComputeCapability::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

Generation classify(ComputeCapability cc) {
  switch (cc.major) {
  case 7:
  case 8:
    return Generation::PreHopper;
  case 9:
    return Generation::Hopper;
  case 10: // B200/GB200 (10.0), B300/GB300 (10.3)
  case 11: // Thor (11.0; was 10.1 before CUDA 13)
    return Generation::Blackwell;
  case 12: // RTX 50xx (12.0), DGX Spark (12.1)
    return Generation::BlackwellGeForce;
  default:
    return cc.major > 12 ? Generation::Newer : Generation::Unknown;
  }
}

const char* generationName(Generation generation) {
  switch (generation) {
  case Generation::PreHopper:
    return "pre-Hopper";
  case Generation::Hopper:
    return "Hopper";
  case Generation::Blackwell:
    return "Blackwell";
  case Generation::BlackwellGeForce:
    return "Blackwell (GeForce/workstation)";
  case Generation::Newer:
    return "newer than Blackwell";
  case Generation::Unknown:
    break;
  }
  return "unknown";
}

const char* featureName(Feature feature) {
  switch (feature) {
  case Feature::MosaicGpu:
    return "Mosaic GPU";
  case Feature::Tma:
    return "TMA";
  }
  return "?";
}

bool supports(ComputeCapability cc, Feature feature) {
  switch (feature) {
  case Feature::MosaicGpu:
  case Feature::Tma:
    return cc >= kMosaicGpuMinimum;
  }
  return false;
}

} // namespace pallas::gpu
