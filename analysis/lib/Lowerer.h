// The Lowerer: lowering of one unit of Python (tree-sitter) to the `pallas`
// dialect. The contract of what each construct becomes is
// analysis/docs/dialect.md. Private to analysis/lib: the entry points are in
// Lower.h. The implementation is split by job:
//   LowerExpressions.cpp  values, arguments, names, attributes, subscripts, calls
//   LowerApiCalls.cpp     calls of JAX/Pallas APIs (factories, loops, scopes)
//   LowerHigherOrder.cpp  closures, scopes, factories, decorators, inline_mgpu
//   LowerLaunches.cpp     pallas_call / plgpu.kernel / core_map launches
//   LowerStatements.cpp   blocks, if/with/for/try, assignments, imports
//   LowerPathFacts.cpp    reachability and the truth of conditions on a path
//   LowerUnits.cpp        units of a document, their fingerprints, lowerUnit
#pragma once

#include "KernelTakingWrappers.h"
#include "Lower.h"
#include "mlir/IR/Builders.h"
#include "pallas/analysis/detail/Apis.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace pallas::analysis::lower {

using names::Binding;
using syntax::field;
using syntax::is;
using syntax::isNull;
namespace pd = pallas::dialect;

inline std::string str(std::string_view s) {
  return std::string(s);
}

// API vocabulary: the catalogue (pallas/analysis/detail/Apis.def).
using detail::Api;
using detail::apiName;
using detail::isLaunchApi;
using detail::isPipelineApi;
using detail::runsBodyInPlace;

constexpr unsigned kMaxNesting =
    kMaxAnalysedNesting; // deeper syntax becomes pallas.opaque "too_deep"

// The index expressions of a subscript: its named children after the value.
std::vector<TSNode> subscriptIndices(TSNode subscript);

// Where a value comes from, when it is (or may be) a Ref.
struct Prov {
  llvm::StringRef origin = pd::origin::kValue;
  int argIndex = -1;
};

// A call of a launch wrapper method (LowerWrappers.cpp): the launch API it
// forwards to and the keywords the forwarding calls add (nodes of this
// document, written in the wrapper's body), outermost first.
struct LaunchWrapper {
  std::string api;
  std::string method;
  std::vector<std::pair<std::string, TSNode>> keywords;
  std::string backend; // named through the wrapper's own imports
  // The caller passes the kernel (KernelTakingWrappers.cpp): where, and the
  // pipeline the wrapper runs it in.
  std::optional<names::TakesKernel> takesKernel;
  // A wrapper of a base class of another file (8.21): the interpret= its
  // summary gives (Binding::portableWrappers), none when it passes none.
  std::optional<names::InterpretEval> foreignInterpret;
};

// A higher-order API called without its body yet (`pl.when(c)`,
// `functools.partial(pl.run_scoped, ...)`, `plgpu.inline_mgpu(...)`):
// applying it to a function emits the scope / launch / wrapper.
struct Factory {
  std::string api;
  TSNode call{}; // the factory call (its arguments configure it)
  bool viaPartial = false;
  std::optional<Binding> partial; // a module-level functools.partial binding
  // The body is the call's first positional argument (`pl.run_scoped(body,
  // ...)`), not given later by a decorator or a second call.
  bool bodyInCall = false;
  std::optional<LaunchWrapper> wrapper; // a launch reached through a wrapper method
};

struct ValInfo {
  Prov prov;
  std::optional<Factory> factory;
  std::optional<Binding> binding; // a name that resolves like a global (local import, alias)
  TSNode constant{};              // a local name bound to a literal
  bool isParam = false;           // a parameter (for default_param evaluation)
  TSNode paramDefault{};
  // `p = p or E` with p a parameter whose default is falsy (8.51): what p
  // holds when the caller leaves it out (E, over module names only).
  TSNode orDefault{};
  TSNode closureDef{}; // the def/lambda a closure value was made from
  // A `for` target that takes every element of this literal tuple / list in
  // turn (LowerStatements.cpp, everyElementOf), each iteration run in full.
  TSNode iterElements{};
  TSNode tupleLiteral{}; // a local name bound to a literal tuple
  // A local name bound to an expression that may read parameters
  // (`interpret = mode == "debug"`, `interpret = bool(debug)`): what an
  // interpret= reading the name evaluates per caller (8.67).
  TSNode expression{};
  // A target unpacked from a parameter whose default is a tuple literal
  // (`a, b = modes` with `modes=(True, False)`, 8.76): the parameter, the
  // index, and the default's element (what a caller leaving it out gives).
  std::string paramElementOf;
  int paramElementIndex = -1;
  TSNode elementDefault{};
  // A name an `if` / `match` rebinds on some branches whose condition is
  // not known statically: the value each branch leaves it with (the other
  // fields describe the last branch only). Readers that need the value
  // (interpret=) take every alternative; one of them runs.
  llvm::SmallVector<mlir::Value, 2> alternatives;
};

