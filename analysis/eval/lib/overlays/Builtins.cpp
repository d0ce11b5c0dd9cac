// Overlay: Python's builtins (docs/analysis.md §8, "Overlays: builtins").
// The deterministic builtins are computed (len, range, isinstance,
// getattr/setattr/hasattr, sorted/min/max with key=, zip, enumerate, map,
// filter, str/int/float/bool/list/tuple/dict/set, super, property,
// classmethod, staticmethod, type) and the methods of str, list, dict, set
// and tuple the programs we read use; the exception classes form their
// hierarchy. What depends on the running program (id, hash, input, open)
// is Unknown.
#include "Util.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cctype>

namespace pallas::eval {
namespace {

// The helpers every library overlay uses (Util.h).
using overlay::arg;
using overlay::intOf;
using overlay::pythonFloat;
using overlay::pythonInt;
using overlay::strOf;

Value receiver(const Object* self) {
  return llvm::cast<BuiltinObj>(self)->bound;
}

std::string strValue(Interpreter& in, Object* o, bool& known) {
  known = true;
  switch (o->kind) {
  case Kind::Str:
    return llvm::cast<StrObj>(o)->v;
  case Kind::Int:
    return std::to_string(llvm::cast<IntObj>(o)->v);
  case Kind::Bool:
    return llvm::cast<BoolObj>(o)->v ? "True" : "False";
  case Kind::None:
    return "None";
  case Kind::Class:
    return "<class '" + llvm::cast<ClassObj>(o)->qualname + "'>";
  default:
    (void)in;
    known = false;
    return {};
  }
}

// ---- functions ------------------------------------------------------------------

Value bLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.unknown("len()", site);
  Value out;
  for (const Alt& alt : *v) {
    Object* o = alt.obj;
    if (auto* inst = llvm::dyn_cast<InstanceObj>(o); inst && in.lookupInMro(inst->cls, "__len__")) {
      out =
          in.heap().join(out, in.call(in.getAttr(Value(o, alt.origin), "__len__", site), {}, site));
      continue;
    }
    if (auto* s = llvm::dyn_cast<StrObj>(o)) {
      out.add(in.heap().integer(static_cast<int64_t>(s->v.size())), site);
      continue;
    }
    if (auto* d = llvm::dyn_cast<DictObj>(o); d && d->exact) {
      out.add(in.heap().integer(static_cast<int64_t>(d->items.size())), site);
      continue;
    }
    Interpreter::Elements e = in.elements(Value(o, alt.origin), site);
    if (e.exact)
      out.add(in.heap().integer(static_cast<int64_t>(e.items.size())), site);
    else
      out = in.heap().join(out, in.unknown("the length of " + describe(o), site));
  }
  return out;
}

Value bRange(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> x = intOf(arg(a, 0)), y = intOf(arg(a, 1)), z = intOf(arg(a, 2));
  size_t n = a.positional.size();
  if (n == 1 && x)
    return Value(in.heap().make<RangeObj>(0, *x, 1), site);
  if (n == 2 && x && y)
    return Value(in.heap().make<RangeObj>(*x, *y, 1), site);
  if (n == 3 && x && y && z && *z != 0)
    return Value(in.heap().make<RangeObj>(*x, *y, *z), site);
  auto* l = in.heap().make<ListObj>();
  l->exact = false;
  l->elems.push_back(in.unknown("an element of a range not known", site));
  return Value(l, site);
}

std::vector<ClassObj*> classesIn(Interpreter& in, const Value& v, bool& known) {
  std::vector<ClassObj*> out;
  known = true;
  for (const Alt& alt : v) {
    if (auto* c = llvm::dyn_cast<ClassObj>(alt.obj))
      out.push_back(c);
    else if (auto* e = llvm::dyn_cast<ExternalObj>(alt.obj))
      out.push_back(in.externalClass(e->qualname));
    else if (auto* t = llvm::dyn_cast<TupleObj>(alt.obj)) {
      for (const Value& e2 : t->elems) {
        bool k = true;
        for (ClassObj* c : classesIn(in, e2, k))
          out.push_back(c);
        known = known && k;
      }
    } else if (auto* b = llvm::dyn_cast<BuiltinObj>(alt.obj)) {
      out.push_back(in.externalClass(b->name));
    } else {
      known = false;
    }
  }
  return out;
}

Value bIsinstance(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* obj = arg(a, 0);
  const Value* types = arg(a, 1);
  if (!obj || !types)
    return in.unknown("isinstance()", site);
  bool known = true;
  std::vector<ClassObj*> classes = classesIn(in, *types, known);
  if (!known)
    return in.unknown("isinstance() with classes not known", site);
  std::optional<bool> result;
  for (const Alt& alt : *obj) {
    std::optional<bool> t;
    if (alt.obj->kind == Kind::Unknown || alt.obj->kind == Kind::External) {
      t = std::nullopt;
    } else if (ClassObj* cls = in.classOf(alt.obj)) {
      bool any = false;
      for (ClassObj* c : classes)
        any = any || in.isSubclass(cls, c) ||
              (c->external == "builtins.int" && alt.obj->kind == Kind::Bool) ||
              c->external == "builtins.object";
      t = any;
      if (!any)
        for (ClassObj* c : classes)
          // A library class (an ABC, jax.Array) may count classes it never names.
          if (!c->external.empty() && c->external.rfind("builtins.", 0) != 0 &&
              !in.hasLibraryBase(cls) && c->external.rfind('?', 0) != 0)
            t = c->external.find("abc") != std::string::npos ||
                        c->external.rfind("typing.", 0) == 0 ||
                        c->external.rfind("numbers.", 0) == 0
                    ? std::nullopt
                    : std::optional<bool>(false);
      if (in.hasLibraryBase(cls) && !any)
        t = std::nullopt;
    }
    if (!t)
      return in.unknown("isinstance(" + describe(alt.obj) + ", ...)", site);
    if (result && *result != *t)
      return in.unknown("isinstance(" + describe(*obj) + ", ...)", site);
    result = t;
  }
  return result ? in.boolean(*result, site) : in.unknown("isinstance()", site);
}

Value bIssubclass(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* c = arg(a, 0);
  const Value* types = arg(a, 1);
  auto* cls = c ? llvm::dyn_cast_or_null<ClassObj>(c->single()) : nullptr;
  bool known = true;
  std::vector<ClassObj*> classes = types ? classesIn(in, *types, known) : std::vector<ClassObj*>{};
  if (!cls || !known || !types)
    return in.unknown("issubclass()", site);
  bool any = false;
  for (ClassObj* t : classes)
    any = any || in.isSubclass(cls, t);
  if (!any && in.hasLibraryBase(cls))
    return in.unknown("issubclass()", site);
  return in.boolean(any, site);
}

Value bGetattr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* obj = arg(a, 0);
  const Value* name = arg(a, 1);
  const Value* dflt = arg(a, 2);
  if (!obj || !name)
    return in.unknown("getattr()", site);
  Value out;
  for (const Alt& n : *name) {
    auto* s = llvm::dyn_cast<StrObj>(n.obj);
    if (!s) {
      out = in.heap().join(
          out, in.unknown("getattr() with a name not known (" + describe(n.obj) + ")", site));
      continue;
    }
    if (dflt) {
      std::optional<bool> has = in.hasAttr(*obj, s->v);
      if (has == false) {
        out = in.heap().join(out, *dflt);
        continue;
      }
      if (!has)
        out = in.heap().join(out, *dflt);
    }
    out = in.heap().join(out, in.getAttr(*obj, s->v, site));
  }
  return out;
}

