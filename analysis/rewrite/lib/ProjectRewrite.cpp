// The Project-level entry: the server and the CLI hold a Project, not a
// module. The Project prints the module it keeps (with locations); parsing
// that text back gives the same ops without reaching into the Project's
// internals, and the rewrite runs on it.
#include "pallas/analysis/Rewrite.h"
#include "pallas/analysis/detail/RewriteInlineMgpu.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace pallas::analysis {

RewriteResult rewriteInlineMgpu(const Project& project, const std::string& path, SourcePos regionPos) {
  RewriteResult r;
  try {
    if (!project.hasDocument(path)) return r;
    std::string text = project.documentText(path);
    std::string mlirText = project.mlirText(path);
    mlir::MLIRContext ctx;
    ctx.loadDialect<dialect::PallasDialect>();
    ctx.allowUnregisteredDialects(false);
    // The printer writes an empty single-block region as `{}`, which parses
    // back as a region without blocks; the verifier would reject that, and
    // the ops are what they were, so skip it (the rewrite guards empty regions).
    mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(mlirText, config);
    if (!module) return r;
    dialect::InlineMgpuOp op = detail::findInlineMgpu(*module, text, regionPos);
    if (!op) return r;
    r = detail::rewriteInlineMgpuOp(op, text);
    // The parsed module's path attribute is the document's; keep the caller's spelling.
    if (r.fix)
      for (TextEdit& e : r.fix->edits) e.path = path;
    if (!r.blocker.empty()) r.blockerLoc.path = path;
  } catch (const std::exception&) {
    // Bad input never kills the server: no fix.
    return RewriteResult{};
  }
  return r;
}

} // namespace pallas::analysis
