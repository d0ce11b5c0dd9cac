// `pallas-lsp check PATH...`: the CI face of the analysis (ruff's `check`).
// Exit codes: 0 nothing reported, 1 findings reported, 2 usage error, bad
// configuration or a path that could not be read.
#include "Arguments.h"
#include "Command.h"
#include "Environment.h"
#include "check/Checker.h"
#include "check/Report.h"
#include "config/Config.h"
#include "config/Rules.h"

#include <charconv>
#include <iostream>

namespace pallas::cli {
namespace {

using namespace pallas::check;
namespace environment = server::environment;

struct Parsed {
  CheckOptions options;
  OutputFormat format = OutputFormat::Text;
  bool exitZero = false;
  bool quiet = false;
};

std::vector<std::string> parseSelectors(const std::string& option, const std::string& value) {
  std::vector<std::string> selectors = splitSelectors(value);
  if (selectors.empty())
    throw UsageError{option + " needs at least one rule code"};
  for (const std::string& s : selectors)
    if (auto error = validateSelector(s))
      throw UsageError{option + ": " + *error};
  return selectors;
}

Parsed parseArgs(const std::vector<std::string>& args) {
  Parsed parsed;
  bool noConfig = false, haveConfig = false, fix = false, isolated = false;
  Arguments arg("check", args);
  while (arg.next()) {
    if (!arg.isOption()) {
      parsed.options.paths.emplace_back(arg.current());
      continue;
    }
    const std::string& name = arg.name();
    auto value = [&] { return arg.value(); };
    auto flag = [&] { arg.flag(); };
    if (name == "--format") {
      std::string f = value();
      auto format = parseOutputFormat(f);
      if (!format)
        throw UsageError{"unknown --format '" + f + "' (text, json, sarif, github)"};
      parsed.format = *format;
    } else if (name == "--jobs" || name == "-j") {
      std::string v = value();
      unsigned jobs = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), jobs);
      if (ec != std::errc() || end != v.data() + v.size() || jobs == 0 || jobs > 1024)
        throw UsageError{"--jobs needs a number from 1 to 1024, got '" + v + "'"};
      parsed.options.jobs = jobs;
    } else if (name == "--select") {
      parsed.options.selection.select = parseSelectors(name, value());
    } else if (name == "--ignore") {
      for (std::string& s : parseSelectors(name, value()))
        parsed.options.selection.ignore.push_back(std::move(s));
    } else if (name == "--fix") {
      flag();
      fix = true;
    } else if (name == "--unsafe-fixes") {
      flag();
      parsed.options.fixOptions.unsafe = true;
    } else if (name == "--python") {
      // The interpreter whose JAX the knowledge describes; executed only
      // when its files cannot be read statically.
      parsed.options.python = value();
    } else if (name == "--trust-config-python") {
      // The `python` of pyproject.toml may be executed too (by default a
      // repository's configuration only locates an environment to read).
      flag();
      parsed.options.trustConfigPython = true;
    } else if (name == "--isolated") {
      flag();
      isolated = true;
    } else if (name == "--config") {
      parsed.options.configFile = value();
      haveConfig = true;
    } else if (name == "--no-config") {
      flag();
      noConfig = true;
    } else if (name == "--assume-path") {
      std::string v = value();
      if (v != "interpret" && v != "gpu-interpret" && v != "compiled")
        throw UsageError{"--assume-path must be interpret, gpu-interpret or compiled, got '" + v +
                         "'"};
      parsed.options.assumePath = v;
    } else if (name == "--exit-zero") {
      flag();
      parsed.exitZero = true;
    } else if (name == "--quiet" || name == "-q") {
      flag();
      parsed.quiet = true;
    } else {
      arg.unknown();
    }
  }
  if (noConfig && haveConfig)
    throw UsageError{"--config and --no-config cannot be combined"};
  if (haveConfig)
    parsed.options.configMode = CheckOptions::ConfigMode::File;
  // --isolated: no configuration file is read, so none can name an
  // interpreter to execute (like ruff's --isolated).
  if (noConfig || isolated)
    parsed.options.configMode = CheckOptions::ConfigMode::None;
  parsed.options.fix = fix;
  if (parsed.options.paths.empty())
    parsed.options.paths.emplace_back("."); // like ruff
  return parsed;
}

