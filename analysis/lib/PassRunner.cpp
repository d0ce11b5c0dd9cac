// How the analysis passes run (PallasPass.h): the product's pass pipeline,
// and on a .mlir file a one-module workspace whose findings become MLIR
// diagnostics.
#include "Names.h"
#include "Syntax.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "pallas/analysis/detail/PallasPass.h"

#include <algorithm>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

namespace pallas::analysis::passes {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pallas/analysis/detail/Passes.h.inc"
} // namespace pallas::analysis::passes

namespace pallas::analysis::detail {

namespace {

// The workspace of a lone .mlir file: its module is the only document.
class SingleModuleWorkspace final : public Workspace {
public:
  SingleModuleWorkspace(std::string path, mlir::ModuleOp module)
      : path_(std::move(path)), module_(module) {}
  std::vector<std::string> documents() const override { return {path_}; }
  mlir::ModuleOp module(const std::string& path) const override {
    return path == path_ ? module_ : mlir::ModuleOp();
  }
  FunctionRef function(const std::string& path, llvm::StringRef symbol) const override {
    if (path != path_)
      return {path, {}};
    mlir::ModuleOp module = module_;
    for (auto f : module.getOps<dialect::FuncOp>())
      if (f.getSymName() == symbol)
        return {path, f}; // first wins, as in the product
    return {path, {}};
  }
  // The Python file the module was lowered from (its locations name it), so
  // the passes that read values from the source (shapes, dtypes: PLS005-PLS009)
  // size the same kernels on a .mlir file as in the product. Nothing when the
  // file is not Python or cannot be read.
  DocumentSyntax syntaxOf(const std::string& path) const override {
    if (path != path_ || !llvm::StringRef(path).ends_with(".py"))
      return {};
    if (!doc_) {
      std::ifstream in(path, std::ios::binary);
      if (!in)
        return {};
      std::ostringstream text;
      text << in.rdbuf();
      doc_ = std::make_unique<syntax::Document>();
      doc_->setText(text.str());
      globals_ = std::make_unique<names::Globals>();
      globals_->build(*doc_, path, nullptr);
    }
    return {doc_.get(), globals_.get()};
  }

private:
  std::string path_;
  mlir::ModuleOp module_;
  mutable std::unique_ptr<syntax::Document> doc_;
  mutable std::unique_ptr<names::Globals> globals_;
};

// The document a module stands for: its `pallas.path` (the front end sets
// it), else the file of its first op with a file location (the .mlir file
// itself for ops written without `loc(...)`).
std::string documentPath(mlir::ModuleOp module) {
  if (auto attr = module->getAttrOfType<mlir::StringAttr>("pallas.path"))
    return attr.str();
  std::string path;
  module.walk([&](mlir::Operation* op) {
    if (auto lc = lineCol(op->getLoc()); !lc.file.empty()) {
      path = lc.file;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return path.empty() ? lineCol(module.getLoc()).file : path;
}

mlir::Location locationOf(mlir::MLIRContext* context, const SourceLocation& at) {
  return mlir::FileLineColLoc::get(context, at.path, at.range.start.line + 1,
                                   at.range.start.column + 1);
}

// One finding as one diagnostic: "PLS001: message", with notes for the
// execution path, the related locations and the call chain.
void emitFinding(mlir::MLIRContext* context, const Finding& f) {
  mlir::Location loc = locationOf(context, f.location);
  mlir::InFlightDiagnostic diag = f.severity == Severity::Error     ? mlir::emitError(loc)
                                  : f.severity == Severity::Warning ? mlir::emitWarning(loc)
                                                                    : mlir::emitRemark(loc);
  diag << f.code << ": " << f.message;
  if (!f.executionPath.empty())
    diag.attachNote(f.launch ? locationOf(context, *f.launch) : loc)
        << "execution path: " << f.executionPath;
  for (const RelatedInfo& r : f.related)
    diag.attachNote(locationOf(context, r.location)) << r.message;
  if (!f.callChain.empty()) {
    std::string chain;
    for (const std::string& hop : f.callChain)
      chain += (chain.empty() ? "" : " -> ") + hop;
    diag.attachNote(loc) << "call chain: " << chain;
  }
}

} // namespace

bool runPassBody(mlir::Pass& pass, mlir::ModuleOp module, ProductRun* product,
                 const PassOptionValues& values, llvm::function_ref<void(PassContext&)> body) {
  if (product) {
    if (product->ctx.stopRequested())
      return true; // the run's findings are discarded (Project::findings)
    try {
      body(product->ctx);
    } catch (const std::exception& e) {
      if (product->onException)
        product->onException(pass.getArgument(), e.what());
    }
    return true;
  }
  ProjectOptions options;
  options.knowledgePath = values.knowledgePath;
  options.gpuComputeCapability = values.gpuComputeCapability;
  options.assumePath = values.assumePath;
  std::string path = documentPath(module);
  SingleModuleWorkspace workspace(path, module);
  std::vector<Finding> findings;
  PassContext ctx{workspace, path, module, options, findings};
  try {
    body(ctx);
  } catch (const std::exception& e) {
    module.emitError() << pass.getArgument() << " failed: " << e.what();
    return false;
  }
  for (const Finding& f : findings)
    emitFinding(module.getContext(), f);
  return true;
}

std::vector<FindingsPass>& findingsPasses() {
  static std::vector<FindingsPass> passes;
  return passes;
}

void registerPallasPasses() {
  static std::once_flag once;
  std::call_once(once, [] { passes::registerPallasPasses(); });
}

namespace {

void runPipeline(ProductRun& run, std::vector<std::unique_ptr<mlir::Pass>> passes) {
  if (!run.ctx.module)
    return;
  mlir::PassManager pm(run.ctx.module.getContext(), mlir::ModuleOp::getOperationName());
  // The passes only read the module; the front end verified what it built.
  pm.enableVerifier(false);
  for (auto& pass : passes)
    pm.addPass(std::move(pass));
  (void)pm.run(run.ctx.module);
}

} // namespace

void runFindingsPasses(ProductRun& run) {
  registerPallasPasses(); // links every pass's object, so its registration ran
  std::vector<FindingsPass> ordered = findingsPasses();
  std::sort(ordered.begin(), ordered.end(),
            [](const FindingsPass& a, const FindingsPass& b) { return a.argument < b.argument; });
  std::vector<std::unique_ptr<mlir::Pass>> passes;
  for (const FindingsPass& p : ordered)
    passes.push_back(p.create(&run));
  runPipeline(run, std::move(passes));
}

void runPathMatrixPass(ProductRun& run) {
  std::vector<std::unique_ptr<mlir::Pass>> passes;
  passes.push_back(createPathMatrixPass(&run));
  runPipeline(run, std::move(passes));
}

} // namespace pallas::analysis::detail
