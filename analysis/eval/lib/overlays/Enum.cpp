// Overlay: enum. A class deriving from Enum (IntEnum, StrEnum, Flag,
// IntFlag) gets its members when its statement finishes: one instance per
// value (a later name with an equal value is an alias of the first), with
// `_name_` / `_value_` (read by the `name` and `value` properties), auto()
// numbering as CPython's _generate_next_value_ (or the class's own), a
// custom __init__ / __new__ run per member, _ignore_ honoured. Members are
// class attributes; the class (through its metaclass, EnumType) iterates
// them in order, has a length, looks a name up (`Color["RED"]`) and a value
// up (`Color(1)`, then _missing_). Members compare by identity (Heap.cpp's
// sameValue); members of int and str enums also act as their value (==,
// arithmetic, str(), attribute access). Flags combine with | & ^ into the
// member of that value or a pseudo-member (cached in _value2member_map_),
// iterate over the canonical members they contain. Enum("Name", ...) makes
// a class. unique() and verify() return the class.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

struct Bases {
  ClassObj *meta, *enumBase, *reprEnum, *intEnum, *strEnum, *flag, *intFlag;
};

Bases bases(Interpreter& in) {
  return {in.externalClass("enum.EnumType"), in.externalClass("enum.Enum"),
          in.externalClass("enum.ReprEnum"), in.externalClass("enum.IntEnum"),
          in.externalClass("enum.StrEnum"),  in.externalClass("enum.Flag"),
          in.externalClass("enum.IntFlag")};
}

bool isBaseClass(Interpreter& in, ClassObj* cls) {
  Bases b = bases(in);
  return cls == b.enumBase || cls == b.reprEnum || cls == b.intEnum || cls == b.strEnum ||
         cls == b.flag || cls == b.intFlag;
}

bool isEnumClass(Interpreter& in, ClassObj* cls) {
  return cls && in.isSubclass(cls, bases(in).enumBase);
}
bool isFlagClass(Interpreter& in, ClassObj* cls) {
  return in.isSubclass(cls, bases(in).flag);
}

InstanceObj* memberOf(Interpreter& in, Object* o) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(o);
  return inst && isEnumClass(in, inst->cls) ? inst : nullptr;
}

Value attrOr(Interpreter& in, InstanceObj* inst, const char* name, mlir::Operation* site) {
  const Value* v = inst->attrs.find(name);
  return v ? *v : in.unknown(std::string("the ") + name + " of " + describe(inst), site);
}

// A value of a member, or the value itself (the operand of a mixin's operator).
Value plain(Interpreter& in, const Value& v, mlir::Operation* site) {
  Value out;
  for (const Alt& alt : v) {
    if (InstanceObj* m = memberOf(in, alt.obj))
      out = in.heap().join(out, attrOr(in, m, "_value_", site));
    else
      out.add(alt.obj, alt.origin);
  }
  return out;
}

// ---- the class's tables ------------------------------------------------------------------

DictObj* table(ClassObj* cls, const char* name) {
  const Value* v = cls->ns.find(name);
  return v ? llvm::dyn_cast_or_null<DictObj>(v->single()) : nullptr;
}
ListObj* memberNames(ClassObj* cls) {
  const Value* v = cls->ns.find("_member_names_");
  return v ? llvm::dyn_cast_or_null<ListObj>(v->single()) : nullptr;
}
// The class along the MRO that holds the members (a subclass adds none).
ClassObj* memberClass(Interpreter& in, ClassObj* cls) {
  for (ClassObj* c : cls->mro)
    if (table(c, "_member_map_"))
      return c;
  (void)in;
  return cls;
}

std::vector<Value> canonicalMembers(Interpreter& in, ClassObj* cls) {
  std::vector<Value> out;
  ClassObj* owner = memberClass(in, cls);
  ListObj* names = memberNames(owner);
  DictObj* map = table(owner, "_member_map_");
  if (!names || !map)
    return out;
  for (const Value& n : names->elems)
    for (const auto& [k, v] : map->items)
      if (k.single() && n.single() && sameValue(k.single(), n.single()) == true)
        out.push_back(v);
  return out;
}

