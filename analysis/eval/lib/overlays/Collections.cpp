// Overlay: collections (namedtuple, defaultdict, OrderedDict, Counter,
// ChainMap) and typing.NamedTuple (class syntax and call).
//
// A namedtuple is a class deriving from tuple whose instances hold their
// fields as attributes; indexing, iteration, len, unpacking, ==, _replace,
// _asdict, _make, _fields and _field_defaults read them. defaultdict,
// OrderedDict and Counter are instances of their class (a dict subclass)
// over a dict the heap journals (InstanceObj::payload): a missing key calls
// __missing__ (the factory, 0 for a Counter, a subclass's own). A ChainMap
// looks a key up through its `maps` in order.
#include "Util.h"

#include <algorithm>

namespace pallas::eval {
namespace {

using namespace overlay;

// ---- namedtuple -------------------------------------------------------------------------

ClassObj* tupleClass(Interpreter& in) {
  return in.externalClass("builtins.tuple");
}

std::vector<std::string> tupleFields(Interpreter& in, ClassObj* cls) {
  std::vector<std::string> out;
  const Value* f = in.lookupInMro(cls, "_fields");
  auto* t = f ? llvm::dyn_cast_or_null<TupleObj>(f->single()) : nullptr;
  if (t)
    for (const Value& e : t->elems)
      if (const std::string* s = strOf(&e))
        out.push_back(*s);
  return out;
}

InstanceObj* namedTupleOf(Interpreter& in, Object* o) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  if (!inst || !in.isSubclass(inst->cls, tupleClass(in)) || !in.lookupInMro(inst->cls, "_fields"))
    return nullptr;
  return inst;
}

std::vector<Value> tupleValues(Interpreter& in, InstanceObj* inst, mlir::Operation* site) {
  std::vector<Value> out;
  for (const std::string& f : tupleFields(in, inst->cls)) {
    const Value* v = inst->attrs.find(f);
    out.push_back(v ? *v : in.unknown("field `" + f + "`", site));
  }
  return out;
}

Value ntNew(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  if (!cls)
    return in.unknown("a namedtuple made without its class", site);
  std::vector<std::string> fields = tupleFields(in, cls);
  const Value* dv = in.lookupInMro(cls, "_field_defaults");
  auto* defaults = dv ? llvm::dyn_cast_or_null<DictObj>(dv->single()) : nullptr;
  auto* inst = in.heap().make<InstanceObj>(cls);
  for (size_t i = 0; i < fields.size(); ++i) {
    Value v;
    if (i + 1 < a.positional.size())
      v = a.positional[i + 1];
    else if (const Value* kw = a.keyword(fields[i]))
      v = *kw;
    else {
      if (defaults)
        for (const auto& [k, d] : defaults->items)
          if (const std::string* s = strOf(&k); s && *s == fields[i])
            v = d;
      if (a.morePositional || a.moreKeywords)
        v = in.heap().join(v, in.unknown("field `" + fields[i] + "` from a splat", site));
      if (v.isBottom())
        v = in.unknown("field `" + fields[i] + "` of " + cls->name + " (not given)", site);
    }
    inst->attrs.set(fields[i], v);
  }
  return Value(inst, site);
}

Value ntGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  const Value* idx = arg(a, 1);
  if (!inst || !idx)
    return in.unknown("a namedtuple's item", site);
  return in.subscript(in.tuple(tupleValues(in, inst, site), site), *idx, site);
}

Value ntIter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  if (!inst)
    return in.unknown("a namedtuple's elements", site);
  return in.tuple(tupleValues(in, inst, site), site);
}

Value ntLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  if (!inst)
    return in.unknown("a namedtuple's length", site);
  return in.integer(static_cast<int64_t>(tupleFields(in, inst->cls).size()), site);
}

Value ntEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  const Value* other = arg(a, 1);
  if (!inst || !other)
    return in.unknown("a namedtuple compared", site);
  Value out;
  for (const Alt& alt : *other) {
    Value rhs(alt.obj, alt.origin);
    if (InstanceObj* o = namedTupleOf(in, alt.obj))
      rhs = in.tuple(tupleValues(in, o, site), site);
    else if (alt.obj->kind != Kind::Tuple) {
      out = in.heap().join(out,
                           alt.obj->kind == Kind::Unknown
                               ? in.unknown("a namedtuple compared with " + describe(alt.obj), site)
                               : in.boolean(false, site));
      continue;
    }
    std::optional<bool> same =
        valuesEqual(in, in.tuple(tupleValues(in, inst, site), site), rhs, site);
    out = in.heap().join(
        out, same ? in.boolean(*same, site)
                  : in.unknown("a namedtuple compared with " + describe(alt.obj), site));
  }
  return out;
}

