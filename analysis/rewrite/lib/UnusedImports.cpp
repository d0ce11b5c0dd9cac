#include "UnusedImports.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace pallas::analysis::rewrite {
namespace {

// The names an import statement binds.
std::vector<std::string> boundNames(const SourceIndex& src, TSNode stmt) {
  std::vector<std::string> out;
  bool from = typeOf(stmt) == "import_from_statement";
  TSNode moduleName = from ? fieldOf(stmt, "module_name") : TSNode{};
  for (TSNode n : syntax::childrenOf(stmt, true)) {
    if (from && !isNull(moduleName) && ts_node_eq(n, moduleName))
      continue;
    std::string_view t = typeOf(n);
    if (t == "aliased_import") {
      out.emplace_back(src.textOf(fieldOf(n, "alias")));
    } else if (t == "dotted_name") {
      std::string name(src.textOf(n));
      // `import a.b` binds `a`; `from m import a` binds `a`.
      out.push_back(name.substr(0, name.find('.')));
    } else if (t == "wildcard_import") {
      return {}; // binds names nobody can list: never removed
    }
  }
  return out;
}

struct ByteRange {
  uint32_t from, to;
  bool contains(uint32_t a, uint32_t b) const { return a >= from && b <= to; }
};

// Identifiers named `name` inside `within` and not inside `skip` (from the
// index's list of the name's identifiers: binary search, never a walk of the
// tree per question).
int countUses(const SourceIndex& src, const std::string& name, ByteRange within, ByteRange skip) {
  const auto& spans = src.identifierSpans(name);
  auto first = std::partition_point(spans.begin(), spans.end(), [&](const SourceIndex::Span& s) {
    return s.start < within.from;
  });
  int n = 0;
  for (auto it = first; it != spans.end() && it->start < within.to; ++it)
    if (within.contains(it->start, it->end) && !skip.contains(it->start, it->end))
      ++n;
  return n;
}

// `code` without its comments (from '#' to the end of the line).
std::string withoutComments(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '#') {
      while (i < code.size() && code[i] != '\n')
        ++i;
      if (i == code.size())
        break;
    }
    out += code[i];
  }
  return out;
}

// Whether `code` has `name` as a word of its own: not inside a longer
// identifier and not an attribute (`x.name`). (A std::regex built per name
// and fix cost more than the rest of the fix.)
bool mentions(std::string_view code, std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
    bool before = at == 0 || !(word(code[at - 1]) || code[at - 1] == '.');
    size_t end = at + name.size();
    bool after = end == code.size() || !word(code[end]);
    if (before && after)
      return true;
  }
  return false;
}

} // namespace

std::vector<TextEdit> unusedImportRemovals(const SourceIndex& src, const std::string& path,
                                           SourcePos from, SourcePos to,
                                           const std::string& replacement) {
  std::vector<TextEdit> out;
  size_t fromByte = src.offset(from), toByte = src.offset(to);
  if (fromByte == std::string::npos || toByte == std::string::npos)
    return out;
  ByteRange region{static_cast<uint32_t>(fromByte), static_cast<uint32_t>(toByte)};
  ByteRange everything{0, static_cast<uint32_t>(src.text().size())};
  // The new code without its comments ("Rewritten from plgpu.inline_mgpu"
  // names the module it no longer uses).
  std::string code = withoutComments(replacement);
  // topLevel(), not ts_node_named_child(root, i): that call is linear in i.
  for (TSNode stmt : src.topLevel()) {
    std::string_view t = typeOf(stmt);
    if (t != "import_statement" && t != "import_from_statement")
      continue;
    std::vector<std::string> names = boundNames(src, stmt);
    ByteRange self{ts_node_start_byte(stmt), ts_node_end_byte(stmt)};
    bool allUnused = !names.empty(), regionUsedOne = false;
    for (const std::string& n : names) {
      // Only imports the rewrite made unused: the region used the name ...
      regionUsedOne |= countUses(src, n, region, {0, 0}) > 0;
      // ... and nothing else does: the rest of the file, or the new code.
      bool usedElsewhere =
          countUses(src, n, everything, region) - countUses(src, n, self, {0, 0}) > 0;
      allUnused &= !usedElsewhere && !mentions(code, n);
    }
    if (!allUnused || !regionUsedOne)
      continue;
    SourcePos s = SourceIndex::pos(ts_node_start_point(stmt));
    SourcePos e = SourceIndex::pos(ts_node_end_point(stmt));
    // The whole line with its newline (a statement alone on its lines).
    SourcePos next{e.line + 1, 0};
    if (src.offset(next) == std::string::npos)
      next = e;
    out.push_back({path, {{s.line, 0}, next}, ""});
  }
  return out;
}

} // namespace pallas::analysis::rewrite
