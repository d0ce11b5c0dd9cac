// Modules: loading workspace documents (their top level runs once, as on
// import), library modules (named objects overlays may know), and running
// the functions nothing called as entry points.
#include "Activation.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace pallas::eval {

using namespace py;

namespace {

// Library modules under the short names the analysis (and the knowledge
// table) uses, longest prefix first: jax.experimental.pallas.mosaic_gpu.X
// is plgpu.X wherever JAX defines it.
struct Prefix {
  const char* module;
  const char* canonical;
};
constexpr std::array<Prefix, 15> kPrefixes{{
    {"jax._src.pallas.mosaic_gpu.interpret.params", "interpret"},
    {"jax._src.pallas.mosaic_gpu.interpret", "interpret"},
    {"jax._src.pallas.mosaic_gpu.primitives", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.pipeline", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.helpers", "plgpu"},
    {"jax._src.pallas.mosaic_gpu.core", "plgpu"},
    {"jax.experimental.pallas.mosaic_gpu", "plgpu"},
    {"jax.experimental.mosaic.gpu", "mgpu"},
    {"jax._src.pallas.pallas_call", "pl"},
    {"jax._src.pallas.primitives", "pl"},
    {"jax._src.pallas.helpers", "pl"},
    {"jax.experimental.pallas", "pl"},
    {"jax.numpy", "jnp"},
    {"jax.lax", "lax"},
    {"jax", "jax"},
}};

} // namespace

std::string Interpreter::canonical(const std::string& qualified) const {
  for (const Prefix& p : kPrefixes) {
    std::string_view m = p.module;
    if (qualified == m)
      return p.canonical;
    if (qualified.size() > m.size() && qualified.compare(0, m.size(), m) == 0 &&
        qualified[m.size()] == '.')
      return std::string(p.canonical) + qualified.substr(m.size());
  }
  return qualified;
}

ModuleObj* Interpreter::externalModule(const std::string& qualname) {
  auto it = externalModules_.find(qualname);
  if (it != externalModules_.end())
    return it->second;
  auto* m = heap_.make<ModuleObj>();
  m->name = qualname;
  m->executed = true;
  externalModules_[qualname] = m;
  return m;
}

GeneratorObj* Interpreter::contextGenerator(InstanceObj* manager) {
  if (manager->cls->external != "contextlib._GeneratorContextManager")
    return nullptr;
  return static_cast<GeneratorObj*>(manager->payload);
}

ModuleObj* Interpreter::moduleNamed(const std::string& name) {
  for (const auto& [path, m] : modules_)
    if (m->name == name)
      return m;
  auto it = externalModules_.find(name);
  return it == externalModules_.end() ? nullptr : it->second;
}

// Libraries the overlays model: never run from source, even when the
// workspace holds them (checking JAX's own repository).
static bool modelledLibrary(const std::string& name) {
  for (const char* lib : {"jax", "jaxlib", "numpy"})
    if (name == lib ||
        (name.size() > std::strlen(lib) && name.compare(0, std::strlen(lib), lib) == 0 &&
         name[std::strlen(lib)] == '.'))
      return true;
  return false;
}

ModuleObj* Interpreter::importModule(const std::string& importer, const std::string& name,
                                     int level, mlir::Operation* site) {
  (void)site;
  if (level == 0 && modelledLibrary(name))
    return externalModule(name);
  if (std::optional<std::string> path = source_.resolveImport(importer, name, level)) {
    ModuleObj* m = loadDocument(*path, false);
    // `import pkg.sub` also makes `sub` an attribute of pkg.
    if (m && level == 0) {
      size_t dot = name.rfind('.');
      if (dot != std::string::npos)
        if (auto parent = source_.resolveImport(importer, name.substr(0, dot), 0))
          if (ModuleObj* p = loadDocument(*parent, false); p && !p->ns.find(name.substr(dot + 1))) {
            heap_.willWrite(p);
            p->ns.set(name.substr(dot + 1), Value(m, site));
          }
    }
    return m;
  }
  if (level > 0)
    return nullptr; // a relative import the workspace does not hold
  return externalModule(name);
}

ModuleObj* Interpreter::loadDocument(const std::string& path) {
  return loadDocument(path, true);
}