struct Var {
  mlir::Value value;
  unsigned regionDepth = 0;
};

// One Python function scope (func, closure, or a body inlined into a scope).
struct FnScope {
  std::unordered_map<std::string, Var> vars;
  std::unordered_map<std::string, TSNode> defaults;
  TSNode def{}; // the def / lambda whose body this is (null: a unit's own scope)
  // Where the body last (re)binds each name, by start byte, computed when a
  // closure first reads a name of this scope (LowerNonlocal.cpp).
  std::optional<std::unordered_map<std::string, uint32_t>> lastBound;
  // Names of this scope that a nested def reads before this scope binds
  // them (LowerNonlocal.cpp, lateEnclosingRead): their values at the end
  // of the body are recorded for the kernel walk (`late_binding`).
  std::vector<std::string> lateReads;
};

// Callable given to a higher-order API.
struct CallableRef {
  TSNode def{};       // function_definition or lambda node when written in place
  mlir::Value value;  // a closure or unknown callable value
  std::string symbol; // a module-level function
  std::string file;   // its file when in another document
  std::string text;
};

// The arguments of a call as Python binds them to parameters.
struct CallArguments {
  TSNode list; // the argument_list (or a generator_expression, or null)
  const syntax::ParsedSource& doc;
  // The tuple a `*x` unpacks when known (Lowerer::splattedLiteral): its
  // elements are positional arguments; after an unknown one, positions are
  // not known.
  std::function<TSNode(TSNode)> unpack = nullptr;
  // The value a `**mapping` holds under a key, when known
  // (Lowerer::splattedKey): keyword() reads it when no keyword is written.
  std::function<TSNode(TSNode, std::string_view)> splatKey = nullptr;
  TSNode positional(unsigned index) const; // keywords and comments skipped
  TSNode keyword(std::string_view name) const;
  TSNode positionalOrKeyword(unsigned index, std::string_view name) const;
};

// The keywords of a launch call its analysis reads (LowerLaunches.cpp).
// A name a closure declares `nonlocal` (LowerNonlocal.cpp): what calling
// the closure assigns it (null value: nothing; known false: unknown).
struct NonlocalRebind {
  std::string name;
  TSNode value{};
  bool known = true;
};

struct LaunchKeywords {
  TSNode interpret{}, scratch{}, threads{}, threadName{};
  TSNode inSpecs{}, outSpecs{};
  TSNode clusterNames{};
  TSNode mesh{}; // pl.core_map's mesh argument
  bool threadNameGiven = false, clusterNamesGiven = false;
  // The backend the launch's arguments select (compiler_params=, backend=,
  // a TPU interpret-params object, a TPU mesh): kernels for another backend
  // are not Mosaic GPU kernels.
  std::string backend;
  // The backend the specs or scratch shapes name (pltpu.VMEM, plgpu.SMEM):
  // used when compiler_params= and backend= say nothing.
  std::string specsBackend;
  std::string selectedBackend() const { return backend.empty() ? specsBackend : backend; }
  bool splatUnknown = false; // a **mapping whose keys are not known statically
  std::string splatName;     // "**kwargs" when that mapping is a name
  // interpret= when a caller of the def passes none in **kwargs: the value
  // the keys merged before it hold (null: none), when they are known (8.74).
  TSNode kwargsFallback{};
  bool kwargsFallbackKnown = true;
  // `TABLE[key]` whose entry gives the launch's keywords (8.73).
  TSNode interpretMapping{};
  bool compilerParams = false; // compiler_params= is given
  // compiler_params= built by a wrapper method from what its caller passed:
  // its lowering semantics are not visible at the call.
  bool wrapperCompilerParams = false;
};

