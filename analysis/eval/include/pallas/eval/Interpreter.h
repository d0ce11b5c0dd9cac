// The evaluator: one abstract interpreter of the `py` dialect
// (docs/analysis.md §8). It runs a document's module the way Python would,
// over abstract values (Value.h): imports load other workspace documents,
// calls run the callee's body with the arguments bound, classes are built
// with their MRO, attributes are looked up through descriptors, branches it
// cannot decide run both ways and join (Heap.h's journal). Library behaviour
// (builtins, functools, dataclasses, enum, contextlib, JAX, Pallas) lives in
// overlays (Overlay.h), one file each.
//
// What the evaluator cannot know is an Unknown value carrying the reason;
// it never drops a path: an unknown condition runs both branches, an
// unknown callee returns Unknown, a budget that runs out makes the rest
// Unknown.
#pragma once

#include "pallas/eval/Heap.h"
#include "pallas/eval/Value.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
class Region;
class Value;
class Operation;
} // namespace mlir

namespace pallas::eval {

// The arguments of one call: positional, then keywords, as Python binds them.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  // A `*xs` or `**kw` whose contents are not known: more arguments may be given.
  bool morePositional = false, moreKeywords = false;
  const Value* keyword(llvm::StringRef name) const {
    for (const auto& [k, v] : keywords)
      if (k == name)
        return &v;
    return nullptr;
  }
  // Positional argument `i`, else keyword `name`; null when not given.
  const Value* get(size_t i, llvm::StringRef name) const {
    if (i < positional.size())
      return &positional[i];
    return keyword(name);
  }
};

// Where the evaluator gets the documents of the workspace.
class ModuleSource {
public:
  virtual ~ModuleSource() = default;
  // The py IR of a workspace document (null when it cannot be read).
  virtual mlir::ModuleOp pyModule(const std::string& path) = 0;
  // The workspace document that `import module` (with `level` leading dots)
  // from `importer` loads; nullopt when it is not in the workspace (a
  // library such as jax or numpy).
  virtual std::optional<std::string> resolveImport(const std::string& importer,
                                                   const std::string& module, int level) = 0;
  // A module's dotted name for a document (for __name__ and relative imports).
  virtual std::string moduleName(const std::string& path) = 0;
};

struct Options {
  uint64_t maxSteps = 4'000'000; // ops executed per evaluation
  unsigned maxCallDepth = 48;    // nested calls
  unsigned maxRecursion = 2;     // activations of one function on the stack
  unsigned maxUnroll = 256;      // loop iterations followed one by one
};

class Overlay;
class Interpreter;

// One call on the evaluator's stack (the chain a finding shows).
struct StackEntry {
  Object* callee = nullptr;        // FunctionObj, BuiltinObj ...
  mlir::Operation* site = nullptr; // the py.call
};

// A place where an overlay wants to know how execution went on: the
// evaluator tells listeners of every call it makes and every uncertain side.
class Listener {
public:
  virtual ~Listener() = default;
};

