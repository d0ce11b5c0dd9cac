// `pallas-lsp doctor [--python P] [--launch-template T] [--isolated] [--json]`:
// what this machine offers pallas-lsp: the Python and JAX a run would use
// (--python, else `[tool.pallas-lsp] python` as `check` reads it, unless
// --isolated), the CUDA driver and GPUs (gpu::probeDevices), and where the
// analysis knowledge comes from.
#include "Arguments.h"
#include "Command.h"
#include "Environment.h"
#include "ProbeReport.h"
#include "ProjectPython.h"
#include "pallas/analysis/Project.h"
#include "pallas/gpu/DeviceProbe.h"
#include "pallas/gpu/Runner.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace pallas::cli {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
namespace environment = server::environment;

std::string describePython(const json& env) {
  if (env.contains("error"))
    return "  cannot run it: " + env["error"].get<std::string>() + "\n";
  std::string text = "  Python " + env.value("python", std::string("?")) + " (" +
                     env.value("executable", std::string("?")) + ")\n";
  if (env.value("jax", json()).is_string()) {
    text += "  JAX " + env["jax"].get<std::string>() + ", jaxlib " +
            (env.value("jaxlib", json()).is_string() ? env["jaxlib"].get<std::string>() : "?") +
            "\n";
  } else {
    text += "  JAX: not importable" +
            (env.contains("jax_error") ? " (" + env["jax_error"].get<std::string>() + ")" : "") +
            "\n";
  }
  const json plugins = env.value("cuda_plugins", json::object());
  if (plugins.empty()) {
    text += "  CUDA plugin: none (JAX can only use the CPU here; compiled runs need "
            "pip install 'jax[cuda13]')\n";
  } else {
    for (const auto& [name, version] : plugins.items())
      text += "  CUDA plugin: " + name + " " + version.get<std::string>() + "\n";
  }
  if (env.value("devices", json::array()).is_array()) {
    std::string devices;
    for (const json& d : env["devices"]) {
      devices += devices.empty() ? "" : ", ";
      devices += d.value("platform", std::string("?")) + ":" + d.value("kind", std::string("?"));
      if (d.value("compute_capability", json()).is_string())
        devices += " (cc " + d["compute_capability"].get<std::string>() + ")";
    }
    text += "  JAX devices: " + (devices.empty() ? std::string("none") : devices) + "\n";
  }
  if (env.value("gpu_interpret_mode", json()).is_boolean())
    text += std::string("  GPU interpret mode: ") +
            (env["gpu_interpret_mode"].get<bool>() ? "available" : "not in this JAX") + "\n";
  return text;
}

