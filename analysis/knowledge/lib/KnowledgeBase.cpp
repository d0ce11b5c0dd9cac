#include "pallas/knowledge/KnowledgeBase.h"

#include "ChildProcess.h"
#include "PrivateCache.h"
#include "pallas/knowledge/JaxEnvironment.h" // isSafeVersionText

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace pallas::knowledge {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> strings(const json& j, const char* field) {
  std::vector<std::string> out;
  if (auto it = j.find(field); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string())
        out.push_back(v.get<std::string>());
  return out;
}

std::string str(const json& j, const char* field) {
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

DischargeStatus parseDischarge(const std::string& s) {
  if (s == "exists")
    return DischargeStatus::Exists;
  if (s == "raises")
    return DischargeStatus::Raises;
  return DischargeStatus::None;
}

GpuInterpretHandling parseHandling(const std::string& s) {
  if (s == "arm")
    return GpuInterpretHandling::Arm;
  if (s == "arm-noop")
    return GpuInterpretHandling::ArmNoop;
  if (s == "arm-raises")
    return GpuInterpretHandling::ArmRaises;
  if (s == "fallback")
    return GpuInterpretHandling::Fallback;
  return GpuInterpretHandling::Unknown;
}

std::vector<ComputeCapability> capabilities(const json& j, const char* field) {
  std::vector<ComputeCapability> out;
  for (const std::string& text : strings(j, field))
    if (auto c = ComputeCapability::parse(text))
      out.push_back(*c);
  return out;
}

HardwareRequirement hardwareRequirement(const json& h) {
  HardwareRequirement r;
  r.requires_ = str(h, "requires");
  r.gate = str(h, "gate");
  r.source = str(h, "source");
  r.equals = capabilities(h, "capabilityEquals");
  r.atLeast = capabilities(h, "capabilityAtLeast");
  if (auto m = h.find("majorIn"); m != h.end() && m->is_array())
    for (const auto& v : *m)
      if (v.is_number_integer())
        r.majorIn.push_back(v.get<int>());
  return r;
}

} // namespace

KnowledgeBase::Loaded KnowledgeBase::fromJson(const json& t, const std::string& source) {
  // A table is data from disk (a cache another version or a crash wrote):
  // a wrongly typed field makes it unusable, never an exception for the
  // caller (a worker thread would abort the server).
  try {
    return fromJsonChecked(t, source);
  } catch (const json::exception& e) {
    return Loaded::failure(source + ": wrongly typed field (" + e.what() + ")");
  }
}

KnowledgeBase::Loaded KnowledgeBase::fromJsonChecked(const json& t, std::string source) {
  Loaded out;
  if (!t.is_object()) {
    out.error = source + ": not a JSON object";
    return out;
  }
  int schema = t.value("schemaVersion", 0);
  if (schema != kSchemaVersion) {
    out.error = source + ": schema version " + std::to_string(schema) + ", expected " +
                std::to_string(kSchemaVersion);
    return out;
  }
  KnowledgeBase kb;
  kb.schemaVersion_ = schema;
  kb.source_ = std::move(source);
  kb.jaxVersion_ = str(t, "jax_version");
  kb.jaxlibVersion_ = str(t, "jaxlib_version");
  kb.readMosaicGpuFacts(t);
  kb.readApisAndPrimitives(t);
  kb.readOtherFacts(t);
  out.base = std::move(kb);
  return out;
}

// Mosaic GPU's defaults, resource numbers, shape rules and SMEM model.
void KnowledgeBase::readMosaicGpuFacts(const json& t) {
  if (auto d = t.find("mosaicGpuDefaults"); d != t.end() && d->is_object()) {
    defaultLowering_ = str(*d, "loweringSemantics");
    if (auto p = d->find("pallasCallWithoutParams"); p != d->end() && p->is_object()) {
      PallasCallGpuDefault g;
      g.flag = str(*p, "flag");
      g.env = str(*p, "env");
      if (auto v = p->find("default"); v != p->end() && v->is_boolean())
        g.flagDefault = v->get<bool>();
      if (!g.flag.empty() || str(*p, "backend") == "triton")
        pallasCallWithoutParams_ = std::move(g);
    }
  }
  if (auto r = t.find("mosaicGpuResources"); r != t.end() && r->is_object())
    for (const auto& [name, v] : r->items())
      if (v.is_number_integer())
        resources_[name] = v.get<long long>();
  if (auto r = t.find("mosaicGpuRules"); r != t.end() && r->is_object())
    mosaicGpuRules_ = std::make_shared<const nlohmann::json>(*r);
  if (auto r = t.find("mosaicGpuSmemModel"); r != t.end() && r->is_object())
    smemModel_ = std::make_shared<const nlohmann::json>(*r);
}

// The APIs, the primitives they bind, and the numeric functions a kernel calls.
void KnowledgeBase::readApisAndPrimitives(const json& t) {
  if (auto it = t.find("apis"); it != t.end() && it->is_object())
    for (const auto& [name, a] : it->items()) {
      ApiFacts& facts = apis_[name] =
          ApiFacts{name, str(a, "kind"), strings(a, "binds"), strings(a, "bindsTransitive"),
                   a.value("returnsBeforeBind", false)};
      if (auto g = a.find("returnsBeforeBindIf"); g != a.end() && g->is_object()) {
        facts.returnsUnlessShapeOf = g->value("shapeOf", -1);
        facts.returnsUnlessShapeEquals = g->value("equals", -1);
      }
    }
  if (auto it = t.find("primitives"); it != t.end() && it->is_object())
    for (const auto& [key, p] : it->items()) {
      PrimitiveFacts f;
      f.key = key;
      f.name = str(p, "name");
      f.module = str(p, "module");
      if (auto d = p.find("discharge"); d != p.end() && d->is_object()) {
        f.discharge = parseDischarge(str(*d, "status"));
        f.partialDischarge = str(*d, "kind") == "partial";
        f.dischargeException = str(*d, "exception");
        f.dischargeMessage = str(*d, "message");
        f.dischargeBinds = strings(*d, "binds");
        if (auto w = d->find("writesOperands"); w != d->end() && w->is_array()) {
          std::vector<int> ops;
          for (const auto& v : *w)
            if (v.is_number_integer())
              ops.push_back(v.get<int>());
          f.dischargeWrites = std::move(ops);
        }
      }
      if (auto g = p.find("gpuInterpret"); g != p.end() && g->is_object()) {
        f.gpuInterpret = parseHandling(str(*g, "handling"));
        f.gpuInterpretMessage = str(*g, "message");
        f.gpuInterpretFallbackAssertsRef =
            str(*g, "fallbackOutcome") == "abstract-eval-asserts-ref";
        f.gpuInterpretIndexingAttribute = str(*g, "transformsReadAsIndexing");
      }
      f.cpuLowering = p.value("cpuLowering", false);
      f.mosaicGpuSemantics = strings(p, "mosaicGpuLowering");
      if (auto m = p.find("mosaicGpuLowering"); m != p.end() && m->is_array())
        f.mosaicGpuKnown = true;
      f.effects = strings(p, "effects");
      if (auto h = p.find("hardware"); h != p.end() && h->is_object())
        f.hardware = hardwareRequirement(*h);
      f.getBindParamsOverridden = p.value("getBindParamsOverridden", false);
      primitives_[key] = std::move(f);
    }
  // Numeric functions a kernel calls (jnp.sqrt binds sqrt), traced by the
  // extractor: their primitives take values, never Refs, so only lowering
  // decides (XLA's for both interpret modes, Mosaic GPU's when compiled).
  // Keys are "lax:<name>" beside the Pallas primitives; a Pallas API of the
  // same name keeps its own facts.
  if (auto it = t.find("numericPrimitives"); it != t.end() && it->is_object())
    for (const auto& [name, p] : it->items()) {
      PrimitiveFacts f;
      f.key = "lax:" + name;
      f.name = name;
      f.module = "jax.lax";
      f.gpuInterpret = GpuInterpretHandling::Fallback;
      f.cpuLowering = p.value("cpuLowering", false);
      f.mosaicGpuSemantics = strings(p, "mosaicGpuLowering");
      f.mosaicGpuKnown = p.contains("mosaicGpuLowering") && p["mosaicGpuLowering"].is_array();
      primitives_.emplace(f.key, std::move(f));
    }
  if (auto it = t.find("numericApis"); it != t.end() && it->is_object())
    for (const auto& [name, a] : it->items()) {
      std::vector<std::string> binds;
      for (const std::string& prim : strings(a, "binds"))
        binds.push_back("lax:" + prim);
      apis_.emplace(name, ApiFacts{name, "function", std::move(binds), {}, false});
    }
}

// Ref indexing, higher-order and custom-derivative APIs, resource
// estimators, GPU interpret allocations, error templates, InterpretGPUParams.
void KnowledgeBase::readOtherFacts(const json& t) {
  if (auto it = t.find("refIndexing"); it != t.end() && it->is_object())
    for (const auto& [alloc, r] : it->items()) {
      RefIndexing ri;
      if (r.contains("getitem") && r["getitem"].is_array())
        ri.getitem = strings(r, "getitem");
      if (r.contains("setitem") && r["setitem"].is_array())
        ri.setitem = strings(r, "setitem");
      refIndexing_[alloc] = std::move(ri);
    }
  if (auto it = t.find("higherOrderApis"); it != t.end() && it->is_object())
    for (const auto& [api, h] : it->items())
      if (h.is_object())
        higherOrderApis_[api] = strings(h, "binds");
  if (auto it = t.find("mosaicGpuResourceEstimators"); it != t.end() && it->is_array()) {
    std::vector<std::string> names;
    for (const auto& v : *it)
      if (v.is_string())
        names.push_back(v.get<std::string>());
    resourceEstimators_ = std::move(names);
  }
  if (auto it = t.find("gpuInterpretAllocates"); it != t.end() && it->is_object())
    for (const auto& [launch, names] : it->items())
      if (names.is_array())
        gpuInterpretAllocates_[launch] = strings(*it, launch.c_str());
  if (auto it = t.find("customDerivativeApis"); it != t.end() && it->is_object())
    for (const auto& [api, c] : it->items()) {
      if (!c.is_object() || str(c, "binds").empty())
        continue;
      CustomDerivativeFacts f;
      f.binds = str(c, "binds");
      f.wrapper = str(c, "wrapper");
      f.via = strings(c, "via");
      f.conditional = c.value("conditional", true);
      f.module = str(c, "module");
      f.line = c.value("line", 0);
      if (auto in = c.find("inline"); in != c.end() && in->is_object()) {
        f.inlineParams = strings(*in, "params");
        f.inlineExpr = str(*in, "expr");
      }
      customDerivatives_[api] = std::move(f);
    }
  if (auto it = t.find("errorTemplates"); it != t.end() && it->is_object())
    for (const auto& [key, e] : it->items())
      if (e.value("found", false))
        errors_[key] = ErrorTemplate{
            key,
            str(e, "template"),
            str(e, "regex"),
            str(e, "exception"),
            str(e, "file"),
            e.value("line", 0),
            e.contains("handledCases") ? std::optional(strings(e, "handledCases")) : std::nullopt};
  if (auto p = t.find("interpretGPUParams"); p != t.end() && p->is_object())
    if (auto fields = p->find("fields"); fields != p->end() && fields->is_array())
      for (const auto& f : *fields)
        interpretOptions_.push_back(
            {str(f, "name"), str(f, "type"), f.contains("default") ? f["default"].dump() : "null"});
}

KnowledgeBase::Loaded KnowledgeBase::fromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return Loaded::failure("cannot read " + path);
  json t = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (t.is_discarded())
    return Loaded::failure(path + ": invalid JSON");
  return fromJson(t, path);
}