// The member whose value is `v`: found, not (nullopt when not known).
std::optional<Value> byValue(Interpreter& in, ClassObj* cls, Object* v, mlir::Operation* site) {
  ClassObj* owner = memberClass(in, cls);
  DictObj* values = table(owner, "_value2member_map_");
  if (!values)
    return Value();
  Value unsure;
  for (const auto& [k, m] : values->items) {
    std::optional<bool> same = k.single() ? sameValue(k.single(), v) : std::nullopt;
    if (same == true)
      return m;
    if (!same)
      unsure = in.heap().join(unsure, m);
  }
  if (!unsure.isBottom())
    return std::nullopt;
  (void)site;
  return Value();
}

// ---- making the members ---------------------------------------------------------------------

bool isDunder(llvm::StringRef n) {
  return n.size() > 4 && n.starts_with("__") && n.ends_with("__");
}
bool isSunder(llvm::StringRef n) {
  return n.size() > 2 && n.starts_with("_") && n.ends_with("_") && !n.starts_with("__");
}

bool isDescriptor(Object* o) {
  switch (o->kind) {
  case Kind::Function:
  case Kind::Property:
  case Kind::ClassMethod:
  case Kind::StaticMethod:
  case Kind::Class: // nested classes are not members (Python 3.13)
    return true;
  default:
    return false;
  }
}

bool isAuto(Interpreter& in, const Value& v) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(v.single());
  return inst && inst->cls == in.externalClass("enum.auto");
}

// auto(): the class's _generate_next_value_, or CPython's.
Value nextValue(Interpreter& in, ClassObj* cls, const std::string& name,
                const std::vector<Value>& lastValues, mlir::Operation* site) {
  ClassObj* where = nullptr;
  if (const Value* gen = in.lookupInMro(cls, "_generate_next_value_", &where); gen && where->def) {
    Object* f = gen->single();
    if (auto* d = llvm::dyn_cast_or_null<DescriptorObj>(f))
      f = d->fn.single();
    if (f) {
      CallArgs args;
      args.positional = {in.str(name, site), in.integer(1, site),
                         in.integer(static_cast<int64_t>(lastValues.size()), site),
                         in.list(lastValues, site)};
      return in.call(Value(f, site), args, site);
    }
  }
  if (in.isSubclass(cls, bases(in).strEnum)) {
    std::string lower = name;
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return in.str(lower, site);
  }
  std::optional<int64_t> high;
  for (const Value& v : lastValues) {
    auto* i = llvm::dyn_cast_or_null<IntObj>(v.single());
    if (!i) {
      if (!llvm::isa_and_nonnull<StrObj>(v.single()))
        return in.unknown("auto() after a value not known", site);
      continue;
    }
    high = high ? std::max(*high, i->v) : i->v;
  }
  if (isFlagClass(in, cls)) {
    if (!high)
      return in.integer(1, site);
    int64_t bit = 1;
    while (bit <= *high && bit < (int64_t(1) << 62))
      bit <<= 1;
    return in.integer(bit, site);
  }
  return in.integer(high ? *high + 1 : 1, site);
}

bool singleBit(const Value& v) {
  auto* i = llvm::dyn_cast_or_null<IntObj>(v.single());
  return i && i->v > 0 && (i->v & (i->v - 1)) == 0;
}

