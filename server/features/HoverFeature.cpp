// textDocument/hover on a Pallas / Mosaic GPU call: what it binds (the
// primitives of the knowledge table), which execution paths can run each
// primitive (compiled Mosaic GPU, interpret=True, GPU interpret mode; the
// same facts the discharge passes decide from, stated per primitive), and
// its hardware needs. On a `plgpu.inline_mgpu` region's decorator, name or
// calls it also says whether the region can be rewritten with standard
// Pallas primitives, or which operation prevents it (inside the body it says
// nothing: the user's other servers answer there). On a launch, and on the
// expression that decides its path, the launch's path matrix. Markdown.
#include "LspServer.h"
#include "pallas/analysis/Rewrite.h"
#include "pallas/knowledge/KnowledgeService.h"
#include "pallas/knowledge/PathFacts.h"
#include "pallas/protocol/Text.h"

#include <sstream>

namespace pallas::server::features {
namespace {

using knowledge::ExecutionPath;
using knowledge::KnowledgeBase;
using knowledge::PrimitiveFacts;

// What each path does with the primitive, in the same terms the discharge
// passes decide from (knowledge::explain, PathFacts.h).
std::string verdict(const PrimitiveFacts& p, ExecutionPath path) {
  return knowledge::explain(p, path).text;
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
       << "- compiled (Mosaic GPU): " << verdict(*p, ExecutionPath::Compiled) << "\n"
       << "- `interpret=True`: " << verdict(*p, ExecutionPath::InterpretHlo) << "\n"
       << "- GPU interpret mode: " << verdict(*p, ExecutionPath::InterpretGpu) << "\n";
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
// diagnostic, which some editors cut); on a launch, or on the expression that
// decides its path (Finding::selectedAt: its `interpret=` argument, a
// caller's argument): the path it selects and what stops it there.
std::string findingsMarkdown(const std::vector<analysis::Finding>& findings,
                             const std::string& path, const analysis::SourcePos& pos) {
  std::string site, launch;
  for (const analysis::Finding& f : findings) {
    if (f.location.path == path && contains(f.location.range, pos))
      site += "**" + f.code + "** " + analysis::headline(f) + "\n\n" + f.message + "\n\n";
    // Launch locations are where the call starts: its whole first line counts.
    bool onLaunch = f.launch && f.launch->path == path && f.launch->range.start.line == pos.line;
    bool onSelector =
        f.selectedAt && f.selectedAt->path == path && contains(f.selectedAt->range, pos);
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

// The launches whose path the expression at `pos` decides: the launch's own
// `interpret=` argument (LaunchPaths::selectedAt), and the launches of the
// findings whose path a value there selects (a caller's argument).
bool decidesPathOf(const analysis::LaunchPaths& l, const std::vector<analysis::Finding>& findings,
                   const std::string& path, const analysis::SourcePos& pos) {
  if (l.selectedAt && l.selectedAt->path == path && contains(l.selectedAt->range, pos))
    return true;
  for (const analysis::Finding& f : findings)
    if (f.selectedAt && f.launch && f.selectedAt->path == path &&
        contains(f.selectedAt->range, pos) && f.launch->path == l.launch.path &&
        f.launch->range.start == l.launch.range.start)
      return true;
  return false;
}

// A launch's path matrix, one line per path (hover windows are narrow; a
// table wraps into raw pipes).
std::string matrixMarkdown(const analysis::LaunchPaths& l, bool named) {
  std::string matrix = named ? "**Paths that can run the launch at line " +
                                   std::to_string(l.launch.range.start.line + 1) + ":**\n\n"
                             : std::string("**Paths that can run this launch:**\n\n");
  for (const analysis::LaunchPathVerdict& v : l.paths) {
    std::string name = v.path == "compiled_sm90a"    ? "compiled, Hopper (sm_90a)"
                       : v.path == "compiled_sm100a" ? "compiled, Blackwell (sm_100a)"
                       : v.path == "interpret"       ? "`interpret=True`"
                                                     : "GPU interpret mode";
    matrix += "- " + name + ": " + v.verdict;
    if (v.verdict != "yes" && !v.primitive.empty())
      matrix += " (`" + v.primitive + "`" +
                (v.at ? " line " + std::to_string(v.at->range.start.line + 1) : "") + ": " +
                analysis::shortened(v.error, 160) + ")";
    matrix += "\n";
  }
  if (l.smem) {
    matrix += "\n**Shared memory:** " + l.smem->summary + " (limit: " + l.smem->limitSource + ")\n";
    std::string targets;
    for (const auto& [label, bytes] : l.smem->targetLimits) {
      long long over = l.smem->total - bytes;
      targets += (targets.empty() ? "" : "; ") + label + " " + std::to_string(bytes) + " B" +
                 (over > 0 ? " (" + std::string(l.smem->unknown.empty() ? "" : "at least ") +
                                 std::to_string(over) + " B over)"
                           : "");
    }
    if (!targets.empty())
      matrix += "\n**Limit per target GPU:** " + targets + " (" + l.smem->targetLimitSource + ")\n";
  }
  return matrix;
}

// From the document's snapshot of the version the hover refers to: the
// findings, API call sites and region extents are there when it is stored;
// a launch's path matrix and a region's rewrite are computed on the first
// hover of the version that needs them (under the Project's lock, once) and
// kept in the snapshot.
std::optional<json> hover(LspServer& server, const json& params, const RequestContext& ctx) {
  std::string path = LspServer::documentPath(params);
  const json& position =
      protocol::requireField(params, "position", protocol::json::value_t::object);
  if (!position.contains("line") || !position["line"].is_number_unsigned() ||
      !position.contains("character") || !position["character"].is_number_unsigned())
    return std::nullopt;
  SnapshotPtr snapshot = server.snapshotFor(path, LspServer::SnapshotNeed::Hover, ctx);
  if (!snapshot || !snapshot->hover)
    return std::nullopt;
  const std::string& text = snapshot->text;
  const HoverFacts& facts = *snapshot->hover;
  auto line = position["line"].get<uint32_t>();
  auto bounds = protocol::lineBounds(text, line);
  if (!bounds)
    return std::nullopt;
  std::string_view lineText(text.data() + bounds->first, bounds->second - bounds->first);
  analysis::SourcePos pos{
      line, static_cast<uint32_t>(protocol::unitsToByteColumn(
                lineText, position["character"].get<uint32_t>(), server.client().encoding))};

  std::string markdown = findingsMarkdown(*snapshot->findings, path, pos);
  std::optional<analysis::SourceRange> range;
  bool onLaunch = false;
  if (auto api = analysis::innermostApiAt(facts.apis, pos)) {
    auto kb = knowledge::KnowledgeService::shared().table(facts.knowledgePath);
    std::string apiFacts =
        apiMarkdown(api->api, kb.get(), kb ? kb->jaxVersion() : std::string("unknown"));
    if (!apiFacts.empty()) {
      markdown += (markdown.empty() ? "" : "\n---\n\n") + apiFacts;
      range = api->range;
    }
    // On a launch: its path matrix.
    // Computed on the first hover of this version that needs them (the
    // passes over every launch: seconds on a 10k-line module).
    const std::vector<analysis::LaunchPaths>& launches =
        facts.memo->launches([&] { return server.project().launchPaths(path); });
    for (const analysis::LaunchPaths& l : launches) {
      if (l.launch.range.start.line != api->range.start.line)
        continue;
      markdown += (markdown.empty() ? "" : "\n---\n\n") + matrixMarkdown(l, false);
      range = api->range;
      onLaunch = true;
      break;
    }
  }
  // On the expression that decides a launch's path (its `interpret=` written
  // lines below the call, or a caller's argument): the matrices of the
  // launches it decides. Only on a line that spells `interpret` or where a
  // finding's path is selected, so a hover elsewhere computes no matrix.
  bool mayDecide = lineText.find("interpret") != std::string_view::npos;
  for (const analysis::Finding& f : *snapshot->findings)
    mayDecide |= f.selectedAt && f.selectedAt->path == path && contains(f.selectedAt->range, pos);
  if (!onLaunch && mayDecide) {
    const std::vector<analysis::LaunchPaths>& launches =
        facts.memo->launches([&] { return server.project().launchPaths(path); });
    for (const analysis::LaunchPaths& l : launches) {
      if (!decidesPathOf(l, *snapshot->findings, path, pos))
        continue;
      markdown += (markdown.empty() ? "" : "\n---\n\n") + matrixMarkdown(l, true);
      if (l.selectedAt && l.selectedAt->path == path && contains(l.selectedAt->range, pos))
        range = l.selectedAt->range;
    }
  }
  // On an inline_mgpu region's decorator, name or calls (not on every token
  // of its body): whether the rewrite can replace it.
  if (const HoverFacts::Region* region = facts.regionSpelledAt(pos)) {
    analysis::RewriteResult rewrite = facts.memo->rewrite(region->decorator, [&] {
      return analysis::rewriteInlineMgpu(server.project(), path, region->decorator);
    });
    std::string status = rewrite.fix ? "can be rewritten with standard Pallas primitives (code "
                                       "action \"" +
                                           rewrite.fix->title + "\")"
                                     : rewrite.hoverText();
    if (!status.empty()) {
      if (!markdown.empty())
        markdown += "\n---\n\n";
      markdown += "**`inline_mgpu` region:** " + status + "\n";
    }
  }
  if (markdown.empty())
    return std::nullopt;
  json result{{"contents", {{"kind", "markdown"}, {"value", markdown}}}};
  if (range) // in the snapshot's text, which the client has
    result["range"] = DiagnosticConverter(server.client().encoding, [&](const std::string&) {
                        return std::optional<std::string>(text);
                      }).range(path, *range);
  return result;
}

ServerFeatureRegistration registration{
    {"hover", [](LspServer& server) {
       server.addCapabilities({{"hoverProvider", true}});
       server.addRequest("textDocument/hover",
                         [&server](const json& params, const RequestContext& ctx) {
                           auto result = hover(server, params, ctx);
                           return result ? *result : json(nullptr);
                         });
     }}};

} // namespace
} // namespace pallas::server::features
