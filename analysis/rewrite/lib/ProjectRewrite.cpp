// The Project-level entry: the server and the CLI hold a Project, not a
// module. The Project prints the module it keeps (with locations); parsing
// that text back gives the same ops without reaching into the Project's
// internals, and the rewrite runs on it.
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace pallas::analysis {

namespace {

// A document's module, parsed from what the Project prints.
mlir::OwningOpRef<mlir::ModuleOp> moduleOf(const Project& project, const std::string& path,
                                           mlir::MLIRContext& ctx) {
  // The printer writes an empty single-block region as `{}`, which parses
  // back as a region without blocks; the verifier would reject that, and
  // the ops are what they were, so skip it (the rewrite guards empty regions).
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  return mlir::parseSourceString<mlir::ModuleOp>(project.mlirText(path), config);
}

RewriteResult rewriteIn(const std::string& path, const std::string& text, dialect::InlineMgpuOp op) {
  RewriteResult r = detail::rewriteInlineMgpuOp(op, text);
  // The parsed module's path attribute is the document's; keep the caller's spelling.
  if (r.fix)
    for (TextEdit& e : r.fix->edits) e.path = path;
  if (!r.blocker.empty()) r.blockerLoc.path = path;
  return r;
}

} // namespace

RewriteResult rewriteInlineMgpu(const Project& project, const std::string& path, SourcePos regionPos) {
  RewriteResult r;
  try {
    if (!project.hasDocument(path)) return r;
    mlir::MLIRContext ctx;
    ctx.loadDialect<dialect::PallasDialect>();
    std::string text = project.documentText(path);
    mlir::OwningOpRef<mlir::ModuleOp> module = moduleOf(project, path, ctx);
    if (!module) return r;
    // A position in the decorated def (the hover), or the call a PLS001
    // finding points at.
    if (dialect::InlineMgpuOp op = detail::findInlineMgpu(*module, text, regionPos))
      return rewriteIn(path, text, op);
    detail::CalledInlineMgpu called = detail::findInlineMgpuCalledAt(*module, regionPos);
    if (called.op) return rewriteIn(path, text, called.op);
    if (called.calleeFile.empty() || !project.hasDocument(called.calleeFile)) return r;
    mlir::OwningOpRef<mlir::ModuleOp> other = moduleOf(project, called.calleeFile, ctx);
    if (!other) return r;
    if (auto op = detail::inlineMgpuOfFunction(*other, called.calleeSymbol))
      return rewriteIn(called.calleeFile, project.documentText(called.calleeFile), op);
  } catch (const std::exception&) {
    // Bad input never kills the server: no fix.
    return RewriteResult{};
  }
  return r;
}

} // namespace pallas::analysis