void makeMembers(Interpreter& in, ClassObj* cls, std::vector<std::pair<std::string, Value>> raw,
                 mlir::Operation* site) {
  in.heap().willWrite(cls);
  bool flag = isFlagClass(in, cls);
  // A custom __new__ makes the members; Color(value) is the lookup.
  Value newMember;
  if (const Value* own = cls->ns.find("__new__")) {
    newMember = *own;
    cls->ns.set("__new_member__", *own);
    cls->ns.erase("__new__");
  } else if (const Value* inherited = in.lookupInMro(cls, "__new_member__")) {
    newMember = *inherited;
  }
  auto* map = in.heap().make<DictObj>();
  auto* values = in.heap().make<DictObj>();
  auto* names = in.heap().make<ListObj>();
  std::vector<Value> lastValues;
  for (auto& [name, value] : raw) {
    if (isAuto(in, value))
      value = nextValue(in, cls, name, lastValues, site);
    std::vector<Value> args;
    if (auto* t = llvm::dyn_cast_or_null<TupleObj>(value.single()))
      args = t->elems;
    else
      args = {value};
    // An alias: a value equal to an earlier member's.
    Value existing;
    for (const auto& [k, m] : values->items)
      if (k.single() && value.single() && sameValue(k.single(), value.single()) == true)
        existing = m;
    if (!existing.isBottom()) {
      map->items.push_back({in.str(name, site), existing});
      cls->ns.set(name, existing);
      continue;
    }
    InstanceObj* member = nullptr;
    if (auto* f = llvm::dyn_cast_or_null<FunctionObj>(newMember.single())) {
      CallArgs ca;
      ca.positional.push_back(Value(cls, site));
      ca.positional.insert(ca.positional.end(), args.begin(), args.end());
      member = llvm::dyn_cast_or_null<InstanceObj>(in.invoke(f, ca, site).single());
    }
    if (!member || !in.isSubclass(member->cls, cls))
      member = in.heap().make<InstanceObj>(cls);
    Value self(member, site);
    in.heap().willWrite(member);
    member->attrs.set("_name_", in.str(name, site));
    if (!member->attrs.find("_value_"))
      member->attrs.set("_value_", value);
    if (const Value* init = in.lookupInMro(cls, "__init__"))
      if (llvm::isa_and_nonnull<FunctionObj>(init->single())) {
        CallArgs ca;
        ca.positional = args;
        in.call(in.getAttr(self, "__init__", site), ca, site);
      }
    Value memberValue = *member->attrs.find("_value_");
    lastValues.push_back(memberValue);
    map->items.push_back({in.str(name, site), self});
    values->items.push_back({memberValue, self});
    // Flags iterate over their single-bit members (a multi-bit value is an alias).
    if (!flag || singleBit(memberValue))
      names->elems.push_back(in.str(name, site));
    cls->ns.set(name, self);
  }
  cls->ns.set("_member_map_", Value(map, site));
  cls->ns.set("_value2member_map_", Value(values, site));
  cls->ns.set("_member_names_", Value(names, site));
}

void buildEnum(Interpreter& in, ClassObj* cls, mlir::Operation* site) {
  std::vector<std::string> ignore;
  if (const Value* ig = cls->ns.find("_ignore_")) {
    if (const std::string* s = strOf(ig)) {
      std::string t = *s;
      std::replace(t.begin(), t.end(), ',', ' ');
      size_t i = 0;
      while (i < t.size()) {
        size_t j = t.find(' ', i);
        if (j == std::string::npos)
          j = t.size();
        if (j > i)
          ignore.push_back(t.substr(i, j - i));
        i = j + 1;
      }
    } else {
      for (const Value& v : in.elements(*ig, site).items)
        if (const std::string* s = strOf(&v))
          ignore.push_back(*s);
    }
  }
  std::vector<std::pair<std::string, Value>> raw;
  std::string mangled = "_" + cls->name + "__";
  for (llvm::StringRef n : cls->ns.names()) {
    if (isDunder(n) || isSunder(n) || n.starts_with(mangled))
      continue;
    if (std::find(ignore.begin(), ignore.end(), n.str()) != ignore.end())
      continue;
    const Value& v = *cls->ns.find(n);
    if (v.single() && isDescriptor(v.single()))
      continue;
    raw.push_back({n.str(), v});
  }
  in.heap().willWrite(cls);
  for (const std::string& n : ignore)
    cls->ns.erase(n);
  makeMembers(in, cls, raw, site);
}

// ---- members: properties and methods ----------------------------------------------------------