Value bSetattr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* obj = arg(a, 0);
  const std::string* name = strOf(arg(a, 1));
  const Value* v = arg(a, 2);
  if (obj && name && v)
    in.setAttr(*obj, *name, *v, site);
  else if (obj && v)
    for (const Alt& alt : *obj)
      if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj)) {
        // A name not known: any attribute of it may now hold v.
        in.heap().willWrite(inst);
        for (llvm::StringRef n : inst->attrs.names())
          inst->attrs.set(n, in.heap().join(*inst->attrs.find(n), *v));
      }
  return in.none(site);
}

Value bHasattr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* obj = arg(a, 0);
  const std::string* name = strOf(arg(a, 1));
  if (!obj || !name)
    return in.unknown("hasattr()", site);
  std::optional<bool> h = in.hasAttr(*obj, *name);
  return h ? in.boolean(*h, site)
           : in.unknown("hasattr(" + describe(*obj) + ", \"" + *name + "\")", site);
}

Value bCallable(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v || !v->single())
    return in.unknown("callable()", site);
  switch (v->single()->kind) {
  case Kind::Function:
  case Kind::BoundMethod:
  case Kind::Builtin:
  case Kind::Class:
  case Kind::Partial:
    return in.boolean(true, site);
  case Kind::Instance: {
    auto* inst = llvm::cast<InstanceObj>(v->single());
    return in.boolean(in.lookupInMro(inst->cls, "__call__") != nullptr, site);
  }
  case Kind::Unknown:
  case Kind::External:
    return in.unknown("callable()", site);
  default:
    return in.boolean(false, site);
  }
}

Value bType(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() == 1) {
    Value out;
    for (const Alt& alt : a.positional[0]) {
      if (ClassObj* c = in.classOf(alt.obj))
        out.add(c, site);
      else
        out = in.heap().join(out, in.unknown("type(" + describe(alt.obj) + ")", site));
    }
    return out;
  }
  if (a.positional.size() == 3) {
    // type(name, bases, namespace): a class made at run time.
    auto* cls = in.heap().make<ClassObj>();
    const std::string* name = strOf(&a.positional[0]);
    cls->name = name ? *name : "<type>";
    cls->qualname = cls->name;
    for (const Value& b : in.elements(a.positional[1], site).items)
      if (auto* bc = llvm::dyn_cast_or_null<ClassObj>(b.single()))
        cls->bases.push_back(bc);
    if (auto* d = llvm::dyn_cast_or_null<DictObj>(a.positional[2].single()))
      for (const auto& [k, v] : d->items)
        if (auto* s = llvm::dyn_cast_or_null<StrObj>(k.single()))
          cls->ns.set(s->v, v);
    cls->mro = {cls};
    for (ClassObj* b : cls->bases)
      for (ClassObj* m : b->mro)
        if (std::find(cls->mro.begin(), cls->mro.end(), m) == cls->mro.end())
          cls->mro.push_back(m);
    return Value(cls, site);
  }
  return in.unknown("type()", site);
}

Value bStr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.str("", site);
  Value out;
  for (const Alt& alt : *v) {
    bool known = false;
    std::string s = strValue(in, alt.obj, known);
    if (known) {
      out.add(in.heap().string(s), site);
      continue;
    }
    if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj)) {
      const char* hook = in.lookupInMro(inst->cls, "__str__")    ? "__str__"
                         : in.lookupInMro(inst->cls, "__repr__") ? "__repr__"
                                                                 : nullptr;
      if (hook) {
        out = in.heap().join(out,
                             in.call(in.getAttr(Value(alt.obj, alt.origin), hook, site), {}, site));
        continue;
      }
    }
    out = in.heap().join(out, in.unknown("str(" + describe(alt.obj) + ")", site));
  }
  return out;
}

Value bInt(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.integer(0, site);
  Value out;
  for (const Alt& alt : *v) {
    Object* o = alt.obj;
    if (auto* i = llvm::dyn_cast<IntObj>(o))
      out.add(i, site);
    else if (auto* b = llvm::dyn_cast<BoolObj>(o))
      out.add(in.heap().integer(b->v), site);
    else if (auto* f = llvm::dyn_cast<FloatObj>(o))
      out.add(in.heap().integer(static_cast<int64_t>(f->v)), site);
    else if (auto* s = llvm::dyn_cast<StrObj>(o)) {
      std::optional<int64_t> base = a.positional.size() > 1 || arg(a, 1, "base")
                                        ? intOf(arg(a, 1, "base"))
                                        : std::optional<int64_t>(10);
      std::optional<int64_t> x = base ? pythonInt(s->v, static_cast<int>(*base)) : std::nullopt;
      if (x)
        out.add(in.heap().integer(*x), site);
      else if (base && v->size() == 1) // the one text it can be: ValueError, as CPython
        return overlay::raiseNew(in, in.externalClass("builtins.ValueError"), site,
                                 "invalid literal for int() with base " + std::to_string(*base) +
                                     ": '" + s->v + "'");
      else
        out = in.heap().join(out, in.unknown("int(\"" + s->v + "\")", site));
    } else
      out = in.heap().join(out, in.unknown("int(" + describe(o) + ")", site));
  }
  return out;
}

