// Small helpers the library overlays share (functools, dataclasses, enum,
// collections, ...). Private to analysis/eval/lib/overlays.
#pragma once

#include "../Activation.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace pallas::eval::overlay {

inline const Value* arg(const CallArgs& a, size_t i, llvm::StringRef name = "") {
  return a.get(i, name);
}

inline std::optional<int64_t> intOf(const Value* v) {
  if (!v)
    return std::nullopt;
  Object* o = v->single();
  if (auto* i = llvm::dyn_cast_or_null<IntObj>(o))
    return i->v;
  if (auto* b = llvm::dyn_cast_or_null<BoolObj>(o))
    return b->v ? 1 : 0;
  return std::nullopt;
}

inline const std::string* strOf(const Value* v) {
  if (!v)
    return nullptr;
  auto* s = llvm::dyn_cast_or_null<StrObj>(v->single());
  return s && s->kind == Kind::Str ? &s->v : nullptr;
}

// The receiver of a method of a built-in type, or positional[0] of a native
// stored in a class namespace (bound like a function).
inline Value selfArg(const CallArgs& a) {
  return a.positional.empty() ? Value() : a.positional[0];
}

// A native that does nothing and returns None (a logger's info(), a
// parser's print_help(), ...).
inline Value returnNone(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.none(site);
}

// The arguments after the bound instance.
inline CallArgs rest(const CallArgs& a, size_t skip = 1) {
  CallArgs r = a;
  r.positional.erase(r.positional.begin(),
                     r.positional.begin() + static_cast<long>(std::min(skip, a.positional.size())));
  return r;
}

// Values a native keeps with it (BuiltinObj::data): a tuple made on the heap,
// so the heap owns them.
inline void* hold(Interpreter& in, std::vector<Value> values) {
  return in.heap().make<TupleObj>(std::move(values));
}
inline const std::vector<Value>& held(const Object* self) {
  static const std::vector<Value> none;
  auto* b = llvm::dyn_cast_or_null<BuiltinObj>(self);
  if (!b || !b->data)
    return none;
  return static_cast<TupleObj*>(b->data)->elems;
}

// A native function object carrying `values`.
inline Value nativeWith(Interpreter& in, const std::string& name, NativeFn fn,
                        std::vector<Value> values, mlir::Operation* site) {
  return Value(in.makeNative(name, fn, hold(in, std::move(values))), site);
}

// C3 linearization of a class an overlay makes (Interpreter::linearize is
// private); depth first where the hierarchy cannot be ordered.
inline std::vector<ClassObj*> linearize(ClassObj* cls) {
  std::vector<std::vector<ClassObj*>> seqs;
  for (ClassObj* b : cls->bases)
    seqs.push_back(b->mro.empty() ? std::vector<ClassObj*>{b} : b->mro);
  seqs.push_back(cls->bases);
  std::vector<ClassObj*> out{cls};
  for (;;) {
    bool any = false;
    for (auto& s : seqs)
      any = any || !s.empty();
    if (!any)
      return out;
    ClassObj* next = nullptr;
    for (auto& s : seqs) {
      if (s.empty())
        continue;
      bool inTail = false;
      for (auto& t : seqs)
        for (size_t i = 1; i < t.size(); ++i)
          inTail = inTail || t[i] == s.front();
      if (!inTail) {
        next = s.front();
        break;
      }
    }
    if (!next) {
      for (auto& s : seqs)
        for (ClassObj* c : s)
          if (std::find(out.begin(), out.end(), c) == out.end())
            out.push_back(c);
      return out;
    }
    out.push_back(next);
    for (auto& s : seqs)
      if (!s.empty() && s.front() == next)
        s.erase(s.begin());
  }
}

// A class an overlay makes at run time (namedtuple(...), Enum("Name", ...)).
inline ClassObj* makeClass(Interpreter& in, const std::string& name, std::vector<ClassObj*> bases) {
  auto* cls = in.heap().make<ClassObj>();
  cls->name = name;
  cls->qualname = name;
  if (bases.empty())
    bases.push_back(in.externalClass("builtins.object"));
  cls->bases = std::move(bases);
  cls->mro = linearize(cls);
  for (ClassObj* b : cls->bases)
    if (!b->metaclass.isBottom()) {
      cls->metaclass = b->metaclass;
      break;
    }
  return cls;
}

// Sets a library module's attribute (`typing.TYPE_CHECKING`, `enum.Enum`).
inline void moduleAttr(Interpreter& in, const std::string& module, const std::string& name,
                       Value v) {
  in.externalModule(module)->ns.set(name, std::move(v));
}

// A native stored in a library class's namespace (methods of OrderedDict,
// Enum's __new__ ...).
inline void classNative(Interpreter& in, ClassObj* cls, const std::string& name, NativeFn fn,
                        void* data = nullptr) {
  cls->ns.set(name, Value(in.makeNative(cls->external + "." + name, fn, data)));
}

