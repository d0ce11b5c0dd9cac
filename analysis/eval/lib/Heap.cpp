#include "pallas/eval/Heap.h"

#include <cmath>

namespace pallas::eval {

// ---- Value ----------------------------------------------------------------------

bool Value::mayBeUnknown() const {
  for (const Alt& a : alts_)
    if (a.obj->kind == Kind::Unknown)
      return true;
  return false;
}

bool Value::isUnknown() const {
  for (const Alt& a : alts_)
    if (a.obj->kind != Kind::Unknown)
      return false;
  return true;
}

void Value::add(Object* obj, mlir::Operation* origin) {
  if (!obj)
    return;
  for (const Alt& a : alts_)
    if (a.obj == obj)
      return;
  // Equal immutable values are one alternative (interned ones already are;
  // tuples built twice are not).
  if (obj->kind == Kind::Tuple)
    for (const Alt& a : alts_)
      if (a.obj->kind == Kind::Tuple && sameValue(a.obj, obj) == true)
        return;
  alts_.push_back({obj, origin});
}

void Value::add(const Value& other) {
  for (const Alt& a : other.alts_)
    add(a.obj, a.origin);
}

Value Value::withOrigin(mlir::Operation* origin) const {
  Value v;
  for (const Alt& a : alts_)
    v.alts_.push_back({a.obj, origin});
  return v;
}

// ---- Heap ------------------------------------------------------------------------

Heap::Heap() {
  none_ = make<NoneObj>();
  ellipsis_ = make<EllipsisObj>();
  true_ = make<BoolObj>(true);
  false_ = make<BoolObj>(false);
}

Heap::~Heap() = default;

Object* Heap::integer(int64_t v) {
  auto it = ints_.find(v);
  if (it != ints_.end())
    return it->second;
  Object* o = make<IntObj>(v);
  ints_.emplace(v, o);
  return o;
}

Object* Heap::floating(double v) {
  if (std::isnan(v))
    return make<FloatObj>(v);
  auto it = floats_.find(v);
  if (it != floats_.end())
    return it->second;
  Object* o = make<FloatObj>(v);
  floats_.emplace(v, o);
  return o;
}

Object* Heap::string(const std::string& v, bool bytes) {
  auto& table = bytes ? bytes_ : strings_;
  auto it = table.find(v);
  if (it != table.end())
    return it->second;
  Object* o = make<StrObj>(v, bytes);
  table.emplace(v, o);
  return o;
}

Object* Heap::unknown(const std::string& why, mlir::Operation* at) {
  return make<UnknownObj>(why, at);
}

Value Heap::join(const Value& a, const Value& b) {
  Value out = a;
  out.add(b);
  if (out.size() <= Value::kMaxAlternatives)
    return out;
  // Widen: keep the first unknown's reason when there is one.
  std::string why = "one of " + std::to_string(out.size()) + " values";
  return Value(unknown(why));
}

// ---- contents --------------------------------------------------------------------

std::shared_ptr<Contents> Heap::contentsOf(Object* obj) {
  auto c = std::make_shared<Contents>();
  switch (obj->kind) {
  case Kind::List:
  case Kind::Set: {
    auto* l = llvm::cast<ListObj>(obj);
    c->elems = l->elems;
    c->exact = l->exact;
    break;
  }
  case Kind::Dict: {
    auto* d = llvm::cast<DictObj>(obj);
    c->items = d->items;
    c->exact = d->exact;
    c->others = d->others;
    break;
  }
  case Kind::Instance:
    c->attrs = llvm::cast<InstanceObj>(obj)->attrs;
    break;
  case Kind::Class:
    c->attrs = llvm::cast<ClassObj>(obj)->ns;
    break;
  case Kind::Module:
    c->attrs = llvm::cast<ModuleObj>(obj)->ns;
    break;
  case Kind::Frame:
    c->attrs = llvm::cast<FrameObj>(obj)->locals;
    break;
  case Kind::Function:
    c->attrs = llvm::cast<FunctionObj>(obj)->attrs;
    break;
  default:
    break;
  }
  return c;
}

void Heap::setContents(Object* obj, const Contents& c) {
  switch (obj->kind) {
  case Kind::List:
  case Kind::Set: {
    auto* l = llvm::cast<ListObj>(obj);
    l->elems = c.elems;
    l->exact = c.exact;
    break;
  }
  case Kind::Dict: {
    auto* d = llvm::cast<DictObj>(obj);
    d->items = c.items;
    d->exact = c.exact;
    d->others = c.others;
    break;
  }
  case Kind::Instance:
    llvm::cast<InstanceObj>(obj)->attrs = c.attrs;
    break;
  case Kind::Class:
    llvm::cast<ClassObj>(obj)->ns = c.attrs;
    break;
  case Kind::Module:
    llvm::cast<ModuleObj>(obj)->ns = c.attrs;
    break;
  case Kind::Frame:
    llvm::cast<FrameObj>(obj)->locals = c.attrs;
    break;
  case Kind::Function:
    llvm::cast<FunctionObj>(obj)->attrs = c.attrs;
    break;
  default:
    break;
  }
}

Contents Heap::joinContents(Object* obj, const std::vector<const Contents*>& sides) {
  Contents out;
  if (sides.empty())
    return out;
  if (sides.size() == 1)
    return *sides[0];
  switch (obj->kind) {
  case Kind::List:
  case Kind::Set: {
    bool sameShape = true;
    for (const Contents* s : sides)
      sameShape = sameShape && s->exact && s->elems.size() == sides[0]->elems.size();
    if (sameShape) {
      out.elems = sides[0]->elems;
      for (size_t k = 1; k < sides.size(); ++k)
        for (size_t i = 0; i < out.elems.size(); ++i)
          out.elems[i] = join(out.elems[i], sides[k]->elems[i]);
      out.exact = true;
    } else {
      Value any;
      for (const Contents* s : sides)
        for (const Value& e : s->elems)
          any = join(any, e);
      if (!any.isBottom())
        out.elems.push_back(any);
      out.exact = false;
    }
    break;
  }
  case Kind::Dict: {
    out.exact = true;
    for (const Contents* s : sides) {
      out.exact = out.exact && s->exact;
      out.others = join(out.others, s->others);
      for (const auto& [k, v] : s->items) {
        bool found = false;
        for (auto& [ok, ov] : out.items) {
          Object* a = k.single();
          Object* b = ok.single();
          if (a && b && sameValue(a, b) == true) {
            ov = join(ov, v);
            found = true;
            break;
          }
        }
        if (!found)
          out.items.push_back({k, v});
      }
    }
    break;
  }
  default: {
    for (const Contents* s : sides)
      for (llvm::StringRef n : s->attrs.names()) {
        const Value* v = s->attrs.find(n);
        if (Value* cur = out.attrs.find(n))
          *cur = join(*cur, *v);
        else
          out.attrs.set(n, *v);
      }
    break;
  }
  }
  return out;
}

// ---- the journal -------------------------------------------------------------------

void Heap::willWrite(Object* obj) {
  if (levels_.empty() || !isMutable(obj->kind))
    return;
  Level& top = levels_.back();
  if (obj->epoch > top.start)
    return; // made inside this side: nothing to restore
  auto [it, inserted] = top.saved.try_emplace(obj, nullptr);
  if (!inserted)
    return;
  it->second = contentsOf(obj);
  top.order.push_back(obj);
}

void Heap::beginSide() {
  Level level;
  level.start = clock_;
  levels_.push_back(std::move(level));
}

Heap::Side Heap::endSide(bool live) {
  Level level = std::move(levels_.back());
  levels_.pop_back();
  Side side;
  side.live = live;
  for (Object* obj : level.order) {
    std::shared_ptr<Contents> saved = level.saved[obj];
    std::shared_ptr<Contents> final = contentsOf(obj);
    setContents(obj, *saved);
    side.written.push_back({obj, {saved, final}});
  }
  return side;
}

void Heap::merge(std::vector<Side>& sides, Object* frame) {
  // Every object any side wrote, in the order first written.
  std::vector<Object*> objects;
  llvm::DenseMap<Object*, std::shared_ptr<Contents>> saved;
  for (const Side& s : sides)
    for (const auto& [obj, contents] : s.written)
      if (saved.try_emplace(obj, contents.first).second)
        objects.push_back(obj);
  bool anyLive = false;
  for (const Side& s : sides)
    anyLive = anyLive || s.live;
  for (Object* obj : objects) {
    std::vector<const Contents*> contributing;
    for (const Side& s : sides) {
      if (!s.live && anyLive && (obj == frame || facts_.count(obj)))
        continue; // that side left the function or loop: its locals do not reach here
      const Contents* c = saved[obj].get();
      for (const auto& [o, contents] : s.written)
        if (o == obj)
          c = contents.second.get();
      contributing.push_back(c);
    }
    if (contributing.empty())
      continue;
    Contents joined = joinContents(obj, contributing);
    willWrite(obj);
    setContents(obj, joined);
  }
}

// ---- equality ----------------------------------------------------------------------

// An Enum member (overlays/Enum.cpp), unless its class defines __eq__: the
// member itself (compared by identity), or for an int or str enum its value.
static const Object* enumKey(const Object* o, bool& member) {
  member = false;
  auto* inst = llvm::dyn_cast<InstanceObj>(o);
  if (!inst)
    return o;
  bool isEnum = false, mixin = false;
  for (const ClassObj* c : inst->cls->mro) {
    if (const Value* eq = c->def ? c->ns.find("__eq__") : nullptr;
        eq && !llvm::isa_and_nonnull<BuiltinObj>(eq->single()))
      return o; // its own equality
    isEnum = isEnum || c->external == "enum.Enum";
    mixin = mixin || c->external == "builtins.int" || c->external == "builtins.str";
  }
  if (!isEnum)
    return o;
  member = true;
  if (!mixin)
    return o;
  const Value* v = inst->attrs.find("_value_");
  return v ? v->single() : nullptr;
}

std::optional<bool> sameValue(const Object* a, const Object* b) {
  if (a == b)
    return a->kind == Kind::Unknown ? std::nullopt : std::optional<bool>(true);
  if (a->kind == Kind::Unknown || b->kind == Kind::Unknown)
    return std::nullopt;
  // Enum members are singletons; an IntEnum / StrEnum member equals its value.
  bool ma = false, mb = false;
  const Object* ka = enumKey(a, ma);
  const Object* kb = enumKey(b, mb);
  if (ma || mb) {
    if (!ka || !kb)
      return std::nullopt;
    if (ka == a && kb == b) // a plain member: identity, unless the other object defines ==
      return (ma ? b : a)->kind == Kind::Instance && !(ma && mb) ? std::nullopt
                                                                 : std::optional<bool>(false);
    return sameValue(ka, kb);
  }
  auto number = [](const Object* o) -> std::optional<double> {
    if (auto* i = llvm::dyn_cast<IntObj>(o))
      return static_cast<double>(i->v);
    if (auto* f = llvm::dyn_cast<FloatObj>(o))
      return f->v;
    if (auto* bo = llvm::dyn_cast<BoolObj>(o))
      return bo->v ? 1.0 : 0.0;
    return std::nullopt;
  };
  if (auto x = number(a))
    if (auto y = number(b))
      return *x == *y;
  if (a->kind == Kind::Str && b->kind == Kind::Str)
    return llvm::cast<StrObj>(a)->v == llvm::cast<StrObj>(b)->v;
  if (a->kind == Kind::Bytes && b->kind == Kind::Bytes)
    return llvm::cast<StrObj>(a)->v == llvm::cast<StrObj>(b)->v;
  if (a->kind == Kind::Tuple && b->kind == Kind::Tuple) {
    auto* x = llvm::cast<TupleObj>(a);
    auto* y = llvm::cast<TupleObj>(b);
    if (x->elems.size() != y->elems.size())
      return false;
    bool all = true;
    for (size_t i = 0; i < x->elems.size(); ++i) {
      Object* p = x->elems[i].single();
      Object* q = y->elems[i].single();
      if (!p || !q)
        return std::nullopt;
      std::optional<bool> s = sameValue(p, q);
      if (!s)
        return std::nullopt;
      all = all && *s;
    }
    return all;
  }
  if (a->kind == Kind::External && b->kind == Kind::External) {
    auto* x = llvm::cast<ExternalObj>(a);
    auto* y = llvm::cast<ExternalObj>(b);
    if (!x->identity.empty() && !y->identity.empty())
      return x->identity == y->identity;
    return x->qualname == y->qualname ? std::optional<bool>(true) : std::nullopt;
  }
  if (a->kind == Kind::None || b->kind == Kind::None)
    return false; // None is a singleton: a different object is not None
  bool aImm = !isMutable(a->kind), bImm = !isMutable(b->kind);
  if (aImm && bImm && a->kind != b->kind)
    return false;
  // A builtin container and a number or string: neither's __eq__ knows the
  // other, so == falls back to identity (`[1, 2] == 0` is False).
  auto container = [](Kind k) { return k == Kind::List || k == Kind::Dict || k == Kind::Set; };
  auto scalar = [](Kind k) {
    return k == Kind::Int || k == Kind::Float || k == Kind::Bool || k == Kind::Str ||
           k == Kind::Bytes;
  };
  if ((container(a->kind) && scalar(b->kind)) || (scalar(a->kind) && container(b->kind)))
    return false;
  // Instances may define __eq__; classes and functions compare by identity.
  if ((a->kind == Kind::Class || a->kind == Kind::Function || a->kind == Kind::Module) &&
      (b->kind == Kind::Class || b->kind == Kind::Function || b->kind == Kind::Module))
    return false;
  return std::nullopt;
}

} // namespace pallas::eval