Value bFloat(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return Value(in.heap().floating(0), site);
  Value out;
  for (const Alt& alt : *v) {
    Object* o = alt.obj;
    if (auto* i = llvm::dyn_cast<IntObj>(o))
      out.add(in.heap().floating(static_cast<double>(i->v)), site);
    else if (auto* f = llvm::dyn_cast<FloatObj>(o))
      out.add(f, site);
    else if (auto* b = llvm::dyn_cast<BoolObj>(o))
      out.add(in.heap().floating(b->v ? 1.0 : 0.0), site);
    else if (auto* s = llvm::dyn_cast<StrObj>(o); s && pythonFloat(s->v))
      out.add(in.heap().floating(*pythonFloat(s->v)), site);
    else if (s && s->kind == Kind::Str && v->size() == 1) // ValueError, as CPython
      return overlay::raiseNew(in, in.externalClass("builtins.ValueError"), site,
                               "could not convert string to float: '" + s->v + "'");
    else
      out = in.heap().join(out, in.unknown("float(" + describe(o) + ")", site));
  }
  return out;
}

Value bBool(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.boolean(false, site);
  std::optional<bool> t = in.truth(*v, site);
  return t ? in.boolean(*t, site) : in.unknown("bool(" + describe(*v) + ")", site);
}

Value fromElements(Interpreter& in, const Value* v, mlir::Operation* site, Kind kind) {
  Interpreter::Elements e;
  if (v)
    e = in.elements(*v, site);
  else
    e.exact = true;
  if (kind == Kind::Tuple && e.exact)
    return in.tuple(e.items, site);
  auto* l = in.heap().make<ListObj>(kind == Kind::Set ? Kind::Set : Kind::List);
  l->elems = e.items;
  l->exact = e.exact;
  return Value(l, site);
}

Value bList(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return fromElements(in, arg(a, 0), site, Kind::List);
}
Value bTuple(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return fromElements(in, arg(a, 0), site, Kind::Tuple);
}
Value bSet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return fromElements(in, arg(a, 0), site, Kind::Set);
}

Value bDict(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* d = in.heap().make<DictObj>();
  Value self(d, site);
  if (const Value* src = arg(a, 0)) {
    if (auto* other = llvm::dyn_cast_or_null<DictObj>(src->single())) {
      d->items = other->items;
      d->exact = other->exact;
      d->others = other->others;
    } else if (auto* m = llvm::dyn_cast_or_null<InstanceObj>(src->single());
               m && in.lookupInMro(m->cls, "keys")) {
      // A mapping (OrderedDict, a class with keys()): its keys and m[key].
      Interpreter::Elements keys =
          in.elements(in.call(in.getAttr(*src, "keys", site), {}, site), site);
      for (const Value& k : keys.items)
        in.setItem(self, k, in.subscript(*src, k, site), site);
      if (!keys.exact)
        d->exact = false;
    } else {
      Interpreter::Elements e = in.elements(*src, site);
      for (const Value& pair : e.items) {
        Interpreter::Elements kv = in.elements(pair, site);
        if (kv.exact && kv.items.size() == 2)
          in.setItem(self, kv.items[0], kv.items[1], site);
        else
          d->exact = false;
      }
      if (!e.exact)
        d->exact = false;
    }
  }
  for (const auto& [k, v] : a.keywords)
    in.setItem(self, in.str(k, site), v, site);
  if (a.moreKeywords)
    d->exact = false;
  return self;
}

Value bSorted(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.unknown("sorted()", site);
  Interpreter::Elements e = in.elements(*v, site);
  const Value* key = a.keyword("key");
  const Value* rev = a.keyword("reverse");
  std::optional<bool> reverse = rev ? in.truth(*rev, site) : std::optional<bool>(false);
  auto* l = in.heap().make<ListObj>();
  l->exact = e.exact;
  if (!e.exact || !reverse) {
    l->elems = e.items;
    l->exact = false;
    return Value(l, site);
  }
  // Sort by the key's value when every key is a known number or string.
  std::vector<std::pair<Value, Value>> keyed;
  for (const Value& item : e.items) {
    Value k = item;
    if (key) {
      CallArgs ka;
      ka.positional = {item};
      k = in.call(*key, ka, site);
    }
    keyed.push_back({k, item});
  }
  bool comparable = true;
  for (auto& [k, _] : keyed) {
    Object* o = k.single();
    comparable = comparable && o &&
                 (o->kind == Kind::Int || o->kind == Kind::Float || o->kind == Kind::Str ||
                  o->kind == Kind::Bool);
  }
  if (!comparable) {
    l->elems = e.items;
    l->exact = false;
    return Value(l, site);
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    Value lt = in.compare("<", x.first, y.first, site);
    return in.truth(lt, site) == true;
  });
  if (*reverse)
    std::reverse(keyed.begin(), keyed.end());
  for (auto& [_, item] : keyed)
    l->elems.push_back(item);
  return Value(l, site);
}

Value minMax(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool isMax) {
  std::vector<Value> items;
  bool exact = true;
  if (a.positional.size() == 1) {
    Interpreter::Elements e = in.elements(a.positional[0], site);
    items = e.items;
    exact = e.exact;
  } else {
    items = a.positional;
  }
  const Value* key = a.keyword("key");
  if (!exact || items.empty()) {
    if (const Value* d = a.keyword("default"); d && exact)
      return *d;
    Value any;
    for (const Value& v : items)
      any = in.heap().join(any, v);
    return any.isBottom() ? in.unknown(isMax ? "max()" : "min()", site) : any;
  }
  Value best = items[0];
  Value bestKey = best;
  if (key) {
    CallArgs ka;
    ka.positional = {best};
    bestKey = in.call(*key, ka, site);
  }
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = items[i];
    if (key) {
      CallArgs ka;
      ka.positional = {items[i]};
      k = in.call(*key, ka, site);
    }
    std::optional<bool> better = in.truth(in.compare(isMax ? ">" : "<", k, bestKey, site), site);
    if (!better) {
      best = in.heap().join(best, items[i]);
      continue;
    }
    if (*better) {
      best = items[i];
      bestKey = k;
    }
  }
  return best;
}
Value bMin(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return minMax(in, a, site, false);
}
Value bMax(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return minMax(in, a, site, true);
}

Value bSum(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.unknown("sum()", site);
  Interpreter::Elements e = in.elements(*v, site);
  if (!e.exact)
    return in.unknown("a sum of values not known", site);
  const Value* start = arg(a, 1, "start");
  Value total = start ? *start : in.integer(0, site);
  for (const Value& x : e.items)
    total = in.binary("+", total, x, site);
  return total;
}

