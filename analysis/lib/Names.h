// How a Python file names things at module level: imports (every spelling),
// aliases, constants, functions, functools.partial launch factories; and the
// static evaluation of the few expressions the analysis needs (interpret=,
// scratch shapes). No MLIR here.
#pragma once

#include "Syntax.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::names {

// What `interpret=` (and the interpret contexts) select at one launch.
struct InterpretEval {
  std::vector<std::string> paths; // compiled / interpret_hlo / interpret_gpu / unknown
  std::string source = "absent";  // see dialect.md, pallas.launch
  std::string text;               // the expression as written
  std::vector<std::pair<std::string, std::string>> params; // InterpretGPUParams kwargs
  bool everyPath = false; // each of several paths runs (a loop over the values), not one of them
  std::string fingerprint() const;
};

struct Binding {
  enum class Kind {
    Module,   // target: dotted module path; file: the user's file when resolved
    Symbol,   // target: "module.name" of something imported that is not a module
    Function, // a def of this file (file empty) or of `file`: target = symbol
    Class,    // target = class name
    Constant, // target = literal source text (also InterpretGPUParams(...))
    Partial,  // functools.partial(<launch api>, ...): target = launch api
    Other,    // assigned something not modelled
  };

  Kind kind = Kind::Other;
  std::string target;
  std::string file; // absolute path ("" = this file / not a workspace file)
  // Function: decorated with a launch (the name is the launched callable).
  bool launched = false;
  // Function (undecorated, of this file): a plain forward of its `*args` /
  // `**kwargs` to this launch API (`return pl.pallas_call(*args, **kwargs)`,
  // 8.47), with a hash of its text (callers re-lower when it changes).
  std::string wrapsLaunch;
  int line = -1; // 0-based line of the definition (Function), for locations
  // Partial: its keyword arguments as source text, and interpret= evaluated
  // where the partial was written.
  std::vector<std::pair<std::string, std::string>> keywords;
  std::optional<InterpretEval> interpret;
  std::vector<std::string> scratch; // Partial: scratch kinds when literal
  // Partial: the name of the kernel it binds (`partial(pl.pallas_call,
  // kernel, ...)`), a function of the partial's file; "" when the call that
  // applies the partial passes it.
  std::string partialKernel;
  bool scratchKnown = false;
  // Class (of this file): its methods that are launch wrappers (own or
  // inherited from classes of this file), each with the class defining it.
  std::map<std::string, std::string> launchWrappers;
  // The wrappers of launchWrappers that another file can use without this
  // file's syntax (8.21): method -> "<launch api>\n<literal interpret= text>"
  // for a body that is only `return <launch api>(*args, **kwargs[,
  // interpret=<literal>])`. A class of another file inheriting one lists
  // it in launchWrappers with the definer "@<file>".
  std::map<std::string, std::string> portableWrappers;
  // Constant / Other of this file: what the name holds once the module has
  // run (moduleValue below: state and expression text), so that a unit whose
  // evaluation read it is lowered again when a rebinding changes.
  std::string moduleValue;
  std::string fingerprint() const;
};

// Whether `b` is something of JAX's: an imported module or name that is not
// a file of the workspace.
bool isJaxBinding(const Binding& b);
// The backend such a binding belongs to: backendOfApi of its canonical name,
// else "".
std::string backendOfBinding(const Binding& b);

// Looks into the rest of the workspace: module files and what other files
// bind at module level (to follow re-exports).
class ModuleResolver {
public:
  virtual ~ModuleResolver() = default;
  // The file of module `dotted` imported from `fromPath` with `level` leading
  // dots (0 = absolute); nullopt when it is not a workspace/sibling file.
  virtual std::optional<std::string> moduleFile(const std::string& dotted, int level,
                                                const std::string& fromPath) = 0;
  // What `name` is bound to at module level in `file` (depth guards cycles).
  virtual std::optional<Binding> exported(const std::string& file, const std::string& name,
                                          int depth) = 0;
  // The names `from file import *` binds: its `__all__` when it is a literal
  // list/tuple of strings, else its module-level names without a leading _.
  virtual std::vector<std::string> exportedNames(const std::string& file, int depth) {
    (void)file;
    (void)depth;
    return {};
  }
};