class Interpreter {
public:
  Interpreter(mlir::MLIRContext* context, ModuleSource& source, Options options = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;

  Heap& heap() { return heap_; }
  mlir::MLIRContext* context() const { return context_; }
  const Options& options() const { return options_; }

  // ---- programs ------------------------------------------------------------
  // The module object of a workspace document, executed (once).
  ModuleObj* loadDocument(const std::string& path);
  // `asMain`: the document being checked (its __name__ is not known: it may
  // run as a script); imported documents have their module name.
  ModuleObj* loadDocument(const std::string& path, bool asMain);
  // Runs every function and method of a loaded document that nothing called
  // with known arguments, as an entry point: its parameters Unknown (bound
  // to each instance of the class and its subclasses for a method).
  void runEntryPoints(const std::string& path);

  // ---- Python operations (for overlays too) ---------------------------------
  Value call(const Value& callee, const CallArgs& args, mlir::Operation* site);
  Value getAttr(const Value& obj, llvm::StringRef name, mlir::Operation* site);
  void setAttr(const Value& obj, llvm::StringRef name, const Value& v, mlir::Operation* site);
  Value subscript(const Value& obj, const Value& index, mlir::Operation* site);
  void setItem(const Value& obj, const Value& index, const Value& v, mlir::Operation* site);
  // bool(v): true, false, or nullopt when it depends on what is not known.
  std::optional<bool> truth(const Value& v, mlir::Operation* site);
  Value binary(llvm::StringRef op, const Value& a, const Value& b, mlir::Operation* site);
  Value compare(llvm::StringRef op, const Value& a, const Value& b, mlir::Operation* site);

  // What iterating a value gives: its elements in order when known (`exact`),
  // else what each element may be.
  struct Elements {
    bool exact = false;
    std::vector<Value> items; // exact: one per element; else: at most one, the join
  };
  Elements elements(const Value& iterable, mlir::Operation* site);

  Value unknown(const std::string& why, mlir::Operation* at = nullptr) {
    return Value(heap_.unknown(why, at), at);
  }
  Value none(mlir::Operation* origin = nullptr) { return Value(heap_.none(), origin); }
  Value boolean(bool b, mlir::Operation* origin = nullptr) {
    return Value(heap_.boolean(b), origin);
  }
  Value integer(int64_t i, mlir::Operation* origin = nullptr) {
    return Value(heap_.integer(i), origin);
  }
  Value str(const std::string& s, mlir::Operation* origin = nullptr) {
    return Value(heap_.string(s), origin);
  }
  Value tuple(std::vector<Value> elems, mlir::Operation* origin = nullptr);
  Value list(std::vector<Value> elems, mlir::Operation* origin = nullptr);

  // ---- classes ---------------------------------------------------------------
  // A class of a library, by qualified name (one object per name).
  ClassObj* externalClass(const std::string& qualname);
  // Attribute `name` along cls's MRO (the raw namespace entry), or null.
  const Value* lookupInMro(ClassObj* cls, llvm::StringRef name, ClassObj** where = nullptr);
  bool isSubclass(ClassObj* cls, ClassObj* base);
  // Some class along cls's MRO comes from a library (its attributes are not all known).
  bool hasLibraryBase(ClassObj* cls);
  // The generator behind a contextlib.contextmanager object, or null.
  GeneratorObj* contextGenerator(InstanceObj* manager);
  // The classes of the workspace documents loaded so far that derive from cls.
  std::vector<ClassObj*> subclassesOf(ClassObj* cls);
  // The class of a value's alternative (built-in types by their external class).
  ClassObj* classOf(Object* obj);
  ModuleObj* builtinsModule() { return builtins_; }
  ModuleObj* externalModule(const std::string& qualname);
  // A loaded module by its dotted name (workspace or library), or null.
  ModuleObj* moduleNamed(const std::string& name);
  // `import name` from the document running now (importlib.import_module).
  ModuleObj* importNamed(const std::string& name, int level, mlir::Operation* site) {
    return importModule(current_ ? currentDocument() : main_, name, level, site);
  }
  std::string currentDocument() const;

  // ---- running code --------------------------------------------------------
  // Runs each side (a callback that runs code) as one way the program may
  // go, then joins them (Heap.h).
  void sides(const std::vector<std::function<void()>>& ways);
  // The same, each way named ("when the `if` at line 12 is true"): while a
  // way runs its name is on the uncertainty stack (uncertainty()).
  void sides(const std::vector<std::function<void()>>& ways, const std::vector<std::string>& names);
  // Why the code running now may not run: the names of the ways being run,
  // outermost first.
  const std::vector<std::string>& uncertainty() const { return why_; }
  // A native called for a library function no overlay registered (its
  // `self` is the ExternalObj); by default such calls give Unknown.
  void setExternalFallback(NativeFn fn) { externalFallback_ = fn; }
  // Asked for each library attribute the program reads (`jnp.float32`,
  // `np.dtype(d).itemsize` as `owner` . `name`, `qualname` spelled out):
  // an overlay's value for it, or bottom for the plain ExternalObj.
  using ExternalAttrHook = Value (*)(Interpreter& in, Object* owner, const std::string& qualname,
                                     mlir::Operation* site);
  void setExternalAttrHook(ExternalAttrHook hook) { externalAttr_ = hook; }
  // Asked for an operator on a value JAX traces (UnknownObj::traced), and
  // for an attribute of one: `op` is the operator as written ("@", "+") or
  // "." and the attribute (".T"); an overlay's value for it, or bottom.
  using TracedOperationHook = Value (*)(Interpreter& in, llvm::StringRef op,
                                        const std::vector<Value>& operands, mlir::Operation* site);
  void setTracedOperationHook(TracedOperationHook hook) { tracedOperation_ = hook; }
  // Called with each op's result as the op runs (every time it runs): how
  // a client learns what an expression evaluates to (the resource checks
  // read shapes this way). Empty: nothing is called.
  using ResultObserver = std::function<void(mlir::Operation*, const Value&)>;
  void observeResults(ResultObserver f) { resultObserver_ = std::move(f); }
  // Invokes a user function with bound arguments (overlays that call back).
  Value invoke(FunctionObj* fn, const CallArgs& args, mlir::Operation* site);
  // Runs a generator; `each` gets every value it yields (false stops it).
  void runGenerator(GeneratorObj* gen, const std::function<bool(const Value&)>& each);
  // Does an `except T` clause catch `exception`? nullopt: not known.
  std::optional<bool> exceptionMatches(const Value& exception, const Value& type,
                                       mlir::Operation* site);
  // For native functions: the call being made raises `exception` (the
  // calling code's flow becomes Raise, as when every way through a user
  // function raises).
  void raise(const Value& exception);
  // A call a native made (in.call, in.invoke) raised on every way: takes
  // that exception, so the native decides what follows; nullopt when not.
  std::optional<Value> takeRaised();
  // The `except` clause that catches builtin exception `name` (NotImplementedError)
  // raised by the code running now, and does not raise again; null when
  // none certainly does. A library call's run-time failure (a Pallas launch)
  // caught there does not stop the program.
  mlir::Operation* catcherOf(llvm::StringRef name, mlir::Operation* site);
  // The function running now and its frame (null at a module's top level).
  FunctionObj* currentFunction() const;
  FrameObj* currentFrame() const;
  // Does obj have attribute `name`? nullopt when that is not known.
  std::optional<bool> hasAttr(const Value& obj, llvm::StringRef name);
  // The def of the entry point running now (null outside runEntryPoints).
  mlir::Operation* currentEntry() const { return entry_; }
  // Was this def called by code the program runs (not only as an entry point)?
  bool wasCalled(mlir::Operation* def) const { return called_.count(def) > 0; }
  // A callable the program made (a functools.partial, an overlay's wrapper
  // of function `of`: `@jax.jit def run(...)`): if nothing calls its
  // function, it runs as an entry point, called through the callable.
  void madeCallable(Object* callable, FunctionObj* of = nullptr) {
    if (madeCallables_.size() >= 1024)
      return;
    madeCallables_.push_back({callable, entry_});
    if (of)
      madeOf_[callable] = of;
  }
  // A narrowing hook found the branch it narrows impossible (the platform a
  // test requires was excluded before): the branch does not run.
  void infeasible() { infeasible_ = true; }
  bool takeInfeasible() {
    bool was = infeasible_;
    infeasible_ = false;
    return was;
  }
  // Callables made from a point on (a kernel's closures while it is traced)
  // belong to that code: none of them runs as an entry point.
  struct MadeMark {
    size_t closures = 0, callables = 0;
  };
  MadeMark madeSoFar() const { return {closures_.size(), madeCallables_.size()}; }
  void consumeMadeSince(MadeMark mark) {
    for (size_t i = mark.closures; i < closures_.size(); ++i)
      consumed_.insert(closures_[i]);
    for (size_t i = mark.callables; i < madeCallables_.size(); ++i)
      consumed_.insert(madeCallables_[i].first);
  }
  // A library took this callable and calls it in a way not followed (jax.grad):
  // it is not run as an entry point either.
  void consumed(Object* callable) { consumed_.insert(callable); }
  // Is a call at `site` running one of several callees it may have?
  bool choosingCallee(mlir::Operation* site) const {
    return std::find(calleeChoices_.begin(), calleeChoices_.end(), site) != calleeChoices_.end();
  }
  // The current call stack, outermost first.
  const std::vector<StackEntry>& stack() const { return stack_; }
  // Is the program running code it may not reach (inside an uncertain side)?
  bool uncertain() const { return heap_.inBranch(); }
  // The steps budget ran out.
  bool exhausted() const { return steps_ >= options_.maxSteps; }

  // ---- overlays --------------------------------------------------------------
  void addOverlay(std::unique_ptr<Overlay> overlay);
  // A native function known by qualified name (overlays register them).
  void defineNative(const std::string& qualname, NativeFn fn, void* data = nullptr);
  const BuiltinObj* native(const std::string& qualname) const;
  // The canonical name of a library object (`jax.experimental.pallas.pallas_call`
  // -> `pl.pallas_call`, Names.h's spelling); overlays register canonical names.
  std::string canonical(const std::string& qualname) const;
  template <typename T> T* overlay() const {
    for (const auto& o : overlays_)
      if (auto* t = dynamic_cast<T*>(o.get()))
        return t;
    return nullptr;
  }
  // Makes a native function object.
  BuiltinObj* makeNative(const std::string& name, NativeFn fn, void* data = nullptr);

  // The document loaded as the program (its __name__ not known).
  const std::string& mainDocument() const { return main_; }
  // The document being evaluated when an op runs (for locations).
  std::string documentOf(mlir::Operation* op) const;

  struct Activation;

private:
  // The parts of runEntryPoints (Modules.cpp).
  void runAsEntry(mlir::Operation* def, const std::function<void()>& run);
  void runGlobalRebinders(const std::vector<FunctionObj*>& functions);
  void runMethodEntries(ModuleObj* m, const std::vector<ClassObj*>& classes);
  void runHandedOnCallables(ModuleObj* m);
  friend struct Exec;
  friend class Overlay;
  Value callOne(Object* callee, mlir::Operation* origin, const CallArgs& args,
                mlir::Operation* site);
  Value instantiate(ClassObj* cls, const CallArgs& args, mlir::Operation* site);
  Value binaryAlts(llvm::StringRef op, const Value& a, const Value& b, mlir::Operation* site);
  Value decidedBy(Value out, const Value& a, const Value& b, mlir::Operation* site);
  Value attrOfOne(Object* obj, mlir::Operation* origin, llvm::StringRef name,
                  mlir::Operation* site);
  Value classAttr(ClassObj* cls, llvm::StringRef name, mlir::Operation* site, bool* found);
  Value bindDescriptor(const Value& raw, const Value& self, ClassObj* owner, bool onInstance,
                       mlir::Operation* site);
  FrameObj* bindArguments(FunctionObj* fn, const CallArgs& args, mlir::Operation* site);
  ModuleObj* importModule(const std::string& importer, const std::string& name, int level,
                          mlir::Operation* site);
  std::vector<ClassObj*> linearize(ClassObj* cls);
  Value runFrame(FunctionObj* fn, FrameObj* frame, mlir::Operation* site,
                 std::function<bool(const Value&)> onYield);

  mlir::MLIRContext* context_;
  ModuleSource& source_;
  Options options_;
  Heap heap_;
  uint64_t steps_ = 0;
  std::vector<StackEntry> stack_;
  std::vector<std::unique_ptr<Overlay>> overlays_;
  std::map<std::string, BuiltinObj*> natives_;
  std::map<std::string, ClassObj*> externalClasses_;
  std::map<std::string, ModuleObj*> modules_;         // by document path
  std::map<std::string, ModuleObj*> externalModules_; // by dotted name
  std::vector<ClassObj*> classes_;                    // workspace classes, in the order built
  // Objects the program built of each workspace class (a few), the `self`
  // of its methods run as entry points.
  std::map<ClassObj*, std::vector<InstanceObj*>> instances_;
  // Functions made inside other code (closures, lambdas), in the order made.
  std::vector<FunctionObj*> closures_;
  std::map<FunctionObj*, mlir::Operation*> closureEntry_; // the entry point that made it
  std::vector<std::pair<Object*, mlir::Operation*>> madeCallables_;
  std::map<Object*, FunctionObj*> madeOf_; // a wrapper's function
  std::set<Object*> consumed_;
  bool infeasible_ = false;
  // Calls whose callee is one of several (each run as a way): their sites.
  std::vector<mlir::Operation*> calleeChoices_;
  std::set<mlir::Operation*> called_; // py.def ops run with caller arguments
  ModuleObj* builtins_ = nullptr;
  // The except clauses around the code running now, innermost last (their
  // types evaluated when the try's body starts).
  struct ActiveHandler {
    mlir::Operation* except = nullptr;
    Value type;
    bool bare = false;
    bool raisesAgain = false; // its body ends in a raise
  };
  std::vector<ActiveHandler> handlers_;
  // A call whose every way raises: the caller's flow becomes Raise.
  bool pendingRaise_ = false;
  Value pendingException_;
  // Counts what may raise (unknown callees, raises in a side): a try body
  // whose count did not move cannot reach its handlers.
  uint64_t mayRaise_ = 0;
  // Running an entry point: its own function is not "called by a caller".
  bool entryRun_ = false;
  mlir::Operation* entry_ = nullptr;
  std::string main_;
  std::vector<std::string> why_;
  NativeFn externalFallback_ = nullptr;
  ExternalAttrHook externalAttr_ = nullptr;
  TracedOperationHook tracedOperation_ = nullptr;
  // A library attribute: the overlay's value, else an ExternalObj for it.
  Value externalAttr(Object* owner, const std::string& qualname, mlir::Operation* site,
                     mlir::Operation* origin = nullptr);
  ResultObserver resultObserver_;
  Activation* current_ = nullptr;
  std::map<const FrameObj*, std::string> frameDocs_;
  std::vector<std::string> documents_; // loaded workspace documents, in load order
  friend struct ActivationScope;
};

// An overlay: the meaning of one library (or one family of builtins). It
// registers native functions and classes by qualified name, and may watch
// the program run.
class Overlay {
public:
  virtual ~Overlay() = default;
  virtual const char* name() const = 0;
  virtual void install(Interpreter& in) = 0;
  // A class statement finished building `cls` (dataclass, Enum, NamedTuple
  // and registries act here).
  virtual void classBuilt(Interpreter&, ClassObj*, mlir::Operation* site) {}
};

// Overlays shipped with the evaluator (analysis/eval/lib/overlays/).
void installStandardOverlays(Interpreter& in);

} // namespace pallas::eval