Value anyAll(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool isAny) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.unknown("any()/all()", site);
  Interpreter::Elements e = in.elements(*v, site);
  bool unsure = !e.exact;
  for (const Value& x : e.items) {
    std::optional<bool> t = in.truth(x, site);
    if (t == isAny && e.exact)
      return in.boolean(isAny, site);
    if (!t)
      unsure = true;
  }
  if (unsure)
    return in.unknown(isAny ? "any()" : "all()", site);
  return in.boolean(!isAny, site);
}
Value bAny(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return anyAll(in, a, site, true);
}
Value bAll(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return anyAll(in, a, site, false);
}

Value bZip(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::vector<Interpreter::Elements> seqs;
  bool exact = true;
  size_t n = SIZE_MAX;
  for (const Value& v : a.positional) {
    seqs.push_back(in.elements(v, site));
    exact = exact && seqs.back().exact;
    if (seqs.back().exact)
      n = std::min(n, seqs.back().items.size());
  }
  auto* l = in.heap().make<ListObj>();
  if (seqs.empty())
    return Value(l, site);
  if (!exact) {
    std::vector<Value> parts;
    for (auto& s : seqs) {
      Value any;
      for (const Value& x : s.items)
        any = in.heap().join(any, x);
      parts.push_back(any.isBottom() ? in.unknown("an element", site) : any);
    }
    l->exact = false;
    l->elems.push_back(in.tuple(parts, site));
    return Value(l, site);
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> parts;
    parts.reserve(seqs.size());
    for (auto& s : seqs)
      parts.push_back(s.items[i]);
    l->elems.push_back(in.tuple(parts, site));
  }
  return Value(l, site);
}

Value bEnumerate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  int64_t start = intOf(arg(a, 1, "start")).value_or(0);
  auto* l = in.heap().make<ListObj>();
  if (!v)
    return Value(l, site);
  Interpreter::Elements e = in.elements(*v, site);
  l->exact = e.exact;
  for (size_t i = 0; i < e.items.size(); ++i)
    l->elems.push_back(in.tuple(
        {e.exact ? in.integer(start + static_cast<int64_t>(i), site) : in.unknown("an index", site),
         e.items[i]},
        site));
  return Value(l, site);
}

Value bMap(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() < 2)
    return in.unknown("map()", site);
  CallArgs zipArgs;
  zipArgs.positional.assign(a.positional.begin() + 1, a.positional.end());
  Value zipped = bZip(in, zipArgs, site, nullptr);
  Interpreter::Elements e = in.elements(zipped, site);
  auto* l = in.heap().make<ListObj>();
  l->exact = e.exact;
  for (const Value& t : e.items) {
    CallArgs ca;
    ca.positional = in.elements(t, site).items;
    l->elems.push_back(in.call(a.positional[0], ca, site));
  }
  return Value(l, site);
}

Value bFilter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() < 2)
    return in.unknown("filter()", site);
  Interpreter::Elements e = in.elements(a.positional[1], site);
  auto* l = in.heap().make<ListObj>();
  l->exact = e.exact;
  bool none = a.positional[0].single() && a.positional[0].single()->kind == Kind::None;
  for (const Value& x : e.items) {
    Value test = x;
    if (!none) {
      CallArgs ca;
      ca.positional = {x};
      test = in.call(a.positional[0], ca, site);
    }
    std::optional<bool> t = in.truth(test, site);
    if (t == false)
      continue;
    if (!t)
      l->exact = false;
    l->elems.push_back(x);
  }
  return Value(l, site);
}

Value bReversed(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  Interpreter::Elements e = v ? in.elements(*v, site) : Interpreter::Elements{};
  auto* l = in.heap().make<ListObj>();
  l->exact = e.exact;
  l->elems.assign(e.items.rbegin(), e.items.rend());
  return Value(l, site);
}

Value bIter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  return v ? *v : in.unknown("iter()", site);
}

Value bNext(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  const Value* dflt = arg(a, 1);
  if (!v)
    return in.unknown("next()", site);
  if (auto* g = llvm::dyn_cast_or_null<GeneratorObj>(v->single())) {
    Value first;
    bool got = false;
    in.runGenerator(g, [&](const Value& x) {
      first = x;
      got = true;
      return false;
    });
    if (got)
      return first;
    return dflt ? *dflt : in.unknown("next() of an exhausted generator", site);
  }
  Interpreter::Elements e = in.elements(*v, site);
  if (!e.items.empty())
    return dflt && !e.exact ? in.heap().join(e.items[0], *dflt) : e.items[0];
  return dflt ? *dflt : in.unknown("next()", site);
}

Value bNone(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.none(site);
}

Value bUnknown(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return in.unknown("the result of " + llvm::cast<BuiltinObj>(self)->name + "()", site);
}

Value bAbs(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (auto i = intOf(v))
    return in.integer(*i < 0 ? -*i : *i, site);
  return in.unknown("abs()", site);
}

Value bRound(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (auto i = intOf(v))
    return in.integer(*i, site);
  if (auto* f = v ? llvm::dyn_cast_or_null<FloatObj>(v->single()) : nullptr)
    if (!arg(a, 1))
      return in.integer(static_cast<int64_t>(std::nearbyint(f->v)), site);
  return in.unknown("round()", site);
}

Value bDivmod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() != 2)
    return in.unknown("divmod()", site);
  return in.tuple({in.binary("//", a.positional[0], a.positional[1], site),
                   in.binary("%", a.positional[0], a.positional[1], site)},
                  site);
}

Value bPow(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() != 2)
    return in.unknown("pow()", site);
  return in.binary("**", a.positional[0], a.positional[1], site);
}

Value bRepr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (auto* s = v ? llvm::dyn_cast_or_null<StrObj>(v->single()) : nullptr)
    return in.str("'" + s->v + "'", site);
  if (auto* inst = v ? llvm::dyn_cast_or_null<InstanceObj>(v->single()) : nullptr)
    if (in.lookupInMro(inst->cls, "__repr__"))
      return in.call(in.getAttr(*v, "__repr__", site), {}, site);
  return bStr(in, a, site, nullptr);
}