std::string KnowledgeBase::bundledPath() {
  if (const char* dir = std::getenv("PALLAS_LSP_KNOWLEDGE_DIR"))
    return (fs::path(dir) / PALLAS_KNOWLEDGE_BUNDLED_NAME).string();
  // Installed layout: <bindir>/../share/pallas-lsp/knowledge/; else the source tree.
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share/pallas-lsp/knowledge" /
                         PALLAS_KNOWLEDGE_BUNDLED_NAME;
    if (fs::exists(installed, ec))
      return installed.string();
  }
  return (fs::path(PALLAS_KNOWLEDGE_SOURCE_DIR) / PALLAS_KNOWLEDGE_BUNDLED_NAME).string();
}

std::string KnowledgeBase::extractorPath() {
  return (fs::path(bundledPath()).parent_path() / "extract_knowledge.py").string();
}

std::string KnowledgeBase::defaultCacheDir() {
  // A relative XDG_CACHE_HOME is ignored, as the XDG spec says: it would
  // put the cache wherever the process happens to run (a repository).
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return (fs::path(xdg) / "pallas-lsp").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home ? home : "/tmp") / ".cache/pallas-lsp").string();
}

KnowledgeBase::Loaded KnowledgeBase::bundled() {
  return fromFile(bundledPath());
}

