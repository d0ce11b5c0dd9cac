// Overlay: typing (and typing_extensions). TYPE_CHECKING is False; cast()
// returns its value, assert_type() and reveal_type() their argument;
// overload, final, override, runtime_checkable, no_type_check and
// dataclass_transform(...) leave what they decorate as it is. The special
// forms and generic aliases (Optional, Union, List, Callable, ...) are
// classes, so subscripting them (`Optional[int]`) gives the class again and
// annotations cost nothing. Generic is a plain class (deriving from it
// leaves a class's attributes known); Protocol stays a library class.
// TypeVar / ParamSpec / TypeVarTuple are objects with their __name__;
// NewType("Id", int) is a function returning its argument. A TypedDict
// class makes dicts.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr const char* kModules[] = {"typing", "typing_extensions"};

Value tFirst(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  if (a.positional.empty())
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  return a.positional[0];
}

Value tCast(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 1, "val");
  return v ? *v : in.unknown("typing.cast()", site);
}

Value tDecoratorFactory(Interpreter& in, const CallArgs&, mlir::Operation* site,
                        const Object* self) {
  return Value(in.makeNative(llvm::cast<BuiltinObj>(self)->name, tFirst), site);
}

Value tTypeVar(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  std::string kind = llvm::cast<BuiltinObj>(self)->name;
  auto* tv = in.heap().make<InstanceObj>(in.externalClass(kind));
  const Value* name = arg(a, 0, "name");
  tv->attrs.set("__name__", name ? *name : in.unknown("a TypeVar's name", site));
  return Value(tv, site);
}

Value tNewTypeCall(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return a.positional.size() == 1 ? a.positional[0] : in.unknown("a NewType called", site);
}

Value tNewType(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 0, "name"));
  auto* fn = in.makeNative(name ? *name : "NewType", tNewTypeCall,
                           hold(in, {arg(a, 1, "tp") ? *arg(a, 1, "tp") : in.none(site)}));
  return Value(fn, site);
}

// Movie(title="x") of `class Movie(TypedDict)`: a dict.
Value tTypedDictNew(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const BuiltinObj* dict = in.native("builtins.dict");
  if (!dict)
    return in.unknown("a TypedDict", site);
  return dict->fn(in, rest(a), site, dict);
}

class TypingOverlay final : public Overlay {
public:
  const char* name() const override { return "typing"; }
  void install(Interpreter& in) override {
    static const char* const forms[] = {"Any",
                                        "Optional",
                                        "Union",
                                        "List",
                                        "Dict",
                                        "Tuple",
                                        "Set",
                                        "FrozenSet",
                                        "Type",
                                        "Callable",
                                        "Literal",
                                        "Final",
                                        "ClassVar",
                                        "Annotated",
                                        "Iterable",
                                        "Iterator",
                                        "Sequence",
                                        "Mapping",
                                        "MutableMapping",
                                        "MutableSequence",
                                        "Collection",
                                        "Container",
                                        "Awaitable",
                                        "Coroutine",
                                        "AsyncIterator",
                                        "AsyncIterable",
                                        "Generator",
                                        "AsyncGenerator",
                                        "Self",
                                        "Never",
                                        "NoReturn",
                                        "LiteralString",
                                        "TypeAlias",
                                        "Concatenate",
                                        "Unpack",
                                        "Required",
                                        "NotRequired",
                                        "TypeGuard",
                                        "Hashable",
                                        "Sized",
                                        "AbstractSet",
                                        "MutableSet",
                                        "Deque",
                                        "DefaultDict",
                                        "ContextManager",
                                        "AsyncContextManager",
                                        "Pattern",
                                        "Match",
                                        "IO",
                                        "TextIO",
                                        "BinaryIO",
                                        "SupportsInt",
                                        "SupportsFloat",
                                        "SupportsIndex",
                                        "KeysView",
                                        "ValuesView",
                                        "ItemsView",
                                        "TypedDict",
                                        "Protocol",
                                        "ReadOnly",
                                        "TypeIs"};
    auto* generic = in.heap().make<ClassObj>();
    generic->name = generic->qualname = "Generic";
    generic->bases = {in.externalClass("builtins.object")};
    generic->mro = linearize(generic);
    for (const char* m : kModules) {
      std::string mod = m;
      moduleAttr(in, mod, "TYPE_CHECKING", in.boolean(false));
      for (const char* f : forms)
        if (!in.externalModule(mod)->ns.find(f))
          moduleAttr(in, mod, f, Value(in.externalClass(mod + "." + f)));
      moduleAttr(in, mod, "Generic", Value(generic));
      classNative(in, in.externalClass(mod + ".TypedDict"), "__new__", tTypedDictNew);
      in.defineNative(mod + ".cast", tCast);
      for (const char* d : {"overload", "final", "override", "runtime_checkable", "no_type_check",
                            "reveal_type", "assert_type", "type_check_only"})
        in.defineNative(mod + "." + d, tFirst);
      in.defineNative(mod + ".dataclass_transform", tDecoratorFactory);
      for (const char* t : {"TypeVar", "ParamSpec", "TypeVarTuple"})
        in.defineNative(mod + "." + t, tTypeVar);
      in.defineNative(mod + ".NewType", tNewType);
    }
  }
};

} // namespace

std::unique_ptr<Overlay> makeTypingOverlay() {
  return std::make_unique<TypingOverlay>();
}

} // namespace pallas::eval