Value bSuper(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() >= 2) {
    auto* cls = llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
    if (cls)
      return Value(in.heap().make<SuperObj>(cls, a.positional[1]), site);
    return in.unknown("super() with a class not known", site);
  }
  // Zero arguments: the class the running method was defined in, and its
  // first argument.
  FunctionObj* fn = in.currentFunction();
  FrameObj* frame = in.currentFrame();
  if (!fn || !fn->owner || !frame)
    return in.unknown("super() outside a method", site);
  auto def = llvm::cast<py::DefOp>(fn->def);
  if (def.getParams().empty())
    return in.unknown("super() in a method without parameters", site);
  llvm::StringRef first = llvm::cast<mlir::StringAttr>(def.getParams()[0]).getValue();
  const Value* self = frame->locals.find(first);
  if (!self)
    return in.unknown("super() before its first argument is bound", site);
  return Value(in.heap().make<SuperObj>(fn->owner, *self), site);
}

Value descriptor(Interpreter& in, const CallArgs& a, mlir::Operation* site, Kind kind) {
  const Value* f = arg(a, 0, "fget");
  return Value(in.heap().make<DescriptorObj>(kind, f ? *f : in.unknown("a getter", site)), site);
}
Value bProperty(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value p = descriptor(in, a, site, Kind::Property);
  if (const Value* s = arg(a, 1, "fset"))
    llvm::cast<DescriptorObj>(p.single())->setter = *s;
  return p;
}
Value bClassmethod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return descriptor(in, a, site, Kind::ClassMethod);
}
Value bStaticmethod(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return descriptor(in, a, site, Kind::StaticMethod);
}

// property(...).setter / .getter: a new property with that function.
Value bPropertySetter(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                      const Object* self) {
  auto* p = llvm::dyn_cast_or_null<DescriptorObj>(receiver(self).single());
  const Value* f = arg(a, 0);
  if (!p || !f)
    return in.unknown("property.setter", site);
  auto* q = in.heap().make<DescriptorObj>(Kind::Property, p->fn);
  q->setter = *f;
  q->cached = p->cached;
  return Value(q, site);
}

Value bObjectInit(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.none(site);
}

Value bObjectNew(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  if (!cls)
    return in.unknown("object.__new__", site);
  return Value(in.heap().make<InstanceObj>(cls), site);
}

Value bVars(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  auto* inst = v ? llvm::dyn_cast_or_null<InstanceObj>(v->single()) : nullptr;
  if (!inst)
    return in.unknown("vars()", site);
  auto* d = in.heap().make<DictObj>();
  for (llvm::StringRef n : inst->attrs.names())
    d->items.push_back({in.str(n.str(), site), *inst->attrs.find(n)});
  return Value(d, site);
}

Value bGlobals(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  // The running module's namespace as a dict view: reads see its names.
  FunctionObj* fn = in.currentFunction();
  ModuleObj* m = fn ? fn->module : nullptr;
  if (!m) {
    FrameObj* f = in.currentFrame();
    m = f ? f->module : nullptr;
  }
  if (!m)
    return in.unknown("globals()", site);
  auto* d = in.heap().make<DictObj>();
  for (llvm::StringRef n : m->ns.names())
    d->items.push_back({in.str(n.str(), site), *m->ns.find(n)});
  return Value(d, site);
}

// ---- methods of built-in types --------------------------------------------------------

Value sFormat(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* fmt = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  if (!fmt)
    return in.unknown("str.format", site);
  std::string out;
  size_t next = 0;
  const std::string& f = fmt->v;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '{' && i + 1 < f.size() && f[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (f[i] == '}' && i + 1 < f.size() && f[i + 1] == '}') {
      out += '}';
      ++i;
      continue;
    }
    if (f[i] != '{') {
      out += f[i];
      continue;
    }
    size_t close = f.find('}', i);
    if (close == std::string::npos)
      return in.unknown("str.format", site);
    std::string field = f.substr(i + 1, close - i - 1);
    if (field.find(':') != std::string::npos || field.find('!') != std::string::npos)
      return in.unknown("str.format with a format spec", site);
    const Value* v = nullptr;
    if (field.empty())
      v = arg(a, next++);
    else if (std::isdigit(static_cast<unsigned char>(field[0])))
      v = arg(a, static_cast<size_t>(std::strtoul(field.c_str(), nullptr, 10)));
    else
      v = a.keyword(field);
    bool known = false;
    std::string s = v && v->single() ? strValue(in, v->single(), known) : std::string();
    if (!known)
      return in.unknown("str.format of values not known", site);
    out += s;
    i = close;
  }
  return in.str(out, site);
}

Value sJoin(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* sep = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  const Value* v = arg(a, 0);
  if (!sep || !v)
    return in.unknown("str.join", site);
  Interpreter::Elements e = in.elements(*v, site);
  if (!e.exact)
    return in.unknown("str.join of values not known", site);
  std::string out;
  for (size_t i = 0; i < e.items.size(); ++i) {
    auto* s = llvm::dyn_cast_or_null<StrObj>(e.items[i].single());
    if (!s)
      return in.unknown("str.join of values not known", site);
    out += (i ? sep->v : "") + s->v;
  }
  return in.str(out, site);
}

Value sCase(Interpreter& in, mlir::Operation* site, const Object* self, int mode) {
  auto* s = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  if (!s)
    return in.unknown("a string method", site);
  std::string r = s->v;
  for (char& c : r)
    c = static_cast<char>(mode == 0 ? std::toupper(static_cast<unsigned char>(c))
                                    : std::tolower(static_cast<unsigned char>(c)));
  return in.str(r, site);
}
Value sUpper(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return sCase(in, site, self, 0);
}
Value sLower(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return sCase(in, site, self, 1);
}

Value sStrip(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* s = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  if (!s)
    return in.unknown("str.strip", site);
  const std::string* chars = strOf(arg(a, 0));
  std::string set = chars ? *chars : std::string(" \t\n\r\f\v");
  std::string name = llvm::cast<BuiltinObj>(self)->name;
  std::string r = s->v;
  bool left = name != "builtins.str.rstrip", right = name != "builtins.str.lstrip";
  if (left)
    r.erase(0, r.find_first_not_of(set) == std::string::npos ? r.size() : r.find_first_not_of(set));
  if (right) {
    size_t end = r.find_last_not_of(set);
    r = end == std::string::npos ? std::string() : r.substr(0, end + 1);
  }
  return in.str(r, site);
}

