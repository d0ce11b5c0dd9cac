// PLS003: a primitive a compiled kernel reaches needs hardware the local GPU
// lacks (wgmma is sm_90a only; tcgen05/TMEM need Blackwell datacenter parts).
// Runs only when ProjectOptions::gpuComputeCapability is set (the server sets
// it from gpu/'s device probe). The requirements come from the knowledge
// table's `hardware` facts (JAX's own test gates); KnowledgeBase keeps only
// their description, so the constraints are read from the table file here.
#include "KernelWalk.h"
#include "PassKnowledge.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/Support/Path.h"

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

struct Capability {
  int major = 0, minor = 0;
};

std::optional<Capability> parseCapability(llvm::StringRef text) {
  auto [maj, min] = text.trim().split('.');
  Capability c;
  if (maj.getAsInteger(10, c.major) || (!min.empty() && min.getAsInteger(10, c.minor)))
    return std::nullopt;
  return c;
}

struct Requirement {
  std::string requires_; // "Blackwell (tcgen05 / TMEM)"
  std::vector<Capability> equals, atLeast;
  std::vector<int> majorIn;

  bool allows(Capability c) const {
    if (equals.empty() && atLeast.empty() && majorIn.empty())
      return true;
    for (auto e : equals)
      if (e.major == c.major && e.minor == c.minor)
        return true;
    for (auto a : atLeast)
      if (std::pair(c.major, c.minor) >= std::pair(a.major, a.minor))
        return true;
    for (int m : majorIn)
      if (m == c.major)
        return true;
    return false;
  }
  std::string constraint() const {
    std::string s;
    auto add = [&](const std::string& t) { s += (s.empty() ? "" : " or ") + t; };
    for (auto e : equals)
      add(std::to_string(e.major) + "." + std::to_string(e.minor));
    for (auto a : atLeast)
      add(">= " + std::to_string(a.major) + "." + std::to_string(a.minor));
    for (int m : majorIn)
      add(std::to_string(m) + ".x");
    return s;
  }
};

// Primitive key -> requirement, per table file (cached: tables are immutable).
const std::map<std::string, Requirement>& requirements(const knowledge::KnowledgeBase& kb) {
  static std::mutex mutex;
  static std::map<std::string, std::map<std::string, Requirement>> cache;
  std::lock_guard lock(mutex);
  auto [it, fresh] = cache.try_emplace(kb.source());
  if (!fresh)
    return it->second;
  std::ifstream in(kb.source());
  auto table = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!table.is_object() || !table.contains("primitives") || !table["primitives"].is_object())
    return it->second;
  for (auto& [key, p] : table["primitives"].items()) {
    if (!p.is_object() || !p.contains("hardware") || !p["hardware"].is_object())
      continue;
    const auto& h = p["hardware"];
    Requirement r;
    r.requires_ = h.value("requires", "");
    auto caps = [&](const char* field, std::vector<Capability>& out) {
      if (h.contains(field) && h[field].is_array())
        for (auto& v : h[field])
          if (v.is_string())
            if (auto c = parseCapability(v.get<std::string>()))
              out.push_back(*c);
    };
    caps("capabilityEquals", r.equals);
    caps("capabilityAtLeast", r.atLeast);
    if (h.contains("majorIn") && h["majorIn"].is_array())
      for (auto& v : h["majorIn"])
        if (v.is_number_integer())
          r.majorIn.push_back(v.get<int>());
    it->second.emplace(key, std::move(r));
  }
  return it->second;
}

std::string hopText(const Hop& h) {
  return h.name + " (" + llvm::sys::path::filename(h.definition.path).str() + ":" +
         std::to_string(h.definition.range.start.line + 1) + ")";
}

} // namespace

std::string hardwareBlocks(const knowledge::KnowledgeBase& kb, const std::string& primKey,
                           llvm::StringRef capability) {
  auto cap = parseCapability(capability);
  const auto& reqs = requirements(kb);
  auto it = reqs.find(primKey);
  if (!cap || it == reqs.end() || it->second.allows(*cap))
    return {};
  return it->second.requires_.empty()
             ? "compute capability " + it->second.constraint()
             : it->second.requires_ + " (compute capability " + it->second.constraint() + ")";
}

namespace {

void runHardware(detail::PassContext& ctx) {
  if (ctx.options.gpuComputeCapability.empty() || !ctx.module)
    return;
  auto cap = parseCapability(ctx.options.gpuComputeCapability);
  auto kb = knowledgeFor(ctx.options);
  if (!cap || !kb)
    return;
  const auto& reqs = requirements(*kb);
  if (reqs.empty())
    return;
  std::string capText = ctx.options.gpuComputeCapability;
  std::vector<pd::LaunchOp> launches;
  ctx.module.walk([&](pd::LaunchOp l) {
    if (isMosaicGpuLaunch(l) && isStaticallyReachable(l))
      launches.push_back(l);
  });
  std::set<std::pair<mlir::Operation*, std::string>> seen;
  for (pd::LaunchOp launch : launches) {
    bool compiled = false;
    for (mlir::Attribute a : launch.getPaths())
      compiled |= pd::enumName(a) == pd::path::kCompiled || pd::enumName(a) == pd::path::kUnknown;
    if (!compiled)
      continue; // interpreters run on the CPU: no GPU features needed
    KernelWalk walk(ctx.workspace, *kb, ExecPath::Compiled, launch, ctx.path);
    if (!walk.run())
      continue;
    for (const Binding& b : walk.bindings()) {
      auto it = reqs.find(b.prim->key);
      if (it == reqs.end() || it->second.allows(*cap) || !seen.insert({b.site, b.prim->key}).second)
        continue;
      Finding f;
      f.code = "PLS003";
      f.severity = Severity::Warning;
      f.location = detail::sourceLocation(b.site->getLoc());
      f.message =
          "`" + b.api + "` (primitive " + b.prim->name + ") needs " + it->second.requires_ +
          " (compute capability " + it->second.constraint() +
          "), but this GPU is compute capability " + capText +
          ": compiled Mosaic GPU code using it cannot run here. Run on a GPU that has it, or "
          "choose a code path for this GPU (e.g. wgmma on Hopper, tcgen05_mma on Blackwell).";
      f.executionPath = pathLabel(ExecPath::Compiled);
      f.launch = detail::sourceLocation(launch.getLoc());
      f.related.push_back({*f.launch, "compiled here"});
      for (const Hop& h : b.chain)
        f.callChain.push_back(hopText(h));
      f.jaxVersion = kb->jaxVersion();
      ctx.findings.push_back(std::move(f));
    }
  }
}

} // namespace

} // namespace pallas::analysis::passes

// ---- the pass (Passes.td: pallas-hardware) ------------------------------------
namespace pallas::analysis::passes {
#define GEN_PASS_DECL_PALLASHARDWARE
#define GEN_PASS_DEF_PALLASHARDWARE
#include "pallas/analysis/detail/Passes.h.inc"
namespace {
struct HardwarePass : detail::PallasPass<HardwarePass, impl::PallasHardwareBase> {
  using PallasPass::PallasPass;
  void run(detail::PassContext& ctx) { runHardware(ctx); }
};
const detail::FindingsPassRegistration<HardwarePass> registration;
} // namespace
} // namespace pallas::analysis::passes
