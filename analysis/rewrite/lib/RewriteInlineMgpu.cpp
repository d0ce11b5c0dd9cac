// The "Rewrite with standard Pallas primitives" fix: finds the decorated def
// of a `pallas.inline_mgpu` op in the syntax, translates the region
// (Translate.cpp), prints the standard program, and makes one edit that
// replaces decorator + def (plus import edits when `jnp`/`lax` are missing,
// and deletions of the imports only the region used).
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include "InlineMgpuLocator.h"
#include "SourceIndex.h"
#include "Translate.h"
#include "UnusedImports.h"

#include <algorithm>

namespace pd = pallas::dialect;

namespace pallas::analysis {

std::string RewriteResult::hoverText() const {
  if (fix || blocker.empty())
    return "";
  return "not rewritable: uses " + blocker + " at line " +
         std::to_string(blockerLoc.range.start.line + 1);
}

} // namespace pallas::analysis

namespace pallas::analysis::detail {
namespace {

using rewrite::SourceIndex;

// The function_definition an inline_mgpu op's body comes from, and the node
// the edit replaces (its decorated_definition).
struct DefNodes {
  TSNode def{}, whole{};
};

DefNodes defOf(pd::InlineMgpuOp op, const SourceIndex& src) {
  mlir::Operation* owner = op->getParentOp();
  if (!owner || !(llvm::isa<pd::ClosureOp>(owner) || llvm::isa<pd::FuncOp>(owner)))
    return {};
  // The op's region holds the body: the def is the function_definition that
  // contains the first body op (or, for an empty body, the owner's position).
  rewrite::OpPos p = rewrite::opPos(owner->getLoc());
  for (mlir::Operation& o : op.getBody().getOps()) {
    rewrite::OpPos q = rewrite::opPos(o.getLoc());
    if (q.valid) {
      p = q;
      break;
    }
  }
  if (!p.valid)
    return {};
  DefNodes d;
  for (TSNode n = src.nodeAt(p.pos); !rewrite::isNull(n); n = src.parent(n)) {
    if (rewrite::typeOf(n) == "function_definition") {
      d.def = n;
      break;
    }
  }
  if (rewrite::isNull(d.def))
    return {};
  TSNode parent = src.parent(d.def);
  d.whole = rewrite::typeOf(parent) == "decorated_definition" ? parent : d.def;
  return d;
}

// Every comment inside `n` (comments are leaves), in source order.
void collectComments(TSNode n, const SourceIndex& src, std::vector<std::string>& out) {
  syntax::forEachNode(n, [&](TSNode ch) {
    if (!ts_node_eq(ch, n) && rewrite::typeOf(ch) == "comment")
      out.emplace_back(src.textOf(ch));
  });
}

std::string filePath(pd::InlineMgpuOp op) {
  for (mlir::Operation* o = op; o; o = o->getParentOp())
    if (auto m = llvm::dyn_cast<mlir::ModuleOp>(o))
      if (auto a = m->getAttrOfType<mlir::StringAttr>("pallas.path"))
        return a.str();
  return rewrite::opPos(op->getLoc()).file;
}

} // namespace

pd::InlineMgpuOp findInlineMgpu(mlir::ModuleOp module, std::string_view text, SourcePos pos) {
  std::shared_ptr<const SourceIndex> index = SourceIndex::of(text);
  return rewrite::InlineMgpuDefs(module, *index).innermostAt(pos);
}

namespace {

pd::InlineMgpuOp firstInlineMgpu(mlir::Operation* root) {
  pd::InlineMgpuOp found;
  root->walk([&](pd::InlineMgpuOp op) {
    if (!found)
      found = op;
  });
  return found;
}

} // namespace

pd::InlineMgpuOp inlineMgpuOfFunction(mlir::ModuleOp module, llvm::StringRef symbol) {
  for (auto f : module.getOps<pd::FuncOp>())
    if (f.getSymName() == symbol)
      return firstInlineMgpu(f);
  return {};
}

CalledInlineMgpu findInlineMgpuCalledAt(mlir::ModuleOp module, SourcePos pos) {
  return rewrite::InlineMgpuCalls(module).at(pos);
}

RewriteResult rewriteInlineMgpuOp(pd::InlineMgpuOp op, std::string_view text) {
  RewriteResult r;
  if (!op)
    return r;
  std::shared_ptr<const SourceIndex> index = SourceIndex::of(text);
  const SourceIndex& src = *index;
  DefNodes d = defOf(op, src);
  std::string path = filePath(op);
  if (rewrite::isNull(d.def)) {
    r.blocker = "a body whose source is not available";
    r.blockerLoc.path = path;
    return r;
  }
  // Parameters as written (defaults, annotations), the launch context dropped:
  // call sites pass everything but the context, so they keep working.
  std::vector<std::string> params;
  TSNode plist = rewrite::fieldOf(d.def, "parameters");
  size_t k = 0;
  for (TSNode p : syntax::childrenOf(plist, /*namedOnly=*/true)) {
    if (rewrite::typeOf(p) == "comment")
      continue;
    if (k++ == 0)
      continue;
    params.emplace_back(src.textOf(p));
  }
  std::string jnp = src.aliasOf("jax.numpy"), lax = src.aliasOf("jax.lax");
  // `import jax` alone reaches jax.numpy only as written out in full: import
  // the short names the docs use instead.
  if (jnp.find('.') != std::string::npos)
    jnp.clear();
  if (lax.find('.') != std::string::npos)
    lax.clear();
  rewrite::Translation t = rewrite::translateInlineMgpu(op, src, params, jnp.empty() ? "jnp" : jnp,
                                                        lax.empty() ? "lax" : lax);
  if (!t.program) {
    r.blocker = t.blocker;
    r.blockerLoc.path = t.blockerPos.file.empty() ? path : t.blockerPos.file;
    r.blockerLoc.range = {t.blockerPos.pos, t.blockerPos.pos};
    return r;
  }
  t.program->name = std::string(src.textOf(rewrite::fieldOf(d.def, "name")));
  rewrite::pruneDeadAssignments(*t.program);
  collectComments(d.whole, src, t.program->comments);
  SourcePos start = SourceIndex::pos(ts_node_start_point(d.whole));
  SourcePos end = SourceIndex::pos(ts_node_end_point(d.whole));
  std::string indent = src.indentOf(start.line);
  // The body keeps the file's indentation: that of the def's first statement.
  std::string bodyIndent = indent + "    ";
  TSNode block = rewrite::fieldOf(d.def, "body");
  if (!rewrite::isNull(block) && ts_node_start_point(block).row > ts_node_start_point(d.def).row)
    bodyIndent = src.indentOf(ts_node_start_point(block).row);
  std::string code = rewrite::printPython(*t.program, indent, bodyIndent);
  code = code.substr(std::min(indent.size(), code.size())); // the range starts after the indent
  if (!code.empty() && code.back() == '\n')
    code.pop_back(); // ... and ends at the body's end

  Fix fix;
  fix.title = "Rewrite `" + t.program->name + "` with standard Pallas primitives";
  fix.safety = FixSafety::Unsafe; // layouts and swizzles are no longer the user's choice
  // Imports first (they sit above), so edits are in document order.
  std::string imports;
  if (jnp.empty() && code.find("jnp.") != std::string::npos)
    imports += "import jax.numpy as jnp\n";
  if (lax.empty() && code.find("lax.") != std::string::npos)
    imports += "from jax import lax\n";
  // Imports only the region used (mgpu, ir, plgpu ...) go with it.
  std::vector<TextEdit> removals = rewrite::unusedImportRemovals(src, path, start, end, code);
  if (!imports.empty()) {
    SourcePos at = src.importInsertionPoint();
    // The insertion point is after the last import; never inside the def.
    if (at > start)
      at = {0, 0};
    // Where a removed import ends at the insertion point, the new imports
    // replace it (edits must not touch).
    bool merged = false;
    for (TextEdit& r : removals)
      if (!merged && r.range.end == at) {
        r.newText = imports;
        merged = true;
      }
    if (!merged)
      removals.push_back({path, {at, at}, imports});
  }
  std::sort(removals.begin(), removals.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.range.start < b.range.start; });
  for (TextEdit& r : removals)
    if (r.range.start < start)
      fix.edits.push_back(std::move(r));
  fix.edits.push_back({path, {start, end}, code});
  for (TextEdit& r : removals)
    if (!(r.range.start < start))
      fix.edits.push_back(std::move(r));
  r.fix = std::move(fix);
  return r;
}

} // namespace pallas::analysis::detail