Value sStartsEnds(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* s = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  const Value* p = arg(a, 0);
  if (!s || !p)
    return in.unknown("str.startswith", site);
  bool ends = llvm::cast<BuiltinObj>(self)->name == "builtins.str.endswith";
  std::vector<Value> prefixes = p->single() && p->single()->kind == Kind::Tuple
                                    ? llvm::cast<TupleObj>(p->single())->elems
                                    : std::vector<Value>{*p};
  for (const Value& pv : prefixes) {
    const std::string* x = strOf(&pv);
    if (!x)
      return in.unknown("str.startswith", site);
    bool hit = ends ? (s->v.size() >= x->size() &&
                       s->v.compare(s->v.size() - x->size(), x->size(), *x) == 0)
                    : s->v.rfind(*x, 0) == 0;
    if (hit)
      return in.boolean(true, site);
  }
  return in.boolean(false, site);
}

Value sReplace(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* s = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  const std::string* from = strOf(arg(a, 0));
  const std::string* to = strOf(arg(a, 1));
  if (!s || !from || !to || from->empty())
    return in.unknown("str.replace", site);
  std::string r;
  size_t pos = 0;
  for (;;) {
    size_t hit = s->v.find(*from, pos);
    if (hit == std::string::npos) {
      r += s->v.substr(pos);
      break;
    }
    r += s->v.substr(pos, hit - pos) + *to;
    pos = hit + from->size();
  }
  return in.str(r, site);
}

Value sSplit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* s = llvm::dyn_cast_or_null<StrObj>(receiver(self).single());
  if (!s)
    return in.unknown("str.split", site);
  const std::string* sep = strOf(arg(a, 0, "sep"));
  std::vector<Value> parts;
  if (!sep) {
    std::string cur;
    for (char c : s->v) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty())
          parts.push_back(in.str(cur, site));
        cur.clear();
      } else
        cur += c;
    }
    if (!cur.empty())
      parts.push_back(in.str(cur, site));
  } else if (!sep->empty()) {
    size_t pos = 0;
    for (;;) {
      size_t hit = s->v.find(*sep, pos);
      parts.push_back(
          in.str(s->v.substr(pos, hit == std::string::npos ? std::string::npos : hit - pos), site));
      if (hit == std::string::npos)
        break;
      pos = hit + sep->size();
    }
  }
  return in.list(parts, site);
}

Value lAppend(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Value recv = receiver(self);
  bool several = recv.size() > 1;
  for (const Alt& alt : recv)
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      in.heap().willWrite(l);
      if (const Value* v = arg(a, 0)) {
        if (several || in.uncertain()) {
          // Which list gets it, or whether it runs, is not known.
          l->elems.push_back(*v);
          if (several)
            l->exact = false;
        } else {
          l->elems.push_back(*v);
        }
      }
    }
  return in.none(site);
}

Value lExtend(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj))
      if (const Value* v = arg(a, 0)) {
        Interpreter::Elements e = in.elements(*v, site);
        in.heap().willWrite(l);
        l->elems.insert(l->elems.end(), e.items.begin(), e.items.end());
        l->exact = l->exact && e.exact;
      }
  return in.none(site);
}

Value lInsert(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj))
      if (const Value* v = arg(a, 1)) {
        in.heap().willWrite(l);
        std::optional<int64_t> i = intOf(arg(a, 0));
        if (i && *i >= 0 && static_cast<size_t>(*i) <= l->elems.size())
          l->elems.insert(l->elems.begin() + *i, *v);
        else if (i && *i == 0)
          l->elems.insert(l->elems.begin(), *v);
        else {
          l->elems.push_back(*v);
          l->exact = false;
        }
      }
  return in.none(site);
}

Value lPop(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Value out;
  for (const Alt& alt : receiver(self)) {
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      in.heap().willWrite(l);
      if (!l->exact || l->elems.empty()) {
        out = in.heap().join(out, l->elems.empty() ? in.unknown("list.pop()", site) : l->elems[0]);
        continue;
      }
      std::optional<int64_t> i =
          a.positional.empty() ? std::optional<int64_t>(-1) : intOf(arg(a, 0));
      int64_t n = static_cast<int64_t>(l->elems.size());
      if (!i || *i >= n || *i < -n) {
        out = in.heap().join(out, in.unknown("list.pop()", site));
        continue;
      }
      size_t k = static_cast<size_t>(*i < 0 ? *i + n : *i);
      out = in.heap().join(out, l->elems[k]);
      l->elems.erase(l->elems.begin() + static_cast<long>(k));
    } else if (auto* d = llvm::dyn_cast<DictObj>(alt.obj)) {
      const Value* key = arg(a, 0);
      Value found = key ? in.subscript(Value(d, alt.origin), *key, site) : Value();
      in.heap().willWrite(d);
      if (key && key->single())
        for (size_t i = 0; i < d->items.size(); ++i)
          if (Object* k = d->items[i].first.single(); k && sameValue(k, key->single()) == true) {
            d->items.erase(d->items.begin() + static_cast<long>(i));
            break;
          }
      if (const Value* dflt = arg(a, 1))
        found = in.heap().join(found, *dflt);
      out = in.heap().join(out, found);
    }
  }
  return out;
}

// list.remove / list.index / list.count / list.clear / list.reverse: on an
// exact list by value; otherwise the list is no longer exact (remove, clear)
// or the answer is not known.
Value lRemove(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* v = arg(a, 0);
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      in.heap().willWrite(l);
      bool removed = false;
      for (size_t i = 0; v && l->exact && i < l->elems.size() && !removed; ++i) {
        Object* e = l->elems[i].single();
        if (e && v->single() && sameValue(e, v->single()) == true) {
          l->elems.erase(l->elems.begin() + static_cast<long>(i));
          removed = true;
        }
      }
      if (!removed)
        l->exact = false;
    }
  return in.none(site);
}

Value lIndexCount(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  bool count = llvm::cast<BuiltinObj>(self)->name == "builtins.list.count";
  const Value* v = arg(a, 0);
  auto* l = llvm::dyn_cast_or_null<ListObj>(receiver(self).single());
  auto* t = llvm::dyn_cast_or_null<TupleObj>(receiver(self).single());
  std::vector<Value> elems = l ? l->elems : t ? t->elems : std::vector<Value>{};
  if ((!l && !t) || (l && !l->exact) || !v || !v->single())
    return in.unknown(count ? "list.count()" : "list.index()", site);
  int64_t n = 0;
  for (size_t i = 0; i < elems.size(); ++i) {
    Object* e = elems[i].single();
    std::optional<bool> same = e ? sameValue(e, v->single()) : std::nullopt;
    if (!same)
      return in.unknown(count ? "list.count()" : "list.index()", site);
    if (*same) {
      if (!count)
        return in.integer(static_cast<int64_t>(i), site);
      ++n;
    }
  }
  return count ? in.integer(n, site) : in.unknown("list.index() of a missing value", site);
}