ModuleObj* Interpreter::loadDocument(const std::string& path, bool asMain) {
  auto it = modules_.find(path);
  if (it != modules_.end())
    return it->second;
  mlir::ModuleOp module = source_.pyModule(path);
  if (!module)
    return nullptr;
  auto* m = heap_.make<ModuleObj>();
  m->name = source_.moduleName(path);
  m->path = path;
  if (asMain && main_.empty())
    main_ = path;
  modules_[path] = m;
  documents_.push_back(path);
  if (asMain) {
    auto* name = heap_.make<UnknownObj>(
        "`__name__` (the module may run as a script or be imported)", nullptr);
    name->nameOf = m;
    m->ns.set("__name__", Value(name));
  } else {
    m->ns.set("__name__", str(m->name));
  }
  m->ns.set("__file__", str(path));
  m->executing = true;
  Activation act;
  act.module = m;
  act.doc = path;
  Activation* saved = current_;
  current_ = &act;
  for (mlir::Operation& unit : *module.getBody()) {
    if (act.flow != Flow::Normal)
      break; // the import raised (or the budget ran out): the rest does not run
    Exec{*this, act}.op(&unit);
  }
  current_ = saved;
  pendingRaise_ = false;
  m->executing = false;
  m->executed = true;
  return m;
}

// ---- entry points -----------------------------------------------------------------

// The parameter sets a test method carries (`__eval_parameter_sets__`, set
// by the unittest overlay's parameterized decorators: a list of (args
// tuple, kwargs dict)); empty when it carries none or they are not known.
static std::vector<CallArgs> parameterSets(FunctionObj* fn) {
  std::vector<CallArgs> out;
  const Value* v = fn->attrs.find("__eval_parameter_sets__");
  auto* l = v ? llvm::dyn_cast_or_null<ListObj>(v->single()) : nullptr;
  if (!l || !l->exact)
    return {};
  for (const Value& set : l->elems) {
    auto* t = llvm::dyn_cast_or_null<TupleObj>(set.single());
    auto* args = t && t->elems.size() == 2 ? llvm::dyn_cast_or_null<TupleObj>(t->elems[0].single())
                                           : nullptr;
    auto* kwargs =
        t && t->elems.size() == 2 ? llvm::dyn_cast_or_null<DictObj>(t->elems[1].single()) : nullptr;
    if (!args || !kwargs)
      return {};
    CallArgs call;
    call.positional = args->elems;
    for (const auto& [k, val] : kwargs->items)
      if (auto* s = llvm::dyn_cast_or_null<StrObj>(k.single()))
        call.keywords.push_back({s->v, val});
    out.push_back(std::move(call));
  }
  return out;
}

// The module op holding these functions' defs (null when there are none).
static mlir::Operation* moduleOpOf(const std::vector<FunctionObj*>& functions) {
  for (FunctionObj* fn : functions)
    if (fn->def)
      if (auto m = fn->def->getParentOfType<mlir::ModuleOp>())
        return m;
  return nullptr;
}

void Interpreter::runAsEntry(mlir::Operation* def, const std::function<void()>& run) {
  if (exhausted())
    return;
  entry_ = def;
  // Each entry point sees the program as it is after import; what it
  // changes is forgotten afterwards.
  heap_.beginSide();
  entryRun_ = true;
  run();
  entryRun_ = false;
  pendingRaise_ = false;
  heap_.endSide(true);
  entry_ = nullptr;
}

// An entry point is run with the arguments it is written with: parameters
// with a default hold it, the others are unknown (CallArgs()).
void Interpreter::runEntryPoints(const std::string& path) {
  auto it = modules_.find(path);
  if (it == modules_.end())
    return;
  ModuleObj* m = it->second;
  std::vector<llvm::StringRef> names = m->ns.names();
  std::vector<FunctionObj*> functions;
  std::vector<ClassObj*> classes;
  for (llvm::StringRef n : names)
    if (const Value* v = m->ns.find(n))
      for (const Alt& alt : *v) {
        if (auto* fn = llvm::dyn_cast<FunctionObj>(alt.obj); fn && fn->module == m)
          functions.push_back(fn);
        else if (auto* cls = llvm::dyn_cast<ClassObj>(alt.obj); cls && cls->module == m)
          classes.push_back(cls);
      }
  runGlobalRebinders(functions);
  // Module-level functions first: they build the objects whose methods run
  // next, and the closures that run last.
  for (FunctionObj* fn : functions)
    if (!called_.count(fn->def))
      runAsEntry(fn->def, [&] { invoke(fn, CallArgs(), fn->def); });
  runMethodEntries(m, classes);
  runHandedOnCallables(m);
}

