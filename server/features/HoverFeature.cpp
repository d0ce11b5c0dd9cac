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

#include <algorithm>
#include <iterator>
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

// Mosaic GPU registers a lowering rule per (lowering, primitive) thread
// semantics pair, which the table records as "LanexWarpgroup" etc. Said in
// words: under which lowering (compiler_params thread_semantics; Lane is the
// default) and in which code (a whole warpgroup's, or per-warp code inside
// plgpu.WarpMesh) the primitive lowers.
std::string semanticsInWords(const std::vector<std::string>& pairs) {
  std::vector<std::pair<std::string, std::vector<std::string>>> byLowering;
  for (const std::string& pair : pairs) {
    size_t x = pair.find('x');
    std::string lowering = x == std::string::npos ? pair : pair.substr(0, x);
    std::string code = x == std::string::npos ? "" : pair.substr(x + 1);
    auto it = std::find_if(byLowering.begin(), byLowering.end(),
                           [&](const auto& e) { return e.first == lowering; });
    if (it == byLowering.end()) {
      byLowering.push_back({lowering, {}});
      it = std::prev(byLowering.end());
    }
    if (!code.empty())
      it->second.push_back(code == "Warp" ? "per-warp code" : "warpgroup code");
  }
  std::string out;
  for (const auto& [lowering, codes] : byLowering) {
    out += out.empty() ? "" : "; ";
    out += lowering == "Lane" ? "default (Lane) lowering" : lowering + " lowering";
    if (!codes.empty()) {
      out += ", in ";
      for (size_t i = 0; i < codes.size(); ++i)
        out += (i ? " and " : "") + codes[i];
    }
  }
  return out;
}

std::string compiledVerdict(const PrimitiveFacts& p) {
  if (p.mosaicGpuSemantics.empty())
    // wgmma_ref_p and friends: the compiled path discharges accumulators
    // (plgpu.ACC) and run_state refs, and the rule rewrites them into
    // primitives that do lower.
    return p.discharge == DischargeStatus::Exists
               ? "only discharged (its Ref operands must be accumulators or run_state refs)"
               : "no Mosaic GPU lowering rule";
  return "yes (" + semanticsInWords(p.mosaicGpuSemantics) + ")";
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

// What an API binds and where each primitive runs, as short bullet lists
// (hover windows are narrow; a wide table wraps into raw pipes). Empty when
// the API binds no primitive pallas-lsp knows of: the hover then says nothing
// and the user keeps their other servers' hovers.
std::string apiMarkdown(const std::string& api, const KnowledgeBase* kb,
                        const std::string& jaxVersion) {
  std::vector<const PrimitiveFacts*> prims =
      kb ? kb->primitivesOf(api) : std::vector<const PrimitiveFacts*>{};
  if (prims.empty())
    return "";
  std::ostringstream md;
  md << "```python\n" << api << "\n```\n";
  for (const PrimitiveFacts* p : prims) {
    md << "\nBinds `" << p->name << "`:\n"
       << "- compiled (Mosaic GPU): " << compiledVerdict(*p) << "\n"
       << "- `interpret=True`: " << interpretVerdict(*p) << "\n"
       << "- GPU interpret mode: " << gpuInterpretVerdict(*p) << "\n";
    if (p->hardware)
      md << "- hardware: " << p->hardware->description() << "\n";
  }
  md << "\n*Knowledge: JAX " << jaxVersion << "*\n";
  return md.str();
}

bool contains(const analysis::SourceRange& r, const analysis::SourcePos& p) {
  return !(p < r.start) && !(r.end < p);
}

// Hover on a finding's site: its headline and details (the same text as the
// diagnostic, which some editors cut); on a launch: the path it selects and
// what stops it there.
std::string findingsMarkdown(const std::vector<analysis::Finding>& findings,
                             const std::string& path, const analysis::SourcePos& pos) {
  std::string site, launch;
  for (const analysis::Finding& f : findings) {
    if (f.location.path == path && contains(f.location.range, pos))
      site += "**" + f.code + "** " + analysis::headline(f) + "\n\n" + f.message + "\n\n";
    // Launch locations are where the call starts: its whole first line counts.
    bool onLaunch = f.launch && f.launch->path == path && f.launch->range.start.line == pos.line;
    bool onSelector =
        f.selectedAt && f.selectedAt->path == path && f.selectedAt->range.start.line == pos.line;
    if ((onLaunch || onSelector) && !f.executionPath.empty()) {
      if (launch.empty())
        launch = "**This launch** " +
                 std::string(f.severity == analysis::Severity::Error ? "selects " : "may select ") +
                 f.executionPath + ". What stops it there:\n";
      launch += "- " + (f.subject.empty() ? f.code : f.subject) + " at line " +
                std::to_string(f.location.range.start.line + 1) + " (" + f.code + ")\n";
    }
  }
  return site + launch;
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

  std::string markdown = findingsMarkdown(server.findings(path), path, pos);
  std::optional<analysis::SourceRange> range;
  if (auto api = server.project().apiAt(path, pos)) {
    auto kb = knowledgeBase(server.project().knowledgePath());
    std::string facts =
        apiMarkdown(api->api, kb.get(), kb ? kb->jaxVersion() : std::string("unknown"));
    if (!facts.empty()) {
      markdown += (markdown.empty() ? "" : "\n---\n\n") + facts;
      range = api->range;
    }
    // On a launch: its path matrix, one line per path.
    for (const analysis::LaunchPaths& l : server.project().launchPaths(path)) {
      if (l.launch.range.start.line != api->range.start.line)
        continue;
      std::string matrix = "**Paths that can run this launch:**\n\n";
      for (const analysis::LaunchPathVerdict& v : l.paths) {
        std::string name = v.path == "compiled_sm90a"    ? "compiled, Hopper (sm_90a)"
                           : v.path == "compiled_sm100a" ? "compiled, Blackwell (sm_100a)"
                           : v.path == "interpret"       ? "`interpret=True`"
                                                         : "GPU interpret mode";
        matrix += "- " + name + ": " + v.verdict;
        if (v.verdict != "yes" && !v.primitive.empty()) {
          std::string error = v.error.size() > 120 ? v.error.substr(0, 117) + "..." : v.error;
          matrix += " (`" + v.primitive + "`" +
                    (v.at ? " line " + std::to_string(v.at->range.start.line + 1) : "") + ": " +
                    error + ")";
        }
        matrix += "\n";
      }
      markdown += (markdown.empty() ? "" : "\n---\n\n") + matrix;
      range = api->range;
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
