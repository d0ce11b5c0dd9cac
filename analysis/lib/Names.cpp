// Names.h: the canonical API name of a qualified Python name and its backend,
// dotted names, and what a module-level name or expression resolves to
// (Globals' queries). Binding the names: NamesBinding.cpp; evaluating
// interpret= and scratch shapes: NamesInterpret.cpp.
#include "NamesInternal.h"
#include "pallas/analysis/ModuleCandidates.h"

#include <algorithm>
#include <array>
#include <set>

namespace pallas::analysis::names {
namespace {

// Longest prefix first: mosaic_gpu before pallas before jax.
struct Prefix {
  const char* module;
  const char* canonical;
};
constexpr std::array<Prefix, 15> kPrefixes{{
    {"jax._src.pallas.mosaic_gpu.interpret.params", "interpret"},
    {"jax._src.pallas.mosaic_gpu.interpret", "interpret"},
    {"jax._src.pallas.mosaic_gpu.primitives", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.pipeline", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.helpers", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.core", "plgpu"},
    {"jax.experimental.pallas.mosaic_gpu", "plgpu"},
    {"jax.experimental.mosaic.gpu", "mgpu"},
    {"jax._src.pallas.pallas_call", "pl"},
    {"jax._src.pallas.primitives", "pl"},
    {"jax._src.pallas.helpers", "pl"},
    {"jax.experimental.pallas", "pl"},
    {"jax.numpy", "jnp"},
    {"jax.lax", "lax"},
    {"jax", "jax"},
}};

} // namespace

std::string InterpretEval::fingerprint() const {
  std::string s = source + "|" + text + "|";
  for (auto& p : paths)
    s += p + ",";
  for (auto& [k, v] : params)
    s += k + "=" + v + ";";
  return everyPath ? s + "every" : s;
}

std::string Binding::fingerprint() const {
  std::string s = std::to_string(static_cast<int>(kind)) + "|" + target + "|" + file + "|" +
                  (launched ? "L" : "") + (wrapsLaunch.empty() ? "" : "|W:" + wrapsLaunch);
  for (auto& [k, v] : keywords)
    s += "|" + k + "=" + v;
  if (interpret)
    s += "|i:" + interpret->fingerprint();
  if (!partialKernel.empty())
    s += "|k:" + partialKernel;
  for (auto& [m, c] : launchWrappers)
    s += "|w:" + m + "@" + c;
  for (auto& [m, summary] : portableWrappers)
    s += "|p:" + m + "=" + summary;
  if (!moduleValue.empty())
    s += "|v:" + moduleValue;
  if (scratchKnown) {
    s += "|s:";
    for (auto& k : scratch)
      s += k + ",";
  }
  return s;
}

std::string canonicalApi(const std::string& qualified) {
  for (const Prefix& p : kPrefixes) {
    std::string_view m = p.module;
    if (qualified == m)
      return p.canonical;
    if (startsWith(qualified, m) && qualified[m.size()] == '.')
      return std::string(p.canonical) + qualified.substr(m.size());
  }
  return qualified;
}

std::string backendOfApi(const std::string& api) {
  auto under = [&](std::string_view prefix) {
    return api == prefix || (startsWith(api, prefix) && api[prefix.size()] == '.');
  };
  if (under("pl.tpu") || under("jax._src.pallas.mosaic") || under("jax._src.tpu") ||
      under("pl.ops.tpu"))
    return "mosaic_tpu";
  if (under("pl.triton") || under("jax._src.pallas.triton"))
    return "triton";
  if (under("plgpu") || under("mgpu") || under("interpret"))
    return "mosaic_gpu";
  return {};
}

bool isJaxBinding(const Binding& b) {
  return (b.kind == Binding::Kind::Module || b.kind == Binding::Kind::Symbol) && b.file.empty() &&
         isJaxName(b.target);
}

std::string backendOfBinding(const Binding& b) {
  return isJaxBinding(b) ? backendOfApi(canonicalApi(b.target)) : std::string();
}

std::vector<std::string> Globals::importedBackends() const {
  std::set<std::string> found;
  for (const auto& [name, b] : bindings_)
    if (std::string backend = backendOfBinding(b); !backend.empty())
      found.insert(backend);
  return {found.begin(), found.end()};
}

bool isJaxName(const std::string& q) {
  return resolvedByName(q);
}

std::string dottedName(TSNode expr, const syntax::ParsedSource& doc) {
  // Iterative, outermost attribute first: `a.b.b.b...` with 40,000 parts
  // recursed once per part and overflowed the stack. No API is spelled with
  // more than a handful of parts, so a longer chain is not a name.
  std::vector<std::string_view> parts; // innermost last
  while (is(expr, "attribute")) {
    TSNode attr = field(expr, "attribute");
    if (isNull(attr) || parts.size() >= kMaxDottedParts)
      return {};
    parts.push_back(doc.textOf(attr));
    expr = field(expr, "object");
  }
  if (!is(expr, "identifier"))
    return {};
  std::string out = str(doc.textOf(expr));
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out += '.';
    out += *it;
  }
  return out;
}

const Binding* Globals::find(const std::string& name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() ? nullptr : &it->second;
}

std::optional<Binding> Globals::attribute(const Binding& base, const std::string& attr) const {
  switch (base.kind) {
  case Binding::Kind::Module:
    if (!base.file.empty() && resolver_ && depth_ < kMaxDepth) {
      if (auto b = resolver_->exported(base.file, attr, depth_ + 1))
        return b;
      if (auto f = resolver_->moduleFile(base.target + "." + attr, 0, path_))
        return makeBinding(Binding::Kind::Module, base.target + "." + attr, *f);
      // Not defined there (yet): something of the user's module we do not know.
      return makeBinding(Binding::Kind::Other, base.target + "." + attr, base.file);
    }
    [[fallthrough]];
  case Binding::Kind::Symbol: {
    Binding b;
    b.kind = Binding::Kind::Symbol;
    b.target = base.target + "." + attr;
    return b;
  }
  default:
    return std::nullopt;
  }
}

std::vector<std::string> Globals::dependencies() const {
  std::vector<std::string> out;
  for (auto& [_, b] : bindings_)
    if (!b.file.empty() && b.file != path_)
      out.push_back(b.file);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<Binding> resolveGlobalExpr(TSNode expr, const syntax::ParsedSource& doc,
                                         const Globals& globals) {
  std::string dotted = dottedName(expr, doc);
  if (dotted.empty())
    return std::nullopt;
  size_t pos = dotted.find('.');
  const Binding* first = globals.find(dotted.substr(0, pos));
  if (!first)
    return std::nullopt;
  std::optional<Binding> b = *first;
  while (b && pos != std::string::npos) {
    size_t next = dotted.find('.', pos + 1);
    b = globals.attribute(
        *b, dotted.substr(pos + 1, next == std::string::npos ? next : next - pos - 1));
    pos = next;
  }
  return b;
}

std::string importedName(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals) {
  auto b = resolveGlobalExpr(expr, doc, globals);
  if (b && (b->kind == Binding::Kind::Module || b->kind == Binding::Kind::Symbol) &&
      b->file.empty())
    return b->target;
  return {};
}

std::string apiOf(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals) {
  auto b = resolveGlobalExpr(expr, doc, globals);
  if (!b || (b->kind != Binding::Kind::Module && b->kind != Binding::Kind::Symbol))
    return {};
  if (!b->file.empty() || !isJaxName(b->target))
    return {};
  return canonicalApi(b->target);
}

} // namespace pallas::analysis::names