int runDoctor(const std::vector<std::string>& args) {
  bool asJson = false;
  bool useConfig = true; // [tool.pallas-lsp] python, as `check` reads it
  std::string python, launchTemplate;
  Arguments arg("doctor", args);
  while (arg.next()) {
    if (!arg.isOption()) {
      throw UsageError{"doctor: unexpected argument '" + arg.current() + "'"};
    } else if (arg.is("--json")) {
      arg.flag();
      asJson = true;
    } else if (arg.is("--python")) {
      python = arg.value();
    } else if (arg.is("--launch-template")) {
      launchTemplate = arg.value();
    } else if (arg.isAny("--isolated", "--no-config")) {
      arg.flag();
      useConfig = false;
    } else {
      arg.unknown();
    }
  }
  launchTemplate = environment::launchTemplate(launchTemplate);

  // The trust rule of the command line (server/environment/ExecutionTrust.h): the
  // interpreter a run would use is the one named (--python,
  // $PALLAS_LSP_PYTHON) or python3; the workspace's environment is read for
  // the knowledge, not executed.
  server::ExecutionContext ctx;
  std::error_code cwdError;
  const std::string cwd = fs::current_path(cwdError).string();
  // As `check`: --python, else the `python` of the configuration for this
  // folder (unless --isolated), else $PALLAS_LSP_PYTHON / python3.
  std::string pythonFrom = "--python";
  if (python.empty() && useConfig) {
    std::string why;
    if (auto named = environment::projectPython(cwd, &why)) {
      python = *named;
      pythonFrom = "[tool.pallas-lsp] python";
    } else if (!why.empty()) {
      std::fprintf(stderr, "pallas-lsp: %s\n", why.c_str());
    }
  }
  ctx.configuredPython = python;
  ctx.workspaceRoots = {cwd};
  const std::string interpreter = server::runInterpreterFor(ctx).python;
  const json environment = gpu::inspectPythonEnvironment(interpreter, launchTemplate);
  const gpu::ProbeResult& probe = environment::gpuProbe();
  const knowledge::KnowledgeBase::Loaded loaded = environment::loadKnowledge(ctx);
  const std::string jaxVersion = loaded ? loaded.base->jaxVersion() : std::string("unknown");
  const std::optional<knowledge::JaxLocation> located =
      knowledge::locateJax(server::knowledgeRequestFor(ctx).environment);
  const std::vector<std::string> tables = environment::knowledgeTables();
  const std::string runner = gpu::locateRunnerScript();

  if (asJson) {
    json out = {{"python",
                 {{"interpreter", interpreter},
                  {"from", python.empty() ? json(nullptr) : json(pythonFrom)},
                  {"environment", environment}}},
                {"gpu", environment::probeJson(probe, loaded ? &*loaded.base : nullptr)},
                {"knowledge",
                 {{"jax_version", jaxVersion},
                  {"how", loaded.how},
                  {"source", loaded ? loaded.base->source() : std::string()},
                  {"environment_jax", located ? json{{"version", located->version},
                                                     {"site_packages", located->sitePackages},
                                                     {"found_via", located->foundVia}}
                                              : json(nullptr)},
                  {"fallback", loaded.fallbackReason},
                  {"notes", loaded.notes},
                  {"tables", tables}}},
                {"runner", runner},
                {"launch_template", environment::launchTemplateText(launchTemplate)}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    // What runs use, then what the analysis reads: they may differ.
    const char* env = std::getenv("PALLAS_LSP_PYTHON");
    std::string text = "Python (" + interpreter + "):\n  used by runs (from " +
                       (!python.empty() ? pythonFrom
                        : env && *env   ? std::string("$PALLAS_LSP_PYTHON")
                                        : std::string("PATH: no --python, no [tool.pallas-lsp] "
                                                      "python")) +
                       ")\n" + describePython(environment);
    text += "GPU (CUDA driver API, " + probe.library + "):\n  ";
    std::string summary = probe.summary();
    for (std::size_t at = 0; (at = summary.find('\n', at)) != std::string::npos; at += 3)
      summary.replace(at, 1, "\n  ");
    text += summary + "\n";
    text += "Analysis knowledge: JAX " + jaxVersion + ", " + loaded.how + "\n";
    if (located)
      text += "  environment: JAX " + located->version + " at " + located->sitePackages + " (" +
              located->foundVia + ")\n";
    if (!loaded.fallbackReason.empty())
      text += "  bundled table used because: " + loaded.fallbackReason + "\n";
    for (const std::string& note : loaded.notes)
      text += "  note: " + note + "\n";
    if (loaded)
      text += "  in use: " + loaded.base->source() + "\n";
    for (const std::string& table : tables)
      text += "  table: " + table + "\n";
    if (tables.empty() && !loaded)
      text += "  table: none found (set PALLAS_LSP_KNOWLEDGE)\n";
    text +=
        "Runner: " + (runner.empty() ? std::string("not found (set PALLAS_LSP_RUNNER)") : runner) +
        "\n";
    std::fputs(text.c_str(), stdout);
  }
  // Doctor reports; it fails only when no kernel could run at all (the
  // Python cannot start, or has no JAX).
  const bool runnable =
      !environment.contains("error") && environment.value("jax", json()).is_string();
  if (!runnable && !asJson)
    std::fputs("Runs need a Python with JAX: pass --python or set PALLAS_LSP_PYTHON.\n", stdout);
  return runnable ? kExitOk : kExitFindings;
}

const CommandRegistration registration{
    Command{"doctor", "doctor [--python P] [--launch-template T] [--isolated] [--json]",
            "show the Python/JAX a run would use, the GPUs, and the knowledge source", runDoctor}};

} // namespace
} // namespace pallas::cli