Value ntReplace(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  if (!inst)
    return in.unknown("_replace()", site);
  auto* copy = in.heap().make<InstanceObj>(inst->cls);
  for (const std::string& f : tupleFields(in, inst->cls)) {
    const Value* kw = a.keyword(f);
    const Value* old = inst->attrs.find(f);
    Value v = kw ? *kw : old ? *old : in.unknown("field `" + f + "`", site);
    if (!kw && a.moreKeywords)
      v = in.heap().join(v, in.unknown("field `" + f + "` from a splat", site));
    copy->attrs.set(f, v);
  }
  return Value(copy, site);
}

Value ntAsdict(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = namedTupleOf(in, selfArg(a).single());
  if (!inst)
    return in.unknown("_asdict()", site);
  auto* d = in.heap().make<DictObj>();
  std::vector<Value> values = tupleValues(in, inst, site);
  std::vector<std::string> fields = tupleFields(in, inst->cls);
  for (size_t i = 0; i < fields.size(); ++i)
    d->items.push_back({in.str(fields[i], site), values[i]});
  return Value(d, site);
}

Value ntMake(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  const Value* src = arg(a, 1, "iterable");
  if (!cls || !src)
    return in.unknown("_make()", site);
  Interpreter::Elements e = in.elements(*src, site);
  std::vector<std::string> fields = tupleFields(in, cls);
  if (!e.exact || e.items.size() != fields.size())
    return in.unknown("_make() of " + describe(*src), site);
  auto* inst = in.heap().make<InstanceObj>(cls);
  for (size_t i = 0; i < fields.size(); ++i)
    inst->attrs.set(fields[i], e.items[i]);
  return Value(inst, site);
}

// Makes `cls` a namedtuple class with these fields (defaults: the last ones).
void makeNamedTuple(Interpreter& in, ClassObj* cls, const std::vector<std::string>& fields,
                    const std::vector<std::pair<std::string, Value>>& defaults,
                    mlir::Operation* site) {
  in.heap().willWrite(cls);
  std::vector<Value> names;
  names.reserve(fields.size());
  for (const std::string& f : fields)
    names.push_back(in.str(f, site));
  auto* d = in.heap().make<DictObj>();
  for (const auto& [k, v] : defaults)
    d->items.push_back({in.str(k, site), v});
  cls->ns.set("_fields", in.tuple(names, site));
  cls->ns.set("_field_defaults", Value(d, site));
  if (!cls->ns.find("__match_args__"))
    cls->ns.set("__match_args__", in.tuple(names, site));
  auto method = [&](const char* name, NativeFn fn) {
    cls->ns.set(name,
                Value(in.makeNative(std::string("collections.namedtuple.") + name, fn), site));
  };
  method("__new__", ntNew);
  for (auto [name, fn] :
       std::initializer_list<std::pair<const char*, NativeFn>>{{"__getitem__", ntGetitem},
                                                               {"__iter__", ntIter},
                                                               {"__len__", ntLen},
                                                               {"__eq__", ntEq},
                                                               {"_replace", ntReplace},
                                                               {"_asdict", ntAsdict}})
    if (!cls->ns.find(name))
      method(name, fn);
  cls->ns.set("_make", Value(in.heap().make<DescriptorObj>(
                                 Kind::ClassMethod,
                                 Value(in.makeNative("collections.namedtuple._make", ntMake))),
                             site));
}

std::vector<std::string> fieldNames(Interpreter& in, const Value& v, mlir::Operation* site,
                                    bool& known) {
  std::vector<std::string> out;
  known = true;
  if (const std::string* s = strOf(&v)) {
    std::string t = *s;
    std::replace(t.begin(), t.end(), ',', ' ');
    size_t i = 0;
    while (i < t.size()) {
      size_t j = t.find_first_of(" \t\n", i);
      if (j == std::string::npos)
        j = t.size();
      if (j > i)
        out.push_back(t.substr(i, j - i));
      i = j + 1;
    }
    return out;
  }
  Interpreter::Elements e = in.elements(v, site);
  known = e.exact;
  for (const Value& x : e.items) {
    if (const std::string* s = strOf(&x))
      out.push_back(*s);
    else
      known = false;
  }
  return out;
}

