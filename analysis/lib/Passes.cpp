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
#include "pallas/py/Lowering.h"

#include "llvm/Support/xxhash.h"

namespace pallas::analysis::detail {

namespace pd = pallas::dialect;

// ---- Workspace -------------------------------------------------------------

mlir::ModuleOp WorkspaceImpl::pyModule(const std::string& path) const {
  DocState* d = index_ ? index_(path) : (peek_ ? peek_(path) : nullptr);
  if (!d)
    return {};
  // The py module depends on the text alone: a generation bumped because a
  // dependency changed keeps it (evaluations hold its ops for the run). An
  // edit lowers again the top-level statements it changed.
  uint64_t text = llvm::xxh3_64bits(d->doc.text());
  if (!d->pyModule || d->pyText != text) {
    mlir::MLIRContext* context =
        context_ ? context_ : (d->module ? d->module->getContext() : nullptr);
    if (!context)
      return {};
    if (!d->pyModule || d->pyModule->getContext() != context) {
      d->pyModule = mlir::ModuleOp::create(mlir::FileLineColLoc::get(context, path, 1, 1));
      d->pyUnitKeys.clear();
    }
    py::SourceView src{d->doc.text(), d->doc.root(), path,
                       [d](TSNode error) { return d->doc.recoveredChunks(error); }};
    py::updateModule(*d->pyModule, src, d->pyUnitKeys);
    d->pyText = text;
  }
  return *d->pyModule;
}

std::optional<std::string> WorkspaceImpl::moduleFile(const std::string& dotted, int level,
                                                     const std::string& fromPath) const {
  return resolve_ ? resolve_(dotted, level, fromPath) : std::nullopt;
}

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

// The names of the decorators applied to a def (`@staticmethod`: "staticmethod").
std::vector<std::string> decoratorNames(pd::FuncOp f) {
  std::vector<std::string> out;
  f.getDecorators().walk([&](pd::CallIndirectOp apply) {
    auto g = apply.getCallee().getDefiningOp<pd::GlobalOp>();
    out.push_back(g ? g.getName().str() : std::string("?"));
  });
  return out;
}

// The class a receiver value is, for a method call (8.72): `K` itself
// (`K.m(...)`, *onClass), an object `K(...)` built in this module (directly
// or through a local name), or `self` of a method of K that no class of
// the module derives from (so `self.m` is K's); "" otherwise.
std::string receiverClass(mlir::Value obj, const syntax::ParsedSource* doc, bool* onClass) {
  *onClass = false;
  if (auto g = obj.getDefiningOp<pd::GlobalOp>()) {
    llvm::StringRef r = g.getResolved();
    *onClass = r.consume_front("class:");
    return *onClass && r == g.getName() ? r.str() : std::string();
  }
  if (auto built = obj.getDefiningOp<pd::CallIndirectOp>()) {
    auto g = built.getCallee().getDefiningOp<pd::GlobalOp>();
    llvm::StringRef r = g ? g.getResolved() : "";
    return r.consume_front("class:") && r == g.getName() ? r.str() : std::string();
  }
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(obj);
  auto f = arg ? llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!f || f.getKind() != pd::FuncKind::Method || arg.getArgNumber() != 0 || !doc ||
      &f.getBody().front() != arg.getOwner())
    return {};
  llvm::StringRef sym = f.getSymName();
  std::string cls = sym.substr(0, sym.rfind('.')).str();
  if (!decoratorNames(f).empty())
    return {}; // a static or class method: its first parameter is no instance
  for (TSNode stmt : syntax::namedChildren(doc->root())) {
    TSNode d = syntax::is(stmt, "decorated_definition") ? syntax::field(stmt, "definition") : stmt;
    if (!syntax::is(d, "class_definition"))
      continue;
    for (TSNode b : syntax::namedChildren(syntax::field(d, "superclasses")))
      if (doc->textOf(b) == cls)
        return {}; // a subclass may override the method
  }
  return cls;
}