namespace {

constexpr size_t kMaxTableBytes = 64u << 20;

// A cached table: read without following links; one that cannot be read
// or used (truncated, wrongly typed, another JAX) is removed, saying why.
KnowledgeBase::Loaded loadCache(const fs::path& file, const std::string& version,
                                std::vector<std::string>& notes) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec)))
    return {};
  std::string error;
  std::optional<std::string> text = detail::readPrivateFile(file.string(), kMaxTableBytes, &error);
  KnowledgeBase::Loaded c;
  if (text) {
    json t = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    c = t.is_discarded() ? KnowledgeBase::Loaded::failure(file.string() + ": invalid JSON")
                         : KnowledgeBase::fromJson(t, file.string());
    if (c && c.base->jaxVersion() != version)
      c = KnowledgeBase::Loaded::failure(file.string() + ": describes JAX " + c.base->jaxVersion() +
                                         ", not " + version);
    error = c ? "" : c.error;
  }
  if (c)
    return c;
  notes.push_back("cached table discarded: " + error);
  fs::remove(file, ec); // a fresh extraction replaces it
  return {};
}

// Runs an extractor and keeps its table (in the cache when it can be
// written; a full disk or a read-only cache only costs the caching).
KnowledgeBase::Loaded extractInto(const std::vector<std::string>& argv, const std::string& cacheDir,
                                  const std::string& cacheName, std::chrono::seconds timeout,
                                  std::vector<std::string>& notes, std::string& error) {
  detail::ChildResult r = detail::runCaptured(argv, timeout, kMaxTableBytes);
  if (!r.ok) {
    error = r.error;
    return {};
  }
  json t = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  if (t.is_discarded()) {
    error = argv[0] + " wrote no JSON table";
    return {};
  }
  fs::path cached = fs::path(cacheDir) / cacheName;
  KnowledgeBase::Loaded fresh = KnowledgeBase::fromJson(t, cached.string());
  if (!fresh) {
    error = "extracted table unusable: " + fresh.error;
    return {};
  }
  // The analysis loads tables by path: a table that cannot be stored (full
  // disk, unwritable cache) cannot be used; what was cached before stays.
  std::string dirError =
      cacheDir.empty() ? "no usable cache directory" : detail::preparePrivateDir(cacheDir);
  std::string writeError =
      dirError.empty() ? detail::writeFileAtomically(cacheDir, cacheName, r.output) : dirError;
  if (!writeError.empty()) {
    error = "the extracted table could not be stored: " + writeError;
    return {};
  }
  return fresh;
}

} // namespace