Value cNamedtuple(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 0, "typename"));
  const Value* spec = arg(a, 1, "field_names");
  bool known = false;
  std::vector<std::string> fields;
  if (spec)
    fields = fieldNames(in, *spec, site, known);
  if (!name || !known)
    return in.unknown("a namedtuple class with fields not known", site);
  std::vector<std::pair<std::string, Value>> defaults;
  if (const Value* dv = a.keyword("defaults");
      dv && !(dv->single() && dv->single()->kind == Kind::None)) {
    Interpreter::Elements e = in.elements(*dv, site);
    if (!e.exact || e.items.size() > fields.size())
      return in.unknown("a namedtuple class with defaults not known", site);
    size_t first = fields.size() - e.items.size();
    for (size_t i = 0; i < e.items.size(); ++i)
      defaults.push_back({fields[first + i], e.items[i]});
  }
  ClassObj* cls = makeClass(in, *name, {tupleClass(in)});
  makeNamedTuple(in, cls, fields, defaults, site);
  return Value(cls, site);
}

// typing.NamedTuple("P", [("x", int), ...]) or NamedTuple("P", x=int).
Value tNamedTuple(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 0, "typename"));
  if (!name)
    return in.unknown("typing.NamedTuple() with a name not known", site);
  std::vector<std::string> fields;
  if (const Value* spec = arg(a, 1, "fields")) {
    Interpreter::Elements e = in.elements(*spec, site);
    if (!e.exact)
      return in.unknown("a NamedTuple class with fields not known", site);
    for (const Value& pair : e.items) {
      Interpreter::Elements kv = in.elements(pair, site);
      const std::string* f = kv.exact && !kv.items.empty() ? strOf(&kv.items[0]) : nullptr;
      if (!f)
        return in.unknown("a NamedTuple class with fields not known", site);
      fields.push_back(*f);
    }
  }
  for (const auto& [k, _] : a.keywords)
    fields.push_back(k);
  ClassObj* cls = makeClass(in, *name, {tupleClass(in)});
  makeNamedTuple(in, cls, fields, {}, site);
  return Value(cls, site);
}

// ---- dict subclasses: defaultdict, OrderedDict, Counter --------------------------------------

constexpr const char* kDefaultDict = "collections.defaultdict";
constexpr const char* kOrderedDict = "collections.OrderedDict";
constexpr const char* kCounter = "collections.Counter";
constexpr const char* kChainMap = "collections.ChainMap";

bool derives(Interpreter& in, ClassObj* cls, const char* name) {
  return in.isSubclass(cls, in.externalClass(name));
}

// The dict behind an instance of defaultdict / OrderedDict / Counter.
DictObj* backing(Interpreter& in, Object* o) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  if (!inst || !(derives(in, inst->cls, kDefaultDict) || derives(in, inst->cls, kOrderedDict) ||
                 derives(in, inst->cls, kCounter)))
    return nullptr;
  if (!inst->payload)
    inst->payload = in.heap().make<DictObj>();
  return static_cast<DictObj*>(inst->payload);
}

enum class Presence { Present, Absent, Unsure };
struct Found {
  Value value;
  Presence presence = Presence::Absent;
};

Found lookupDict(Interpreter& in, DictObj* d, const Value& key, mlir::Operation* site) {
  Found f;
  bool unsure = false;
  Object* k = key.single();
  for (const auto& [ik, iv] : d->items) {
    std::optional<bool> same = k && ik.single() ? sameValue(ik.single(), k) : std::nullopt;
    if (same == true) {
      f.value = in.heap().join(f.value, iv);
      f.presence = unsure ? Presence::Unsure : Presence::Present;
      if (!unsure)
        return f;
      return f;
    }
    if (!same) {
      unsure = true;
      f.value = in.heap().join(f.value, iv);
    }
  }
  if (!d->exact) {
    unsure = true;
    f.value = in.heap().join(f.value, d->others.isBottom() ? in.unknown("an entry not known", site)
                                                           : d->others);
  }
  f.presence = unsure ? Presence::Unsure : Presence::Absent;
  return f;
}

Value callMissing(Interpreter& in, const Value& self, const Value& key, mlir::Operation* site) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(self.single());
  if (inst && in.lookupInMro(inst->cls, "__missing__")) {
    CallArgs args;
    args.positional = {key};
    return in.call(in.getAttr(self, "__missing__", site), args, site);
  }
  return in.unknown("a missing key " + describe(key) + " (KeyError)", site);
}

// d[key]: the entry, or what __missing__ gives.
Value mGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value self = selfArg(a);
  DictObj* d = backing(in, self.single());
  const Value* key = arg(a, 1);
  if (!d || !key)
    return in.unknown("a dict subclass's item", site);
  Found f = lookupDict(in, d, *key, site);
  if (f.presence == Presence::Present)
    return f.value;
  if (f.presence == Presence::Absent)
    return callMissing(in, self, *key, site);
  Value out;
  in.sides({[&] { out = in.heap().join(out, f.value); },
            [&] { out = in.heap().join(out, callMissing(in, self, *key, site)); }});
  return out;
}