// The method `attr` of the module-level class `cls` of this module, found
// along its bases of this module (depth first, leftmost first): its
// pallas.func; null when not found.
pd::FuncOp methodOf(const std::unordered_map<std::string, pd::FuncOp>& funcs,
                    const syntax::ParsedSource* doc, const std::string& cls,
                    const std::string& attr, unsigned depth = 0) {
  if (depth > 8)
    return {};
  if (auto it = funcs.find(cls + "." + attr); it != funcs.end())
    return it->second;
  if (!doc)
    return {};
  for (TSNode stmt : syntax::namedChildren(doc->root())) {
    TSNode d = syntax::is(stmt, "decorated_definition") ? syntax::field(stmt, "definition") : stmt;
    if (!syntax::is(d, "class_definition") || doc->textOf(syntax::field(d, "name")) != cls)
      continue;
    for (TSNode b : syntax::namedChildren(syntax::field(d, "superclasses")))
      if (syntax::is(b, "identifier"))
        if (pd::FuncOp f = methodOf(funcs, doc, std::string(doc->textOf(b)), attr, depth + 1))
          return f;
    return {};
  }
  return {};
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
        // `Op.apply(x, interpret=True)`, `Op()(x)`: the method (8.72).
        if (pd::FuncOp method = g ? pd::FuncOp() : methodCallee(ind, doc, nullptr))
          edges.push_back({{path, func}, op, path, method.getSymName().str()});
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
      } else if (auto prim = llvm::dyn_cast<pd::PrimOp>(op)) {
        // `op.apply(x, interpret=True)` on a local: a method call (8.72).
        if (pd::FuncOp method = methodCallee(prim, doc, nullptr))
          edges.push_back({{path, func}, op, path, method.getSymName().str()});
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

std::optional<std::string_view> WorkspaceImpl::textOf(const std::string& path) const {
  DocState* d = peek_ ? peek_(path) : nullptr;
  if (!d)
    return std::nullopt;
  return std::string_view(d->doc.text());
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

pd::FuncOp methodCallee(mlir::Operation* call, const syntax::ParsedSource* doc,
                        CallArguments* args) {
  auto m = call->getParentOfType<mlir::ModuleOp>();
  if (!m)
    return {};
  mlir::Value callee, obj;
  std::string attr;
  // `obj.m(a, k=v)` on a local is lowered as one prim "value.m"(obj, a, v):
  // a call unless it has no argument of its own and its result is itself
  // called (then it reads the method). With arguments it is the call even
  // when what it returns is called (`Launcher().kernel(body, shape)(x)`,
  // 8.77).
  mlir::ValueRange callArgs;
  mlir::ArrayAttr callKeywords;
  unsigned firstArg = 0;
  if (auto p = llvm::dyn_cast<pd::PrimOp>(call)) {
    llvm::StringRef api = p.getApi();
    if (p.getArgs().empty() || (!api.consume_front("value.") && !api.consume_front("ref.")) ||
        !keywordAt(p.getKeywords(), 0).empty())
      return {};
    bool read = llvm::any_of(p->getUsers(), [&](mlir::Operation* u) {
      auto ind = llvm::dyn_cast<pd::CallIndirectOp>(u);
      return ind && ind.getCallee() == p.getResult();
    });
    if (read && p.getArgs().size() == 1)
      return {};
    obj = p.getArgs()[0];
    attr = api.str();
    callArgs = p.getArgs();
    callKeywords = p.getKeywords();
    firstArg = 1;
  } else if (auto ind = llvm::dyn_cast<pd::CallIndirectOp>(call)) {
    callee = ind.getCallee();
    callArgs = ind.getArgs();
    callKeywords = ind.getKeywords();
  } else {
    return {};
  }
  if (obj) {
    // obj and attr are known
  } else if (auto p = callee.getDefiningOp<pd::PrimOp>(); p && p.getArgs().size() == 1) {
    llvm::StringRef api = p.getApi();
    if (!api.consume_front("value.") && !api.consume_front("ref."))
      return {};
    obj = p.getArgs()[0];
    attr = api.str();
  } else if (auto built = callee.getDefiningOp<pd::CallIndirectOp>()) {
    obj = callee; // an object called: its class's __call__
    attr = "__call__";
  } else {
    return {};
  }
  bool onClass = false;
  std::string cls = receiverClass(obj, doc, &onClass);
  if (cls.empty() || (onClass && attr == "__call__"))
    return {};
  std::unordered_map<std::string, pd::FuncOp> funcs;
  for (pd::FuncOp f : m.getOps<pd::FuncOp>())
    if (f.getKind() == pd::FuncKind::Method)
      funcs[f.getSymName().str()] = f;
  pd::FuncOp method = methodOf(funcs, doc, cls, attr);
  if (!method)
    return {};
  // Which decorators: a staticmethod binds nothing, a classmethod its class
  // (not followed here), anything else is not a plain call of the def.
  std::vector<std::string> decorators = decoratorNames(method);
  bool isStatic = decorators.size() == 1 && decorators[0] == "staticmethod";
  if (!decorators.empty() && !isStatic)
    return {};
  if (args) {
    if (!isStatic && !onClass) {
      args->values.push_back(obj); // the bound receiver is `self`
      args->keywords.push_back("");
    }
    for (unsigned i = firstArg; i < callArgs.size(); ++i) {
      args->values.push_back(callArgs[i]);
      args->keywords.push_back(keywordAt(callKeywords, i));
    }
  }
  return method;
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
    const syntax::ParsedSource* doc = ws.syntaxOf(edge.caller.path).doc;
    if (!tracedCallee(ind, &out, doc) && decoratorCallee(ind)) {
      for (unsigned i = 0; i < ind.getArgs().size(); ++i) {
        out.values.push_back(ind.getArgs()[i]);
        out.keywords.push_back(keywordAt(ind.getKeywords(), i));
      }
    } else if (out.values.empty()) {
      methodCallee(ind, doc, &out);
    }
  } else if (auto prim = llvm::dyn_cast_or_null<pd::PrimOp>(site)) {
    methodCallee(prim, ws.syntaxOf(edge.caller.path).doc, &out);
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

std::optional<unsigned> scratchPosition(pd::LaunchOp launch, unsigned index, unsigned numParams) {
  auto scratch = launch.getScratch();
  if (!scratch || scratch->size() > numParams || index < numParams - scratch->size())
    return std::nullopt;
  return index - (numParams - static_cast<unsigned>(scratch->size()));
}

llvm::StringRef kernelParamOrigin(pd::LaunchOp launch, unsigned index, unsigned numParams) {
  auto scratch = launch.getScratch();
  if (!scratch || scratch->size() > numParams)
    return "unknown";
  std::optional<unsigned> at = scratchPosition(launch, index, numParams);
  if (!at)
    return "kernel_param";
  return pd::enumName((*scratch)[*at]) == "acc" ? "acc" : "scratch";
}

bool kernelParamIsRefUnion(pd::LaunchOp launch, unsigned index, unsigned numParams) {
  std::optional<unsigned> at = scratchPosition(launch, index, numParams);
  return at && pd::enumName((*launch.getScratch())[*at]) == "union";
}

LineCol lineCol(mlir::Location loc) {
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return {f.getFilename().str(), f.getLine(), f.getColumn()};
  // The py dialect's locations are ranges: where they start.
  if (auto r = llvm::dyn_cast<mlir::FileLineColRange>(loc))
    return {r.getFilename().str(), r.getStartLine(), r.getStartColumn()};
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
