#include "RunsReadiness.h"

#include "pallas/gpu/Runner.h"
#include "pallas/knowledge/JaxEnvironment.h"

namespace pallas::server::environment {

nlohmann::json RunsReadiness::toJson() const {
  return {{"state", state},
          {"python", python.empty() ? nlohmann::json(nullptr) : nlohmann::json(python)},
          {"jaxVersion", jaxVersion.empty() ? nlohmann::json(nullptr) : nlohmann::json(jaxVersion)},
          {"detail", detail},
          {"via", via.empty() ? nlohmann::json(nullptr) : nlohmann::json(via)}};
}

RunsReadiness runsReadiness(const ExecutionDecision& decision, const std::string& launchTemplate) {
  RunsReadiness r;
  r.python = decision.python;
  if (decision.python.empty()) {
    r.state = "refused";
    r.detail = decision.refusal;
    return r;
  }
  // A template that starts with the interpreter runs it here (with more
  // arguments, as the tests' `{python} {runner} {args} --compare ...`); any
  // other hands the run to another program (ssh, srun, env).
  std::string first = launchTemplate.substr(0, launchTemplate.find_first_of(" \t"));
  if (!launchTemplate.empty() && first != "{python}" && first != "{cmd}") {
    r.state = "template";
    r.via = first;
    r.detail = "runs go through the launch template " + launchTemplate;
    return r;
  }
  // By layout (<env>/bin/python -> <env>/lib/python3.*/site-packages/jax):
  // nothing is started.
  knowledge::EnvironmentQuery q;
  q.configuredPython = decision.python;
  q.processEnvironment = false;
  if (auto jax = knowledge::locateJax(q)) {
    r.state = "ready";
    r.jaxVersion = jax->version;
    r.detail = "JAX " + jax->version + " at " + jax->sitePackages;
    return r;
  }
  // Not laid out as a virtual environment (python3 on PATH, a system or
  // user install): ask the interpreter itself, as a run would.
  nlohmann::json env = gpu::inspectPythonEnvironment(decision.python);
  if (env.contains("jax") && env["jax"].is_string()) {
    r.state = "ready";
    r.jaxVersion = env["jax"].get<std::string>();
    r.detail = "JAX " + r.jaxVersion + " (imported by " + decision.python + ")";
  } else {
    r.state = "no-jax";
    std::string why = env.contains("jax_error") && env["jax_error"].is_string()
                          ? env["jax_error"].get<std::string>()
                      : env.contains("error") && env["error"].is_string()
                          ? env["error"].get<std::string>()
                          : std::string("no JAX found");
    r.detail = decision.python + " cannot import jax: " + why;
  }
  return r;
}

} // namespace pallas::server::environment