class Lowerer {
public:
  Lowerer(const LowerInput& in, UnitDeps& deps)
      : in_(in), doc_(in.doc), globals_(in.globals), deps_(deps), b_(in.context) {
    file_ = mlir::StringAttr::get(in.context, in.path);
    valueTy_ = pd::ValueType::get(in.context);
    refTy_ = pd::RefType::get(in.context);
  }

  mlir::Operation* lower(const Unit& unit, const std::string& symbol);

private:
  // ---- locations, types, attributes ----
  mlir::Location loc(TSNode n) {
    TSPoint p = ts_node_start_point(n);
    return mlir::FileLineColLoc::get(file_, p.row + 1, p.column + 1);
  }
  std::string text(TSNode n) { return str(doc_.textOf(n)); }
  mlir::ArrayAttr strArray(const std::vector<std::string>& v) {
    llvm::SmallVector<llvm::StringRef> refs(v.begin(), v.end());
    return b_.getStrArrayAttr(refs);
  }
  // The lowering names vocabulary entries by their text (origins travel in
  // Prov as pd::origin::k*); the dialect stores them as enum attributes.
  // A name outside the vocabulary is the lowering's bug: the fallback keeps
  // the module valid.
  template <typename Attr, typename Names>
  mlir::ArrayAttr enumArray(const Names& names,
                            decltype(std::declval<Attr>().getValue()) fallback) {
    llvm::SmallVector<mlir::Attribute> items;
    for (const auto& name : names)
      items.push_back(Attr::get(
          b_.getContext(),
          pd::symbolizeEnum<decltype(fallback)>(llvm::StringRef(name)).value_or(fallback)));
    return b_.getArrayAttr(items);
  }
  template <typename Names> mlir::ArrayAttr originArray(const Names& names) {
    return enumArray<pd::OriginAttr>(names, pd::Origin::Value);
  }
  mlir::ArrayAttr pathArray(const std::vector<std::string>& names) {
    return enumArray<pd::LaunchPathAttr>(names, pd::LaunchPath::Unknown);
  }
  mlir::ArrayAttr allocArray(const std::vector<std::string>& names) {
    return enumArray<pd::AllocKindAttr>(names, pd::AllocKind::Other);
  }

