// Overlay: abc. ABC (its metaclass ABCMeta) and ABCMeta are classes
// (`type(Base)` is ABCMeta; register() returns the class it is given), and
// abstractmethod marks the function (__isabstractmethod__) without
// changing what it does: instantiating an abstract class is not checked.
// abstractproperty / abstractclassmethod / abstractstaticmethod are
// property / classmethod / staticmethod.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

Value aAbstractmethod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* f = arg(a, 0, "funcobj");
  if (!f)
    return in.unknown("abstractmethod()", site);
  for (const Alt& alt : *f)
    if (llvm::isa<FunctionObj>(alt.obj))
      in.setAttr(Value(alt.obj, alt.origin), "__isabstractmethod__", in.boolean(true, site), site);
  return *f;
}

Value wrapAs(Interpreter& in, const CallArgs& a, mlir::Operation* site, Kind kind) {
  const Value* f = arg(a, 0);
  if (!f)
    return in.unknown("an abstract descriptor", site);
  aAbstractmethod(in, a, site, nullptr);
  return Value(in.heap().make<DescriptorObj>(kind, *f), site);
}
Value aAbstractproperty(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return wrapAs(in, a, site, Kind::Property);
}
Value aAbstractclassmethod(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                           const Object*) {
  return wrapAs(in, a, site, Kind::ClassMethod);
}
Value aAbstractstaticmethod(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                            const Object*) {
  return wrapAs(in, a, site, Kind::StaticMethod);
}

// Base.register(Other): Other (a virtual subclass isinstance() cannot see:
// the core leaves isinstance against a library base undecided).
Value aRegister(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.empty())
    return in.unknown("register()", site);
  return a.positional.back();
}

class AbcOverlay final : public Overlay {
public:
  const char* name() const override { return "abc"; }
  void install(Interpreter& in) override {
    ClassObj* meta = in.externalClass("abc.ABCMeta");
    meta->bases = {in.externalClass("builtins.type")};
    meta->mro = linearize(meta);
    classNative(in, meta, "register", aRegister);
    ClassObj* abc = in.externalClass("abc.ABC");
    abc->metaclass = Value(meta);
    moduleAttr(in, "abc", "ABCMeta", Value(meta));
    moduleAttr(in, "abc", "ABC", Value(abc));
    in.defineNative("abc.abstractmethod", aAbstractmethod);
    in.defineNative("abc.abstractproperty", aAbstractproperty);
    in.defineNative("abc.abstractclassmethod", aAbstractclassmethod);
    in.defineNative("abc.abstractstaticmethod", aAbstractstaticmethod);
  }
};

} // namespace

std::unique_ptr<Overlay> makeAbcOverlay() {
  return std::make_unique<AbcOverlay>();
}

} // namespace pallas::eval
