// Overlay: operator. The operator functions (add, mul, eq, lt, not_,
// getitem, contains, ...) apply the evaluator's own operators;
// itemgetter, attrgetter (dotted names too) and methodcaller make the
// callables they describe.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

const char* opOf(const Object* self) {
  return static_cast<const char*>(llvm::cast<BuiltinObj>(self)->data);
}

Value oBinary(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  if (a.positional.size() != 2)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  return in.binary(opOf(self), a.positional[0], a.positional[1], site);
}

Value oCompare(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  if (a.positional.size() != 2)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  return in.compare(opOf(self), a.positional[0], a.positional[1], site);
}

Value oUnary(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  if (a.positional.size() != 1)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  return in.binary(opOf(self), a.positional[0], Value(), site);
}

Value oTruth(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  if (a.positional.size() != 1)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "()", site);
  std::optional<bool> t = in.truth(a.positional[0], site);
  if (!t)
    return in.unknown(llvm::cast<BuiltinObj>(self)->name + "(" + describe(a.positional[0]) + ")",
                      site);
  bool negate = llvm::StringRef(opOf(self)) == "not";
  return in.boolean(negate ? !*t : *t, site);
}

// contains(a, b) is `b in a`.
Value oContains(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() != 2)
    return in.unknown("operator.contains()", site);
  return in.compare("in", a.positional[1], a.positional[0], site);
}

Value oGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() != 2)
    return in.unknown("operator.getitem()", site);
  return in.subscript(a.positional[0], a.positional[1], site);
}

Value oSetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() == 3)
    in.setItem(a.positional[0], a.positional[1], a.positional[2], site);
  return in.none(site);
}

Value oIndex(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() == 1 && intOf(&a.positional[0]))
    return in.integer(*intOf(&a.positional[0]), site);
  return in.unknown("operator.index()", site);
}

// itemgetter(*items)(obj): obj[item], or a tuple of them.
Value itemgetterCall(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                     const Object* self) {
  const std::vector<Value>& items = held(self);
  if (a.positional.size() != 1)
    return in.unknown("an itemgetter called", site);
  if (items.size() == 1)
    return in.subscript(a.positional[0], items[0], site);
  std::vector<Value> out;
  out.reserve(items.size());
  for (const Value& i : items)
    out.push_back(in.subscript(a.positional[0], i, site));
  return in.tuple(out, site);
}

Value oItemgetter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.empty() || a.morePositional)
    return in.unknown("operator.itemgetter() with items not known", site);
  return nativeWith(in, "operator.itemgetter", itemgetterCall, a.positional, site);
}

Value dotted(Interpreter& in, Value obj, const Value& name, mlir::Operation* site) {
  const std::string* s = strOf(&name);
  if (!s)
    return in.unknown("an attribute not known", site);
  size_t start = 0;
  for (;;) {
    size_t dot = s->find('.', start);
    obj = in.getAttr(
        obj, s->substr(start, dot == std::string::npos ? std::string::npos : dot - start), site);
    if (dot == std::string::npos)
      return obj;
    start = dot + 1;
  }
}

Value attrgetterCall(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                     const Object* self) {
  const std::vector<Value>& names = held(self);
  if (a.positional.size() != 1)
    return in.unknown("an attrgetter called", site);
  if (names.size() == 1)
    return dotted(in, a.positional[0], names[0], site);
  std::vector<Value> out;
  out.reserve(names.size());
  for (const Value& n : names)
    out.push_back(dotted(in, a.positional[0], n, site));
  return in.tuple(out, site);
}

Value oAttrgetter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.empty() || a.morePositional)
    return in.unknown("operator.attrgetter() with names not known", site);
  return nativeWith(in, "operator.attrgetter", attrgetterCall, a.positional, site);
}

// methodcaller(name, *args, **kwargs)(obj): obj.name(*args, **kwargs). The
// held values: name, the arguments as a tuple, then (keyword, value) pairs.
Value methodcallerCall(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                       const Object* self) {
  const std::vector<Value>& h = held(self);
  const std::string* name = h.empty() ? nullptr : strOf(&h[0]);
  if (a.positional.size() != 1 || !name || h.size() < 2)
    return in.unknown("a methodcaller called", site);
  CallArgs args;
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(h[1].single()))
    args.positional = t->elems;
  for (size_t i = 2; i < h.size(); ++i)
    if (auto* kv = llvm::dyn_cast_or_null<TupleObj>(h[i].single()); kv && kv->elems.size() == 2)
      if (const std::string* k = strOf(&kv->elems[0]))
        args.keywords.push_back({*k, kv->elems[1]});
  return in.call(in.getAttr(a.positional[0], *name, site), args, site);
}

Value oMethodcaller(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.empty() || !strOf(&a.positional[0]) || a.morePositional || a.moreKeywords)
    return in.unknown("operator.methodcaller() with a call not known", site);
  std::vector<Value> h{a.positional[0],
                       in.tuple({a.positional.begin() + 1, a.positional.end()}, site)};
  for (const auto& [k, v] : a.keywords)
    h.push_back(in.tuple({in.str(k, site), v}, site));
  return nativeWith(in, "operator.methodcaller", methodcallerCall, h, site);
}

class OperatorOverlay final : public Overlay {
public:
  const char* name() const override { return "operator"; }
  void install(Interpreter& in) override {
    struct Op {
      const char* name;
      const char* op;
      NativeFn fn;
    };
    static const Op ops[] = {
        {"add", "+", oBinary},          {"sub", "-", oBinary},       {"mul", "*", oBinary},
        {"truediv", "/", oBinary},      {"floordiv", "//", oBinary}, {"mod", "%", oBinary},
        {"pow", "**", oBinary},         {"lshift", "<<", oBinary},   {"rshift", ">>", oBinary},
        {"and_", "&", oBinary},         {"or_", "|", oBinary},       {"xor", "^", oBinary},
        {"matmul", "@", oBinary},       {"concat", "+", oBinary},    {"eq", "==", oCompare},
        {"ne", "!=", oCompare},         {"lt", "<", oCompare},       {"le", "<=", oCompare},
        {"gt", ">", oCompare},          {"ge", ">=", oCompare},      {"is_", "is", oCompare},
        {"is_not", "is not", oCompare}, {"neg", "unary-", oUnary},   {"pos", "unary+", oUnary},
        {"invert", "unary~", oUnary},   {"inv", "unary~", oUnary},   {"not_", "not", oTruth},
        {"truth", "truth", oTruth}};
    for (const Op& o : ops) {
      in.defineNative(std::string("operator.") + o.name, o.fn, const_cast<char*>(o.op));
      // The dunder spellings (operator.__add__) are the same functions.
      std::string plain = o.name;
      if (plain == "is_" || plain == "is_not" || plain == "truth")
        continue;
      if (plain.back() == '_')
        plain.pop_back();
      in.defineNative("operator.__" + plain + "__", o.fn, const_cast<char*>(o.op));
    }
    in.defineNative("operator.contains", oContains);
    in.defineNative("operator.getitem", oGetitem);
    in.defineNative("operator.setitem", oSetitem);
    in.defineNative("operator.index", oIndex);
    in.defineNative("operator.itemgetter", oItemgetter);
    in.defineNative("operator.attrgetter", oAttrgetter);
    in.defineNative("operator.methodcaller", oMethodcaller);
  }
};

} // namespace

std::unique_ptr<Overlay> makeOperatorOverlay() {
  return std::make_unique<OperatorOverlay>();
}

} // namespace pallas::eval