Value eName(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value out;
  for (const Alt& alt : selfArg(a)) {
    InstanceObj* m = memberOf(in, alt.obj);
    out = in.heap().join(out, m ? attrOr(in, m, "_name_", site) : in.unknown("name", site));
  }
  return out;
}
Value eValue(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Value out;
  for (const Alt& alt : selfArg(a)) {
    InstanceObj* m = memberOf(in, alt.obj);
    out = in.heap().join(out, m ? attrOr(in, m, "_value_", site) : in.unknown("value", site));
  }
  return out;
}

// str(): "Color.RED" (a flag's pseudo-member "Perm.R|W"); the value for
// IntEnum, StrEnum and IntFlag (ReprEnum).
Value eStr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* m = memberOf(in, selfArg(a).single());
  if (!m)
    return in.unknown("str() of an enum member", site);
  if (in.isSubclass(m->cls, bases(in).reprEnum)) {
    CallArgs sa;
    sa.positional = {attrOr(in, m, "_value_", site)};
    return in.call(Value(const_cast<BuiltinObj*>(in.native("builtins.str")), site), sa, site);
  }
  auto* name = llvm::dyn_cast_or_null<StrObj>(attrOr(in, m, "_name_", site).single());
  if (!name) {
    CallArgs sa;
    sa.positional = {attrOr(in, m, "_value_", site)};
    Value v = in.call(Value(const_cast<BuiltinObj*>(in.native("builtins.str")), site), sa, site);
    if (auto* s = llvm::dyn_cast_or_null<StrObj>(v.single()))
      return in.str(m->cls->name + "(" + s->v + ")", site);
    return in.unknown("str() of " + describe(m), site);
  }
  return in.str(m->cls->name + "." + name->v, site);
}

Value eRepr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* m = memberOf(in, selfArg(a).single());
  if (!m)
    return in.unknown("repr() of an enum member", site);
  CallArgs ra;
  ra.positional = {attrOr(in, m, "_value_", site)};
  Value v = in.call(Value(const_cast<BuiltinObj*>(in.native("builtins.repr")), site), ra, site);
  auto* name = llvm::dyn_cast_or_null<StrObj>(attrOr(in, m, "_name_", site).single());
  auto* vs = llvm::dyn_cast_or_null<StrObj>(v.single());
  if (!vs)
    return in.unknown("repr() of " + describe(m), site);
  return in.str(
      "<" + m->cls->name + "." + (name ? name->v : std::string("None")) + ": " + vs->v + ">", site);
}

// The operators of int and str enums act on the value; the result is a
// plain int or str (a flag's | & ^ are the flag's below).
Value eBinary(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  auto* op = static_cast<const char*>(llvm::cast<BuiltinObj>(self)->data);
  const Value* other = arg(a, 1);
  if (!other)
    return in.unknown("an enum operator", site);
  llvm::StringRef o(op);
  Value lhs = plain(in, selfArg(a), site), rhs = plain(in, *other, site);
  if (o.starts_with("r"))
    return in.binary(o.drop_front(), rhs, lhs, site);
  return in.binary(o, lhs, rhs, site);
}

Value eEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* other = arg(a, 1);
  if (!other)
    return in.unknown("==", site);
  return in.compare("==", plain(in, selfArg(a), site), plain(in, *other, site), site);
}

Value eBool(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<bool> t = in.truth(plain(in, selfArg(a), site), site);
  return t ? in.boolean(*t, site) : in.unknown("the truth of an enum member", site);
}

// A mixin member's other attributes are its value's (`Color.RED.upper()`).
Value eGetattr(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const std::string* name = strOf(arg(a, 1));
  if (!name)
    return in.unknown("an attribute of an enum member", site);
  return in.getAttr(plain(in, selfArg(a), site), *name, site);
}

// ---- flags
// ---------------------------------------------------------------------------------------