// The environment facts the analysis uses, as the server gets them: the best
// local GPU (PLS003; none without a driver) and the knowledge of the JAX of
// the configured `python` (the bundled table when none is configured).
void addEnvironment(Parsed& parsed) {
  const gpu::ProbeResult& probe = environment::gpuProbe();
  // JAX compares a kernel's SMEM with jax.local_devices()[0]'s limit.
  if (!probe.devices.empty())
    parsed.options.gpuSharedMemoryPerBlockOptin = probe.devices.front().sharedMemoryPerBlockOptin;
  std::string capability = environment::bestCapability(probe);
  if (!capability.empty())
    parsed.options.gpuComputeCapability = capability;
  bool quiet = parsed.quiet;
  parsed.options.knowledgeFor = [quiet](const std::string& python, bool mayRun,
                                        const std::string& root) -> std::string {
    // The trust rule of the command line (server/environment/ExecutionTrust.h):
    // the workspace's environment is read, and only an interpreter the user
    // named (--python; the config's `python` with --trust-config-python)
    // may be executed.
    server::ExecutionContext ctx;
    (mayRun ? ctx.configuredPython : ctx.locatedPython) = python;
    ctx.workspaceRoots = {root};
    knowledge::KnowledgeBase::Loaded loaded = environment::loadKnowledge(ctx);
    if (!quiet && !mayRun && !python.empty() && loaded.how == "bundled")
      std::cerr << "pallas-lsp: knowledge: the `python` of pyproject.toml (" << python
                << ") was read, not executed: a repository's configuration does not choose "
                   "programs for check to run (name it with --python, or pass "
                   "--trust-config-python)\n";
    // Nothing configured and no environment with JAX: the bundled table, as
    // always, without a message.
    bool located = loaded.how != "bundled" || !python.empty() ||
                   loaded.fallbackReason.rfind("no JAX found", 0) != 0;
    if (!quiet && located) {
      if (!loaded.fallbackReason.empty())
        std::cerr << "pallas-lsp: knowledge: the bundled table is used: " << loaded.fallbackReason
                  << '\n';
      for (const std::string& note : loaded.notes)
        std::cerr << "pallas-lsp: knowledge: " << note << '\n';
    }
    return loaded ? loaded.base->source() : std::string();
  };
}

int runCheckCommand(const std::vector<std::string>& args) {
  Parsed parsed = parseArgs(args);
  addEnvironment(parsed);
  // The JSON report carries each launch's path matrix.
  parsed.options.launchMatrix = parsed.format == OutputFormat::Json;
  CheckResult result;
  try {
    result = runCheck(parsed.options);
  } catch (const ConfigError& e) {
    std::cerr << "pallas-lsp: configuration error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "pallas-lsp: internal error: " << e.what() << '\n';
    return kExitUsage;
  }
  result.report.quiet = parsed.quiet;
  writeReport(std::cout, parsed.format, result.report);
  std::cout.flush();
  for (const std::string& note : result.notes)
    std::cerr << "pallas-lsp: " << note << '\n';
  if (parsed.options.fix && parsed.format != OutputFormat::Text && !parsed.quiet)
    std::cerr << "pallas-lsp: fixed " << result.report.fixesApplied << " finding(s) in "
              << result.fixedFiles.size() << " file(s)\n";
  for (const std::string& error : result.errors)
    std::cerr << "pallas-lsp: error: " << error << '\n';
  if (!result.errors.empty())
    return kExitUsage;
  if (!result.report.findings.empty() && !parsed.exitZero)
    return kExitFindings;
  return kExitOk;
}

const CommandRegistration registration{Command{
    "check",
    "check [PATH...] [--format text|json|sarif|github] [--jobs N] [--select CODES] "
    "[--ignore CODES] [--assume-path interpret|gpu-interpret|compiled] [--fix] [--unsafe-fixes] "
    "[--config FILE | --no-config | --isolated] [--python PYTHON] [--trust-config-python] "
    "[--exit-zero] [--quiet]",
    "analyse Python files and folders for Pallas Mosaic GPU findings (CI; exit 1 on findings)",
    &runCheckCommand,
}};

} // namespace
} // namespace pallas::cli
