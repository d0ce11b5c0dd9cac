// What kernel runs will use, said apart from what the analysis reads: the
// status lines showed the knowledge table's JAX version ("JAX 0.10.2") while
// every run failed with JaxNotFound in a python3 without JAX (issue 35).
#pragma once

#include "ExecutionTrust.h"

#include <nlohmann/json.hpp>
#include <string>

namespace pallas::server::environment {

struct RunsReadiness {
  // "ready" (an interpreter with JAX), "no-jax", "template" (a launch
  // template that does not start with the interpreter: ssh, srun, ...; the
  // JAX at its end is not known here; `via` is its first word) or "refused"
  // (nothing may be executed: `detail` says why).
  std::string state;
  std::string via;
  std::string python;     // the interpreter runs use ("" when refused)
  std::string jaxVersion; // its JAX, when known
  std::string detail;     // how the JAX was found, or why there is none
  nlohmann::json toJson() const;
};

// `decision`: runInterpreterFor's answer; `launchTemplate`: the effective
// template ("" for this machine). The interpreter's JAX is looked for by the
// environment's layout first; when that finds none it is asked (started,
// `import jax`), which the decision allows.
RunsReadiness runsReadiness(const ExecutionDecision& decision, const std::string& launchTemplate);

} // namespace pallas::server::environment