  // ---- name resolution ----
  const Var* findLocal(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto v = it->vars.find(name);
      if (v != it->vars.end())
        return &v->second;
    }
    return nullptr;
  }
  std::optional<Binding> findGlobal(const std::string& name) {
    // A name a def around (or this one) binds anywhere is that def's local,
    // not the module's, even where it is not bound yet (Python scoping).
    if (boundByEnclosingDef(name))
      return std::nullopt;
    const Binding* b = globals_.find(name);
    recordLookup(name, b ? b->fingerprint() : std::string("-"));
    return b ? std::optional<Binding>(*b) : std::nullopt;
  }
  void recordLookup(const std::string& key, std::string fingerprint) {
    if (recorded_.insert(key).second)
      deps_.lookups.emplace_back(key, std::move(fingerprint));
  }
  std::optional<Binding> attributeOf(const Binding& base, const std::string& attr,
                                     const std::string& key) {
    auto r = globals_.attribute(base, attr);
    // Attribute lookups that cross into another file depend on that file.
    if (!base.file.empty())
      recordLookup(key, r ? r->fingerprint() : std::string("-"));
    return r;
  }
  // Resolve an identifier/attribute chain to a binding (global, or local
  // value with a binding), honouring local shadowing.
  std::optional<Binding> resolveBinding(TSNode expr);
  void setVar(const std::string& name, mlir::Value v) {
    forgetFacts(name);
    auto& vars = scopes_.back().vars;
    auto it = vars.find(name);
    noteShadowed(name, it == vars.end() ? std::nullopt : std::optional<Var>(it->second));
    vars[name] = Var{v, regionDepth_};
    if (!assigned_.empty())
      assigned_.back().push_back(name);
  }
  // The binding a name had before the innermost open region first rebound
  // it (nullopt: unbound there).
  void noteShadowed(const std::string& name, std::optional<Var> before) {
    if (!shadowed_.empty())
      shadowed_.back().try_emplace(name, before);
  }

  // ---- values (the small ones here; operands and args in LowerExpressions.cpp) ----
  Prov prov(mlir::Value v) {
    auto it = info_.find(v);
    return it == info_.end() ? Prov{} : it->second.prov;
  }
  ValInfo* infoOf(mlir::Value v) {
    auto it = info_.find(v);
    return it == info_.end() ? nullptr : &it->second;
  }
  mlir::Value constant(TSNode n, pd::ConstantKind kind) {
    auto op = pd::ConstantOp::create(b_, loc(n), valueTy_, text(n), kind);
    info_[op.getResult()].constant = n;
    return op.getResult();
  }
  mlir::Value global(TSNode n, const std::string& name, const std::string& resolved) {
    return pd::GlobalOp::create(b_, loc(n), valueTy_, name, resolved).getResult();
  }
  mlir::Value opaque(TSNode n, llvm::StringRef what, llvm::ArrayRef<mlir::Value> operands);
  // A name a nested def reads that only a later statement of an enclosing
  // def binds (LowerNonlocal.cpp); and, once that def's body is lowered,
  // the values it ends with.
  std::optional<mlir::Value> lateEnclosingRead(TSNode n, const std::string& name);
  bool boundByEnclosingDef(const std::string& name);
  void emitLateBindings(TSNode at);
  // What stands for syntax nested deeper than kMaxNesting (not lowered); the
  // first such place is recorded for the user (UnitDeps::tooDeep).
  mlir::Value tooDeep(TSNode n) {
    if (!deps_.tooDeep) {
      TSPoint p = ts_node_start_point(n);
      deps_.tooDeep = SourcePos{p.row, p.column};
    }
    return opaque(n, "too_deep", {});
  }

  struct Args {
    llvm::SmallVector<mlir::Value> values;
    std::vector<std::string> keywords;
    std::vector<TSNode> nodes;
  };
  Args lowerArgs(TSNode argList, unsigned skipPositional = 0);
  void operandInfo(llvm::ArrayRef<mlir::Value> values, mlir::ArrayAttr& origins,
                   mlir::DenseI64ArrayAttr& indices);
  mlir::Value prim(TSNode n, const std::string& api, const Args& args);

  // ---- expressions (LowerExpressions.cpp) ----
  mlir::Value lowerExpr(TSNode n);
  mlir::Value lowerExprImpl(TSNode n);
  mlir::Value lowerCall(TSNode n);
  mlir::Value lowerSubscript(TSNode n);
  mlir::Value lowerAttribute(TSNode n);
  mlir::Value lowerIdentifier(TSNode n);
  mlir::Value lowerLambda(TSNode n);
  mlir::Value callValue(TSNode n, mlir::Value callee, const Args& args);
  CallableRef callableOf(TSNode expr);

  // ---- JAX/Pallas API calls (LowerApiCalls.cpp) ----
  mlir::Value lowerApiCall(TSNode n, const std::string& api, TSNode argList);
  mlir::Value factoryValue(TSNode n, std::string api, bool viaPartial);
  mlir::Value lowerLaunchCall(TSNode n, const std::string& api, const CallArguments& args,
                              const LaunchWrapper* wrapper = nullptr);
  mlir::Value lowerPartialCall(TSNode n, const std::string& api, const CallArguments& args);
  mlir::Value applyBodyInCall(TSNode n, const std::string& api, TSNode body);
  mlir::Value lowerForiLoop(TSNode n, const CallArguments& args);
  mlir::Value lowerWhileLoop(TSNode n, const std::string& api, const CallArguments& args);
  mlir::Value lowerCond(TSNode n, const std::string& api, const CallArguments& args);

  // ---- higher order (LowerHigherOrder.cpp) ----
  mlir::Value applyFactory(TSNode site, const Factory& f, const CallableRef& body);
  TSNode partialBoundKernel(TSNode partialCall, const std::string& api);
  CallableRef partialBindingKernel(const Binding& partial);
  mlir::Value applyRunScoped(TSNode site, const std::string& api, const Args& ops,
                             const CallableRef& body);
  mlir::Value emitScope(TSNode site, const std::string& api, const Args& operands,
                        const std::vector<std::string>& argOrigins,
                        const std::optional<std::vector<std::string>>& allocations,
                        const CallableRef& body, llvm::ArrayRef<CallableRef> extraBodies = {},
                        const Args* bodyArgs = nullptr);
  mlir::Value closure(TSNode def, std::optional<Factory> inlineMgpu = std::nullopt);
  void lowerDefInto(mlir::Block* block, TSNode def, const std::vector<std::string>& argOrigins,
                    llvm::ArrayRef<mlir::Value> args);
  void emitInlineMgpu(TSNode site, TSNode def, const Factory* f, mlir::Block* wrapper);
  bool innermostIsInlineMgpu(TSNode decorated);
  std::optional<std::vector<std::string>> typeSequenceKinds(TSNode expr, unsigned depth = 0);
  std::vector<std::string> paramNames(TSNode def);
  void bindParams(TSNode def, mlir::Block* block, const std::vector<std::string>& argOrigins);
  mlir::Value decorate(TSNode decorated, TSNode def);
  template <typename F> void inRegion(mlir::Block* block, F&& body);

  // ---- launches (LowerLaunches.cpp) ----
  mlir::Value emitLaunch(TSNode site, const std::string& api, const std::string& form,
                         TSNode kwCall, const Binding* partial, const CallableRef& body,
                         const LaunchWrapper* wrapper = nullptr, TSNode appliedCall = TSNode{});
  // The keywords of the call applying a partial of the launch API (`launch(
  // kernel, interpret=True)`) over those of the partial itself.
  static void overrideKeywords(LaunchKeywords& kw, const LaunchKeywords& applied);

  // ---- launch wrappers (LowerWrappers.cpp) ----
  std::optional<LaunchWrapper> launchWrapperOf(TSNode callee);
  std::optional<LaunchWrapper> functionWrapperOf(TSNode callee);
  // The kernel a kernel-taking wrapper launches, as the wrapper runs it: in
  // the wrapper's pipeline when it has one (LowerWrappers.cpp).
  CallableRef wrappedKernel(TSNode site, const LaunchWrapper& w, const CallableRef& kernel,
                            const std::optional<std::vector<std::string>>& scratch);
  void applyWrapperKeywords(const LaunchWrapper& w, LaunchKeywords& kw,
                            std::optional<names::InterpretEval>& interpret, bool& scratchUnknown);
  LaunchKeywords launchKeywords(TSNode args, const std::string& api);
  void takeSplatKeywords(TSNode splat, LaunchKeywords& kw);
  void noteLaunchBackend(LaunchKeywords& kw, TSNode v);
  // The backend named by any API inside `expr` (pltpu.VMEM in a BlockSpec's
  // memory_space, plgpu.SMEM in scratch shapes, pltpu.PrefetchScalarGridSpec):
  // specs and scratch written for one backend only.
  std::string backendMentionedIn(TSNode expr);
  names::InterpretEval launchInterpret(const LaunchKeywords& kw, const Binding* partial);
  // LowerValueFlow.cpp (8.30, 8.31): the elements an unpacking of `value`
  // into `count` targets binds when the text fixes them (`moduleScope`: they
  // come from a module-level function's return and read module names);
  // empty otherwise. And the parameters of the def around the launch an
  // interpret= expression reads, each with its default's text.
  std::vector<TSNode> unpackedElements(TSNode value, size_t count, bool* moduleScope);
  // `anchor`: the launch's call, when `expr` is a `TABLE[key]` mapping
  // whose "interpret" entry the launch reads (8.73).
  mlir::DictionaryAttr interpretParameters(TSNode expr, TSNode anchor = TSNode{});
  std::string kwargsDefaultPath(const LaunchKeywords& kw);
  mlir::Value lowerNamedExpression(TSNode n);
  // The elements of the tuple-literal default of the parameter `value`
  // names when it has `count` of them (8.76); *param gets its name.
  std::vector<TSNode> paramTupleDefault(TSNode value, size_t count, std::string* param);
  std::string defaultText(TSNode dflt);
  std::optional<Binding> classAttributePartial(const std::string& cls, const std::string& attr);
  TSNode splattedKey(TSNode splat, std::string_view key);
  CallArguments callArguments(TSNode argList);
  TSNode splattedLiteral(TSNode splat);
  std::optional<names::InterpretEval> classmethodAttribute(TSNode interpretNode);
  std::pair<TSNode, std::string> describeLocal(const ValInfo* vi);
  std::optional<names::InterpretEval> joinedInterpret(TSNode interpretNode,
                                                      const names::LocalLookup& lookupLocal);
  std::optional<names::InterpretEval> loopInterpret(TSNode interpretNode,
                                                    const names::LocalLookup& lookupLocal);
  std::optional<std::vector<std::string>> launchScratch(TSNode scratchNode, const Binding* partial);
  std::vector<std::string> scratchTransforms(TSNode scratchNode);
  std::string movingBlockSpec(TSNode specs);
  std::string uninitializedScratch(TSNode scratchNode, const std::string& api);
  std::vector<TSNode> scratchItems(TSNode scratchNode);
  std::vector<std::array<int64_t, 3>> barrierScratch(TSNode scratchNode);
  std::optional<std::vector<std::string>> coreMapMeshAxes(TSNode mesh);
  std::optional<std::vector<std::string>> meshAxes(const LaunchKeywords& kw,
                                                   const std::string& api);
  std::string backendOf(TSNode expr, unsigned depth = 0);

  // ---- statements (LowerStatements.cpp) ----
  std::vector<NonlocalRebind> nonlocalRebinds(TSNode def);
  void applyNonlocal(mlir::Value fn, bool called);
  bool readsLate(const std::string& name);

  void lowerBlock(TSNode block);
  void lowerStatement(TSNode s);
  void lowerExpressionStatement(TSNode s);
  void lowerIfStatement(TSNode s);
  void learnFromDeadBranch(TSNode ifStatement);
  void lowerLoop(TSNode s, bool isFor);
  void lowerTry(TSNode s);
  void lowerLocalImport(TSNode s, bool isFrom);
  void lowerSyntaxError(TSNode s);
  void lowerAssignment(TSNode a);
  void bindTarget(TSNode target, mlir::Value v, TSNode valueNode);
  void bindTargetImpl(TSNode target, mlir::Value v, TSNode valueNode);
  void lowerOneAssignment(TSNode a);
  // Returns the pallas.if it created (not necessarily the block's last op:
  // joins of names assigned in its regions follow it).
  // `alternatives`: the elif / else clauses that follow the consequence.
  pd::IfOp lowerIf(TSNode s, TSNode cond, TSNode consequence, std::span<const TSNode> alternatives);
  // An if's two regions: each branch lowered with what its condition tells,
  // and the names they rebind joined after it (joinBranches).
  pd::IfOp lowerBranches(TSNode s, mlir::Value c, std::optional<bool> st,
                         const std::map<std::string, bool>& whenTrue,
                         const std::map<std::string, bool>& whenFalse,
                         llvm::function_ref<void()> thenBody, llvm::function_ref<void()> elseBody);
  std::optional<Var> joinBranches(TSNode s, std::optional<bool> st, std::optional<Var> thenValue,
                                  std::optional<Var> elseValue);
  // match: one pallas.if per case, a case's pattern against the subject
  // known when both are constants.
  void lowerMatch(TSNode s);
  void lowerCases(TSNode s, TSNode subject, mlir::Value subjectValue,
                  std::span<const TSNode> cases);
  std::optional<bool> caseMatches(TSNode subject, TSNode clause);
  // Local names the analysis knows as literals, for static evaluation of
  // a condition (parameters and joins of unknown branches are unknown).
  names::LocalLookup literalLocals();
  void lowerWith(TSNode s);

  // ---- path facts (LowerPathFacts.cpp; docs/analysis.md, "Paths that cannot execute") ----
  std::optional<bool> staticCondition(TSNode cond);
  bool neverCompletes(TSNode stmt);
  bool neverCompletesBlock(TSNode block);
  bool plainLoopTarget(TSNode left);
  TSNode everyElementOf(TSNode forStatement);
  bool yieldsEveryElement(TSNode forStatement);
  TSNode contextManagerYield(TSNode withValue);
  TSNode moduleDefStatementOf(TSNode callee);
  TSNode yieldedExpression(TSNode stmt);
  TSNode falsyParameterFallback(TSNode target, TSNode valueNode);
  std::string foldedModuleConstant(const std::string& name, const names::Binding& b);
  bool loopBodyCuts(TSNode loop);
  // The def or lambda around `n` (names::enclosingScope); the module when none.
  TSNode scopeOrModule(TSNode n) {
    TSNode scope = names::enclosingScope(n);
    return isNull(scope) ? doc_.root() : scope;
  }
  bool readsLocalNames(TSNode expr);
  bool mayRemoveFrom(TSNode scope, const std::string& name);
  void learnCondition(TSNode cond, bool truth, std::map<std::string, bool>& into);
  std::optional<bool> knownFact(TSNode expr);
  void forgetFacts(const std::string& name);

  // ---- units (LowerUnits.cpp) ----
  std::optional<Factory> lowerUnitDecorators(const Unit& unit, const std::string& symbol,
                                             mlir::Block* decorators);

  // ---- interpret context ----
  // A process-wide GPU interpret mode set where the launch is built:
  // `with force_gpu_interpret_mode(mode):`, or set_gpu_interpret_mode(mode)
  // earlier in the same function. `mode` is the value given (null: left
  // out, the default InterpretGPUParams()).
  struct Context {
    std::string kind;
    unsigned line, column;
    TSNode mode{};
  };
  names::InterpretEval contextMode(const Context& c);

  const LowerInput& in_;
  const syntax::ParsedSource& doc_;
  const names::Globals& globals_;
  UnitDeps& deps_;
  mlir::OpBuilder b_;
  mlir::StringAttr file_;
  mlir::Type valueTy_, refTy_;
  llvm::DenseMap<mlir::Value, ValInfo> info_;
  llvm::StringSet<> recorded_; // lookups already in deps_
  std::vector<FnScope> scopes_;
  std::vector<std::vector<std::string>> assigned_; // names assigned per open region
  // Per open region: what each name it rebinds was bound to before it; once
  // the region closes, `lastRegionShadowed_` holds them (an if's else branch
  // must see the bindings from before its then branch, not the then's join).
  std::vector<std::unordered_map<std::string, std::optional<Var>>> shadowed_;
  std::unordered_map<std::string, std::optional<Var>> lastRegionShadowed_;
  std::vector<Context> contexts_;
  // Truth values of conditions (an identifier or attribute chain, by text)
  // known on the path being lowered, one frame per open block: inside
  // `if C:` C is true; after `if C: raise/skipTest/return` C is false.
  std::vector<std::map<std::string, bool>> facts_;
  unsigned regionDepth_ = 0;
  unsigned nesting_ = 0;
  // The callee of the call being lowered: reading a closure there is a call,
  // not an escape (LowerNonlocal.cpp).
  TSNode directCallee_{};
  // Lowering a method: its class and its `self` (launch wrappers, `self.m`).
  std::string className_;
  mlir::Value selfValue_;
  bool selfIsClass_ = false; // a classmethod: selfValue_ is the class
};

