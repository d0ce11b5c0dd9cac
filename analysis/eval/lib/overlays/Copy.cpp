// Overlay: copy. copy.copy makes a new container (or instance) holding the
// same objects; copy.deepcopy copies what they hold too (cycles kept, as
// with CPython's memo). Immutable objects, functions, classes and modules
// are themselves. A class's __copy__ / __deepcopy__ is called when it
// defines one.
#include "Util.h"

#include <unordered_map>

namespace pallas::eval {
namespace {

using namespace overlay;

bool atomic(const Object* o) {
  switch (o->kind) {
  case Kind::List:
  case Kind::Set:
  case Kind::Dict:
  case Kind::Instance:
  case Kind::Tuple:
  case Kind::Generator:
    return false;
  default:
    return true;
  }
}

// A user-defined hook (__copy__ / __deepcopy__) of an instance's class.
bool hasHook(Interpreter& in, InstanceObj* inst, llvm::StringRef name) {
  const Value* v = in.lookupInMro(inst->cls, name);
  return v && llvm::isa_and_nonnull<FunctionObj>(v->single());
}

Value shallow(Interpreter& in, const Alt& alt, mlir::Operation* site) {
  Object* o = alt.obj;
  if (atomic(o) || o->kind == Kind::Tuple)
    return Value(o, alt.origin);
  if (auto* l = llvm::dyn_cast<ListObj>(o)) {
    auto* c = in.heap().make<ListObj>(o->kind);
    c->elems = l->elems;
    c->exact = l->exact;
    return Value(c, site);
  }
  if (auto* d = llvm::dyn_cast<DictObj>(o)) {
    auto* c = in.heap().make<DictObj>();
    c->items = d->items;
    c->exact = d->exact;
    c->others = d->others;
    return Value(c, site);
  }
  if (auto* inst = llvm::dyn_cast<InstanceObj>(o)) {
    if (hasHook(in, inst, "__copy__"))
      return in.call(in.getAttr(Value(o, alt.origin), "__copy__", site), {}, site);
    auto* c = in.heap().make<InstanceObj>(inst->cls);
    c->attrs = inst->attrs;
    c->payload = inst->payload;
    return Value(c, site);
  }
  return in.unknown("a copy of " + describe(o), site);
}

struct Deep {
  Interpreter& in;
  mlir::Operation* site;
  std::unordered_map<Object*, Object*> memo;
  int depth = 0;

  Value value(const Value& v) {
    Value out;
    for (const Alt& alt : v)
      out = in.heap().join(out, one(alt));
    return out;
  }

  Value one(const Alt& alt) {
    Object* o = alt.obj;
    if (atomic(o))
      return Value(o, alt.origin);
    if (auto it = memo.find(o); it != memo.end())
      return Value(it->second, site);
    if (++depth > 64) {
      --depth;
      return in.unknown("a deep copy nested too deeply", site);
    }
    Value r = make(alt);
    --depth;
    return r;
  }

  Value make(const Alt& alt) {
    Object* o = alt.obj;
    if (auto* t = llvm::dyn_cast<TupleObj>(o)) {
      std::vector<Value> elems;
      elems.reserve(t->elems.size());
      for (const Value& e : t->elems)
        elems.push_back(value(e));
      return in.tuple(std::move(elems), site);
    }
    if (auto* l = llvm::dyn_cast<ListObj>(o)) {
      auto* c = in.heap().make<ListObj>(o->kind);
      memo[o] = c;
      c->exact = l->exact;
      for (const Value& e : l->elems)
        c->elems.push_back(value(e));
      return Value(c, site);
    }
    if (auto* d = llvm::dyn_cast<DictObj>(o)) {
      auto* c = in.heap().make<DictObj>();
      memo[o] = c;
      c->exact = d->exact;
      for (const auto& [k, v] : d->items)
        c->items.push_back({value(k), value(v)});
      if (!d->others.isBottom())
        c->others = value(d->others);
      return Value(c, site);
    }
    if (auto* inst = llvm::dyn_cast<InstanceObj>(o)) {
      if (hasHook(in, inst, "__deepcopy__")) {
        CallArgs args;
        args.positional = {Value(in.heap().make<DictObj>(), site)};
        return in.call(in.getAttr(Value(o, alt.origin), "__deepcopy__", site), args, site);
      }
      auto* c = in.heap().make<InstanceObj>(inst->cls);
      memo[o] = c;
      c->payload = inst->payload;
      for (llvm::StringRef n : inst->attrs.names())
        c->attrs.set(n, value(*inst->attrs.find(n)));
      return Value(c, site);
    }
    return in.unknown("a deep copy of " + describe(o), site);
  }
};

Value copyFn(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* x = arg(a, 0, "x");
  if (!x)
    return in.unknown("copy.copy()", site);
  Value out;
  for (const Alt& alt : *x)
    out = in.heap().join(out, shallow(in, alt, site));
  return out;
}

Value deepcopyFn(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* x = arg(a, 0, "x");
  if (!x)
    return in.unknown("copy.deepcopy()", site);
  return Deep{in, site, {}}.value(*x);
}

class CopyOverlay final : public Overlay {
public:
  const char* name() const override { return "copy"; }
  void install(Interpreter& in) override {
    in.defineNative("copy.copy", copyFn);
    in.defineNative("copy.deepcopy", deepcopyFn);
  }
};

} // namespace

std::unique_ptr<Overlay> makeCopyOverlay() {
  return std::make_unique<CopyOverlay>();
}

} // namespace pallas::eval
