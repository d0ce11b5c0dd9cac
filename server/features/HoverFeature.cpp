// textDocument/hover on a Pallas / Mosaic GPU call: what it binds (the
// primitives of the knowledge table), which execution paths can run each
// primitive (compiled Mosaic GPU, interpret=True, GPU interpret mode; the
// same facts the discharge passes decide from, stated per primitive), and
// its hardware needs. Inside a `plgpu.inline_mgpu` region it also says
// whether the region can be rewritten with standard Pallas primitives, or
// which operation prevents it. Markdown.
#include "LspServer.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/knowledge/KnowledgeBase.h"
#include "pallas/protocol/Text.h"

#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace pallas::server::features {
namespace {

using knowledge::DischargeStatus;
using knowledge::GpuInterpretHandling;
using knowledge::KnowledgeBase;
using knowledge::PrimitiveFacts;

// The table the passes decide from: the configured one (the user's JAX, set
// by the GPU runner feature at initialized) when it loads, else the bundled
// one. Tables are immutable: each is loaded once per process.
std::shared_ptr<const KnowledgeBase> knowledgeBase(const std::string& configured) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const KnowledgeBase>> cache;
  auto load = [](const std::string& path) -> std::shared_ptr<const KnowledgeBase> {
    if (auto it = cache.find(path); it != cache.end())
      return it->second;
    auto loaded = path.empty() ? KnowledgeBase::bundled() : KnowledgeBase::fromFile(path);
    std::shared_ptr<const KnowledgeBase> base;
    if (loaded)
      base = std::make_shared<const KnowledgeBase>(std::move(*loaded.base));
    cache.emplace(path, base); // a failed load is remembered too
    return base;
  };
  std::lock_guard lock(mutex);
  if (!configured.empty())
    if (auto base = load(configured))
      return base;
  return load("");
}

bool touchesRefs(const PrimitiveFacts& p) {
  for (const std::string& e : p.effects)
    if (e == "ReadEffect" || e == "WriteEffect")
      return true;
  return false;
}

// Primitives JAX evaluates from the grid when they are bound (PathRules.cpp).
bool resolvedAtBind(const PrimitiveFacts& p) {
  return p.name == "program_id" || p.name == "num_programs";
}

std::string compiledVerdict(const PrimitiveFacts& p) {
  if (p.mosaicGpuSemantics.empty())
    // wgmma_ref_p and friends: the compiled path discharges accumulators
    // (plgpu.ACC) and run_state refs, and the rule rewrites them into
    // primitives that do lower.
    return p.discharge == DischargeStatus::Exists
               ? "only discharged (its Ref operands must be accumulators or run_state refs)"
               : "no Mosaic GPU lowering rule";
  std::string out = "yes (";
  for (size_t i = 0; i < p.mosaicGpuSemantics.size(); ++i)
    out += (i ? ", " : "") + p.mosaicGpuSemantics[i];
  return out + ")";
}

std::string noRefsVerdict(const PrimitiveFacts& p) {
  return p.cpuLowering || resolvedAtBind(p) ? "yes" : "no: no CPU lowering rule";
}

// interpret=True discharges every kernel Ref: a binding with Ref operands
// needs a discharge rule; one without is lowered to XLA for the CPU.
std::string interpretVerdict(const PrimitiveFacts& p) {
  std::string refs;
  switch (p.discharge) {
  case DischargeStatus::Exists:
    refs = "yes (discharged)";
    break;
  case DischargeStatus::None:
    refs = "no: no state discharge rule";
    break;
  case DischargeStatus::Raises:
    refs = "no: `" +
           (p.dischargeMessage.empty() ? p.name + " does not support discharge."
                                       : p.dischargeMessage) +
           "`";
    break;
  }
  if (touchesRefs(p) && p.discharge != DischargeStatus::Raises)
    return refs;
  return "with Ref operands: " + refs + "; without: " + noRefsVerdict(p);
}

std::string gpuInterpretVerdict(const PrimitiveFacts& p) {
  switch (p.gpuInterpret) {
  case GpuInterpretHandling::Arm:
  case GpuInterpretHandling::ArmNoop:
    return "yes";
  case GpuInterpretHandling::ArmRaises:
    return "no: `" +
           (p.gpuInterpretMessage.empty() ? p.name + " is not supported" : p.gpuInterpretMessage) +
           "`";
  case GpuInterpretHandling::Fallback:
    return p.cpuLowering ? "yes (re-bound, CPU lowering)" : "no: no rule and no CPU lowering";
  case GpuInterpretHandling::Unknown:
    break;
  }
  return "unknown";
}