KnowledgeBase::Loaded KnowledgeBase::forPython(const std::string& python,
                                               const std::string& cacheDir,
                                               std::chrono::seconds timeout) {
  std::vector<std::string> notes;
  auto fallback = [&](std::string reason) {
    Loaded b = bundled();
    b.fallbackReason = std::move(reason);
    b.how = "bundled";
    b.notes = notes;
    return b;
  };
  if (std::string err = detail::preparePrivateDir(cacheDir); !err.empty())
    notes.push_back("knowledge cache unusable: " + err);
  else
    detail::cleanStaleFiles(cacheDir);
  // The version costs a metadata lookup, not a JAX import: cheap enough per
  // start. Its answer comes through a pipe, never a file.
  detail::ChildResult v =
      detail::runCaptured({python, "-c", "import importlib.metadata as m; print(m.version('jax'))"},
                          std::chrono::duration_cast<std::chrono::milliseconds>(timeout), 4096);
  if (!v.ok)
    return fallback("cannot ask " + python + " for its JAX version: " + v.error);
  std::string version = v.output.substr(0, v.output.find('\n'));
  while (!version.empty() && (version.back() == '\r' || version.back() == ' '))
    version.pop_back();
  if (!isSafeVersionText(version))
    return fallback(python + " has no usable JAX (version '" + version + "')");
  const std::string name = "knowledge-" + version + ".json";
  if (Loaded c = loadCache(fs::path(cacheDir) / name, version, notes)) {
    c.how = "cache " + c.base->source() + " (import-based, " + python + ")";
    c.notes = notes;
    return c;
  }
  std::string error;
  Loaded fresh = extractInto({python, extractorPath()}, cacheDir, name, timeout, notes, error);
  if (!fresh)
    return fallback("extracting knowledge with " + python + " failed: " + error);
  fresh.how = "import-based (" + python + ")";
  fresh.notes = notes;
  return fresh;
}