Value mSetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  if (d && a.positional.size() >= 3)
    in.setItem(Value(d, site), a.positional[1], a.positional[2], site);
  return in.none(site);
}

// Methods that are the dict's: get, keys, values, items, setdefault, pop, update.
Value mDelegate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  DictObj* d = backing(in, selfArg(a).single());
  auto* method = static_cast<const char*>(llvm::cast<BuiltinObj>(self)->data);
  if (!d || !method)
    return in.unknown("a dict method", site);
  return in.call(in.getAttr(Value(d, site), method, site), rest(a), site);
}

Value mDelitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  if (!d || a.positional.size() < 2)
    return in.none(site);
  CallArgs args;
  args.positional = {a.positional[1], in.none(site)};
  in.call(in.getAttr(Value(d, site), "pop", site), args, site);
  return in.none(site);
}

Value mLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  if (!d || !d->exact)
    return in.unknown("the length of a dict not known", site);
  return in.integer(static_cast<int64_t>(d->items.size()), site);
}

Value mClear(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (DictObj* d = backing(in, selfArg(a).single())) {
    in.heap().willWrite(d);
    d->items.clear();
    d->exact = true;
    d->others = Value();
  }
  return in.none(site);
}

// Fills a mapping from a mapping or an iterable of pairs, and keywords (dict(...)).
void fillFrom(Interpreter& in, const Value& target, const Value* src, const CallArgs& a,
              mlir::Operation* site) {
  auto* d = llvm::dyn_cast_or_null<DictObj>(target.single());
  if (src) {
    DictObj* from = llvm::dyn_cast_or_null<DictObj>(src->single());
    if (!from)
      from = backing(in, src->single());
    if (from) {
      for (const auto& [k, v] : from->items)
        in.setItem(target, k, v, site);
      if (!from->exact && d) {
        in.heap().willWrite(d);
        d->exact = false;
        d->others = in.heap().join(d->others, from->others);
      }
    } else {
      Interpreter::Elements e = in.elements(*src, site);
      for (const Value& pair : e.items) {
        Interpreter::Elements kv = in.elements(pair, site);
        if (kv.exact && kv.items.size() == 2 && e.exact)
          in.setItem(target, kv.items[0], kv.items[1], site);
        else if (d) {
          in.heap().willWrite(d);
          d->exact = false;
          d->others = in.heap().join(
              d->others, kv.items.size() == 2 ? kv.items[1] : in.unknown("an entry", site));
        }
      }
      if (!e.exact && d) {
        in.heap().willWrite(d);
        d->exact = false;
        if (d->others.isBottom())
          d->others = in.unknown("an entry not known", site);
      }
    }
  }
  for (const auto& [k, v] : a.keywords)
    in.setItem(target, in.str(k, site), v, site);
  if (a.moreKeywords && d) {
    in.heap().willWrite(d);
    d->exact = false;
    d->others = in.heap().join(d->others, in.unknown("a keyword from a splat", site));
  }
}

// OrderedDict(...) / defaultdict(factory, ...): the dict's contents.
Value mInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Value obj = selfArg(a);
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(obj.single());
  DictObj* d = backing(in, inst);
  if (!inst || !d)
    return in.none(site);
  size_t first = 1;
  if (llvm::StringRef(llvm::cast<BuiltinObj>(self)->name).starts_with(kDefaultDict)) {
    Value factory = a.positional.size() > 1 ? a.positional[1]
                    : a.morePositional || a.moreKeywords
                        ? in.unknown("a defaultdict's factory from a splat", site)
                        : in.none(site);
    in.heap().willWrite(inst);
    inst->attrs.set("default_factory", factory);
    first = 2;
  }
  CallArgs items = rest(a, first);
  fillFrom(in, Value(d, site), items.positional.empty() ? nullptr : &items.positional[0], items,
           site);
  return in.none(site);
}

// defaultdict.__missing__: the factory's value, stored under the key.
Value ddMissing(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  DictObj* d = backing(in, inst);
  const Value* key = arg(a, 1);
  if (!d || !key)
    return in.unknown("defaultdict.__missing__", site);
  const Value* factory = inst->attrs.find("default_factory");
  if (!factory || (factory->single() && factory->single()->kind == Kind::None))
    return in.unknown("a missing key " + describe(*key) + " (KeyError)", site);
  Value v = in.call(*factory, {}, site);
  in.setItem(Value(d, site), *key, v, site);
  return v;
}

Value mCopy(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  DictObj* d = backing(in, inst);
  if (!d)
    return in.unknown("copy()", site);
  auto* c = in.heap().make<InstanceObj>(inst->cls);
  c->attrs = inst->attrs;
  auto* cd = in.heap().make<DictObj>();
  cd->items = d->items;
  cd->exact = d->exact;
  cd->others = d->others;
  c->payload = cd;
  return Value(c, site);
}

