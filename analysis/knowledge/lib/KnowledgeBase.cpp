#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace pallas::knowledge {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> strings(const json& j, const char* field) {
  std::vector<std::string> out;
  if (auto it = j.find(field); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string str(const json& j, const char* field) {
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

DischargeStatus parseDischarge(const std::string& s) {
  if (s == "exists") return DischargeStatus::Exists;
  if (s == "raises") return DischargeStatus::Raises;
  return DischargeStatus::None;
}

GpuInterpretHandling parseHandling(const std::string& s) {
  if (s == "arm") return GpuInterpretHandling::Arm;
  if (s == "arm-noop") return GpuInterpretHandling::ArmNoop;
  if (s == "arm-raises") return GpuInterpretHandling::ArmRaises;
  if (s == "fallback") return GpuInterpretHandling::Fallback;
  return GpuInterpretHandling::Unknown;
}

// Runs argv (no shell) with stdout to `outPath`; kills it after `timeout`.
// Returns "" on exit status 0, otherwise why it failed.
std::string runBounded(const std::vector<std::string>& argv, const std::string& outPath,
                       std::chrono::seconds timeout) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return "cannot start " + argv[0] + ": " + std::strerror(rc);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return "waitpid failed";
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return argv[0] + " timed out after " + std::to_string(timeout.count()) + "s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return argv[0] + " failed (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
}

std::string readFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool safeVersion(const std::string& v) {
  return !v.empty() && v.size() < 64 &&
         std::all_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '_'; });
}

} // namespace

KnowledgeBase::Loaded KnowledgeBase::fromJson(const json& t, std::string source) {
  Loaded out;
  if (!t.is_object()) {
    out.error = source + ": not a JSON object";
    return out;
  }
  int schema = t.value("schemaVersion", 0);
  if (schema != kSchemaVersion) {
    out.error = source + ": schema version " + std::to_string(schema) + ", expected " + std::to_string(kSchemaVersion);
    return out;
  }
  KnowledgeBase kb;
  kb.schemaVersion_ = schema;
  kb.source_ = std::move(source);
  kb.jaxVersion_ = str(t, "jax_version");
  kb.jaxlibVersion_ = str(t, "jaxlib_version");
  if (auto it = t.find("apis"); it != t.end() && it->is_object())
    for (const auto& [name, a] : it->items()) {
      ApiFacts& facts = kb.apis_[name] = ApiFacts{name, str(a, "kind"), strings(a, "binds"),
                                                  strings(a, "bindsTransitive"),
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
            if (v.is_number_integer()) ops.push_back(v.get<int>());
          f.dischargeWrites = std::move(ops);
        }
      }
      if (auto g = p.find("gpuInterpret"); g != p.end() && g->is_object()) {
        f.gpuInterpret = parseHandling(str(*g, "handling"));
        f.gpuInterpretMessage = str(*g, "message");
      }
      f.cpuLowering = p.value("cpuLowering", false);
      f.mosaicGpuSemantics = strings(p, "mosaicGpuLowering");
      if (auto m = p.find("mosaicGpuLowering"); m != p.end() && m->is_array())
        f.mosaicGpuKnown = true;
      f.effects = strings(p, "effects");
      if (auto h = p.find("hardware"); h != p.end() && h->is_object())
        f.hardware = str(*h, "requires") + " [" + str(*h, "source") + "]";
      kb.primitives_[key] = std::move(f);
    }
  if (auto it = t.find("refIndexing"); it != t.end() && it->is_object())
    for (const auto& [alloc, r] : it->items()) {
      RefIndexing ri;
      if (r.contains("getitem") && r["getitem"].is_array()) ri.getitem = strings(r, "getitem");
      if (r.contains("setitem") && r["setitem"].is_array()) ri.setitem = strings(r, "setitem");
      kb.refIndexing_[alloc] = std::move(ri);
    }
  if (auto it = t.find("errorTemplates"); it != t.end() && it->is_object())
    for (const auto& [key, e] : it->items())
      if (e.value("found", false))
        kb.errors_[key] = ErrorTemplate{key, str(e, "template"), str(e, "regex"), str(e, "exception"),
                                        str(e, "file"), e.value("line", 0)};
  if (auto p = t.find("interpretGPUParams"); p != t.end() && p->is_object())
    if (auto fields = p->find("fields"); fields != p->end() && fields->is_array())
      for (const auto& f : *fields)
        kb.interpretOptions_.push_back({str(f, "name"), str(f, "type"), f.contains("default") ? f["default"].dump() : "null"});
  out.base = std::move(kb);
  return out;
}

