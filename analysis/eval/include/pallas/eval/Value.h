// The evaluator's abstract values (docs/analysis.md §8, "The domain").
//
// A Value is a small set of alternatives: what an expression may evaluate
// to. Each alternative is an Object (a Python object the evaluator models:
// a constant, a container, a function, a class, an instance, a module, an
// object of a library an overlay models, or Unknown) together with the op
// that made it (its origin: where `True` was written, which call built the
// params), so a finding can point at the expression that decided it.
//
// Objects live in the Heap of one evaluation (Heap.h). Immutable objects
// (numbers, strings, tuples) are compared by value; mutable ones (lists,
// dicts, instances, classes, modules, frames) by identity: one object per
// allocation, as in Python. Their contents are Values too.
//
// Join is set union; a Value with more than kMaxAlternatives alternatives
// widens to Unknown ("one of N values"). The empty Value is bottom: no
// value (code that does not run).
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class Operation;
}

namespace pallas::eval {

struct Object;
class Heap;

struct Alt {
  Object* obj = nullptr;
  mlir::Operation* origin = nullptr; // the op that made this value (null: built-in)
};

class Value {
public:
  static constexpr size_t kMaxAlternatives = 12;

  Value() = default;
  Value(Object* obj, mlir::Operation* origin = nullptr) {
    if (obj)
      alts_.push_back({obj, origin});
  }

  bool isBottom() const { return alts_.empty(); }
  size_t size() const { return alts_.size(); }
  const Alt* begin() const { return alts_.begin(); }
  const Alt* end() const { return alts_.end(); }
  const Alt& operator[](size_t i) const { return alts_[i]; }
  // The only alternative, or null when there are none or several.
  Object* single() const { return alts_.size() == 1 ? alts_[0].obj : nullptr; }
  mlir::Operation* origin() const { return alts_.empty() ? nullptr : alts_[0].origin; }
  // Some alternative is Unknown.
  bool mayBeUnknown() const;
  // Every alternative is Unknown (or there are none).
  bool isUnknown() const;