Value mEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Object* x = selfArg(a).single();
  DictObj* d = backing(in, x);
  const Value* other = arg(a, 1);
  if (!d || !other || !other->single())
    return in.unknown("a dict compared", site);
  Object* y = other->single();
  DictObj* e = llvm::dyn_cast<DictObj>(y);
  if (!e)
    e = backing(in, y);
  if (!e)
    return y->kind == Kind::Unknown ? in.unknown("a dict compared with " + describe(y), site)
                                    : in.boolean(false, site);
  std::optional<bool> same = valuesEqual(in, Value(d, site), Value(e, site), site);
  // Two OrderedDicts are equal only in the same order.
  auto* xi = llvm::cast<InstanceObj>(x);
  auto* yi = llvm::dyn_cast<InstanceObj>(y);
  if (same == true && yi && derives(in, xi->cls, kOrderedDict) &&
      derives(in, yi->cls, kOrderedDict))
    for (size_t i = 0; i < d->items.size(); ++i) {
      Object* p = d->items[i].first.single();
      Object* q = e->items[i].first.single();
      std::optional<bool> s = p && q ? sameValue(p, q) : std::nullopt;
      if (s != true) {
        same = s == false ? std::optional<bool>(false) : std::nullopt;
        break;
      }
    }
  return same ? in.boolean(*same, site) : in.unknown("dicts compared", site);
}

// popitem(last=True): the last entry (the first with last=False), removed.
Value mPopitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  if (!d || !d->exact || d->items.empty())
    return in.unknown("popitem()", site);
  const Value* lastArg = arg(a, 1, "last");
  std::optional<bool> last = lastArg ? in.truth(*lastArg, site) : std::optional<bool>(true);
  if (!last)
    return in.unknown("popitem()", site);
  in.heap().willWrite(d);
  size_t i = *last ? d->items.size() - 1 : 0;
  auto item = d->items[i];
  d->items.erase(d->items.begin() + static_cast<long>(i));
  return in.tuple({item.first, item.second}, site);
}

Value odMoveToEnd(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  const Value* key = arg(a, 1, "key");
  const Value* lastArg = arg(a, 2, "last");
  std::optional<bool> last = lastArg ? in.truth(*lastArg, site) : std::optional<bool>(true);
  if (!d || !key || !key->single() || !last)
    return in.none(site);
  for (size_t i = 0; i < d->items.size(); ++i)
    if (Object* k = d->items[i].first.single(); k && sameValue(k, key->single()) == true) {
      in.heap().willWrite(d);
      auto item = d->items[i];
      d->items.erase(d->items.begin() + static_cast<long>(i));
      if (*last)
        d->items.push_back(item);
      else
        d->items.insert(d->items.begin(), item);
      break;
    }
  return in.none(site);
}

// ---- Counter ----------------------------------------------------------------------------

Value counterMissing(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return in.integer(0, site);
}

// Adds (sign 1) or subtracts (-1) counts from an iterable or a mapping.
void count(Interpreter& in, const Value& self, DictObj* d, const Value* src, const CallArgs& a,
           int sign, mlir::Operation* site) {
  Value target(d, site);
  auto add = [&](const Value& key, const Value& n) {
    Found f = lookupDict(in, d, key, site);
    Value old = f.presence == Presence::Absent    ? in.integer(0, site)
                : f.presence == Presence::Present ? f.value
                                                  : in.heap().join(f.value, in.integer(0, site));
    in.setItem(target, key, in.binary(sign > 0 ? "+" : "-", old, n, site), site);
  };
  if (src) {
    DictObj* from = llvm::dyn_cast_or_null<DictObj>(src->single());
    if (!from)
      from = backing(in, src->single());
    if (from) {
      for (const auto& [k, v] : from->items)
        add(k, v);
      if (!from->exact) {
        in.heap().willWrite(d);
        d->exact = false;
        d->others = in.heap().join(d->others, in.unknown("a count not known", site));
      }
    } else {
      Interpreter::Elements e = in.elements(*src, site);
      if (e.exact)
        for (const Value& x : e.items)
          add(x, in.integer(1, site));
      else {
        in.heap().willWrite(d);
        d->exact = false;
        d->others = in.heap().join(d->others, in.unknown("a count not known", site));
      }
    }
  }
  for (const auto& [k, v] : a.keywords)
    add(in.str(k, site), v);
  (void)self;
}

Value counterInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value self = selfArg(a);
  DictObj* d = backing(in, self.single());
  if (d)
    count(in, self, d, arg(a, 1, "iterable"), a, 1, site);
  return in.none(site);
}
Value counterUpdate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return counterInit(in, a, site, nullptr);
}
Value counterSubtract(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value self = selfArg(a);
  if (DictObj* d = backing(in, self.single()))
    count(in, self, d, arg(a, 1, "iterable"), a, -1, site);
  return in.none(site);
}