// The member of a flag class with value v: a defined one, else a
// pseudo-member made once.
Value flagMember(Interpreter& in, ClassObj* cls, int64_t v, mlir::Operation* site) {
  ClassObj* owner = memberClass(in, cls);
  std::optional<Value> found = byValue(in, owner, in.heap().integer(v), site);
  if (found && !found->isBottom())
    return *found;
  if (!found)
    return in.unknown("a flag value", site);
  std::string name;
  int64_t rest = v;
  for (const Value& m : canonicalMembers(in, owner)) {
    auto* inst = llvm::cast<InstanceObj>(m.single());
    auto* mv = llvm::dyn_cast_or_null<IntObj>(attrOr(in, inst, "_value_", site).single());
    auto* mn = llvm::dyn_cast_or_null<StrObj>(attrOr(in, inst, "_name_", site).single());
    if (!mv || !mn)
      return in.unknown("a flag value", site);
    if ((v & mv->v) == mv->v && mv->v) {
      name += (name.empty() ? "" : "|") + mn->v;
      rest &= ~mv->v;
    }
  }
  if (rest)
    name += (name.empty() ? "" : "|") + std::to_string(rest);
  auto* member = in.heap().make<InstanceObj>(owner);
  member->attrs.set("_name_", v == 0 ? in.none(site) : in.str(name, site));
  member->attrs.set("_value_", in.integer(v, site));
  Value self(member, site);
  if (DictObj* values = table(owner, "_value2member_map_"))
    in.setItem(Value(values, site), in.integer(v, site), self, site);
  return self;
}

std::optional<int64_t> flagValue(Interpreter& in, Object* o, mlir::Operation* site) {
  if (InstanceObj* m = memberOf(in, o)) {
    auto* i = llvm::dyn_cast_or_null<IntObj>(attrOr(in, m, "_value_", site).single());
    return i ? std::optional<int64_t>(i->v) : std::nullopt;
  }
  if (auto* i = llvm::dyn_cast<IntObj>(o))
    return i->v;
  return std::nullopt;
}

Value fBinary(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  llvm::StringRef op(static_cast<const char*>(llvm::cast<BuiltinObj>(self)->data));
  const Value* other = arg(a, 1);
  if (!other)
    return in.unknown("a flag operator", site);
  Value out;
  for (const Alt& x : selfArg(a))
    for (const Alt& y : *other) {
      InstanceObj* m = memberOf(in, x.obj);
      std::optional<int64_t> p = flagValue(in, x.obj, site), q = flagValue(in, y.obj, site);
      bool plainInt = y.obj->kind == Kind::Int;
      // A Flag combines with its own members; an IntFlag with ints too.
      if (!m || !p || !q || (plainInt && !in.isSubclass(m->cls, bases(in).intFlag)) ||
          (!plainInt && !(memberOf(in, y.obj) && memberOf(in, y.obj)->cls == m->cls))) {
        out = in.heap().join(out, in.unknown("a flag combined with " + describe(y.obj), site));
        continue;
      }
      int64_t r = op.ends_with("|") ? (*p | *q) : op.ends_with("&") ? (*p & *q) : (*p ^ *q);
      out = in.heap().join(out, flagMember(in, m->cls, r, site));
    }
  return out;
}

// The canonical members a flag value contains, in definition order.
Value fIter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* m = memberOf(in, selfArg(a).single());
  std::optional<int64_t> v = m ? flagValue(in, m, site) : std::nullopt;
  if (!m || !v)
    return in.unknown("the members of a flag", site);
  std::vector<Value> out;
  for (const Value& c : canonicalMembers(in, m->cls)) {
    std::optional<int64_t> cv = flagValue(in, c.single(), site);
    if (!cv)
      return in.unknown("the members of a flag", site);
    if (*cv && (*v & *cv) == *cv)
      out.push_back(c);
  }
  return in.tuple(out, site);
}

Value fLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Value members = fIter(in, a, site, self);
  if (auto* t = llvm::dyn_cast_or_null<TupleObj>(members.single()))
    return in.integer(static_cast<int64_t>(t->elems.size()), site);
  return in.unknown("the length of a flag", site);
}

// ---- the class: lookup by value, by name; iteration
// ------------------------------------------------

Value functionalApi(Interpreter& in, ClassObj* base, const CallArgs& a, mlir::Operation* site);