template <typename F> void Lowerer::inRegion(mlir::Block* block, F&& body) {
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToEnd(block);
  ++regionDepth_;
  assigned_.emplace_back();
  shadowed_.emplace_back();
  body();
  // Names assigned inside the region are visible after it in Python, but
  // their SSA values are not: rebind them to a join at the outer level.
  std::vector<std::string> names = std::move(assigned_.back());
  assigned_.pop_back();
  std::unordered_map<std::string, std::optional<Var>> shadowed = std::move(shadowed_.back());
  shadowed_.pop_back();
  for (const auto& [name, before] : shadowed)
    noteShadowed(name, before);
  --regionDepth_;
  b_.setInsertionPointAfter(block->getParentOp());
  for (const std::string& name : names) {
    auto& vars = scopes_.back().vars;
    auto it = vars.find(name);
    if (it == vars.end() || it->second.regionDepth <= regionDepth_)
      continue;
    Prov p = prov(it->second.value);
    ValInfo inner = info_.lookup(it->second.value);
    mlir::Value joined =
        pd::OpaqueOp::create(b_, block->getParentOp()->getLoc(), valueTy_, "join",
                             mlir::ValueRange{}, strArray({}), b_.getDenseI64ArrayAttr({}))
            .getResult();
    inner.prov = p;
    info_[joined] = inner;
    it->second = Var{joined, regionDepth_};
    if (!assigned_.empty())
      assigned_.back().push_back(name);
  }
  lastRegionShadowed_ = std::move(shadowed);
}

} // namespace pallas::analysis::lower