// The entries with their counts known, sorted by count (stable), or false.
bool countsKnown(DictObj* d, std::vector<std::pair<Value, int64_t>>& out) {
  if (!d->exact)
    return false;
  for (const auto& [k, v] : d->items) {
    auto* i = llvm::dyn_cast_or_null<IntObj>(v.single());
    if (!i)
      return false;
    out.push_back({k, i->v});
  }
  return true;
}

Value counterMostCommon(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  std::vector<std::pair<Value, int64_t>> counts;
  if (!d || !countsKnown(d, counts))
    return in.unknown("most_common() of counts not known", site);
  // By count, ties in insertion order (std::stable_sort's buffer is
  // deprecated in this standard library).
  std::vector<size_t> order(counts.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return counts[x].second != counts[y].second ? counts[x].second > counts[y].second : x < y;
  });
  std::vector<std::pair<Value, int64_t>> sorted;
  sorted.reserve(order.size());
  for (size_t i : order)
    sorted.push_back(counts[i]);
  counts = sorted;
  const Value* n = arg(a, 1, "n");
  size_t limit = counts.size();
  if (n && !(n->single() && n->single()->kind == Kind::None)) {
    std::optional<int64_t> k = intOf(n);
    if (!k)
      return in.unknown("most_common(n) with n not known", site);
    limit = static_cast<size_t>(std::clamp<int64_t>(*k, 0, static_cast<int64_t>(counts.size())));
  }
  std::vector<Value> out;
  out.reserve(limit);
  for (size_t i = 0; i < limit; ++i)
    out.push_back(in.tuple({counts[i].first, in.integer(counts[i].second, site)}, site));
  return in.list(out, site);
}

Value counterTotal(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  std::vector<std::pair<Value, int64_t>> counts;
  if (!d || !countsKnown(d, counts))
    return in.unknown("total() of counts not known", site);
  int64_t total = 0;
  for (auto& [_, c] : counts)
    total += c;
  return in.integer(total, site);
}

Value counterElements(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  DictObj* d = backing(in, selfArg(a).single());
  std::vector<std::pair<Value, int64_t>> counts;
  if (!d || !countsKnown(d, counts))
    return in.unknown("elements() of counts not known", site);
  std::vector<Value> out;
  for (auto& [k, c] : counts)
    for (int64_t i = 0; i < c && out.size() < 4096; ++i)
      out.push_back(k);
  return in.list(out, site);
}

// ---- ChainMap ------------------------------------------------------------------------------

ListObj* mapsOf(Object* o) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  const Value* m = inst ? inst->attrs.find("maps") : nullptr;
  auto* l = m ? llvm::dyn_cast_or_null<ListObj>(m->single()) : nullptr;
  return l && l->exact ? l : nullptr;
}

// One mapping of a ChainMap: mapping[key], or KeyError (Absent).
Found lookupMapping(Interpreter& in, const Value& m, const Value& key, mlir::Operation* site) {
  if (auto* d = llvm::dyn_cast_or_null<DictObj>(m.single()))
    return lookupDict(in, d, key, site);
  if (DictObj* d = backing(in, m.single())) {
    Found f = lookupDict(in, d, key, site);
    if (f.presence == Presence::Present)
      return f;
    auto* inst = llvm::cast<InstanceObj>(m.single());
    if (!in.lookupInMro(inst->cls, "__missing__"))
      return f;
    CallArgs args;
    args.positional = {m, key};
    return {mGetitem(in, args, site, nullptr), Presence::Present};
  }
  return {in.subscript(m, key, site), Presence::Unsure};
}

Value chainLookup(Interpreter& in, const Value& self, const Value& key, const Value* dflt,
                  mlir::Operation* site) {
  ListObj* maps = mapsOf(self.single());
  if (!maps)
    return in.unknown("a ChainMap's item", site);
  Value out;
  for (const Value& m : maps->elems) {
    Found f = lookupMapping(in, m, key, site);
    out = in.heap().join(out, f.value);
    if (f.presence == Presence::Present)
      return out;
  }
  if (dflt)
    return in.heap().join(out, *dflt);
  if (out.isBottom()) {
    auto* inst = llvm::dyn_cast_or_null<InstanceObj>(self.single());
    if (inst && in.lookupInMro(inst->cls, "__missing__") &&
        !llvm::isa<BuiltinObj>(in.lookupInMro(inst->cls, "__missing__")->single()))
      return callMissing(in, self, key, site);
    return in.unknown("a missing key " + describe(key) + " (KeyError)", site);
  }
  return out;
}