Value lClearReverse(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  bool clear = llvm::cast<BuiltinObj>(self)->name == "builtins.list.clear";
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      in.heap().willWrite(l);
      if (clear)
        l->elems.clear(), l->exact = true;
      else
        std::reverse(l->elems.begin(), l->elems.end());
    } else if (auto* d = llvm::dyn_cast<DictObj>(alt.obj); d && clear) {
      in.heap().willWrite(d);
      d->items.clear();
      d->exact = true;
      d->others = Value();
    }
  return in.none(site);
}

Value lSort(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      CallArgs sa = a;
      sa.positional.insert(sa.positional.begin(), Value(l, alt.origin));
      Value sorted = bSorted(in, sa, site, nullptr);
      auto* r = llvm::dyn_cast_or_null<ListObj>(sorted.single());
      in.heap().willWrite(l);
      if (r) {
        l->elems = r->elems;
        l->exact = r->exact;
      }
    }
  return in.none(site);
}

Value lCopy(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  Value out;
  for (const Alt& alt : receiver(self)) {
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj)) {
      auto* c = in.heap().make<ListObj>(alt.obj->kind);
      c->elems = l->elems;
      c->exact = l->exact;
      out.add(c, site);
    } else if (auto* d = llvm::dyn_cast<DictObj>(alt.obj)) {
      auto* c = in.heap().make<DictObj>();
      c->items = d->items;
      c->exact = d->exact;
      c->others = d->others;
      out.add(c, site);
    }
  }
  return out;
}

Value dGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* key = arg(a, 0);
  const Value* dflt = arg(a, 1, "default");
  Value out;
  for (const Alt& alt : receiver(self)) {
    auto* d = llvm::dyn_cast<DictObj>(alt.obj);
    if (!d || !key) {
      out = in.heap().join(out, in.unknown("dict.get", site));
      continue;
    }
    bool certainHit = false, maybeHit = !d->exact;
    Value found;
    for (const auto& [k, v] : d->items) {
      Object* ko = k.single();
      std::optional<bool> same = ko && key->single() ? sameValue(ko, key->single()) : std::nullopt;
      if (same == true) {
        found = in.heap().join(found, v);
        certainHit = true;
        break;
      }
      if (!same) {
        found = in.heap().join(found, v);
        maybeHit = true;
      }
    }
    if (!d->exact && !certainHit)
      found = in.heap().join(found, d->others.isBottom() ? in.unknown("an entry not known", site)
                                                         : d->others);
    if (!certainHit)
      found = in.heap().join(found, dflt ? *dflt : in.none(site));
    (void)maybeHit;
    out = in.heap().join(out, found);
  }
  return out;
}

Value dView(Interpreter& in, mlir::Operation* site, const Object* self, int which) {
  Value out;
  for (const Alt& alt : receiver(self)) {
    auto* d = llvm::dyn_cast<DictObj>(alt.obj);
    if (!d)
      continue;
    auto* l = in.heap().make<ListObj>();
    l->exact = d->exact;
    for (const auto& [k, v] : d->items)
      l->elems.push_back(which == 0 ? k : which == 1 ? v : in.tuple({k, v}, site));
    if (!d->exact)
      l->elems.push_back(which == 0 ? in.unknown("a key not known", site)
                         : which == 1
                             ? d->others
                             : in.tuple({in.unknown("a key not known", site), d->others}, site));
    out.add(l, site);
  }
  return out;
}
Value dKeys(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return dView(in, site, self, 0);
}
Value dValues(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return dView(in, site, self, 1);
}
Value dItems(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object* self) {
  return dView(in, site, self, 2);
}

Value dUpdate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  for (const Alt& alt : receiver(self)) {
    Value target(alt.obj, alt.origin);
    if (const Value* src = arg(a, 0)) {
      auto* other = llvm::dyn_cast_or_null<DictObj>(src->single());
      if (other) {
        for (const auto& [k, v] : other->items)
          in.setItem(target, k, v, site);
        if (!other->exact)
          if (auto* d = llvm::dyn_cast<DictObj>(alt.obj)) {
            in.heap().willWrite(d);
            d->exact = false;
            d->others = in.heap().join(d->others, other->others);
          }
      } else if (auto* d = llvm::dyn_cast<DictObj>(alt.obj)) {
        in.heap().willWrite(d);
        d->exact = false;
        d->others = in.heap().join(d->others, in.unknown("an entry from update()", site));
      }
    }
    for (const auto& [k, v] : a.keywords)
      in.setItem(target, in.str(k, site), v, site);
  }
  return in.none(site);
}

Value dSetdefault(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  const Value* key = arg(a, 0);
  const Value* dflt = arg(a, 1);
  Value out;
  for (const Alt& alt : receiver(self)) {
    auto* d = llvm::dyn_cast<DictObj>(alt.obj);
    if (!d || !key)
      continue;
    bool present = false;
    for (const auto& [k, v] : d->items)
      if (Object* ko = k.single(); ko && key->single() && sameValue(ko, key->single()) == true) {
        present = true;
        out = in.heap().join(out, v);
      }
    if (!present) {
      Value v = dflt ? *dflt : in.none(site);
      in.setItem(Value(d, alt.origin), *key, v, site);
      out = in.heap().join(out, v);
    }
  }
  return out;
}

Value setAdd(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  for (const Alt& alt : receiver(self))
    if (auto* l = llvm::dyn_cast<ListObj>(alt.obj))
      if (const Value* v = arg(a, 0)) {
        bool present = false;
        for (const Value& e : l->elems)
          if (e.single() && v->single() && sameValue(e.single(), v->single()) == true)
            present = true;
        if (!present) {
          in.heap().willWrite(l);
          l->elems.push_back(*v);
        }
      }
  return in.none(site);
}