std::string KnowledgeBase::bundledPathFor(const std::string& version) {
  if (!isSafeVersionText(version))
    return {};
  fs::path p = fs::path(bundledPath()).parent_path() / ("jax-" + version + ".json");
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? p.string() : std::string();
}

std::string KnowledgeBase::pinnedPython() {
  if (const char* p = std::getenv("PALLAS_LSP_KNOWLEDGE_PYTHON"); p && *p)
    return p;
#ifdef PALLAS_KNOWLEDGE_PINNED_PYTHON
  if (::access(PALLAS_KNOWLEDGE_PINNED_PYTHON, X_OK) == 0)
    return PALLAS_KNOWLEDGE_PINNED_PYTHON;
#endif
  return "/usr/bin/python3";
}

std::string KnowledgeBase::staticExtractorPath() {
  return (fs::path(bundledPath()).parent_path() / "extract_knowledge_static.py").string();
}

KnowledgeBase::Loaded KnowledgeBase::forEnvironment(const KnowledgeRequest& request) {
  std::vector<std::string> notes;
  auto finish = [&](Loaded l, std::string how) {
    l.how = std::move(how);
    l.notes.insert(l.notes.begin(), notes.begin(), notes.end());
    return l;
  };
  auto fallback = [&](std::string reason) {
    Loaded b = bundled();
    b.fallbackReason = std::move(reason);
    return finish(std::move(b), "bundled");
  };
  std::optional<JaxLocation> jax = locateJax(request.environment);
  if (!jax) {
    if (!request.python.empty()) { // a named interpreter whose JAX is not laid out as expected
      Loaded imported = forPython(request.python, request.cacheDir, request.timeout);
      std::string how = imported.how;
      return finish(std::move(imported), std::move(how));
    }
    return fallback("no JAX found in the environment (searched: the python setting's "
                    "environment, the workspace's .venv/venv/env, $VIRTUAL_ENV, $CONDA_PREFIX)");
  }
  if (std::string path = bundledPathFor(jax->version); !path.empty()) {
    Loaded b = fromFile(path);
    if (b)
      return finish(std::move(b), "bundled table for JAX " + jax->version + " (found at " +
                                      jax->sitePackages + ")");
  }
  const std::string name = "knowledge-static-" + jax->version + ".json";
  bool cacheUsable = false;
  if (!request.cacheDir.empty()) {
    std::string err = detail::preparePrivateDir(request.cacheDir);
    if (err.empty()) {
      cacheUsable = true;
      detail::cleanStaleFiles(request.cacheDir);
    } else {
      notes.push_back("knowledge cache unusable: " + err);
    }
  }
  if (cacheUsable)
    if (Loaded c = loadCache(fs::path(request.cacheDir) / name, jax->version, notes))
      return finish(std::move(c), "cache " + (fs::path(request.cacheDir) / name).string() +
                                      " (static read of " + jax->sitePackages + ")");
  std::string error;
  Loaded fresh = extractInto({pinnedPython(), "-I", staticExtractorPath(), jax->sitePackages},
                             cacheUsable ? request.cacheDir : std::string(), name, request.timeout,
                             notes, error);
  if (fresh)
    return finish(std::move(fresh), "static read of " + jax->sitePackages);
  notes.push_back("static read of " + jax->sitePackages + " failed: " + error);
  if (!request.python.empty()) {
    Loaded imported = forPython(request.python, request.cacheDir, request.timeout);
    std::string how = imported.how;
    return finish(std::move(imported), std::move(how));
  }
  return fallback("JAX " + jax->version + " at " + jax->sitePackages +
                  " could not be read statically (" + error +
                  ") and its interpreter may not be executed");
}

