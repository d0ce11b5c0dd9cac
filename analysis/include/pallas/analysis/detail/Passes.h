// Internal API for the analysis passes (analysis/passes/*.cpp): the modules
// of the workspace's documents, the cross-file call graph, and the context a
// pass body runs with. MLIR-heavy: include only from pass TUs and tests.
//
// The passes are mlir::Passes (analysis/passes/Passes.td, PallasPass.h);
// adding one is described in analysis/docs/dialect.md, "Adding a pass".
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "pallas/analysis/Finding.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/detail/Dialect.h"

#include <functional>
#include <string>
#include <vector>

namespace pallas::analysis::syntax {
class ParsedSource;
}
namespace pallas::analysis::names {
class Globals;
}

namespace pallas::analysis::detail {

// The syntax of a document (for evaluators that need what the dialect does
// not keep, e.g. operators and keyword arguments: analysis/passes/ShapeEval.h).
struct DocumentSyntax {
  const syntax::ParsedSource* doc = nullptr; // null when the document is unknown
  const names::Globals* globals = nullptr;
};

// A function of the workspace: the document it lives in and its op.
struct FunctionRef {
  std::string path;
  dialect::FuncOp func; // null when not found
  explicit operator bool() const { return static_cast<bool>(func); }
};

// One edge of the call graph: `site` (a pallas.call, a pallas.call_indirect of
// a function through transforms that call it, or a pallas.launch whose body is
// a module-level function) inside `caller` calls `callee`.
struct CallEdge {
  FunctionRef caller;
  mlir::Operation* site = nullptr;
  std::string calleePath;   // absolute path of the callee's document
  std::string calleeSymbol; // its pallas.func symbol
};

// A read-only view of the workspace's modules, valid for the duration of one
// `Project::findings` call (the Project's lock is held meanwhile).
class Workspace {
public:
  virtual ~Workspace() = default;
  // Paths of every document (open or indexed from disk) with a module.
  virtual std::vector<std::string> documents() const = 0;
  // The module of `path`; null when there is none.
  virtual mlir::ModuleOp module(const std::string& path) const = 0;
  // The pallas.func `symbol` of `path`'s module.
  virtual FunctionRef function(const std::string& path, llvm::StringRef symbol) const = 0;
  // The rest is answered from the three above (Passes.cpp).
  // Where a pallas.call (in the document `fromPath`) goes.
  virtual FunctionRef resolveCall(const std::string& fromPath, dialect::CallOp call) const;
  // The kernel body of a launch when it is a module-level function.
  virtual FunctionRef resolveLaunchBody(const std::string& fromPath,
                                        dialect::LaunchOp launch) const;
  // Every pallas.call and function-bodied pallas.launch edge of the workspace.
  virtual std::vector<CallEdge> callEdges() const;
  // Those of one module, in the order callEdges() lists them.
  // `doc`, when given, lets a call through a module-level name count (tracedCallee).
  static std::vector<CallEdge> callEdgesOf(const std::string& path, mlir::ModuleOp module,
                                           const syntax::ParsedSource* doc = nullptr);
  // Edges that end in (path, symbol).
  virtual std::vector<CallEdge> callersOf(const std::string& path, llvm::StringRef symbol) const;
  // The tree-sitter tree and module names of `path`.
  virtual DocumentSyntax syntaxOf(const std::string& path) const {
    (void)path;
    return {};
  }
  // The text of a document the workspace holds, without bringing its module
  // up to date (syntaxOf lowers it); nullopt when not known that cheaply.
  virtual std::optional<std::string_view> textOf(const std::string& path) const {
    (void)path;
    return std::nullopt;
  }
  // The py dialect module of a document (analysis/py): every statement and
  // expression as an op, for the evaluator; null when there is none.
  virtual mlir::ModuleOp pyModule(const std::string& path) const {
    (void)path;
    return {};
  }
  // The workspace file `import dotted` (with `level` leading dots) from
  // `fromPath` loads; nullopt when it is not one (a library).
  virtual std::optional<std::string> moduleFile(const std::string& dotted, int level,
                                                const std::string& fromPath) const {
    (void)dotted;
    (void)level;
    (void)fromPath;
    return std::nullopt;
  }
};

class LaunchCache; // analysis/passes/LaunchCache.h

struct PassContext {
  const Workspace& workspace;
  std::string path;      // the document findings are asked for
  mlir::ModuleOp module; // its module
  const ProjectOptions& options;
  std::vector<Finding>& findings; // append here
  // Asked between passes and between launches: a newer edit of the document
  // made these findings stale (the server's StopToken). Null: never stop.
  const std::function<bool()>* stop = nullptr;
  bool stopRequested() const { return stop && *stop && (*stop)(); }
  // Per-launch results kept across runs (analysis/passes/LaunchCache.h);
  // null outside the Project (pallas-opt): every launch is evaluated.
  LaunchCache* launchCache = nullptr;
  // What the evaluator computed for this run (analysis/passes/EvalLaunches.h),
  // shared by the passes that read it.
  // (Filled on first use, from passes that only read the context.)
  mutable std::shared_ptr<void> evaluation = nullptr;
};

// ---- helpers over the dialect ------------------------------------------------

// The arguments a call passes to its callee, in the order Python binds them
// (keywords "" are positional, "*" / "**" splats).
struct CallArguments {
  llvm::SmallVector<mlir::Value> values;
  std::vector<std::string> keywords;
};

// The module function a pallas.call_indirect calls when its callee is that
// function wrapped by transforms that call it with the call's own arguments
// (`jax.vmap(f)`, `jax.jit(f, static_argnums=1)`, `jax.checkpoint(f)`, also
// as `@jax.jit` on a nested def) and functools.partial (partial of partial
// too): the pallas.global naming it ("local:f" or "/path/m.py:f"); null
// otherwise, and for a function called directly (a pallas.call). `args`, when
// given, gets what f receives: the partials' bound arguments, innermost
// first, then the call's.
// `doc` (the syntax of the call's document), when given, follows a
// module-level name to the value the module assigned it (`ADD =
// functools.partial(add, interpret=True)` then `jax.vmap(ADD)(xs)`).
dialect::GlobalOp tracedCallee(dialect::CallIndirectOp call, CallArguments* args = nullptr,
                               const syntax::ParsedSource* doc = nullptr);
// The method of a class of the call's module that a pallas.call_indirect
// runs (8.72): `obj.m(...)` with obj an object `K(...)` built there (also
// through a local), `K.m(...)`, `self.m(...)` in a method of a K nothing
// derives from, `K(...)(...)` (__call__); the method found along K's bases
// of the module, undecorated or a staticmethod. `args`, when given, gets
// what the method receives (the object first for a bound call). Null
// otherwise.
// `call` is a pallas.call_indirect, or the prim "value.m"(obj, args...)
// a call on a local is lowered as.
dialect::FuncOp methodCallee(mlir::Operation* call, const syntax::ParsedSource* doc,
                             CallArguments* args = nullptr);
// What the site of a call edge passes to its callee (empty for a launch).
CallArguments edgeArguments(const Workspace& ws, const CallEdge& edge);

// The op result a module-level name holds once the module has run: its last
// top-level assignment (names::moduleValue), when nothing the run decides
// rebinds it; with `itemStores`, also when top-level item assignments then
// change it. Null otherwise.
mlir::Value moduleLevelValue(mlir::ModuleOp module, const syntax::ParsedSource& doc,
                             llvm::StringRef name, bool itemStores = false);

// Where a Ref operand comes from, following Ref transforms (ref.at,
// ref.reshape, ref.bitcast, plgpu.transform_ref, ...) back to its source.
struct RefSource {
  enum class Kind {
    Value,      // not a Ref as far as the front end knows
    FuncArg,    // block argument `index` of pallas.func `owner`
    ClosureArg, // block argument `index` of pallas.closure `owner`
    InlineArg,  // block argument `index` of a pallas.inline_mgpu region
    ScopeArg,   // block argument `index` of pallas.scope `owner` (see scopeOrigin)
    OpResult,   // the result of `owner` (e.g. pl.empty_ref_like)
  };
  Kind kind = Kind::Value;
  mlir::Operation* owner = nullptr;
  unsigned index = 0;
  llvm::StringRef scopeOrigin; // for ScopeArg: its arg_origins entry
};
RefSource traceRef(mlir::Value value);

// True for prim APIs that return a view of their first operand (a transformed
// Ref): ref.at, ref.reshape, ref.bitcast, plgpu.transform_ref, ...
bool isRefTransform(llvm::StringRef api);

// The origin of parameter `index` of a launch's body with `numParams`
// parameters: "kernel_param", "scratch", "acc", or "unknown" (scratch not
// statically known and index could be a scratch slot).
llvm::StringRef kernelParamOrigin(dialect::LaunchOp launch, unsigned index, unsigned numParams);
// Which of the launch's scratch allocations parameter `index` receives (the
// last parameters take them, in order); nullopt for an operand's parameter
// or when the scratch is not statically known.
std::optional<unsigned> scratchPosition(dialect::LaunchOp launch, unsigned index,
                                        unsigned numParams);
// Whether that parameter is a scratch `plgpu.RefUnion`.
bool kernelParamIsRefUnion(dialect::LaunchOp launch, unsigned index, unsigned numParams);

// 1-based (line, column) of an op's own source position: the FileLineColLoc,
// or the caller end of a CallSiteLoc.
struct LineCol {
  std::string file;
  unsigned line = 0, column = 0;
};
LineCol lineCol(mlir::Location loc);
// The same as a 0-based SourceLocation (a zero-width range at that point).
SourceLocation sourceLocation(mlir::Location loc);

} // namespace pallas::analysis::detail