class BuiltinsOverlay final : public Overlay {
public:
  const char* name() const override { return "builtins"; }
  void install(Interpreter& in) override {
    ModuleObj* b = in.builtinsModule();
    auto fn = [&](const char* n, NativeFn f) {
      std::string q = std::string("builtins.") + n;
      in.defineNative(q, f);
      b->ns.set(n, Value(const_cast<BuiltinObj*>(in.native(q))));
    };
    fn("len", bLen);
    fn("range", bRange);
    fn("isinstance", bIsinstance);
    fn("issubclass", bIssubclass);
    fn("getattr", bGetattr);
    fn("setattr", bSetattr);
    fn("hasattr", bHasattr);
    fn("callable", bCallable);
    fn("type", bType);
    fn("str", bStr);
    fn("repr", bRepr);
    fn("int", bInt);
    fn("float", bFloat);
    fn("bool", bBool);
    fn("list", bList);
    fn("tuple", bTuple);
    fn("set", bSet);
    fn("frozenset", bSet);
    fn("dict", bDict);
    fn("sorted", bSorted);
    fn("reversed", bReversed);
    fn("min", bMin);
    fn("max", bMax);
    fn("sum", bSum);
    fn("any", bAny);
    fn("all", bAll);
    fn("zip", bZip);
    fn("enumerate", bEnumerate);
    fn("map", bMap);
    fn("filter", bFilter);
    fn("iter", bIter);
    fn("next", bNext);
    fn("print", bNone);
    fn("abs", bAbs);
    fn("round", bRound);
    fn("divmod", bDivmod);
    fn("pow", bPow);
    fn("super", bSuper);
    fn("property", bProperty);
    fn("classmethod", bClassmethod);
    fn("staticmethod", bStaticmethod);
    fn("vars", bVars);
    fn("globals", bGlobals);
    for (const char* n :
         {"id", "hash", "input", "open", "locals", "__import__", "format", "chr", "ord", "hex",
          "bin", "oct", "compile", "eval", "exec", "memoryview", "bytearray", "complex", "slice"})
      fn(n, bUnknown);
    in.defineNative("builtins.property.setter", bPropertySetter);
    in.defineNative("builtins.property.getter", bPropertySetter);
    in.defineNative("builtins.object.__init__", bObjectInit);
    in.defineNative("builtins.object.__new__", bObjectNew);
    // Methods of built-in types, found by attribute lookup on their values.
    in.defineNative("builtins.str.format", sFormat);
    in.defineNative("builtins.str.join", sJoin);
    in.defineNative("builtins.str.upper", sUpper);
    in.defineNative("builtins.str.lower", sLower);
    in.defineNative("builtins.str.strip", sStrip);
    in.defineNative("builtins.str.lstrip", sStrip);
    in.defineNative("builtins.str.rstrip", sStrip);
    in.defineNative("builtins.str.startswith", sStartsEnds);
    in.defineNative("builtins.str.endswith", sStartsEnds);
    in.defineNative("builtins.str.replace", sReplace);
    in.defineNative("builtins.str.split", sSplit);
    in.defineNative("builtins.list.append", lAppend);
    in.defineNative("builtins.list.extend", lExtend);
    in.defineNative("builtins.list.insert", lInsert);
    in.defineNative("builtins.list.pop", lPop);
    in.defineNative("builtins.list.copy", lCopy);
    in.defineNative("builtins.list.remove", lRemove);
    in.defineNative("builtins.list.index", lIndexCount);
    in.defineNative("builtins.list.count", lIndexCount);
    in.defineNative("builtins.tuple.index", lIndexCount);
    in.defineNative("builtins.tuple.count", lIndexCount);
    in.defineNative("builtins.list.clear", lClearReverse);
    in.defineNative("builtins.list.reverse", lClearReverse);
    in.defineNative("builtins.list.sort", lSort);
    in.defineNative("builtins.dict.clear", lClearReverse);
    in.defineNative("builtins.dict.get", dGet);
    in.defineNative("builtins.dict.keys", dKeys);
    in.defineNative("builtins.dict.values", dValues);
    in.defineNative("builtins.dict.items", dItems);
    in.defineNative("builtins.dict.update", dUpdate);
    in.defineNative("builtins.dict.setdefault", dSetdefault);
    in.defineNative("builtins.dict.pop", lPop);
    in.defineNative("builtins.dict.copy", lCopy);
    in.defineNative("builtins.set.add", setAdd);
    in.defineNative("builtins.set.update", lExtend);
    // Classes: object and the exception hierarchy.
    ClassObj* object = in.externalClass("builtins.object");
    object->mro = {object};
    object->ns.set("__init__",
                   Value(const_cast<BuiltinObj*>(in.native("builtins.object.__init__"))));
    b->ns.set("object", Value(object));
    struct Exc {
      const char* name;
      const char* base;
    };
    static const Exc excs[] = {{"BaseException", "object"},
                               {"Exception", "BaseException"},
                               {"KeyboardInterrupt", "BaseException"},
                               {"SystemExit", "BaseException"},
                               {"GeneratorExit", "BaseException"},
                               {"ArithmeticError", "Exception"},
                               {"ZeroDivisionError", "ArithmeticError"},
                               {"AssertionError", "Exception"},
                               {"AttributeError", "Exception"},
                               {"ImportError", "Exception"},
                               {"ModuleNotFoundError", "ImportError"},
                               {"LookupError", "Exception"},
                               {"IndexError", "LookupError"},
                               {"KeyError", "LookupError"},
                               {"NameError", "Exception"},
                               {"OSError", "Exception"},
                               {"FileNotFoundError", "OSError"},
                               {"RuntimeError", "Exception"},
                               {"NotImplementedError", "RuntimeError"},
                               {"RecursionError", "RuntimeError"},
                               {"StopIteration", "Exception"},
                               {"TypeError", "Exception"},
                               {"ValueError", "Exception"},
                               {"Warning", "Exception"},
                               {"UserWarning", "Warning"},
                               {"DeprecationWarning", "Warning"},
                               {"RuntimeWarning", "Warning"}};
    for (const Exc& e : excs) {
      ClassObj* c = in.externalClass(std::string("builtins.") + e.name);
      ClassObj* base = in.externalClass(std::string("builtins.") + e.base);
      c->bases = {base};
      c->mro = {c};
      c->mro.insert(c->mro.end(), base->mro.begin(), base->mro.end());
      b->ns.set(e.name, Value(c));
    }
    for (const char* t : {"int", "float", "str", "bytes", "bool", "list", "tuple", "dict", "set",
                          "frozenset", "type", "NoneType"}) {
      ClassObj* c = in.externalClass(std::string("builtins.") + t);
      (void)c;
    }
    b->ns.set("NotImplemented", in.unknown("NotImplemented"));
    b->ns.set("Ellipsis", Value(in.heap().ellipsis()));
    b->ns.set("__debug__", in.boolean(true));
  }
};

} // namespace

std::unique_ptr<Overlay> makeBuiltinsOverlay() {
  return std::make_unique<BuiltinsOverlay>();
}

} // namespace pallas::eval
