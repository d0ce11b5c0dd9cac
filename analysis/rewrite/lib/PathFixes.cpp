// Path quick fixes (docs/fixes.md): edits of the launch call found in the
// syntax tree at the launch position the finding carries.
#include "PathFixesImpl.h"
#include "SourceIndex.h"
#include "pallas/analysis/Rewrite.h"

namespace pallas::analysis {
namespace {

using rewrite::fieldOf;
using rewrite::isNull;
using rewrite::SourceIndex;
using rewrite::typeOf;

// The `interpret=` keyword_argument of the call at `pos`: the innermost call
// that starts there or contains it and has one (the decorator form
// `@functools.partial(pl.pallas_call, ..., interpret=True)` included).
TSNode interpretKeyword(const SourceIndex& src, SourcePos pos) {
  for (TSNode n = src.nodeAt(pos); !isNull(n); n = src.parent(n)) {
    // The call, or the decorator's expression (without moving `n`: its
    // parent is the decorator again, and the walk would never end).
    TSNode call = typeOf(n) == "decorator" ? ts_node_named_child(n, 0) : n;
    if (typeOf(call) != "call")
      continue;
    TSNode args = fieldOf(call, "arguments");
    for (TSNode a : syntax::childrenOf(args, true)) {
      if (typeOf(a) == "keyword_argument" && src.textOf(fieldOf(a, "name")) == "interpret")
        return a;
    }
  }
  return TSNode{};
}

SourceRange rangeOf(TSNode n) {
  return {SourceIndex::pos(ts_node_start_point(n)), SourceIndex::pos(ts_node_end_point(n))};
}

} // namespace

std::optional<Fix> runCompiledFix(std::string_view text, const std::string& path,
                                  SourcePos launchPos) {
  return rewrite::runCompiledFix(*SourceIndex::of(text), path, launchPos);
}

std::optional<Fix> rewrite::runCompiledFix(const SourceIndex& src, const std::string& path,
                                           SourcePos launchPos) {
  TSNode kw = interpretKeyword(src, launchPos);
  if (isNull(kw))
    return std::nullopt;
  // Remove the argument with one adjacent comma: the one before it when there
  // is one (`f(a, interpret=True)` -> `f(a)`), else the one after
  // (`f(interpret=True, a=1)` -> `f(a=1)`), with the whitespace between.
  TSNode prev = ts_node_prev_sibling(kw), next = ts_node_next_sibling(kw);
  SourceRange r = rangeOf(kw);
  if (!isNull(prev) && src.textOf(prev) == ",") {
    r.start = SourceIndex::pos(ts_node_start_point(prev));
    // A trailing comma after the argument stays: `f(a, interpret=True,)` -> `f(a,)`.
  } else if (!isNull(next) && src.textOf(next) == ",") {
    TSNode after = ts_node_next_sibling(next);
    r.end = isNull(after) ? SourceIndex::pos(ts_node_end_point(next))
                          : SourceIndex::pos(ts_node_start_point(after));
  }
  Fix f;
  f.title = "Run this kernel compiled (remove `" + std::string(src.textOf(kw)) + "`)";
  f.safety = FixSafety::Unsafe; // the kernel then needs a GPU to run
  f.edits.push_back({path, r, ""});
  return f;
}

std::optional<Fix> gpuInterpretFix(std::string_view text, const std::string& path,
                                   SourcePos launchPos) {
  return rewrite::gpuInterpretFix(*SourceIndex::of(text), path, launchPos);
}

std::optional<Fix> rewrite::gpuInterpretFix(const SourceIndex& src, const std::string& path,
                                            SourcePos launchPos) {
  TSNode kw = interpretKeyword(src, launchPos);
  Fix f;
  f.title = "Use GPU interpret mode (interpret=InterpretGPUParams())";
  f.safety = FixSafety::Unsafe; // a different interpreter runs the kernel
  std::string name = "InterpretGPUParams";
  // JAX 0.10.2 does not export it from a public module (checked: neither
  // jax.experimental.pallas nor .mosaic_gpu has it); import it from where it lives.
  bool imported = false;
  for (TSNode s : src.topLevel()) {
    if (typeOf(s) == "import_from_statement" &&
        src.textOf(s).find("InterpretGPUParams") != std::string_view::npos)
      imported = true;
  }
  if (!imported) {
    SourcePos at = src.importInsertionPoint();
    f.edits.push_back(
        {path,
         {at, at},
         "from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams\n"});
  }
  if (!isNull(kw)) {
    f.edits.push_back({path, rangeOf(fieldOf(kw, "value")), name + "()"});
    return f;
  }
  // No interpret= yet: add it as the launch call's last argument.
  for (TSNode n = src.nodeAt(launchPos); !isNull(n); n = src.parent(n)) {
    if (typeOf(n) != "call")
      continue;
    TSNode args = fieldOf(n, "arguments");
    if (isNull(args) || typeOf(args) != "argument_list")
      continue;
    SourcePos close = SourceIndex::pos(ts_node_end_point(args));
    close.column -= 1; // before ')'
    bool empty = ts_node_named_child_count(args) == 0;
    f.edits.push_back(
        {path, {close, close}, std::string(empty ? "" : ", ") + "interpret=" + name + "()"});
    return f;
  }
  return std::nullopt;
}

std::optional<Fix> runOnGpuFix(std::string_view text, const std::string& path,
                               SourcePos launchPos) {
  return rewrite::runOnGpuFix(*SourceIndex::of(text), path, launchPos);
}

std::optional<Fix> rewrite::runOnGpuFix(const SourceIndex& src, const std::string& path,
                                        SourcePos launchPos) {
  TSNode top{};
  for (TSNode n = src.nodeAt(launchPos); !isNull(n); n = src.parent(n))
    if (typeOf(n) == "function_definition")
      top = n; // the outermost def wins
  if (isNull(top) || typeOf(src.parent(top)) == "class_definition")
    return std::nullopt;
  TSNode parent = src.parent(top);
  if (typeOf(parent) == "decorated_definition")
    parent = src.parent(parent);
  if (typeOf(parent) != "module")
    return std::nullopt; // a method: no runnable entry
  std::string entry(src.textOf(fieldOf(top, "name")));
  Fix f;
  f.title = "Run on GPU now (" + entry + ", compiled)";
  f.safety = FixSafety::DisplayOnly; // a run, not an edit
  f.run = RunSuggestion{path, entry, "compiled"};
  return f;
}

std::optional<Fix> ignoreFix(std::string_view text, const std::string& path, uint32_t line,
                             const std::string& code) {
  return rewrite::ignoreFix(*SourceIndex::of(text), path, line, code);
}

std::optional<Fix> rewrite::ignoreFix(const SourceIndex& src, const std::string& path,
                                      uint32_t line, const std::string& code) {
  std::string_view text = src.text();
  size_t start = src.offset({line, 0});
  if (start == std::string::npos)
    return std::nullopt;
  size_t end = text.find('\n', start);
  if (end == std::string_view::npos)
    end = text.size();
  if (end > start && text[end - 1] == '\r')
    --end;
  std::string_view l = text.substr(start, end - start);
  Fix f;
  f.title = "Ignore " + code + " on this line";
  f.safety = FixSafety::DisplayOnly; // silences, does not fix (ruff's noqa is not a fix either)
  // A comment token on the line (tree-sitter knows strings from comments).
  TSNode comment{};
  for (TSNode n = src.nodeAt({line, static_cast<uint32_t>(l.size() ? l.size() - 1 : 0)});
       !isNull(n); n = src.parent(n))
    if (typeOf(n) == "comment")
      comment = n;
  if (isNull(comment)) {
    // nodeAt may land on the statement; look for a comment child on this line.
    TSPoint a{line, 0}, b{line, static_cast<uint32_t>(l.size())};
    TSNode n = src.descendantFor(a, b);
    for (TSNode ch : syntax::childrenOf(n, /*namedOnly=*/false)) {
      if (typeOf(ch) == "comment" && ts_node_start_point(ch).row == line)
        comment = ch;
    }
  }
  if (!isNull(comment)) {
    std::string_view ct = src.textOf(comment);
    size_t k = ct.find("pallas-lsp: ignore[");
    if (k != std::string_view::npos) {
      size_t close = ct.find(']', k);
      if (close == std::string_view::npos)
        return std::nullopt;
      std::string_view codes = ct.substr(k + 19, close - k - 19);
      if (codes.find(code) != std::string_view::npos)
        return std::nullopt; // already there
      SourcePos at = SourceIndex::pos(ts_node_start_point(comment));
      at.column += static_cast<uint32_t>(close);
      f.edits.push_back({path, {at, at}, (codes.empty() ? "" : ", ") + code});
      return f;
    }
  }
  size_t trimmed = l.size();
  while (trimmed > 0 && (l[trimmed - 1] == ' ' || l[trimmed - 1] == '\t'))
    --trimmed;
  SourcePos at{line, static_cast<uint32_t>(trimmed)};
  SourcePos lineEnd{line, static_cast<uint32_t>(l.size())};
  f.edits.push_back({path, {at, lineEnd}, "  # pallas-lsp: ignore[" + code + "]"});
  return f;
}

std::vector<Fix> pathFixes(std::string_view text, const Finding& finding) {
  return rewrite::pathFixes(*SourceIndex::of(text), finding);
}

std::optional<Fix> rewrite::passCompiledFix(const SourceIndex& src, const std::string& path,
                                            SourceRange selector) {
  TSNode n = src.descendantFor({selector.start.line, selector.start.column},
                               {selector.end.line, selector.end.column});
  // The argument written there: `name=value`, or a positional value.
  while (!isNull(n) && typeOf(n) != "keyword_argument" &&
         !(rangeOf(n) == selector && typeOf(src.parent(n)) == "argument_list"))
    n = src.parent(n);
  if (isNull(n))
    return std::nullopt;
  // `f(x, interpret=True)` -> `f(x, interpret=False)`; a positional value alike.
  TSNode value = typeOf(n) == "keyword_argument" ? fieldOf(n, "value") : n;
  if (isNull(value) || src.textOf(value) == "False")
    return std::nullopt;
  std::string written(typeOf(n) == "keyword_argument" ? src.textOf(fieldOf(n, "name")) : "");
  Fix f;
  f.title =
      "Run this kernel compiled (pass `" + (written.empty() ? "" : written + "=") + "False` here)";
  f.safety = FixSafety::Unsafe; // the kernel then needs a GPU to run
  f.edits.push_back({path, rangeOf(value), "False"});
  return f;
}

std::vector<Fix> rewrite::pathFixes(const SourceIndex& src, const Finding& finding) {
  std::vector<Fix> out;
  const std::string& path = finding.location.path;
  if (finding.launch) {
    if (finding.launch->path == path || finding.launch->path.empty()) {
      SourcePos at = finding.launch->range.start;
      // A caller's argument selects the path (it is outside the launch
      // call): change it there; else the launch's own interpret=.
      TSNode own = interpretKeyword(src, at);
      bool byCaller = finding.selectedAt && finding.selectedAt->path == path &&
                      finding.selectedAt->range != finding.launch->range &&
                      (isNull(own) || rangeOf(own) != finding.selectedAt->range);
      std::optional<Fix> compiled = byCaller ? passCompiledFix(src, path, finding.selectedAt->range)
                                             : runCompiledFix(src, path, at);
      if (compiled)
        out.push_back(*compiled);
      if (finding.gpuInterpretRunsLaunch)
        if (auto f = gpuInterpretFix(src, path, at))
          out.push_back(*f);
      if (auto f = runOnGpuFix(src, path, at))
        out.push_back(*f);
      for (Fix& f : out)
        f.decidesPath = true;
    }
  }
  if (auto f = ignoreFix(src, path, finding.location.range.start.line, finding.code))
    out.push_back(*f);
  return out;
}

} // namespace pallas::analysis