Value cmInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  if (!inst)
    return in.none(site);
  std::vector<Value> maps(a.positional.begin() + 1, a.positional.end());
  if (maps.empty())
    maps.push_back(Value(in.heap().make<DictObj>(), site));
  Value l = in.list(maps, site);
  if (a.morePositional)
    llvm::cast<ListObj>(l.single())->exact = false;
  in.heap().willWrite(inst);
  inst->attrs.set("maps", l);
  return in.none(site);
}

Value cmGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* key = arg(a, 1);
  return key ? chainLookup(in, selfArg(a), *key, nullptr, site) : in.unknown("ChainMap[]", site);
}

Value cmGet(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* key = arg(a, 1);
  const Value* dflt = arg(a, 2, "default");
  Value none = in.none(site);
  return key ? chainLookup(in, selfArg(a), *key, dflt ? dflt : &none, site)
             : in.unknown("ChainMap.get()", site);
}

Value cmSetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  ListObj* maps = mapsOf(selfArg(a).single());
  if (maps && !maps->elems.empty() && a.positional.size() >= 3)
    in.setItem(maps->elems[0], a.positional[1], a.positional[2], site);
  return in.none(site);
}

Value cmDelitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  ListObj* maps = mapsOf(selfArg(a).single());
  if (maps && !maps->elems.empty() && a.positional.size() >= 2) {
    CallArgs args;
    args.positional = {a.positional[1], in.none(site)};
    in.call(in.getAttr(maps->elems[0], "pop", site), args, site);
  }
  return in.none(site);
}

// The keys: those of the last mapping first, as CPython builds them.
bool chainKeys(Interpreter& in, const Value& self, std::vector<Value>& keys,
               mlir::Operation* site) {
  ListObj* maps = mapsOf(self.single());
  if (!maps)
    return false;
  for (size_t i = maps->elems.size(); i-- > 0;) {
    Interpreter::Elements e = in.elements(maps->elems[i], site);
    if (!e.exact)
      return false;
    for (const Value& k : e.items) {
      bool seen = false;
      for (const Value& old : keys) {
        std::optional<bool> s =
            k.single() && old.single() ? sameValue(k.single(), old.single()) : std::nullopt;
        if (!s)
          return false;
        seen = seen || *s;
      }
      if (!seen)
        keys.push_back(k);
    }
  }
  return true;
}

Value cmKeys(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::vector<Value> keys;
  if (!chainKeys(in, selfArg(a), keys, site)) {
    auto* l = in.heap().make<ListObj>();
    l->exact = false;
    l->elems.push_back(in.unknown("a key of a ChainMap", site));
    return Value(l, site);
  }
  return in.list(keys, site);
}

Value cmLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::vector<Value> keys;
  if (!chainKeys(in, selfArg(a), keys, site))
    return in.unknown("the length of a ChainMap", site);
  return in.integer(static_cast<int64_t>(keys.size()), site);
}

Value cmItemsOrValues(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool items) {
  std::vector<Value> keys;
  if (!chainKeys(in, selfArg(a), keys, site))
    return in.unknown(items ? "a ChainMap's items" : "a ChainMap's values", site);
  std::vector<Value> out;
  for (const Value& k : keys) {
    Value v = chainLookup(in, selfArg(a), k, nullptr, site);
    out.push_back(items ? in.tuple({k, v}, site) : v);
  }
  return in.list(out, site);
}
Value cmItems(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return cmItemsOrValues(in, a, site, true);
}
Value cmValues(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return cmItemsOrValues(in, a, site, false);
}

Value newChain(Interpreter& in, ClassObj* cls, std::vector<Value> maps, mlir::Operation* site) {
  auto* inst = in.heap().make<InstanceObj>(cls);
  inst->attrs.set("maps", in.list(std::move(maps), site));
  return Value(inst, site);
}

Value cmNewChild(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  ListObj* maps = mapsOf(inst);
  if (!maps)
    return in.unknown("new_child()", site);
  const Value* m = arg(a, 1, "m");
  std::vector<Value> all{m && !(m->single() && m->single()->kind == Kind::None)
                             ? *m
                             : Value(in.heap().make<DictObj>(), site)};
  all.insert(all.end(), maps->elems.begin(), maps->elems.end());
  return newChain(in, inst->cls, all, site);
}

Value cmParents(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(selfArg(a).single());
  ListObj* maps = mapsOf(inst);
  if (!maps || maps->elems.empty())
    return in.unknown("parents", site);
  return newChain(in, inst->cls, {maps->elems.begin() + 1, maps->elems.end()}, site);
}

