// Overlay: modules as objects. `sys.modules` (by name; `sys.modules[__name__]`
// is the running module), `importlib.import_module` with a name the program
// computes, `types.ModuleType`, and a module's `__dict__` (reads, writes and
// `update`, which is how a module is cloned: JAX's own tests do it).
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

ModuleObj* moduleOf(Interpreter& in, const Value& key) {
  Object* k = key.single();
  if (auto* u = llvm::dyn_cast_or_null<UnknownObj>(k))
    return llvm::dyn_cast_or_null<ModuleObj>(u->nameOf);
  if (auto* s = llvm::dyn_cast_or_null<StrObj>(k))
    if (ModuleObj* m = in.moduleNamed(s->v))
      return m;
  if (auto* s = llvm::dyn_cast_or_null<StrObj>(k))
    return in.importNamed(s->v, 0, nullptr);
  return nullptr;
}

Value sysModulesGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* key = arg(a, 1);
  ModuleObj* m = key ? moduleOf(in, *key) : nullptr;
  if (m)
    return Value(m, site);
  return in.unknown("sys.modules[" + (key ? describe(*key) : std::string("?")) + "]", site);
}

Value importModule(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 0, "name"));
  if (!name)
    return in.unknown("importlib.import_module() of a name not known", site);
  std::string n = *name;
  int level = 0;
  while (!n.empty() && n[0] == '.') {
    ++level;
    n.erase(0, 1);
  }
  if (ModuleObj* m = in.importNamed(n, level, site))
    return Value(m, site);
  return in.unknown("module " + *name, site);
}

Value moduleType(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* m = in.heap().make<ModuleObj>();
  const std::string* name = strOf(arg(a, 0, "name"));
  m->name = name ? *name : "<module>";
  m->dynamic = true;
  m->executed = true;
  m->ns.set("__name__", in.str(m->name, site));
  return Value(m, site);
}

// A module's __dict__: an object whose items are the module's names.
ModuleObj* dictModule(const CallArgs& a) {
  InstanceObj* self = selfOf(a);
  return self ? static_cast<ModuleObj*>(self->payload) : nullptr;
}

Value moduleDict(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* m =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ModuleObj>(a.positional[0].single());
  if (!m)
    return in.unknown("a module's __dict__", site);
  auto* d = instance(in, in.externalClass("pallas-lsp.ModuleDict"));
  d->payload = m;
  return Value(d, site);
}

Value dictGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  ModuleObj* m = dictModule(a);
  const std::string* key = strOf(arg(a, 1));
  if (!m || !key)
    return in.unknown("an entry of a module's __dict__", site);
  if (const Value* v = m->ns.find(*key))
    return *v;
  if (const Value* dflt = arg(a, 2))
    return *dflt;
  return in.getAttr(Value(m, site), *key, site);
}

Value dictSet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  ModuleObj* m = dictModule(a);
  const std::string* key = strOf(arg(a, 1));
  const Value* v = arg(a, 2);
  if (m && key && v) {
    in.heap().willWrite(m);
    m->ns.set(*key, *v);
  }
  return in.none(site);
}

Value dictUpdate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  ModuleObj* m = dictModule(a);
  const Value* src = arg(a, 1);
  if (!m || !src)
    return in.none(site);
  in.heap().willWrite(m);
  for (const Alt& alt : *src) {
    if (auto* other = llvm::dyn_cast<InstanceObj>(alt.obj);
        other && other->cls->external == "pallas-lsp.ModuleDict") {
      auto* from = static_cast<ModuleObj*>(other->payload);
      for (llvm::StringRef n : from->ns.names())
        m->ns.set(n, *from->ns.find(n));
      if (from->path.empty() && !from->dynamic)
        m->mirrors = from->name; // a library module's names: read through
      else if (!from->mirrors.empty())
        m->mirrors = from->mirrors;
    } else if (auto* e = llvm::dyn_cast<ExternalObj>(alt.obj);
               e && llvm::StringRef(e->qualname).ends_with(".__dict__")) {
      // `lib.__dict__` of a library module read as a name: mirror it.
      m->mirrors = e->qualname.substr(0, e->qualname.size() - 9);
    } else if (auto* d = llvm::dyn_cast<DictObj>(alt.obj)) {
      for (const auto& [k, v] : d->items)
        if (auto* s = llvm::dyn_cast_or_null<StrObj>(k.single()))
          m->ns.set(s->v, v);
    }
  }
  return in.none(site);
}

class ModulesOverlay final : public Overlay {
public:
  const char* name() const override { return "modules"; }
  void install(Interpreter& in) override {
    ClassObj* sysModules = in.externalClass("pallas-lsp.SysModules");
    method(in, sysModules, "__getitem__", sysModulesGet);
    method(in, sysModules, "get", sysModulesGet);
    in.externalModule("sys")->ns.set("modules", Value(instance(in, sysModules)));
    in.defineNative("importlib.import_module", importModule);
    in.defineNative("types.ModuleType", moduleType);
    in.defineNative("pallas-lsp.module_dict", moduleDict);
    ClassObj* md = in.externalClass("pallas-lsp.ModuleDict");
    method(in, md, "__getitem__", dictGet);
    method(in, md, "get", dictGet);
    method(in, md, "__setitem__", dictSet);
    method(in, md, "update", dictUpdate);
  }
};

} // namespace

std::unique_ptr<Overlay> makeModulesOverlay() {
  return std::make_unique<ModulesOverlay>();
}

} // namespace pallas::eval