// Color(value): the member with that value (Enum.__new__, as EnumType.__call__ uses it).
Value eNew(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  if (!cls)
    return in.unknown("an enum looked up", site);
  if (a.positional.size() >= 3 || a.keyword("names"))
    return functionalApi(in, cls, a, site);
  const Value* v = arg(a, 1, "value");
  if (!v && (a.morePositional || a.moreKeywords)) {
    // Arguments not known (an entry point's self): any member.
    Value any;
    for (const Value& m : canonicalMembers(in, cls))
      any = in.heap().join(any, m);
    return any.isBottom() ? in.unknown(cls->name + "(...)", site) : any;
  }
  if (!v)
    return in.unknown(cls->name + "() without a value", site);
  Value out;
  for (const Alt& alt : *v) {
    if (InstanceObj* m = memberOf(in, alt.obj); m && in.isSubclass(m->cls, cls)) {
      out.add(alt.obj, alt.origin);
      continue;
    }
    if (alt.obj->kind == Kind::Unknown) {
      for (const Value& m : canonicalMembers(in, cls))
        out = in.heap().join(out, m);
      out = in.heap().join(out, in.unknown(cls->name + "(" + describe(alt.obj) + ")", site));
      continue;
    }
    std::optional<Value> found = byValue(in, cls, alt.obj, site);
    if (!found) {
      out = in.heap().join(out, in.unknown(cls->name + "(" + describe(alt.obj) + ")", site));
      continue;
    }
    if (!found->isBottom()) {
      out = in.heap().join(out, *found);
      continue;
    }
    if (isFlagClass(in, cls))
      if (auto* i = llvm::dyn_cast<IntObj>(alt.obj)) {
        int64_t mask = 0;
        for (const Value& m : canonicalMembers(in, cls))
          if (std::optional<int64_t> mv = flagValue(in, m.single(), site))
            mask |= *mv;
        if ((i->v & ~mask) == 0 || in.isSubclass(cls, bases(in).intFlag)) {
          out = in.heap().join(out, flagMember(in, cls, i->v, site));
          continue;
        }
      }
    // _missing_, then ValueError.
    ClassObj* where = nullptr;
    if (const Value* hook = in.lookupInMro(cls, "_missing_", &where); hook && where->def) {
      CallArgs ma;
      ma.positional = {Value(alt.obj, alt.origin)};
      Value r = in.call(in.getAttr(Value(cls, site), "_missing_", site), ma, site);
      bool none = r.single() && r.single()->kind == Kind::None;
      if (!none) {
        out = in.heap().join(out, r);
        continue;
      }
    }
    out = in.heap().join(
        out,
        in.unknown(describe(alt.obj) + " is not a valid " + cls->name + " (ValueError)", site));
  }
  return out;
}

Value mGetitem(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  const Value* key = arg(a, 1);
  if (!cls || !key)
    return in.unknown("an enum member by name", site);
  DictObj* map = table(memberClass(in, cls), "_member_map_");
  if (!map)
    return in.unknown(cls->name + "[...]", site);
  return in.subscript(Value(map, site), *key, site);
}

Value mIter(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  if (!cls)
    return in.unknown("the members of an enum", site);
  return in.tuple(canonicalMembers(in, cls), site);
}

Value mLen(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  if (!cls)
    return in.unknown("the length of an enum", site);
  return in.integer(static_cast<int64_t>(canonicalMembers(in, cls).size()), site);
}

Value mMembers(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  auto* cls =
      a.positional.empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(a.positional[0].single());
  DictObj* map = cls ? table(memberClass(in, cls), "_member_map_") : nullptr;
  if (!map)
    return in.unknown("__members__", site);
  auto* d = in.heap().make<DictObj>();
  d->items = map->items;
  return Value(d, site);
}