KnowledgeBase::Loaded KnowledgeBase::fromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Loaded{std::nullopt, "cannot read " + path, ""};
  json t = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (t.is_discarded()) return Loaded{std::nullopt, path + ": invalid JSON", ""};
  return fromJson(t, path);
}

std::string KnowledgeBase::bundledPath() {
  if (const char* dir = std::getenv("PALLAS_LSP_KNOWLEDGE_DIR"))
    return (fs::path(dir) / PALLAS_KNOWLEDGE_BUNDLED_NAME).string();
  // Installed layout: <bindir>/../share/pallas-lsp/knowledge/; else the source tree.
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share/pallas-lsp/knowledge" / PALLAS_KNOWLEDGE_BUNDLED_NAME;
    if (fs::exists(installed, ec)) return installed.string();
  }
  return (fs::path(PALLAS_KNOWLEDGE_SOURCE_DIR) / PALLAS_KNOWLEDGE_BUNDLED_NAME).string();
}

std::string KnowledgeBase::extractorPath() {
  return (fs::path(bundledPath()).parent_path() / "extract_knowledge.py").string();
}

std::string KnowledgeBase::defaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "pallas-lsp").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home ? home : "/tmp") / ".cache/pallas-lsp").string();
}

KnowledgeBase::Loaded KnowledgeBase::bundled() { return fromFile(bundledPath()); }

KnowledgeBase::Loaded KnowledgeBase::forPython(const std::string& python, const std::string& cacheDir,
                                               std::chrono::seconds timeout) {
  auto fallback = [&](std::string reason) {
    Loaded b = bundled();
    b.fallbackReason = std::move(reason);
    return b;
  };
  std::error_code ec;
  fs::create_directories(cacheDir, ec);
  if (ec) return fallback("cannot create cache dir " + cacheDir + ": " + ec.message());
  // The version costs a metadata lookup, not a JAX import: cheap enough per start.
  fs::path versionFile = fs::path(cacheDir) / ("jax-version." + std::to_string(getpid()));
  std::string err = runBounded({python, "-c", "import importlib.metadata as m; print(m.version('jax'))"},
                               versionFile.string(), timeout);
  std::string version = err.empty() ? readFirstLine(versionFile.string()) : "";
  fs::remove(versionFile, ec);
  if (!err.empty()) return fallback("cannot ask " + python + " for its JAX version: " + err);
  if (!safeVersion(version)) return fallback(python + " has no usable JAX (version '" + version + "')");
  fs::path cached = fs::path(cacheDir) / ("knowledge-" + version + ".json");
  if (fs::exists(cached, ec)) {
    Loaded c = fromFile(cached.string());
    if (c && c.base->jaxVersion() == version) return c;
  }
  fs::path tmp = fs::path(cacheDir) / ("knowledge-" + version + ".json.tmp" + std::to_string(getpid()));
  err = runBounded({python, extractorPath()}, tmp.string(), timeout);
  if (!err.empty()) {
    fs::remove(tmp, ec);
    return fallback("extracting knowledge with " + python + " failed: " + err);
  }
  Loaded fresh = fromFile(tmp.string());
  if (!fresh) {
    fs::remove(tmp, ec);
    return fallback("extracted table unusable: " + fresh.error);
  }
  fs::rename(tmp, cached, ec); // atomic: concurrent servers never see a partial file
  if (!ec) fresh.base->source_ = cached.string();
  return fresh;
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
        if (const PrimitiveFacts* p = primitive(key)) out.push_back(p);
  }
  return out;
}

std::optional<bool> KnowledgeBase::hasMosaicGpuRule(const PrimitiveFacts& p,
                                                    const std::vector<std::string>& lowering,
                                                    const std::vector<std::string>& primitive) {
  if (!p.mosaicGpuKnown) return std::nullopt;
  for (const auto& l : lowering)
    for (const auto& q : primitive)
      if (std::find(p.mosaicGpuSemantics.begin(), p.mosaicGpuSemantics.end(), l + "x" + q) !=
          p.mosaicGpuSemantics.end())
        return true;
  return false;
}

const RefIndexing* KnowledgeBase::refIndexing(const std::string& allocation) const {
  auto it = refIndexing_.find(allocation);
  return it == refIndexing_.end() ? nullptr : &it->second;
}

const ErrorTemplate* KnowledgeBase::errorTemplate(const std::string& key) const {
  auto it = errors_.find(key);
  return it == errors_.end() ? nullptr : &it->second;
}

std::optional<std::string> KnowledgeBase::formatError(const std::string& key,
                                                      const std::vector<std::string>& values) const {
  const ErrorTemplate* t = errorTemplate(key);
  if (!t) return std::nullopt;
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