void Interpreter::runGlobalRebinders(const std::vector<FunctionObj*>& functions) {
  // A function the module never names that rebinds module globals (`global
  // X; X = True`) may have run before whatever an importer calls next: its
  // writes are kept as a "may" (joined with what import left) for every
  // entry point after it. (One the module names runs where it is called.)
  std::set<llvm::StringRef> named;
  if (mlir::Operation* top = moduleOpOf(functions))
    top->walk([&](LoadOp l) { named.insert(l.getName()); });
  for (FunctionObj* fn : functions) {
    if (called_.count(fn->def) || exhausted() || named.count(fn->name))
      continue;
    bool rebindsGlobals = false;
    fn->def->walk([&](StoreOp st) { rebindsGlobals |= st.getScope() == Scope::global; });
    if (!rebindsGlobals)
      continue;
    entry_ = fn->def;
    entryRun_ = true;
    sides({[&] { invoke(fn, CallArgs(), fn->def); }, [] {}},
          {"when `" + fn->name + "` has run", ""});
    entryRun_ = false;
    pendingRaise_ = false;
    entry_ = nullptr;
  }
}

// Each method of the module's classes (and their subclasses'), on each
// object of the class the program built.
void Interpreter::runMethodEntries(ModuleObj* m, const std::vector<ClassObj*>& classes) {
  for (ClassObj* cls : classes) {
    std::vector<ClassObj*> concrete{cls};
    for (ClassObj* sub : subclassesOf(cls))
      concrete.push_back(sub);
    for (llvm::StringRef mn : cls->ns.names()) {
      const Value* member = cls->ns.find(mn);
      for (const Alt& ma : *member) {
        Object* f = ma.obj;
        Kind wrapper = f->kind;
        if (auto* d = llvm::dyn_cast<DescriptorObj>(f))
          f = d->fn.single();
        auto* fn = llvm::dyn_cast_or_null<FunctionObj>(f);
        if (!fn || fn->module != m || called_.count(fn->def) || mn == "__init__")
          continue;
        // A parameterized test (the unittest overlay's parameterized
        // decorators) runs once per parameter set it carries.
        std::vector<CallArgs> sets = parameterSets(fn);
        if (sets.empty())
          sets.push_back(CallArgs());
        for (ClassObj* c : concrete) {
          // A subclass that overrides the method runs its own.
          ClassObj* where = nullptr;
          lookupInMro(c, mn, &where);
          if (where != cls)
            continue;
          // `self`: each object of the class the program built; when the
          // program builds objects of the hierarchy but none of this class,
          // none; when it builds none at all, one built the way a test
          // runner does (no arguments).
          std::vector<InstanceObj*> built;
          if (auto it = instances_.find(c); it != instances_.end())
            built = it->second;
          if (built.empty()) {
            bool hierarchyBuilt = false;
            for (ClassObj* other : concrete)
              hierarchyBuilt = hierarchyBuilt || instances_.count(other);
            if (hierarchyBuilt)
              continue;
            built.push_back(nullptr);
          }
          for (InstanceObj* inst : built)
            for (const CallArgs& given : sets)
              runAsEntry(fn->def, [&] {
                if (wrapper == Kind::StaticMethod) {
                  invoke(fn, given, fn->def);
                  return;
                }
                // A test case is built the way its runner builds it; any
                // other class from arguments not known (an Enum's self is
                // any member, a dataclass's fields any value).
                CallArgs made;
                if (!lookupInMro(c, "setUp"))
                  made.morePositional = made.moreKeywords = true;
                Value self = wrapper == Kind::ClassMethod ? Value(c, fn->def)
                             : inst                       ? Value(inst, fn->def)
                                                          : instantiate(c, made, fn->def);
                if (wrapper != Kind::ClassMethod && !inst)
                  if (lookupInMro(c, "setUp")) {
                    call(getAttr(self, "setUp", fn->def), {}, fn->def);
                    if (pendingRaise_) // setUp raised (skipTest): the test does not run
                      return;
                  }
                CallArgs args = given;
                args.positional.insert(args.positional.begin(), self);
                invoke(fn, args, fn->def);
              });
        }
      }
    }
  }
}