// Enum("Color", "RED GREEN"), Enum("Color", ["RED", ...]), [("RED", 1), ...], {"RED": 1}.
Value functionalApi(Interpreter& in, ClassObj* base, const CallArgs& a, mlir::Operation* site) {
  const std::string* name = strOf(arg(a, 1, "value"));
  const Value* spec = arg(a, 2, "names");
  if (!name || !spec)
    return in.unknown("an enum class made with names not known", site);
  std::vector<std::pair<std::string, Value>> raw;
  if (const std::string* s = strOf(spec)) {
    std::string t = *s;
    std::replace(t.begin(), t.end(), ',', ' ');
    size_t i = 0;
    while (i < t.size()) {
      size_t j = t.find(' ', i);
      if (j == std::string::npos)
        j = t.size();
      if (j > i)
        raw.push_back({t.substr(i, j - i), Value()});
      i = j + 1;
    }
  } else if (auto* d = llvm::dyn_cast_or_null<DictObj>(spec->single())) {
    for (const auto& [k, v] : d->items)
      if (const std::string* n = strOf(&k))
        raw.push_back({*n, v});
  } else {
    Interpreter::Elements e = in.elements(*spec, site);
    if (!e.exact)
      return in.unknown("an enum class made with names not known", site);
    for (const Value& item : e.items) {
      if (const std::string* n = strOf(&item)) {
        raw.push_back({*n, Value()});
        continue;
      }
      Interpreter::Elements kv = in.elements(item, site);
      const std::string* n = kv.exact && kv.items.size() == 2 ? strOf(&kv.items[0]) : nullptr;
      if (!n)
        return in.unknown("an enum class made with names not known", site);
      raw.push_back({*n, kv.items[1]});
    }
  }
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i].second.isBottom())
      raw[i].second = Value(in.heap().make<InstanceObj>(in.externalClass("enum.auto")), site);
  ClassObj* cls = makeClass(in, *name, {base});
  for (auto& [n, v] : raw)
    cls->ns.set(n, v);
  makeMembers(in, cls, raw, site);
  return Value(cls, site);
}

Value eAuto(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return Value(in.heap().make<InstanceObj>(in.externalClass("enum.auto")), site);
}

Value eIdentity(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v)
    return in.unknown("an enum decorator", site);
  return *v;
}

