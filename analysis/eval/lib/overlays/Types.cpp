// Overlay: types.SimpleNamespace: an object whose attributes are the
// keywords it was made with (and a mapping's entries); attributes are set
// and read as any instance's; == compares the attributes.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

Value nsInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value self = selfArg(a);
  if (const Value* m = arg(a, 1))
    if (auto* d = llvm::dyn_cast_or_null<DictObj>(m->single()))
      for (const auto& [k, v] : d->items)
        if (const std::string* s = strOf(&k))
          in.setAttr(self, *s, v, site);
  for (const auto& [k, v] : a.keywords)
    in.setAttr(self, k, v, site);
  return in.none(site);
}

Value nsEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* x = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  const Value* other = arg(a, 1);
  Object* yo = other ? other->single() : nullptr;
  auto* y = llvm::dyn_cast_or_null<InstanceObj>(yo);
  if (!x || !yo || yo->kind == Kind::Unknown)
    return in.unknown("a SimpleNamespace compared", site);
  ClassObj* ns = in.externalClass("types.SimpleNamespace");
  if (!y || !in.isSubclass(y->cls, ns))
    return in.boolean(false, site);
  if (x->attrs.size() != y->attrs.size())
    return in.boolean(false, site);
  bool unsure = false;
  for (llvm::StringRef n : x->attrs.names()) {
    const Value* yv = y->attrs.find(n);
    if (!yv)
      return in.boolean(false, site);
    std::optional<bool> same = valuesEqual(in, *x->attrs.find(n), *yv, site);
    if (same == false)
      return in.boolean(false, site);
    unsure = unsure || !same;
  }
  return unsure ? in.unknown("SimpleNamespaces compared", site) : in.boolean(true, site);
}

class TypesOverlay final : public Overlay {
public:
  const char* name() const override { return "types"; }
  void install(Interpreter& in) override {
    ClassObj* ns = in.externalClass("types.SimpleNamespace");
    classNative(in, ns, "__init__", nsInit);
    classNative(in, ns, "__eq__", nsEq);
    moduleAttr(in, "types", "SimpleNamespace", Value(ns));
  }
};

} // namespace

std::unique_ptr<Overlay> makeTypesOverlay() {
  return std::make_unique<TypesOverlay>();
}

} // namespace pallas::eval
