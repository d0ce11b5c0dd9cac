// The API catalogue (Apis.def) as C++: `Api` ids, their canonical names and
// role predicates. Header-only and constexpr, so the front end (no MLIR) and
// the passes read the same list. Compare with `api == apiName(Api::RunState)`
// or a role (`isLaunchApi(api)`), never with a string literal.
#pragma once

#include <array>
#include <string_view>

namespace pallas::analysis::detail {

enum ApiRole : unsigned {
  kLaunch = 1u << 0,             // a kernel launch: lowered to pallas.launch
  kRunsBodyInPlace = 1u << 1,    // decorator / factory whose callable runs at once
  kPipeline = 1u << 2,           // plgpu.emit_pipeline and its warp-specialized form
  kRefTransform = 1u << 3,       // returns a view of its first operand (a Ref)
  kDischargesBodyRefs = 1u << 4, // higher-order op whose discharge rule discharges every body Ref
  kReduction = 1u << 5,          // a reduction Mosaic GPU lowers with an SMEM scratch
  // A transform whose result, called, traces its function with the call's
  // own arguments (`jax.vmap(f)(x)` runs f(x)): a call of it calls f.
  kCallsItsFunction = 1u << 6,
};

enum class Api {
#define PALLAS_API(Id, Name, Roles) Id,
#include "pallas/analysis/detail/Apis.def"
};

struct ApiEntry {
  Api id;
  std::string_view name;
  unsigned roles;
};

inline constexpr std::array kApis = {
#define PALLAS_API(Id, Name, Roles) ApiEntry{Api::Id, Name, Roles},
#include "pallas/analysis/detail/Apis.def"
};

constexpr std::string_view apiName(Api id) {
  return kApis[static_cast<unsigned>(id)].name;
}

// The last part of an API's name ("pl.BlockSpec" -> "BlockSpec"): the class
// name JAX prints for the objects it builds.
constexpr std::string_view apiLeaf(Api id) {
  std::string_view name = apiName(id);
  return name.substr(name.rfind('.') + 1);
}

// Whether `api` (canonical spelling) has every role bit of `roles`.
constexpr bool hasApiRole(std::string_view api, unsigned roles) {
  for (const ApiEntry& e : kApis)
    if (e.name == api)
      return (e.roles & roles) == roles;
  return false;
}

constexpr bool isLaunchApi(std::string_view api) {
  return hasApiRole(api, kLaunch);
}
constexpr bool runsBodyInPlace(std::string_view api) {
  return hasApiRole(api, kRunsBodyInPlace);
}
constexpr bool isPipelineApi(std::string_view api) {
  return hasApiRole(api, kPipeline);
}
constexpr bool isRefTransformApi(std::string_view api) {
  return hasApiRole(api, kRefTransform);
}
constexpr bool dischargesBodyRefs(std::string_view api) {
  return hasApiRole(api, kDischargesBodyRefs);
}
constexpr bool callsItsFunction(std::string_view api) {
  return hasApiRole(api, kCallsItsFunction);
}

// Api values index kApis: the enum and the table come from one list.
constexpr bool apisIndexedById() {
  for (unsigned i = 0; i < kApis.size(); ++i)
    if (static_cast<unsigned>(kApis[i].id) != i)
      return false;
  return true;
}
static_assert(apisIndexedById());
static_assert(apiName(Api::PallasCall) == "pl.pallas_call" && isLaunchApi("pl.core_map") &&
              !isLaunchApi("pl.when") && runsBodyInPlace("pl.run_state") &&
              apiLeaf(Api::BlockSpec) == "BlockSpec" && apiLeaf(Api::AccInit) == "init");

} // namespace pallas::analysis::detail