std::string apiMarkdown(const std::string& api, const KnowledgeBase* kb,
                        const std::string& jaxVersion) {
  std::ostringstream md;
  md << "```python\n" << api << "\n```\n";
  std::vector<const PrimitiveFacts*> prims =
      kb ? kb->primitivesOf(api) : std::vector<const PrimitiveFacts*>{};
  if (prims.empty()) {
    md << "\nBinds no primitive pallas-lsp knows of";
    if (kb && !kb->api(api))
      md << " (not in the knowledge table)";
    md << ".\n";
  } else {
    md << "\nBinds ";
    for (size_t i = 0; i < prims.size(); ++i)
      md << (i ? ", " : "") << "`" << prims[i]->name << "`";
    md << ".\n\n| primitive | compiled (Mosaic GPU) | `interpret=True` | GPU interpret mode |\n"
          "|---|---|---|---|\n";
    for (const PrimitiveFacts* p : prims)
      md << "| `" << p->name << "` | " << compiledVerdict(*p) << " | " << interpretVerdict(*p)
         << " | " << gpuInterpretVerdict(*p) << " |\n";
    std::vector<std::string> hardware;
    for (const PrimitiveFacts* p : prims)
      if (p->hardware)
        hardware.push_back("`" + p->name + "`: " + *p->hardware);
    md << "\n**Hardware:** ";
    if (hardware.empty())
      md << "no specific GPU generation required.\n";
    for (size_t i = 0; i < hardware.size(); ++i)
      md << (i ? "; " : "") << hardware[i];
    if (!hardware.empty())
      md << "\n";
  }
  md << "\n*Knowledge: JAX " << jaxVersion << "*\n";
  return md.str();
}

std::optional<json> hover(LspServer& server, const json& params) {
  std::string path = LspServer::documentPath(params);
  const json& position =
      protocol::requireField(params, "position", protocol::json::value_t::object);
  if (!server.project().hasDocument(path))
    return std::nullopt;
  auto text = server.textOf(path);
  if (!text || !position.contains("line") || !position["line"].is_number_unsigned() ||
      !position.contains("character") || !position["character"].is_number_unsigned())
    return std::nullopt;
  auto line = position["line"].get<uint32_t>();
  auto bounds = protocol::lineBounds(*text, line);
  if (!bounds)
    return std::nullopt;
  std::string_view lineText(text->data() + bounds->first, bounds->second - bounds->first);
  analysis::SourcePos pos{
      line, static_cast<uint32_t>(protocol::unitsToByteColumn(
                lineText, position["character"].get<uint32_t>(), server.client().encoding))};

  std::string markdown;
  std::optional<analysis::SourceRange> range;
  if (auto api = server.project().apiAt(path, pos)) {
    auto kb = knowledgeBase(server.project().knowledgePath());
    markdown = apiMarkdown(api->api, kb.get(), kb ? kb->jaxVersion() : std::string("unknown"));
    range = api->range;
    // On a launch: its path matrix, one line per path.
    for (const analysis::LaunchPaths& l : server.project().launchPaths(path)) {
      if (l.launch.range.start.line != api->range.start.line)
        continue;
      markdown += "\n---\n\n**Paths that can run this launch:**\n\n";
      for (const analysis::LaunchPathVerdict& v : l.paths) {
        std::string name = v.path == "compiled_sm90a"    ? "compiled, Hopper (sm_90a)"
                           : v.path == "compiled_sm100a" ? "compiled, Blackwell (sm_100a)"
                           : v.path == "interpret"       ? "`interpret=True`"
                                                         : "GPU interpret mode";
        markdown += "- " + name + ": " + v.verdict;
        if (v.verdict != "yes" && !v.primitive.empty()) {
          std::string error = v.error.size() > 120 ? v.error.substr(0, 117) + "..." : v.error;
          markdown += " (`" + v.primitive + "`" +
                      (v.at ? " line " + std::to_string(v.at->range.start.line + 1) : "") + ": " +
                      error + ")";
        }
        markdown += "\n";
      }
      break;
    }
  }
  analysis::RewriteResult rewrite = analysis::rewriteInlineMgpu(server.project(), path, pos);
  std::string status = rewrite.fix ? "can be rewritten with standard Pallas primitives (code "
                                     "action \"" +
                                         rewrite.fix->title + "\")"
                                   : rewrite.hoverText();
  if (!status.empty()) {
    if (!markdown.empty())
      markdown += "\n---\n\n";
    markdown += "**`inline_mgpu` region:** " + status + "\n";
  }
  if (markdown.empty())
    return std::nullopt;
  json result{{"contents", {{"kind", "markdown"}, {"value", markdown}}}};
  if (range)
    result["range"] = server.converter().range(path, *range);
  return result;
}

FeatureRegistration registration{{"hover", [](LspServer& server) {
                                    server.addCapabilities({{"hoverProvider", true}});
                                    server.addRequest(
                                        "textDocument/hover",
                                        [&server](const json& params, const RequestContext&) {
                                          auto result = hover(server, params);
                                          return result ? *result : json(nullptr);
                                        });
                                  }}};

} // namespace
} // namespace pallas::server::features