void Interpreter::runHandedOnCallables(ModuleObj* m) {
  // Functions the program made and handed on without calling them (a
  // lambda given to jax.jit, a closure returned): run with what they
  // captured, a few of each def.
  std::map<mlir::Operation*, unsigned> runs;
  for (size_t i = 0; i < closures_.size() && i < 512; ++i) {
    FunctionObj* fn = closures_[i];
    // A closure an entry point made whose function has callers was made
    // with that entry point's made-up arguments: its callers' runs made theirs.
    mlir::Operation* madeIn = closureEntry_.count(fn) ? closureEntry_[fn] : nullptr;
    if (consumed_.count(fn))
      continue;
    if (fn->module != m || called_.count(fn->def) || (madeIn && called_.count(madeIn)) ||
        runs[fn->def]++ >= 4)
      continue;
    runAsEntry(fn->def, [&] { invoke(fn, CallArgs(), fn->def); });
  }
  // Partials the program made of functions nothing called (`partial(double,
  // interpret=False)` returned for a caller outside the workspace), and
  // wrappers an overlay made of them (`@jax.jit def run(x)`).
  for (size_t i = 0; i < madeCallables_.size(); ++i) {
    auto [callable, madeIn] = madeCallables_[i];
    if (consumed_.count(callable))
      continue;
    auto* p = llvm::dyn_cast<PartialObj>(callable);
    FunctionObj* fn = p ? llvm::dyn_cast_or_null<FunctionObj>(p->fn.single()) : nullptr;
    if (auto of = madeOf_.find(callable); !fn && of != madeOf_.end())
      fn = of->second;
    if (!fn || fn->module != m || called_.count(fn->def) || (madeIn && called_.count(madeIn)) ||
        runs[fn->def]++ >= 4)
      continue;
    Object* through = callable;
    runAsEntry(fn->def, [&] { call(Value(through, fn->def), CallArgs(), fn->def); });
    // The callable called the function for the entry point: that is no
    // caller of the program's (its launches' records stand).
    called_.erase(fn->def);
  }
}

// ---- descriptions -----------------------------------------------------------------

std::string floatRepr(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x < 0 ? "-inf" : "inf";
  // The fewest significant digits that read back as x.
  char buf[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  std::string s(buf);
  bool negative = s[0] == '-';
  std::string mantissa = s.substr(negative ? 1 : 0, s.find('e') - (negative ? 1 : 0));
  int exponent = static_cast<int>(std::strtol(s.c_str() + s.find('e') + 1, nullptr, 10));
  std::string d; // the significant digits
  for (char c : mantissa)
    if (c != '.')
      d += c;
  while (d.size() > 1 && d.back() == '0')
    d.pop_back();
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += d.substr(0, 1);
    if (d.size() > 1)
      out += "." + d.substr(1);
    char e[8];
    std::snprintf(e, sizeof e, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + e;
  }
  if (exponent < 0)
    return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + d;
  size_t whole = static_cast<size_t>(exponent) + 1;
  if (d.size() <= whole)
    return out + d + std::string(whole - d.size(), '0') + ".0";
  return out + d.substr(0, whole) + "." + d.substr(whole);
}

std::string describe(const Object* o) {
  if (!o)
    return "nothing";
  switch (o->kind) {
  case Kind::Unknown:
    return llvm::cast<UnknownObj>(o)->why;
  case Kind::None:
    return "None";
  case Kind::Bool:
    return llvm::cast<BoolObj>(o)->v ? "True" : "False";
  case Kind::Int:
    return std::to_string(llvm::cast<IntObj>(o)->v);
  case Kind::Float:
    return floatRepr(llvm::cast<FloatObj>(o)->v);
  case Kind::Str:
    return "\"" + llvm::cast<StrObj>(o)->v + "\"";
  case Kind::Bytes:
    return "b\"" + llvm::cast<StrObj>(o)->v + "\"";
  case Kind::Tuple:
    return "a tuple";
  case Kind::List:
    return "a list";
  case Kind::Dict:
    return "a dict";
  case Kind::Set:
    return "a set";
  case Kind::Function:
    return "function " + llvm::cast<FunctionObj>(o)->name;
  case Kind::Class:
    return "class " + llvm::cast<ClassObj>(o)->name;
  case Kind::Instance:
    return "an instance of " + llvm::cast<InstanceObj>(o)->cls->name;
  case Kind::Module:
    return "module " + llvm::cast<ModuleObj>(o)->name;
  case Kind::External:
    return llvm::cast<ExternalObj>(o)->qualname;
  case Kind::Builtin:
    return llvm::cast<BuiltinObj>(o)->name;
  case Kind::BoundMethod:
    return "a bound method";
  case Kind::Partial:
    return "a functools.partial";
  case Kind::Generator:
    return "a generator";
  default:
    return "a value";
  }
}

std::string describe(const Value& v) {
  if (v.isBottom())
    return "nothing";
  if (v.size() == 1)
    return describe(v[0].obj);
  std::string s = "one of ";
  for (size_t i = 0; i < v.size() && i < 3; ++i)
    s += (i ? ", " : "") + describe(v[i].obj);
  if (v.size() > 3)
    s += ", ...";
  return s;
}

} // namespace pallas::eval