namespace pallas::analysis::rewrite {

InlineMgpuDefs::InlineMgpuDefs(mlir::ModuleOp module, const SourceIndex& src) {
  std::map<std::pair<SourcePos, SourcePos>, size_t> seen;
  module.walk([&](pd::InlineMgpuOp op) {
    detail::DefNodes d = detail::defOf(op, src);
    if (isNull(d.whole))
      return;
    Def def;
    def.start = SourceIndex::pos(ts_node_start_point(d.whole));
    def.end = SourceIndex::pos(ts_node_end_point(d.whole));
    def.size = ts_node_end_byte(d.whole) - ts_node_start_byte(d.whole);
    def.op = op;
    // Several ops from one def (a helper inlined twice): the first in walk
    // order answers, as the walk that kept the first strictly smaller did.
    if (seen.emplace(std::make_pair(def.start, def.end), defs_.size()).second)
      defs_.push_back(def);
  });
  // Syntax nodes nest or are apart: by start, the outer first, each def's
  // enclosing def is the nearest open one on a stack.
  std::sort(defs_.begin(), defs_.end(), [](const Def& a, const Def& b) { // ranges are distinct
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<int> open;
  for (size_t i = 0; i < defs_.size(); ++i) {
    while (!open.empty() && defs_[open.back()].end < defs_[i].start)
      open.pop_back();
    defs_[i].enclosing = open.empty() ? -1 : open.back();
    open.push_back(static_cast<int>(i));
  }
}

pd::InlineMgpuOp InlineMgpuDefs::innermostAt(SourcePos pos) const {
  // The last def starting at or before `pos`; if it ended before, one of its
  // enclosing defs may still hold `pos`.
  auto it = std::upper_bound(defs_.begin(), defs_.end(), pos,
                             [](SourcePos p, const Def& d) { return p < d.start; });
  if (it == defs_.begin())
    return {};
  for (int i = static_cast<int>(it - defs_.begin()) - 1; i >= 0; i = defs_[i].enclosing)
    if (defs_[i].start <= pos && pos <= defs_[i].end)
      return defs_[i].op;
  return {};
}

InlineMgpuCalls::InlineMgpuCalls(mlir::ModuleOp module) {
  for (auto f : module.getOps<pd::FuncOp>())
    functions_.try_emplace(f.getSymName().str(), f.getOperation());
  module.walk([&](mlir::Operation* o) {
    if (!llvm::isa<pd::InlineMgpuOp, pd::CallIndirectOp, pd::CallOp>(o))
      return;
    // Both positions `at` accepts: the op's own and, for an inlined op, its caller's.
    OpPos p = opPos(o->getLoc());
    if (p.valid)
      byPos_[p.pos].push_back(o);
    if (auto c = llvm::dyn_cast<mlir::CallSiteLoc>(o->getLoc())) {
      OpPos q = opPos(c.getCaller());
      if (q.valid && !(p.valid && q.pos == p.pos))
        byPos_[q.pos].push_back(o);
    }
  });
}

pd::InlineMgpuOp InlineMgpuCalls::ofFunction(llvm::StringRef symbol) const {
  if (auto it = firstOf_.find(symbol); it != firstOf_.end())
    return it->second;
  pd::InlineMgpuOp op;
  if (auto f = functions_.find(symbol); f != functions_.end())
    op = detail::firstInlineMgpu(f->second);
  firstOf_.emplace(symbol.str(), op);
  return op;
}

detail::CalledInlineMgpu InlineMgpuCalls::at(SourcePos pos) const {
  detail::CalledInlineMgpu out;
  auto it = byPos_.find(pos);
  if (it == byPos_.end())
    return out;
  // In walk order, the first op that binds something answers.
  for (mlir::Operation* o : it->second) {
    if (auto op = llvm::dyn_cast<pd::InlineMgpuOp>(o)) {
      out.op = op;
    } else if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(o)) {
      if (auto c = ci.getCallee().getDefiningOp<pd::ClosureOp>())
        out.op = detail::firstInlineMgpu(c);
    } else if (auto call = llvm::dyn_cast<pd::CallOp>(o)) {
      if (auto file = call.getCalleeFile(); file && !file->empty()) {
        out.calleeFile = file->str();
        out.calleeSymbol = call.getCallee().str();
      } else {
        out.op = ofFunction(call.getCallee());
      }
    }
    if (out.op || !out.calleeFile.empty())
      break;
  }
  return out;
}

} // namespace pallas::analysis::rewrite
