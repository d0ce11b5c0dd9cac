// Overlay: inspect. The predicates (isfunction, ismethod, isclass,
// ismodule, isbuiltin, isgeneratorfunction, iscoroutinefunction) answer
// for the objects the evaluator knows; signatures, source text and frames
// are Unknown.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

enum class Is { Function, Method, Class, Module, Builtin, GeneratorFunction, CoroutineFunction };

struct Predicate {
  const char* name;
  Is what;
};
const Predicate kPredicates[] = {{"isfunction", Is::Function},
                                 {"ismethod", Is::Method},
                                 {"isclass", Is::Class},
                                 {"ismodule", Is::Module},
                                 {"isbuiltin", Is::Builtin},
                                 {"isgeneratorfunction", Is::GeneratorFunction},
                                 {"iscoroutinefunction", Is::CoroutineFunction}};

std::optional<bool> test(Object* o, Is what) {
  if (o->kind == Kind::Unknown || o->kind == Kind::External)
    return std::nullopt;
  auto* b = llvm::dyn_cast<BuiltinObj>(o);
  // Natives other than Python's builtins may stand for Python functions
  // (a @contextmanager function is one).
  bool builtinFn = b && b->name.rfind("builtins.", 0) == 0;
  if (b && !builtinFn && (what == Is::Function || what == Is::Builtin))
    return std::nullopt;
  auto* f = llvm::dyn_cast<FunctionObj>(o);
  auto def = f ? llvm::dyn_cast_or_null<py::DefOp>(f->def) : py::DefOp();
  switch (what) {
  case Is::Function:
    return f != nullptr;
  case Is::Method: {
    auto* m = llvm::dyn_cast<BoundMethodObj>(o);
    return m && llvm::isa<FunctionObj>(m->fn);
  }
  case Is::Class:
    return o->kind == Kind::Class;
  case Is::Module:
    return o->kind == Kind::Module;
  case Is::Builtin:
    return builtinFn;
  case Is::GeneratorFunction:
    return def && def.getGenerator() && def.getKind() != "async";
  case Is::CoroutineFunction:
    return def && !def.getGenerator() && def.getKind() == "async";
  }
  return std::nullopt;
}

Value predicate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Is what = static_cast<const Predicate*>(llvm::cast<BuiltinObj>(self)->data)->what;
  const Value* v = arg(a, 0, "object");
  if (!v)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  std::optional<bool> result;
  for (const Alt& alt : *v) {
    std::optional<bool> t = test(alt.obj, what);
    if (!t || (result && *result != *t))
      return in.unknown(llvm::cast<BuiltinObj>(self)->name + "(" + describe(*v) + ")", site);
    result = t;
  }
  return result ? in.boolean(*result, site) : in.unknown("inspect", site);
}

Value signature(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  return in.unknown("the signature of " + (v ? describe(*v) : std::string("a callable")), site);
}

class InspectOverlay final : public Overlay {
public:
  const char* name() const override { return "inspect"; }
  void install(Interpreter& in) override {
    for (const Predicate& p : kPredicates)
      in.defineNative(std::string("inspect.") + p.name, predicate, const_cast<Predicate*>(&p));
    in.defineNative("inspect.signature", signature);
  }
};

} // namespace

std::unique_ptr<Overlay> makeInspectOverlay() {
  return std::make_unique<InspectOverlay>();
}

} // namespace pallas::eval