// Canonical API name for a qualified Python name: "jax.experimental.pallas.
// mosaic_gpu.copy_gmem_to_smem" -> "plgpu.copy_gmem_to_smem" (dialect.md).
std::string canonicalApi(const std::string& qualified);
// True when `qualified` names something of JAX or the standard library
// functools (the modules whose APIs become pallas.prim).
bool isJaxName(const std::string& qualified);
// The Pallas backend a canonical API name belongs to: "mosaic_gpu" (plgpu.,
// mgpu., the GPU interpreter), "mosaic_tpu" (pl.tpu., jax._src.pallas.mosaic.),
// "triton" (pl.triton.), or "" for backend-neutral names (pl., jax.).
std::string backendOfApi(const std::string& canonical);

class Globals {
public:
  // Scan the module-level statements of `doc` (descending into top-level
  // if/try/with blocks) and bind every name.
  void build(const syntax::ParsedSource& doc, const std::string& path, ModuleResolver* resolver,
             int depth = 0);
  const Binding* find(const std::string& name) const;
  // Resolve `base.attr` (a Module binding's attribute); records nothing.
  std::optional<Binding> attribute(const Binding& base, const std::string& attr) const;
  // Files this module's bindings resolved into.
  std::vector<std::string> dependencies() const;
  const std::map<std::string, Binding>& all() const { return bindings_; }
  // A literal `__all__` of this module (nullopt when absent or computed).
  const std::optional<std::vector<std::string>>& dunderAll() const { return dunderAll_; }
  // The backends whose modules or names this file imports ("mosaic_gpu",
  // "mosaic_tpu", "triton"), sorted: a launch that names no backend itself
  // targets the one its file was written for.
  std::vector<std::string> importedBackends() const;
  // The binding `import dotted as x` gives x (a workspace file when the
  // module is one): `x = importlib.import_module("dotted")` binds the same.
  std::optional<Binding> importedModule(const std::string& dotted) const;

private:
  void bindImport(TSNode stmt, const syntax::ParsedSource& doc);
  void bindImportFrom(TSNode stmt, const syntax::ParsedSource& doc);
  void bindAssignment(TSNode assign, const syntax::ParsedSource& doc);
  void bindDefinition(TSNode def, const syntax::ParsedSource& doc);
  void bindModuleClone(TSNode call, const syntax::ParsedSource& doc);
  std::map<std::string, std::string>
  classLaunchWrappers(TSNode cls, const syntax::ParsedSource& doc,
                      std::map<std::string, std::string>& portable) const;
  std::optional<bool> isTypeCheckingCondition(TSNode cond, const syntax::ParsedSource& doc) const;
  void scanBlock(TSNode block, const syntax::ParsedSource& doc, int blockDepth);
  std::optional<Binding> followExport(Binding b) const;

  std::map<std::string, Binding> bindings_;
  std::optional<std::vector<std::string>> dunderAll_;
  std::string path_;
  ModuleResolver* resolver_ = nullptr;
  int depth_ = 0;
};

// The most parts a dotted name may have ("a.b.c" has 3).
inline constexpr size_t kMaxDottedParts = 64;

// The dotted name an expression spells ("pl.pallas_call" for attribute
// chains of identifiers), or "" when it is not such a chain (or has more
// than kMaxDottedParts parts).
std::string dottedName(TSNode expr, const syntax::ParsedSource& doc);

// A launch wrapper: a function or method that forwards its own `*args` /
// `**kwargs` to a launch API and returns the launch
//   def kernel(self, *args, **kwargs):
//     ...
//     return plgpu.kernel(*args, compiler_params=params, **kwargs)
// (also through `self.m(...)` / `super().m(...)` of another wrapper, which
// `isWrapper` answers). A call of the wrapper is the launch with the call's
// own arguments plus the keywords the wrapper adds.
struct WrapperCall {
  TSNode call{};     // the forwarding call in the wrapper's body
  std::string api;   // the launch API, when the call is one
  std::string inner; // else the wrapper method it calls (`self.m` / `super().m`)
  bool viaSuper = false;
};
std::optional<WrapperCall>
launchWrapperCall(TSNode def, const syntax::ParsedSource& doc, const Globals& globals,
                  const std::function<bool(const std::string& method, bool viaSuper)>& isWrapper);

// Resolve an expression that names something at module level (identifier or
// attribute chain) to a binding using only `globals` (no locals): the
// qualified-name view used for decorators and static evaluation.
// The module name of `importlib.import_module("pkg.mod")` (a constant,
// absolute name), else nullopt (NamesImportlib.cpp).
std::optional<std::string> importModuleName(TSNode call, const syntax::ParsedSource& doc,
                                            const Globals& globals);

