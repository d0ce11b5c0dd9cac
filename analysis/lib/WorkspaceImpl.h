// Internal state of a Project document and the Workspace view the passes
// get (see pallas/analysis/detail/Passes.h). MLIR-heavy; analysis/lib only.
#pragma once

#include "Lower.h"
#include "Names.h"
#include "Syntax.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/StringMap.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pallas::analysis::detail {

// One unit of a document and the pallas.func it became.
struct UnitState {
  uint64_t hash = 0;       // xxh3 of the unit's text
  uint64_t headerHash = 0; // see lower::Unit::headerHash
  std::string kind;
  uint32_t startRow = 0, startColumn = 0;
  mlir::Operation* op = nullptr; // owned by the module (or detached during an update)
  lower::UnitDeps deps;
  bool fresh = false; // lowered in the current update (to verify)
};

struct DocState {
  std::string path;
  syntax::ParsedSource doc;
  names::Globals globals;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<UnitState> units;
  bool isOpen = false;
  bool stale = true;       // module not lowered since the text/globals changed
  uint64_t generation = 0; // bumped on every update
  std::map<std::string, uint64_t> depGenerations; // of the files its names came from
  UpdateStats lastStats;
  // Workspace::callEdgesOf of `module` at `generation` (WorkspaceImpl).
  struct CallEdgesCache {
    bool valid = false;
    uint64_t generation = 0;
    mlir::Operation* module = nullptr;
    std::vector<CallEdge> edges;
  };
  CallEdgesCache callEdges;
  // The py dialect module (analysis/py) of `doc`, lowered on demand for the
  // evaluator, kept while the text is the same.
  mlir::OwningOpRef<mlir::ModuleOp> pyModule;
  uint64_t pyText = 0;              // the hash of the text it was lowered from
  std::vector<uint64_t> pyUnitKeys; // py::updateModule's keys of its units
};

class WorkspaceImpl final : public Workspace {
public:
  using Lookup = std::function<DocState*(const std::string&)>;
  using List = std::function<std::vector<std::string>()>;
  using Resolve = std::function<std::optional<std::string>(const std::string& dotted, int level,
                                                           const std::string& fromPath)>;
  // `peek` finds a document the project already holds, as it is; `index`
  // one parsed (indexed from disk on demand) without lowering its module;
  // `resolve` is module resolution.
  WorkspaceImpl(Lookup lookup, List list, Lookup peek = nullptr, Lookup index = nullptr,
                Resolve resolve = nullptr, mlir::MLIRContext* context = nullptr)
      : lookup_(std::move(lookup)), list_(std::move(list)), peek_(std::move(peek)),
        index_(std::move(index)), resolve_(std::move(resolve)), context_(context) {}

  std::vector<std::string> documents() const override;
  mlir::ModuleOp module(const std::string& path) const override;
  FunctionRef function(const std::string& path, llvm::StringRef symbol) const override;
  DocumentSyntax syntaxOf(const std::string& path) const override;
  std::optional<std::string_view> textOf(const std::string& path) const override;
  std::vector<CallEdge> callEdges() const override;
  mlir::ModuleOp pyModule(const std::string& path) const override;
  std::optional<std::string> moduleFile(const std::string& dotted, int level,
                                        const std::string& fromPath) const override;

private:
  Lookup lookup_;
  List list_;
  Lookup peek_;
  Lookup index_;
  Resolve resolve_;
  mlir::MLIRContext* context_;
  // Functions of each module by name, built on first lookup: a workspace
  // lives for one findings() call, under the Project's lock, and
  // SymbolTable::lookupSymbolIn scans every function of the module per call
  // (launches x functions on a large module).
  struct FunctionsOf {
    bool valid = false;
    uint64_t generation = 0;
    mlir::Operation* module = nullptr;
    llvm::StringMap<dialect::FuncOp> byName;
  };
  mutable std::map<const DocState*, FunctionsOf> functions_;
};

} // namespace pallas::analysis::detail
