// Small helpers the overlays share: reading arguments, making library
// classes and their instances. Private to analysis/eval/lib/overlays.
#pragma once

#include "../Activation.h"

#include <algorithm>
#include <optional>
#include <string>

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

// The arguments after the receiver.
inline CallArgs rest(const CallArgs& a) {
  CallArgs r = a;
  if (!r.positional.empty())
    r.positional.erase(r.positional.begin());
  return r;
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