std::optional<Binding> resolveGlobalExpr(TSNode expr, const syntax::ParsedSource& doc,
                                         const Globals& globals);

// Qualified canonical API of a callee expression when it resolves to a JAX
// module attribute ("pl.pallas_call"), else "".
std::string apiOf(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals);
// The dotted name an expression names through the module's imports, JAX or
// not (`field` after `from dataclasses import field`: "dataclasses.field");
// "" when it names no import.
std::string importedName(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals);
// `functools.partial(<launch API>, ...)` as a Partial binding (the keywords
// it fixes, the kernel it binds); nullopt for any other expression.
std::optional<Binding> launchPartial(TSNode call, const syntax::ParsedSource& doc,
                                     const Globals& globals);

// Static evaluation of an `interpret=` expression. `lookupLocal` may resolve
// identifiers of the enclosing function (parameter defaults, local
// constants) to the node of their value; nullptr when not local. Its kind
// says what the node is: "local" (the value), "default_param", "unknown",
// or kBoundConstant followed by a constant's source text (no node): the
// value one caller passes for a parameter (CallContexts, 8.30).
inline constexpr std::string_view kBoundConstant = "const:";
using LocalLookup =
    std::function<std::optional<std::pair<TSNode, std::string>>(const std::string&)>;
InterpretEval evaluateInterpret(TSNode expr, const syntax::ParsedSource& doc,
                                const Globals& globals, const LocalLookup& lookupLocal);

// The keys a `**mapping` holds, in the order Python builds it
// (NamesMappings.cpp, 8.7): the last value of each key; `unknown` once a
// part whose keys are not known may hold any key before it.
struct MappingKeys {
  std::vector<std::pair<std::string, TSNode>> keys;
  bool unknown = false;
  TSNode lastUnknown{}; // the last part whose keys are not known
  // The keys known just before that part, and whether a part before it was
  // unknown too (what its callers' keywords fall back to, 8.74).
  std::vector<std::pair<std::string, TSNode>> keysBeforeLast;
  bool unknownBeforeLast = false;
  void set(std::string k, TSNode v);
  // A part whose keys are not known may replace any key before it, so only
  // keys written after it keep a known value.
  void forget(TSNode part);
  const TSNode* find(const std::string& k) const;
};
// Maps a name to the mapping expression bound to it (null: not known).
using MappingResolve = std::function<TSNode(const std::string&)>;
// `keyLookup` folds a `TABLE[key]` part's key (nullptr: module names only).
void mappingKeys(TSNode d, const syntax::ParsedSource& doc, const MappingResolve& resolve,
                 const LocalLookup& keyLookup, bool dictShadowed, MappingKeys& out,
                 unsigned depth = 0);
// interpret= of the entry `TABLE[key]` of a module-level dict of mappings
// picks, `key` folded with `lookup` (a caller's constants, 8.73): the
// entry's "interpret" value, the launch's default when the entry holds no
// such key, unknown when the key or the entry is not known.
InterpretEval interpretInMapping(TSNode subscript, const syntax::ParsedSource& doc,
                                 const Globals& globals, const LocalLookup& lookup);

// What a module-level name holds once the module has run (NamesModuleValues.cpp):
// its top-level assignments and the module-level calls of functions that
// rebind it with `global`, in order. Known: `value` is the expression it
// holds. Unknown: a rebinding depends on the run (a function not called at
// module level, a non-literal rebinding). Nested: assigned or imported
// inside if / try / for / with at module level (Globals decides those).
// nullopt: the module does not assign it.
struct ModuleValue {
  // Mutated: known, then changed by top-level item assignments (`d[k] = v`,
  // a registry filled by statements); those who read the value as a whole
  // treat it as not known.
  enum class State { Known, Unknown, Nested, Mutated };
  TSNode value{};
  State state = State::Known;
};
// The def or lambda around `node` (null at module level).
TSNode enclosingScope(TSNode node);

std::optional<ModuleValue> moduleValue(const syntax::ParsedSource& doc, const std::string& name);
// What the module-level `name` holds at `use`, inside a function whose own
// statements before it call a module-level function that rebinds `name`
// with `global` (`enable_debug()` then the launch): the last such call's
// literal (Unknown when its value is not a literal or a later statement may
// call a setter again). nullopt when no such call precedes the use in its
// function: moduleValue applies.
std::optional<ModuleValue> valueSetBefore(const syntax::ParsedSource& doc, const std::string& name,
                                          TSNode use);
