// Decisions of GPU interpret mode's rules that both engines make on plain
// data (the old walk, GpuInterpretRules.cpp / BarrierProtocol.cpp, and the
// evaluator's trace, PallasInterpretRules.cpp). Private to analysis/passes.
#pragma once

#include "KernelWalk.h"

#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

// A scoped allocation's collective axes against the launch's thread mesh
// (`axes`: the cluster names, then the thread name, "" when there is none),
// in the order JAX checks them (jaxpr_interpret.py): the error template's
// key ("" when the allocation is accepted), and in `axis` the axis the
// message names (for gpuInterpretCollectiveAxisNotFound).
std::string collectiveAxesFailure(const std::vector<std::string>& axes,
                                  const std::vector<std::string>& collective, std::string& axis);
// A primitive holding a traced body (its params: a jaxpr) that GPU interpret
// mode has no arm for: its fallback binds it again and raises on the open
// jaxpr ("Higher-order primitive ..."), when this JAX has that message. A
// primitive whose class makes its own bind params (getBindParamsOverridden:
// custom_jvp_call, custom_vjp_call) is re-bound with its function and runs.
bool gpuInterpretRebindsOpenJaxpr(const knowledge::KnowledgeBase& kb,
                                  const knowledge::PrimitiveFacts* p);

// The axes as JAX prints them (a Python list; an unnamed thread axis is an
// anonymous object).
std::string listedAxes(const std::vector<std::string>& axes);

// The barrier protocol's outcome over every interleaving of the threads'
// steps (BarrierProtocol.cpp): the error every interleaving raises, with
// the step that raises (null: at the end); nullopt when one runs without
// an error, blocks forever, they differ, or the exploration is too large.
struct BarrierProtocolFailure {
  std::string key; // the message template
  std::vector<std::string> holes;
  mlir::Operation* at = nullptr;
};
std::optional<BarrierProtocolFailure>
exploreBarrierProtocol(const std::vector<std::vector<BarrierStep>>& steps,
                       const std::vector<int>& arrivals);

} // namespace pallas::analysis::passes