class CollectionsOverlay final : public Overlay {
public:
  const char* name() const override { return "collections"; }
  void install(Interpreter& in) override {
    in.defineNative("collections.namedtuple", cNamedtuple);
    in.defineNative("typing.NamedTuple", tNamedTuple);
    in.defineNative("typing_extensions.NamedTuple", tNamedTuple);
    ClassObj* dict = in.externalClass("builtins.dict");
    auto dictClass = [&](const char* name, NativeFn init) {
      ClassObj* c = in.externalClass(name);
      c->bases = {dict};
      c->mro = linearize(c);
      classNative(in, c, "__init__", init);
      classNative(in, c, "__getitem__", mGetitem);
      classNative(in, c, "__setitem__", mSetitem);
      classNative(in, c, "__delitem__", mDelitem);
      classNative(in, c, "__len__", mLen);
      classNative(in, c, "__eq__", mEq);
      classNative(in, c, "clear", mClear);
      classNative(in, c, "copy", mCopy);
      classNative(in, c, "popitem", mPopitem);
      static const char* const delegated[] = {"get", "keys",       "values", "items",
                                              "pop", "setdefault", "update", "__iter__"};
      for (const char* m : delegated)
        classNative(in, c, m, mDelegate,
                    const_cast<char*>(std::string_view(m) == "__iter__" ? "keys" : m));
      moduleAttr(in, "collections", c->name, Value(c));
      return c;
    };
    ClassObj* dd = dictClass(kDefaultDict, mInit);
    classNative(in, dd, "__missing__", ddMissing);
    ClassObj* od = dictClass(kOrderedDict, mInit);
    classNative(in, od, "move_to_end", odMoveToEnd);
    ClassObj* counter = dictClass(kCounter, counterInit);
    classNative(in, counter, "__missing__", counterMissing);
    classNative(in, counter, "update", counterUpdate);
    classNative(in, counter, "subtract", counterSubtract);
    classNative(in, counter, "most_common", counterMostCommon);
    classNative(in, counter, "total", counterTotal);
    classNative(in, counter, "elements", counterElements);
    moduleAttr(in, "typing", "OrderedDict", Value(od));
    moduleAttr(in, "typing", "DefaultDict", Value(dd));
    moduleAttr(in, "typing", "Counter", Value(counter));

    ClassObj* chain = in.externalClass(kChainMap);
    classNative(in, chain, "__init__", cmInit);
    classNative(in, chain, "__getitem__", cmGetitem);
    classNative(in, chain, "__setitem__", cmSetitem);
    classNative(in, chain, "__delitem__", cmDelitem);
    classNative(in, chain, "__len__", cmLen);
    classNative(in, chain, "__iter__", cmKeys);
    classNative(in, chain, "keys", cmKeys);
    classNative(in, chain, "items", cmItems);
    classNative(in, chain, "values", cmValues);
    classNative(in, chain, "get", cmGet);
    classNative(in, chain, "new_child", cmNewChild);
    chain->ns.set("parents", Value(in.heap().make<DescriptorObj>(
                                 Kind::Property,
                                 Value(in.makeNative("collections.ChainMap.parents", cmParents)))));
    moduleAttr(in, "collections", "ChainMap", Value(chain));
    moduleAttr(in, "typing", "ChainMap", Value(chain));
  }

  // `class P(NamedTuple): x: int; y: int = 0`: a namedtuple class.
  void classBuilt(Interpreter& in, ClassObj* cls, mlir::Operation* site) override {
    ClassObj* marker = in.externalClass("typing.NamedTuple");
    ClassObj* marker2 = in.externalClass("typing_extensions.NamedTuple");
    auto it = std::find_if(cls->bases.begin(), cls->bases.end(),
                           [&](ClassObj* b) { return b == marker || b == marker2; });
    if (it == cls->bases.end())
      return;
    std::vector<std::string> fields;
    std::vector<std::pair<std::string, Value>> defaults;
    in.heap().willWrite(cls);
    const Value* ann = cls->ns.find("__annotations__");
    if (auto* d = ann ? llvm::dyn_cast_or_null<DictObj>(ann->single()) : nullptr)
      for (const auto& [k, _] : d->items)
        if (const std::string* n = strOf(&k)) {
          fields.push_back(*n);
          if (const Value* v = cls->ns.find(*n)) {
            defaults.push_back({*n, *v});
            cls->ns.erase(*n); // the class attribute is the field's accessor
          }
        }
    *it = tupleClass(in);
    cls->mro = linearize(cls);
    makeNamedTuple(in, cls, fields, defaults, site);
  }
};

} // namespace

std::unique_ptr<Overlay> makeCollectionsOverlay() {
  return std::make_unique<CollectionsOverlay>();
}

} // namespace pallas::eval
