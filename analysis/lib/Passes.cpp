// The Workspace view over the Project's documents, the call graph every
// Workspace answers from its modules, and the helpers passes use to read the
// dialect (Passes.h).
#include "pallas/analysis/detail/Passes.h"

#include "Names.h"
#include "Syntax.h"
#include "WorkspaceImpl.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "pallas/analysis/detail/Apis.h"
#include "pallas/analysis/detail/Dialect.h"

namespace pallas::analysis::detail {

namespace pd = pallas::dialect;

// ---- Workspace -------------------------------------------------------------

std::vector<std::string> WorkspaceImpl::documents() const {
  return list_();
}

mlir::ModuleOp WorkspaceImpl::module(const std::string& path) const {
  DocState* d = lookup_(path);
  return d && d->module ? *d->module : mlir::ModuleOp();
}

FunctionRef WorkspaceImpl::function(const std::string& path, llvm::StringRef symbol) const {
  DocState* d = lookup_(path);
  if (!d || !d->module)
    return {path, {}};
  mlir::ModuleOp m = *d->module;
  // Keyed by the document's generation too: looking another document up may
  // lower this one again (its imports changed), and then the map is stale.
  FunctionsOf& fns = functions_[d];
  if (!fns.valid || fns.generation != d->generation || fns.module != m.getOperation()) {
    fns = FunctionsOf{true, d->generation, m.getOperation(), {}};
    for (auto f : m.getOps<pd::FuncOp>())
      fns.byName.try_emplace(f.getSymName(), f); // first wins, as lookupSymbolIn's
  }
  auto f = fns.byName.find(symbol);
  return {path, f == fns.byName.end() ? pd::FuncOp() : f->second};
}

FunctionRef Workspace::resolveCall(const std::string& fromPath, pd::CallOp call) const {
  std::string path = call.getCalleeFile() ? call.getCalleeFile()->str() : fromPath;
  return function(path, call.getCallee());
}

FunctionRef Workspace::resolveLaunchBody(const std::string& fromPath, pd::LaunchOp launch) const {
  if (!launch.getBody())
    return {fromPath, {}};
  std::string path = launch.getBodyFile() ? launch.getBodyFile()->str() : fromPath;
  return function(path, *launch.getBody());
}

namespace {

// `@dec` over a def, lowered as `dec(<the def>)` in the def's decorators
// region: the decorator's function is called with the def (a call edge like
// any call of it). The function's global; null for anything else.
pd::GlobalOp decoratorCallee(pd::CallIndirectOp call) {
  auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
  auto f = llvm::dyn_cast_or_null<pd::FuncOp>(call->getParentOp());
  if (!g || !f || call->getParentRegion() != &f.getDecorators())
    return {};
  llvm::StringRef target = g.getResolved();
  return target.starts_with("local:") || target.starts_with("/") ? g : pd::GlobalOp{};
}

} // namespace

std::vector<CallEdge> Workspace::callEdges() const {
  std::vector<CallEdge> edges;
  for (const std::string& path : documents()) {
    mlir::ModuleOp m = module(path);
    if (!m)
      continue;
    std::vector<CallEdge> of = callEdgesOf(path, m);
    edges.insert(edges.end(), std::make_move_iterator(of.begin()),
                 std::make_move_iterator(of.end()));
  }
  return edges;
}

// A document's edges are walked once per version of its module
// (DocState::callEdges): the passes ask for the workspace's edges per
// launch, and a worker of `check` holding a folder of 70 test files walked
// every one of their modules for each launch of each.
std::vector<CallEdge> WorkspaceImpl::callEdges() const {
  std::vector<CallEdge> edges;
  for (const std::string& path : documents()) {
    DocState* d = lookup_(path);
    if (!d || !d->module)
      continue;
    DocState::CallEdgesCache& cache = d->callEdges;
    mlir::Operation* m = d->module->getOperation();
    if (!cache.valid || cache.generation != d->generation || cache.module != m) {
      d->doc.reparse(); // a no-op unless edits are pending
      cache = {true, d->generation, m, callEdgesOf(path, *d->module, &d->doc)};
    }
    edges.insert(edges.end(), cache.edges.begin(), cache.edges.end());
  }
  return edges;
}

std::vector<CallEdge> Workspace::callEdgesOf(const std::string& path, mlir::ModuleOp m,
                                             const syntax::ParsedSource* doc) {
  std::vector<CallEdge> edges;
  for (auto func : m.getOps<pd::FuncOp>()) {
    func->walk([&](mlir::Operation* op) {
      if (auto call = llvm::dyn_cast<pd::CallOp>(op)) {
        edges.push_back({{path, func},
                         op,
                         call.getCalleeFile() ? call.getCalleeFile()->str() : path,
                         call.getCallee().str()});
      } else if (auto ind = llvm::dyn_cast<pd::CallIndirectOp>(op)) {
        // `jax.vmap(functools.partial(f, interpret=True))(xs)` calls f.
        pd::GlobalOp g = tracedCallee(ind, nullptr, doc);
        if (!g)
          g = decoratorCallee(ind);
        if (g) {
          llvm::StringRef target = g.getResolved();
          if (target.consume_front("local:")) {
            edges.push_back({{path, func}, op, path, target.str()});
          } else if (size_t colon = target.rfind(':');
                     target.starts_with("/") && colon != llvm::StringRef::npos) {
            edges.push_back(
                {{path, func}, op, target.substr(0, colon).str(), target.substr(colon + 1).str()});
          }
        }
      } else if (auto launch = llvm::dyn_cast<pd::LaunchOp>(op); launch && launch.getBody()) {
        edges.push_back({{path, func},
                         op,
                         launch.getBodyFile() ? launch.getBodyFile()->str() : path,
                         launch.getBody()->str()});
      }
    });
  }
  return edges;
}

std::vector<CallEdge> Workspace::callersOf(const std::string& path, llvm::StringRef symbol) const {
  std::vector<CallEdge> out;
  for (CallEdge& e : callEdges())
    if (e.calleePath == path && e.calleeSymbol == symbol)
      out.push_back(std::move(e));
  return out;
}

DocumentSyntax WorkspaceImpl::syntaxOf(const std::string& path) const {
  DocState* d = lookup_(path);
  if (!d)
    return {};
  d->doc.reparse(); // a no-op unless edits are pending
  return {&d->doc, &d->globals};
}

// ---- dialect helpers -----------------------------------------------------------

namespace {

std::string keywordAt(mlir::ArrayAttr keywords, unsigned i) {
  if (!keywords || i >= keywords.size())
    return {};
  auto s = llvm::dyn_cast<mlir::StringAttr>(keywords[i]);
  return s ? s.getValue().str() : std::string();
}

// The function `callee` wraps (see tracedCallee); `wrapped` counts the
// transforms and partials passed on the way.
pd::GlobalOp wrappedFunction(mlir::Value callee, CallArguments* bound, unsigned depth,
                             unsigned& wrapped, const syntax::ParsedSource* doc) {
  mlir::Operation* def = callee ? callee.getDefiningOp() : nullptr;
  if (!def || depth > 8)
    return {};
  if (auto g = llvm::dyn_cast<pd::GlobalOp>(def)) {
    llvm::StringRef r = g.getResolved();
    if (r == "?" && doc) // a module-level name: what the module assigned it
      if (auto m = g->getParentOfType<mlir::ModuleOp>())
        if (mlir::Value v = moduleLevelValue(m, *doc, g.getName()))
          return wrappedFunction(v, bound, depth + 1, wrapped, doc);
    return r.starts_with("local:") || r.starts_with("/") ? g : pd::GlobalOp();
  }
  if (auto prim = llvm::dyn_cast<pd::PrimOp>(def)) {
    if (prim.getArgs().empty() || !keywordAt(prim.getKeywords(), 0).empty())
      return {};
    llvm::StringRef api = prim.getApi();
    if (!callsItsFunction(api) && api != "functools.partial")
      return {};
    ++wrapped;
    pd::GlobalOp g = wrappedFunction(prim.getArgs()[0], bound, depth + 1, wrapped, doc);
    if (g && bound && api == "functools.partial")
      for (unsigned i = 1; i < prim.getArgs().size(); ++i) {
        bound->values.push_back(prim.getArgs()[i]);
        bound->keywords.push_back(keywordAt(prim.getKeywords(), i));
      }
    return g;
  }
  // The decorator form on a nested def: `@jax.jit def f` is jax.jit(f).
  if (auto call = llvm::dyn_cast<pd::CallIndirectOp>(def); call && call.getArgs().size() == 1) {
    auto g = call.getCallee().getDefiningOp<pd::GlobalOp>();
    if (!g || !callsItsFunction(g.getResolved()) || !keywordAt(call.getKeywords(), 0).empty())
      return {};
    ++wrapped;
    return wrappedFunction(call.getArgs()[0], bound, depth + 1, wrapped, doc);
  }
  return {};
}

} // namespace

pd::GlobalOp tracedCallee(pd::CallIndirectOp call, CallArguments* args,
                          const syntax::ParsedSource* doc) {
  unsigned wrapped = 0;
  CallArguments bound;
  pd::GlobalOp g = wrappedFunction(call.getCallee(), args ? &bound : nullptr, 0, wrapped, doc);
  if (!g || wrapped == 0)
    return {};
  if (args) {
    *args = std::move(bound);
    for (unsigned i = 0; i < call.getArgs().size(); ++i) {
      args->values.push_back(call.getArgs()[i]);
      args->keywords.push_back(keywordAt(call.getKeywords(), i));
    }
  }
  return g;
}

CallArguments edgeArguments(const Workspace& ws, const CallEdge& edge) {
  CallArguments out;
  mlir::Operation* site = edge.site;
  if (auto call = llvm::dyn_cast_or_null<pd::CallOp>(site)) {
    for (unsigned i = 0; i < call.getArgs().size(); ++i) {
      out.values.push_back(call.getArgs()[i]);
      out.keywords.push_back(keywordAt(call.getKeywords(), i));
    }
  } else if (auto ind = llvm::dyn_cast_or_null<pd::CallIndirectOp>(site)) {
    if (!tracedCallee(ind, &out, ws.syntaxOf(edge.caller.path).doc) && decoratorCallee(ind))
      for (unsigned i = 0; i < ind.getArgs().size(); ++i) {
        out.values.push_back(ind.getArgs()[i]);
        out.keywords.push_back(keywordAt(ind.getKeywords(), i));
      }
  }
  return out;
}

mlir::Value moduleLevelValue(mlir::ModuleOp module, const syntax::ParsedSource& doc,
                             llvm::StringRef name, bool itemStores) {
  // Python's order of execution (names::moduleValue): the last top-level
  // assignment, unless something the run decides rebinds it.
  std::optional<names::ModuleValue> mv = names::moduleValue(doc, name.str());
  bool known = mv && (mv->state == names::ModuleValue::State::Known ||
                      (itemStores && mv->state == names::ModuleValue::State::Mutated));
  if (!known || !syntax::is(ts_node_parent(ts_node_parent(ts_node_parent(mv->value))), "module"))
    return {}; // not assigned, rebound at run time, or rebound by a function
  TSPoint at = ts_node_start_point(mv->value);
  mlir::Value found;
  for (pd::FuncOp f : module.getOps<pd::FuncOp>()) {
    if (f.getKind() != pd::FuncKind::Module || f.getBody().empty())
      continue;
    for (mlir::Operation& op : f.getBody().front()) {
      LineCol lc = lineCol(op.getLoc());
      if (lc.line == at.row + 1 && lc.column == at.column + 1 && op.getNumResults() == 1)
        found = op.getResult(0); // the outermost op at the position is emitted last
    }
  }
  return found;
}

bool isRefTransform(llvm::StringRef api) {
  return isRefTransformApi(api);
}

RefSource traceRef(mlir::Value value) {
  for (unsigned guard = 0; guard < 64 && value; ++guard) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      mlir::Operation* owner = arg.getOwner()->getParentOp();
      RefSource s;
      s.owner = owner;
      s.index = arg.getArgNumber();
      if (llvm::isa<pd::FuncOp>(owner))
        s.kind = RefSource::Kind::FuncArg;
      else if (llvm::isa<pd::ClosureOp>(owner))
        s.kind = RefSource::Kind::ClosureArg;
      else if (llvm::isa<pd::InlineMgpuOp>(owner))
        s.kind = RefSource::Kind::InlineArg;
      else if (auto scope = llvm::dyn_cast<pd::ScopeOp>(owner)) {
        s.kind = RefSource::Kind::ScopeArg;
        s.scopeOrigin = pd::enumName(scope.getArgOrigins()[s.index]);
      }
      return s;
    }
    mlir::Operation* def = value.getDefiningOp();
    if (auto prim = llvm::dyn_cast<pd::PrimOp>(def);
        prim && isRefTransform(prim.getApi()) && !prim.getArgs().empty()) {
      value = prim.getArgs()[0];
      continue;
    }
    if (auto opaque = llvm::dyn_cast<pd::OpaqueOp>(def);
        opaque && opaque.getWhat() == "unpack" && opaque.getArgs().size() == 1) {
      value = opaque.getArgs()[0];
      continue;
    }
    RefSource s;
    s.kind = RefSource::Kind::OpResult;
    s.owner = def;
    return s;
  }
  return {};
}

llvm::StringRef kernelParamOrigin(pd::LaunchOp launch, unsigned index, unsigned numParams) {
  auto scratch = launch.getScratch();
  if (!scratch)
    return "unknown";
  unsigned s = scratch->size();
  if (s > numParams || index < numParams - s)
    return s > numParams ? "unknown" : "kernel_param";
  llvm::StringRef kind = pd::enumName((*scratch)[index - (numParams - s)]);
  return kind == "acc" ? "acc" : "scratch";
}

LineCol lineCol(mlir::Location loc) {
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return {f.getFilename().str(), f.getLine(), f.getColumn()};
  if (auto c = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return lineCol(c.getCaller());
  if (auto n = llvm::dyn_cast<mlir::NameLoc>(loc))
    return lineCol(n.getChildLoc());
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : fused.getLocations())
      if (auto lc = lineCol(l); lc.line)
        return lc;
  return {};
}

SourceLocation sourceLocation(mlir::Location loc) {
  LineCol lc = lineCol(loc);
  SourceLocation s;
  s.path = lc.file;
  SourcePos p{lc.line ? lc.line - 1 : 0, lc.column ? lc.column - 1 : 0};
  s.range = {p, p};
  return s;
}

} // namespace pallas::analysis::detail