class EnumOverlay final : public Overlay {
public:
  const char* name() const override { return "enum"; }
  void install(Interpreter& in) override {
    Bases b = bases(in);
    ClassObj* object = in.externalClass("builtins.object");
    ClassObj* type = in.externalClass("builtins.type");
    ClassObj* intCls = in.externalClass("builtins.int");
    ClassObj* strCls = in.externalClass("builtins.str");
    auto setBases = [&](ClassObj* c, std::vector<ClassObj*> bs) {
      c->bases = std::move(bs);
      c->mro = linearize(c);
      c->metaclass = Value(b.meta);
    };
    b.meta->bases = {type};
    b.meta->mro = linearize(b.meta);
    setBases(b.enumBase, {object});
    setBases(b.reprEnum, {b.enumBase});
    setBases(b.intEnum, {intCls, b.reprEnum});
    setBases(b.strEnum, {strCls, b.reprEnum});
    setBases(b.flag, {b.enumBase});
    setBases(b.intFlag, {intCls, b.reprEnum, b.flag});

    classNative(in, b.meta, "__getitem__", mGetitem);
    classNative(in, b.meta, "__iter__", mIter);
    classNative(in, b.meta, "__len__", mLen);
    b.meta->ns.set(
        "__members__",
        Value(in.heap().make<DescriptorObj>(
            Kind::Property, Value(in.makeNative("enum.EnumType.__members__", mMembers)))));

    auto property = [&](ClassObj* c, const char* name, NativeFn fn) {
      c->ns.set(name, Value(in.heap().make<DescriptorObj>(
                          Kind::Property, Value(in.makeNative(c->external + "." + name, fn)))));
    };
    property(b.enumBase, "name", eName);
    property(b.enumBase, "value", eValue);
    classNative(in, b.enumBase, "__new__", eNew);
    classNative(in, b.enumBase, "__str__", eStr);
    classNative(in, b.enumBase, "__format__", eStr);
    classNative(in, b.enumBase, "__repr__", eRepr);

    // int and str mixins: the value's operators and attributes.
    static const char* const intOps[] = {"+",  "-",  "*",  "//", "%",   "/",  "**", "<<",
                                         ">>", "r+", "r-", "r*", "r//", "r%", "r/", "r**"};
    static const char* const intNames[] = {
        "__add__",       "__sub__",    "__mul__",      "__floordiv__", "__mod__",  "__truediv__",
        "__pow__",       "__lshift__", "__rshift__",   "__radd__",     "__rsub__", "__rmul__",
        "__rfloordiv__", "__rmod__",   "__rtruediv__", "__rpow__"};
    for (ClassObj* c : {b.intEnum, b.intFlag}) {
      for (size_t i = 0; i < std::size(intOps); ++i)
        classNative(in, c, intNames[i], eBinary, const_cast<char*>(intOps[i]));
      classNative(in, c, "__eq__", eEq);
      classNative(in, c, "__bool__", eBool);
      classNative(in, c, "__getattr__", eGetattr);
    }
    classNative(in, b.strEnum, "__add__", eBinary, const_cast<char*>("+"));
    classNative(in, b.strEnum, "__radd__", eBinary, const_cast<char*>("r+"));
    classNative(in, b.strEnum, "__mul__", eBinary, const_cast<char*>("*"));
    classNative(in, b.strEnum, "__eq__", eEq);
    classNative(in, b.strEnum, "__bool__", eBool);
    classNative(in, b.strEnum, "__getattr__", eGetattr);
    // IntEnum's | & ^ are int's; IntFlag's and Flag's make flags.
    classNative(in, b.intEnum, "__or__", eBinary, const_cast<char*>("|"));
    classNative(in, b.intEnum, "__and__", eBinary, const_cast<char*>("&"));
    for (ClassObj* c : {b.flag, b.intFlag}) {
      classNative(in, c, "__or__", fBinary, const_cast<char*>("|"));
      classNative(in, c, "__ror__", fBinary, const_cast<char*>("|"));
      classNative(in, c, "__and__", fBinary, const_cast<char*>("&"));
      classNative(in, c, "__rand__", fBinary, const_cast<char*>("&"));
      classNative(in, c, "__xor__", fBinary, const_cast<char*>("^"));
      classNative(in, c, "__iter__", fIter);
      classNative(in, c, "__len__", fLen);
      classNative(in, c, "__bool__", eBool);
    }

    for (ClassObj* c : {b.enumBase, b.reprEnum, b.intEnum, b.strEnum, b.flag, b.intFlag})
      moduleAttr(in, "enum", c->name, Value(c));
    moduleAttr(in, "enum", "EnumType", Value(b.meta));
    moduleAttr(in, "enum", "EnumMeta", Value(b.meta));
    in.defineNative("enum.auto", eAuto);
    in.defineNative("enum.unique", eIdentity);
    in.defineNative("enum.global_enum", eIdentity);
  }

  void classBuilt(Interpreter& in, ClassObj* cls, mlir::Operation* site) override {
    if (!isEnumClass(in, cls) || isBaseClass(in, cls))
      return;
    // `class Color(str, Enum)`: members act as their value, as StrEnum's do.
    Bases b = bases(in);
    bool intMixin = in.isSubclass(cls, in.externalClass("builtins.int")) &&
                    !in.isSubclass(cls, b.intEnum) && !in.isSubclass(cls, b.intFlag);
    bool strMixin =
        in.isSubclass(cls, in.externalClass("builtins.str")) && !in.isSubclass(cls, b.strEnum);
    if (intMixin || strMixin) {
      in.heap().willWrite(cls);
      ClassObj* from = intMixin ? b.intEnum : b.strEnum;
      for (llvm::StringRef n : from->ns.names())
        if (n.starts_with("__") && n != "__str__" && n != "__format__" && !cls->ns.find(n) &&
            !(intMixin && (n == "__or__" || n == "__and__")))
          cls->ns.set(n, *from->ns.find(n));
    }
    buildEnum(in, cls, site);
  }
};

} // namespace

std::unique_ptr<Overlay> makeEnumOverlay() {
  return std::make_unique<EnumOverlay>();
}

} // namespace pallas::eval