// The expression a field of a dataclass / NamedTuple (a class of this file)
// holds in the object `call` builds: the argument given for it (by keyword or
// position), else the field's default; nullopt when not known.
std::optional<TSNode> constructedField(TSNode call, const std::string& attr,
                                       const syntax::ParsedSource& doc, const Globals& globals);
// interpret= of `NAME.attr`, NAME a module-level object of this file (a
// dataclass / NamedTuple construction or a copy of one made with
// `_replace` / `dataclasses.replace`): what a caller passing NAME gives a
// launch reading `param.attr` (8.78). nullopt when not determined.
std::optional<InterpretEval> moduleObjectFieldInterpret(const std::string& name,
                                                        const std::string& attr,
                                                        const syntax::ParsedSource& doc,
                                                        const Globals& globals);
// interpret= of `obj.attr` where obj is the object the call `site` of a
// module-level class K builds (8.79): what its `__init__` stores (along
// the bases), a class attribute, or a `@property` evaluated on it. nullopt
// when not determined or when the attribute may change out of sight (a
// setter method, setattr, K handed on uncalled).
// The expression `obj.attr` holds in the object the call `site` of a
// module-level class K builds, when it is one the call's own scope reads (an
// argument of the call, a dataclass / NamedTuple field given by position or
// keyword, what `__init__` stores from a parameter; 8.16, 8.88); nullopt
// when not determined or when the attribute may change out of sight.
std::optional<TSNode> builtObjectAttribute(TSNode site, const std::string& attr,
                                           const syntax::ParsedSource& doc, const Globals& globals);
std::optional<InterpretEval> builtObjectAttributeInterpret(TSNode site, const std::string& attr,
                                                           const syntax::ParsedSource& doc,
                                                           const Globals& globals);
// A dataclass of this file built by `call` whose `__post_init__` stores the
// field `attr` once, as a top-level `self.attr = e` (constructedField is
// then nullopt, 8.48): the `__post_init__` def and e.
std::optional<std::pair<TSNode, TSNode>> postInitStore(TSNode call, const std::string& attr,
                                                       const syntax::ParsedSource& doc,
                                                       const Globals& globals);

// `self.attr` read in a method of a module-level class (or a closure in
// it), for interpret=: the values it holds in the objects the document
// builds (`K(...)` of the class or a subclass), each found as Python looks
// it up (NamesInstances.cpp, docs/analysis.md 8.25); paths "unknown" when
// one of them is not known; nullopt when the document builds none.
std::optional<InterpretEval>
instanceAttributeInterpret(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals);
// `Cfg.interpret` with Cfg a class of the document: the class attribute
// found along its bases (a class body's `interpret = True`), unless some
// statement stores that attribute name or the module sets attributes
// dynamically; nullopt when not known. `cls`: the class the object names
// when it is not the class's own name (a classmethod's first parameter).
std::optional<InterpretEval> classAttributeInterpret(TSNode expr, const syntax::ParsedSource& doc,
                                                     const Globals& globals,
                                                     const std::string& cls = "");
// Changes whenever what instanceAttributeInterpret or a followed return
// (8.31) reads may (the document's classes, the calls of them, its
// module-level functions).
std::string instancesFingerprint(const syntax::ParsedSource& doc);
// The classes of the document whose attribute lookup passes through `cls`
// (itself, its subclasses there) that the document instantiates.
std::vector<std::string> instantiatedReceivers(const syntax::ParsedSource& doc,
                                               const std::string& cls);

// NamesReturns.cpp (8.31): the expression a call of a module-level function
// of the document returns, when the function's text fixes it (every return
// spells the same value, which reads only module-level names, unless
// `readsLocals`: then the caller reads only what it can place); nullopt
// otherwise.
std::optional<TSNode> returnedValue(TSNode call, const syntax::ParsedSource& doc,
                                    bool readsLocals = false);
// How many times this thread's evaluations followed what a module-level
// function returns (8.31): an evaluation that did depends on the
// document's functions (the lowering then keeps instancesFingerprint).
uint64_t returnsFollowed();

// Kinds of a literal list/tuple of scratch shapes ("acc", "smem", ...);
// nullopt when not a literal sequence.
std::optional<std::vector<std::string>> scratchKinds(TSNode expr, const syntax::ParsedSource& doc,
                                                     const Globals& globals);
// The kind of one allocation expression (plgpu.ACC(...) -> "acc", ...).
std::string allocationKind(TSNode expr, const syntax::ParsedSource& doc, const Globals& globals);

} // namespace pallas::analysis::names