  // Adds the alternatives of `other` (objects already present keep their
  // origin). Widening past kMaxAlternatives is the Heap's (Heap::join).
  void add(const Value& other);
  void add(Object* obj, mlir::Operation* origin);
  // The same objects, made at `origin` (an expression that passes a value
  // through keeps its origin; one that computes a new one gives its own).
  Value withOrigin(mlir::Operation* origin) const;

private:
  llvm::SmallVector<Alt, 2> alts_;
};

// ---- objects ------------------------------------------------------------------

enum class Kind : uint8_t {
  Unknown,
  None,
  Bool,
  Int,
  Float,
  Str,
  Bytes,
  Ellipsis,
  Tuple,
  Slice,
  Range,
  // mutable (journaled by the Heap)
  List,
  Dict,
  Set,
  Instance,
  Class,
  Module,
  Frame,
  Function,
  // callables and descriptors
  BoundMethod,
  Builtin,
  Partial,
  Property,
  ClassMethod,
  StaticMethod,
  Super,
  Generator,
  External,
};

// The kinds whose contents change after they are made.
inline bool isMutable(Kind k) {
  return k >= Kind::List && k <= Kind::Function;
}

struct Object {
  explicit Object(Kind k) : kind(k) {}
  virtual ~Object() = default;
  Kind kind;
  uint32_t epoch = 0; // when it was made (Heap::now), for the journal
};

// An ordered namespace: attributes, a module's globals, a class body, a
// frame's locals.
class AttrMap {
public:
  const Value* find(llvm::StringRef name) const {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second;
  }
  Value* find(llvm::StringRef name) {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second;
  }
  void set(llvm::StringRef name, Value v) {
    auto [it, inserted] = map_.try_emplace(name, std::move(v));
    if (inserted)
      order_.push_back(it->getKey());
    else
      it->second = std::move(v);
  }
  bool erase(llvm::StringRef name) {
    auto it = map_.find(name);
    if (it == map_.end())
      return false;
    // order_ holds the map's own keys: drop ours before the entry (and its
    // key) is freed.
    for (size_t i = 0; i < order_.size(); ++i)
      if (order_[i].data() == it->getKey().data()) {
        order_.erase(order_.begin() + static_cast<long>(i));
        break;
      }
    map_.erase(it);
    return true;
  }
  // Names in the order they were first set.
  const std::vector<llvm::StringRef>& names() const { return order_; }
  size_t size() const { return map_.size(); }
  AttrMap() = default;
  AttrMap(const AttrMap& other) {
    for (llvm::StringRef n : other.order_)
      set(n, *other.find(n));
  }
  AttrMap& operator=(const AttrMap& other) {
    if (this != &other) {
      map_.clear();
      order_.clear();
      for (llvm::StringRef n : other.order_)
        set(n, *other.find(n));
    }
    return *this;
  }

private:
  llvm::StringMap<Value> map_;
  std::vector<llvm::StringRef> order_;
};

// Something the evaluator does not know: a parameter no caller fixes, the
// result of a library call no overlay models, an environment variable...
// `why` says what, for "may" messages ("os.environ.get(...)", "parameter
// `interpret` of run()").
struct UnknownObj : Object {
  UnknownObj(std::string why, mlir::Operation* at, std::optional<bool> truth = std::nullopt)
      : Object(Kind::Unknown), why(std::move(why)), at(at), truth(truth) {}
  std::string why;
  mlir::Operation* at;
  // What bool() of it is when a branch decided that (`if x: raise` leaves x
  // false after it).
  std::optional<bool> truth;
  // The module whose `__name__` this is (the checked document's is not
  // known: it may run as a script), so `sys.modules[__name__]` is the module.
  Object* nameOf = nullptr;
  // A value JAX traces in a kernel (a Ref read, a jnp / lax result, what is
  // computed from one): an array, never a Ref.
  bool traced = false;
  // A test an overlay can narrow on (`jtu.test_device_matches(["tpu"])`):
  // called with the truth a branch gives it, at the start of that branch.
  Object* onNarrow = nullptr; // a BuiltinObj
  bool negated = false;       // `not` of such a test
  static bool classof(const Object* o) { return o->kind == Kind::Unknown; }
};

struct NoneObj : Object {
  NoneObj() : Object(Kind::None) {}
  static bool classof(const Object* o) { return o->kind == Kind::None; }
};
struct EllipsisObj : Object {
  EllipsisObj() : Object(Kind::Ellipsis) {}
  static bool classof(const Object* o) { return o->kind == Kind::Ellipsis; }
};
struct BoolObj : Object {
  explicit BoolObj(bool v) : Object(Kind::Bool), v(v) {}
  bool v;
  static bool classof(const Object* o) { return o->kind == Kind::Bool; }
};
struct IntObj : Object {
  explicit IntObj(int64_t v) : Object(Kind::Int), v(v) {}
  int64_t v;
  static bool classof(const Object* o) { return o->kind == Kind::Int; }
};
struct FloatObj : Object {
  explicit FloatObj(double v) : Object(Kind::Float), v(v) {}
  double v;
  static bool classof(const Object* o) { return o->kind == Kind::Float; }
};
struct StrObj : Object {
  explicit StrObj(std::string v, bool bytes = false)
      : Object(bytes ? Kind::Bytes : Kind::Str), v(std::move(v)) {}
  std::string v;
  static bool classof(const Object* o) { return o->kind == Kind::Str || o->kind == Kind::Bytes; }
};
struct TupleObj : Object {
  explicit TupleObj(std::vector<Value> elems) : Object(Kind::Tuple), elems(std::move(elems)) {}
  std::vector<Value> elems;
  static bool classof(const Object* o) { return o->kind == Kind::Tuple; }
};
struct SliceObj : Object {
  SliceObj(Value lo, Value hi, Value step)
      : Object(Kind::Slice), lo(std::move(lo)), hi(std::move(hi)), step(std::move(step)) {}
  Value lo, hi, step;
  static bool classof(const Object* o) { return o->kind == Kind::Slice; }
};
struct RangeObj : Object {
  RangeObj(int64_t start, int64_t stop, int64_t step)
      : Object(Kind::Range), start(start), stop(stop), step(step) {}
  int64_t start, stop, step;
  static bool classof(const Object* o) { return o->kind == Kind::Range; }
};

// ---- mutable objects ----------------------------------------------------------

// A sequence or set: its elements when `exact` (their number and order are
// known), else `elems` are what it may hold, in any number.
struct ListObj : Object {
  explicit ListObj(Kind k = Kind::List) : Object(k) {}
  std::vector<Value> elems;
  bool exact = true;
  static bool classof(const Object* o) { return o->kind == Kind::List || o->kind == Kind::Set; }
};

struct DictObj : Object {
  DictObj() : Object(Kind::Dict) {}
  std::vector<std::pair<Value, Value>> items; // keys are immutable values
  // Not every entry is known: `others` may be under any key.
  bool exact = true;
  Value others;
  static bool classof(const Object* o) { return o->kind == Kind::Dict; }
};

struct ClassObj;
struct ModuleObj;
struct FrameObj;

struct InstanceObj : Object {
  explicit InstanceObj(ClassObj* cls) : Object(Kind::Instance), cls(cls) {}
  ClassObj* cls;
  AttrMap attrs;
  // What an overlay keeps with the object (an Enum member's value, a
  // launch's facts); owned by the heap.
  void* payload = nullptr;
  static bool classof(const Object* o) { return o->kind == Kind::Instance; }
};

struct ClassObj : Object {
  ClassObj() : Object(Kind::Class) {}
  std::string name, qualname;
  std::vector<ClassObj*> bases;
  std::vector<ClassObj*> mro; // C3, self first
  AttrMap ns;
  Value metaclass; // bottom: type
  ModuleObj* module = nullptr;
  mlir::Operation* def = nullptr; // the py.class op (null: a built-in or overlay class)
  // A class of a library, named by its qualified name (`builtins.ValueError`,
  // `enum.Enum`); overlays recognise these.
  std::string external;
  static bool classof(const Object* o) { return o->kind == Kind::Class; }
};

struct ModuleObj : Object {
  ModuleObj() : Object(Kind::Module) {}
  std::string name; // dotted name
  std::string path; // the workspace file (empty for a library module)
  AttrMap ns;
  bool executed = false, executing = false;
  // Made at run time (types.ModuleType): its names are what the program puts
  // in; `mirrors`: the library module whose names were copied into it.
  bool dynamic = false;
  std::string mirrors;
  static bool classof(const Object* o) { return o->kind == Kind::Module; }
};

struct FunctionObj;

// The locals of one execution of a function (or a class body, a module's
// top level uses its ModuleObj). Frames outlive their call when a closure
// captures them.
struct FrameObj : Object {
  FrameObj() : Object(Kind::Frame) {}
  AttrMap locals;
  FunctionObj* function = nullptr; // null for a comprehension's or class body's frame
  FrameObj* enclosing = nullptr;   // where free variables are looked up
  ModuleObj* module = nullptr;
  mlir::Operation* scope = nullptr; // the py.def / py.comprehension declaring its locals
  bool classBody = false;           // a class body's namespace (not an enclosing scope)
  static bool classof(const Object* o) { return o->kind == Kind::Frame; }
};

struct FunctionObj : Object {
  FunctionObj() : Object(Kind::Function) {}
  mlir::Operation* def = nullptr; // py.def
  std::string name, qualname;
  std::vector<Value> defaults; // per parameter with a default, in order
  FrameObj* closure = nullptr; // the frame it was defined in (free variables)
  ModuleObj* module = nullptr;
  ClassObj* owner = nullptr; // the class whose body defined it (zero-argument super())
  AttrMap attrs;             // __name__, __wrapped__, attributes set on it
  static bool classof(const Object* o) { return o->kind == Kind::Function; }
};

// ---- callables and descriptors ------------------------------------------------

struct BoundMethodObj : Object {
  BoundMethodObj(Value self, Object* fn)
      : Object(Kind::BoundMethod), self(std::move(self)), fn(fn) {}
  Value self;
  Object* fn; // a FunctionObj, BuiltinObj or other callable
  static bool classof(const Object* o) { return o->kind == Kind::BoundMethod; }
};

class Interpreter;
struct CallArgs;
// A function the evaluator implements itself (a builtin or an overlay's).
using NativeFn = Value (*)(Interpreter& in, const CallArgs& args, mlir::Operation* site,
                           const Object* self);
struct BuiltinObj : Object {
  BuiltinObj(std::string name, NativeFn fn)
      : Object(Kind::Builtin), name(std::move(name)), fn(fn) {}
  std::string name; // qualified: "builtins.len", "functools.partial", "list.append"
  NativeFn fn;
  Value bound;          // the receiver of a method of a built-in type (`xs.append`)
  void* data = nullptr; // what the native function needs besides its arguments
  static bool classof(const Object* o) { return o->kind == Kind::Builtin; }
};

struct PartialObj : Object {
  PartialObj() : Object(Kind::Partial) {}
  Value fn;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> keywords;
  static bool classof(const Object* o) { return o->kind == Kind::Partial; }
};

// property / classmethod / staticmethod / cached_property wrappers.
struct DescriptorObj : Object {
  DescriptorObj(Kind k, Value fn) : Object(k), fn(std::move(fn)) {}
  Value fn;     // fget, or the wrapped function
  Value setter; // property.setter
  bool cached = false;
  static bool classof(const Object* o) {
    return o->kind == Kind::Property || o->kind == Kind::ClassMethod ||
           o->kind == Kind::StaticMethod;
  }
};

struct SuperObj : Object {
  SuperObj(ClassObj* cls, Value self) : Object(Kind::Super), cls(cls), self(std::move(self)) {}
  ClassObj* cls; // look up after this class in self's MRO
  Value self;
  static bool classof(const Object* o) { return o->kind == Kind::Super; }
};

struct GeneratorObj : Object {
  GeneratorObj(FunctionObj* fn, FrameObj* frame) : Object(Kind::Generator), fn(fn), frame(frame) {}
  FunctionObj* fn;
  FrameObj* frame; // arguments bound, not yet run
  bool consumed = false;
  static bool classof(const Object* o) { return o->kind == Kind::Generator; }
};

// A name from a library the workspace does not hold (`jax.numpy.sum`,
// `os.environ`), by its qualified name. Overlays give some of them a
// meaning; the others are Unknown when used.
struct ExternalObj : Object {
  explicit ExternalObj(std::string qualname)
      : Object(Kind::External), qualname(std::move(qualname)) {}
  std::string qualname;
  // What the object is whatever it is spelled (an overlay's key, e.g.
  // "dtype:float32" for jnp.float32, np.float32 and x.dtype): two externals
  // with keys are equal exactly when their keys are. Empty: only the same
  // qualified name is known to be the same object.
  std::string identity;
  static bool classof(const Object* o) { return o->kind == Kind::External; }
};

// A short text for a value in "may" messages and debugging.
std::string describe(const Value& v);
std::string describe(const Object* o);
// repr() of a float as CPython writes it: the shortest digits that read
// back as the same double, positional for 1e-4 <= |x| < 1e16 (with ".0"
// when integral), else scientific ("1e+16", "1.5e-05").
std::string floatRepr(double x);

} // namespace pallas::eval