// The class of each alternative of a value used as a class: a class, a
// library name (`int` is builtins.int), or null when it is not one.
inline ClassObj* asClass(Interpreter& in, Object* o) {
  if (auto* c = llvm::dyn_cast<ClassObj>(o))
    return c;
  if (auto* e = llvm::dyn_cast<ExternalObj>(o))
    return in.externalClass(e->qualname);
  if (auto* b = llvm::dyn_cast<BuiltinObj>(o))
    if (b->bound.isBottom() && llvm::StringRef(b->name).starts_with("builtins."))
      return in.externalClass(b->name);
  return nullptr;
}

// The source text of an op (its FileLineColRange), read from its file: the
// lowering gives annotations as code it could not read (py.error "type"),
// and a def has no parameter annotations, so the overlays that need an
// annotation (dataclass ClassVar/InitVar, singledispatch.register) read its
// text. Empty when the file cannot be read.
std::string sourceText(mlir::Operation* op);
// `s` without leading and trailing blanks (spaces, tabs, CR, LF).
std::string trim(const std::string& s);
// int(text, base) as CPython reads a str: blanks around, an optional sign,
// digits with single `_` between them, a 0x/0o/0b prefix only as `base`
// allows it (base 0: the prefix decides, and a decimal may not start with
// 0). nullopt where CPython raises ValueError (or the value passes int64).
std::optional<int64_t> pythonInt(const std::string& text, int base = 10);
// float(text) as CPython reads a str: blanks around, an optional sign, a
// decimal with single `_` between digits and an optional exponent, or
// inf / infinity / nan in any case. nullopt where CPython raises ValueError.
std::optional<double> pythonFloat(const std::string& text);
// The text of an annotation value (`x: ClassVar[int]` -> "ClassVar[int]"):
// a library name's qualified name when the annotation was evaluated, else
// its source text.
std::string annotationText(const Value& annotation);
// The annotation of parameter `index` of a def, as source text ("" if none).
std::string parameterAnnotation(FunctionObj* fn, size_t index);
// Resolves a dotted name as the function's code would see it (globals,
// then builtins), for annotations given as text.
Value resolveName(Interpreter& in, FunctionObj* fn, ModuleObj* module, const std::string& dotted,
                  mlir::Operation* site);

// a == b as far as known; lists and dicts element by element (the core
// compares containers by identity).
std::optional<bool> valuesEqual(Interpreter& in, const Value& a, const Value& b,
                                mlir::Operation* site, int depth = 0);

inline bool isNone(const Value* v) {
  return v && v->single() && v->single()->kind == Kind::None;
}

// A library class with the given bases (object when none), its MRO set.
inline ClassObj* libraryClass(Interpreter& in, const std::string& qualname,
                              std::vector<ClassObj*> bases = {}) {
  ClassObj* c = in.externalClass(qualname);
  if (bases.empty())
    return c;
  c->bases = bases;
  c->mro = {c};
  for (ClassObj* b : bases)
    for (ClassObj* m : b->mro)
      if (std::find(c->mro.begin(), c->mro.end(), m) == c->mro.end())
        c->mro.push_back(m);
  return c;
}

// A method of a library class: a native in its namespace (bound like a
// function: the instance comes as positional[0]).
inline void method(Interpreter& in, ClassObj* cls, const std::string& name, NativeFn fn,
                   void* data = nullptr) {
  cls->ns.set(name, Value(in.makeNative(cls->external + "." + name, fn, data)));
}

// An instance of a class, made by a native (no __init__ runs).
inline InstanceObj* instance(Interpreter& in, ClassObj* cls) {
  return in.heap().make<InstanceObj>(cls);
}

// Sets an attribute of an object the native just made or owns (journaled).
inline void put(Interpreter& in, InstanceObj* inst, llvm::StringRef name, const Value& v) {
  in.heap().willWrite(inst);
  inst->attrs.set(name, v);
}

inline Value attr(InstanceObj* inst, llvm::StringRef name) {
  const Value* v = inst->attrs.find(name);
  return v ? *v : Value();
}

// The receiver of a method defined with `method` (positional[0]), when it
// is one instance.
inline InstanceObj* selfOf(const CallArgs& a) {
  return a.positional.empty() ? nullptr
                              : llvm::dyn_cast_or_null<InstanceObj>(a.positional[0].single());
}

// A list of what an iteration gives (exact or not).
inline Value listOf(Interpreter& in, std::vector<Value> items, bool exact, mlir::Operation* site) {
  auto* l = in.heap().make<ListObj>();
  l->elems = std::move(items);
  l->exact = exact;
  if (!exact && l->elems.size() > 1) {
    Value any;
    for (const Value& v : l->elems)
      any = in.heap().join(any, v);
    l->elems = {any};
  }
  return Value(l, site);
}

// Raises an instance of the library exception class `cls` from a native.
inline Value raiseNew(Interpreter& in, ClassObj* cls, mlir::Operation* site,
                      const std::string& message = "") {
  InstanceObj* e = instance(in, cls);
  Value msg = in.str(message, site);
  e->attrs.set("args", in.tuple({msg}, site));
  in.raise(Value(e, site));
  return in.unknown("the result of a call that raised " + cls->name, site);
}

} // namespace pallas::eval::overlay