const ApiFacts* KnowledgeBase::api(const std::string& name) const {
  auto it = apis_.find(name);
  return it == apis_.end() ? nullptr : &it->second;
}

const PrimitiveFacts* KnowledgeBase::primitive(const std::string& key) const {
  auto it = primitives_.find(key);
  return it == primitives_.end() ? nullptr : &it->second;
}

std::vector<const PrimitiveFacts*> KnowledgeBase::primitivesOf(const std::string& apiName) const {
  std::vector<const PrimitiveFacts*> out;
  if (const ApiFacts* a = api(apiName)) {
    for (const auto* list : {&a->binds, &a->bindsTransitive})
      for (const auto& key : *list)
        if (const PrimitiveFacts* p = primitive(key))
          out.push_back(p);
  }
  return out;
}

std::optional<bool> KnowledgeBase::hasMosaicGpuRule(const PrimitiveFacts& p,
                                                    const std::vector<std::string>& lowering,
                                                    const std::vector<std::string>& primitive) {
  if (!p.mosaicGpuKnown)
    return std::nullopt;
  for (const auto& l : lowering)
    for (const auto& q : primitive)
      if (std::find(p.mosaicGpuSemantics.begin(), p.mosaicGpuSemantics.end(), l + "x" + q) !=
          p.mosaicGpuSemantics.end())
        return true;
  return false;
}

std::vector<std::string> KnowledgeBase::higherOrderBinds(const std::string& api) const {
  auto it = higherOrderApis_.find(api);
  return it == higherOrderApis_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::vector<std::string>>
KnowledgeBase::gpuInterpretAllocates(const std::string& launch) const {
  auto it = gpuInterpretAllocates_.find(launch);
  if (it == gpuInterpretAllocates_.end())
    return std::nullopt;
  return it->second;
}

const CustomDerivativeFacts* KnowledgeBase::customDerivative(const std::string& api) const {
  auto it = customDerivatives_.find(api);
  return it == customDerivatives_.end() ? nullptr : &it->second;
}

std::optional<bool> KnowledgeBase::hasResourceEstimator(const std::string& name) const {
  if (!resourceEstimators_)
    return std::nullopt;
  return std::find(resourceEstimators_->begin(), resourceEstimators_->end(), name) !=
         resourceEstimators_->end();
}

const RefIndexing* KnowledgeBase::refIndexing(const std::string& allocation) const {
  auto it = refIndexing_.find(allocation);
  return it == refIndexing_.end() ? nullptr : &it->second;
}

const ErrorTemplate* KnowledgeBase::errorTemplate(const std::string& key) const {
  auto it = errors_.find(key);
  return it == errors_.end() ? nullptr : &it->second;
}

std::optional<std::string>
KnowledgeBase::formatError(const std::string& key, const std::vector<std::string>& values) const {
  const ErrorTemplate* t = errorTemplate(key);
  if (!t)
    return std::nullopt;
  std::string out;
  size_t next = 0, pos = 0;
  const std::string& s = t->text;
  while (pos < s.size()) {
    size_t open = s.find('{', pos);
    size_t close = open == std::string::npos ? open : s.find('}', open);
    if (close == std::string::npos) {
      out += s.substr(pos);
      break;
    }
    out += s.substr(pos, open - pos);
    out += next < values.size() ? values[next] : s.substr(open, close - open + 1);
    ++next;
    pos = close + 1;
  }
  return out;
}

bool KnowledgeBase::hasInterpretGpuOption(const std::string& name) const {
  return std::any_of(interpretOptions_.begin(), interpretOptions_.end(),
                     [&](const InterpretOption& o) { return o.name == name; });
}

} // namespace pallas::knowledge
