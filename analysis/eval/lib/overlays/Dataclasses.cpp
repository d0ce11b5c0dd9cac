// Overlay: dataclasses. @dataclass (bare or with arguments: init, eq,
// frozen, kw_only) reads the class's annotations along its MRO as CPython
// does (ClassVar and the KW_ONLY marker are not fields, InitVar fields go to
// __init__ and __post_init__ only), records them in __dataclass_fields__ as
// Field objects, and gives the class a native __init__ (fields bound in
// order, keyword-only ones after, defaults and default factories, then
// __post_init__), __eq__ (field by field) and __match_args__. field(),
// fields(), replace() (the class called again with the fields not
// changed, as CPython does), asdict() / astuple() (recursive copies),
// is_dataclass(), MISSING.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr const char* kField = "dataclasses.Field";
constexpr const char* kFieldTag = "_FIELD";
constexpr const char* kClassVarTag = "_FIELD_CLASSVAR";
constexpr const char* kInitVarTag = "_FIELD_INITVAR";

Object* missing(Interpreter& in) {
  const Value* m = in.externalModule("dataclasses")->ns.find("MISSING");
  return m ? m->single() : nullptr;
}
Object* kwOnlyMarker(Interpreter& in) {
  const Value* m = in.externalModule("dataclasses")->ns.find("KW_ONLY");
  return m ? m->single() : nullptr;
}

InstanceObj* asField(Interpreter& in, const Value& v) {
  auto* inst = llvm::dyn_cast_or_null<InstanceObj>(v.single());
  return inst && inst->cls == in.externalClass(kField) ? inst : nullptr;
}

Value fieldAttr(InstanceObj* f, llvm::StringRef name) {
  const Value* v = f->attrs.find(name);
  return v ? *v : Value();
}
bool isMissing(Interpreter& in, const Value& v) {
  return v.isBottom() || v.single() == missing(in);
}
std::string fieldName(InstanceObj* f) {
  const std::string* s = strOf(f->attrs.find("name"));
  return s ? *s : std::string();
}
std::string fieldTag(InstanceObj* f) {
  const std::string* s = strOf(f->attrs.find("_field_type"));
  return s ? *s : std::string(kFieldTag);
}
// A flag of a Field (init, kw_only): true, false, or nullopt when not known.
std::optional<bool> fieldFlag(Interpreter& in, InstanceObj* f, llvm::StringRef name,
                              mlir::Operation* site) {
  const Value* v = f->attrs.find(name);
  if (!v || v->single() == missing(in))
    return std::nullopt;
  return in.truth(*v, site);
}

InstanceObj* newField(Interpreter& in, mlir::Operation* site) {
  auto* f = in.heap().make<InstanceObj>(in.externalClass(kField));
  Value m(missing(in), site);
  for (const char* n : {"name", "type"})
    f->attrs.set(n, in.none(site));
  f->attrs.set("default", m);
  f->attrs.set("default_factory", m);
  f->attrs.set("init", in.boolean(true, site));
  f->attrs.set("repr", in.boolean(true, site));
  f->attrs.set("hash", in.none(site));
  f->attrs.set("compare", in.boolean(true, site));
  f->attrs.set("metadata", in.none(site));
  f->attrs.set("kw_only", m);
  f->attrs.set("_field_type", in.none(site));
  return f;
}

Value dField(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  InstanceObj* f = newField(in, site);
  for (const auto& [k, v] : a.keywords)
    f->attrs.set(k, v);
  return Value(f, site);
}

// The dataclass fields of a class (its __dataclass_fields__), in order.
std::vector<InstanceObj*> allFields(Interpreter& in, ClassObj* cls) {
  std::vector<InstanceObj*> out;
  const Value* fs = in.lookupInMro(cls, "__dataclass_fields__");
  auto* d = fs ? llvm::dyn_cast_or_null<DictObj>(fs->single()) : nullptr;
  if (!d)
    return out;
  for (const auto& [k, v] : d->items)
    if (InstanceObj* f = asField(in, v))
      out.push_back(f);
  return out;
}

// What an annotation says about a field: "ClassVar", "InitVar", "KW_ONLY" or "".
std::string annotationKind(Interpreter& in, const Value& annotation) {
  if (annotation.single() && annotation.single() == kwOnlyMarker(in))
    return "KW_ONLY";
  std::string text = annotationText(annotation);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
    text = text.substr(1, text.size() - 2);
  std::string head = text.substr(0, text.find('['));
  while (!head.empty() && head.back() == ' ')
    head.pop_back();
  std::string last = head.substr(head.rfind('.') == std::string::npos ? 0 : head.rfind('.') + 1);
  if (last == "ClassVar" || last == "InitVar" || last == "KW_ONLY")
    return last;
  return {};
}

struct Options {
  bool init = true, eq = true, frozen = false, kwOnly = false, matchArgs = true;
};

Value dInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self);
Value dEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self);

void process(Interpreter& in, ClassObj* cls, const Options& opt, mlir::Operation* site) {
  // Fields of the dataclass bases, in reverse MRO order, then this class's.
  std::vector<std::pair<std::string, Value>> fields;
  auto put = [&](const std::string& name, const Value& f) {
    for (auto& [n, v] : fields)
      if (n == name) {
        v = f;
        return;
      }
    fields.push_back({name, f});
  };
  for (size_t i = cls->mro.size(); i-- > 1;)
    if (const Value* fs = cls->mro[i]->ns.find("__dataclass_fields__"))
      if (auto* d = llvm::dyn_cast_or_null<DictObj>(fs->single()))
        for (const auto& [k, v] : d->items)
          if (const std::string* n = strOf(&k))
            put(*n, v);
  in.heap().willWrite(cls);
  bool kwOnlyAfter = false;
  const Value* ann = cls->ns.find("__annotations__");
  if (auto* d = ann ? llvm::dyn_cast_or_null<DictObj>(ann->single()) : nullptr)
    for (const auto& [k, type] : d->items) {
      const std::string* name = strOf(&k);
      if (!name)
        continue;
      std::string kind = annotationKind(in, type);
      if (kind == "KW_ONLY") {
        kwOnlyAfter = true;
        continue;
      }
      const Value* dflt = cls->ns.find(*name);
      InstanceObj* f = dflt ? asField(in, *dflt) : nullptr;
      bool fromField = f != nullptr;
      if (!f) {
        f = newField(in, site);
        if (dflt)
          f->attrs.set("default", *dflt);
      }
      f->attrs.set("name", in.str(*name, site));
      f->attrs.set("type", type);
      f->attrs.set("_field_type", in.str(kind == "ClassVar"  ? kClassVarTag
                                         : kind == "InitVar" ? kInitVarTag
                                                             : kFieldTag,
                                         site));
      if (kind == "ClassVar")
        f->attrs.set("kw_only", in.boolean(false, site));
      else if (isMissing(in, fieldAttr(f, "kw_only")))
        f->attrs.set("kw_only", in.boolean(opt.kwOnly || kwOnlyAfter, site));
      // A field() default becomes the class attribute; without one the
      // class has no attribute of that name.
      if (fromField) {
        Value d2 = fieldAttr(f, "default");
        if (isMissing(in, d2))
          cls->ns.erase(*name);
        else
          cls->ns.set(*name, d2);
      }
      put(*name, Value(f, site));
    }
  auto* table = in.heap().make<DictObj>();
  for (const auto& [n, f] : fields)
    table->items.push_back({in.str(n, site), f});
  cls->ns.set("__dataclass_fields__", Value(table, site));
  auto* params = in.heap().make<InstanceObj>(in.externalClass("dataclasses._DataclassParams"));
  params->attrs.set("init", in.boolean(opt.init, site));
  params->attrs.set("eq", in.boolean(opt.eq, site));
  params->attrs.set("frozen", in.boolean(opt.frozen, site));
  cls->ns.set("__dataclass_params__", Value(params, site));
  if (opt.init && !cls->ns.find("__init__"))
    cls->ns.set(
        "__init__",
        Value(in.makeNative("dataclasses.__init__", dInit, hold(in, {Value(cls, site)})), site));
  if (opt.eq && !cls->ns.find("__eq__"))
    cls->ns.set("__eq__", Value(in.makeNative("dataclasses.__eq__", dEq), site));
  if (opt.matchArgs && !cls->ns.find("__match_args__")) {
    std::vector<Value> names;
    for (InstanceObj* f : allFields(in, cls))
      if (fieldTag(f) != kClassVarTag && fieldFlag(in, f, "init", site) != false &&
          fieldFlag(in, f, "kw_only", site) != true)
        names.push_back(in.str(fieldName(f), site));
    cls->ns.set("__match_args__", in.tuple(names, site));
  }
}

Options optionsFrom(Interpreter& in, const CallArgs& a, mlir::Operation* site) {
  Options o;
  auto flag = [&](const char* name, bool& out) {
    if (const Value* v = a.keyword(name))
      if (std::optional<bool> t = in.truth(*v, site))
        out = *t;
  };
  flag("init", o.init);
  flag("eq", o.eq);
  flag("frozen", o.frozen);
  flag("kw_only", o.kwOnly);
  flag("match_args", o.matchArgs);
  return o;
}

Value decorate(Interpreter& in, const Value& target, const Options& opt, mlir::Operation* site) {
  for (const Alt& alt : target)
    if (auto* cls = llvm::dyn_cast<ClassObj>(alt.obj))
      process(in, cls, opt, site);
  return target;
}

Value dDataclassApply(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                      const Object* self) {
  const Value* cls = arg(a, 0);
  if (!cls)
    return in.unknown("dataclass(...)()", site);
  Options o;
  const std::vector<Value>& h = held(self);
  auto b = [&](size_t i, bool d) {
    auto* x = i < h.size() ? llvm::dyn_cast_or_null<BoolObj>(h[i].single()) : nullptr;
    return x ? x->v : d;
  };
  o.init = b(0, true);
  o.eq = b(1, true);
  o.frozen = b(2, false);
  o.kwOnly = b(3, false);
  o.matchArgs = b(4, true);
  return decorate(in, *cls, o, site);
}

Value dDataclass(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Options o = optionsFrom(in, a, site);
  if (const Value* cls = arg(a, 0, "cls"))
    if (!(cls->single() && cls->single()->kind == Kind::None))
      return decorate(in, *cls, o, site);
  return nativeWith(in, "dataclasses.dataclass", dDataclassApply,
                    {in.boolean(o.init), in.boolean(o.eq), in.boolean(o.frozen),
                     in.boolean(o.kwOnly), in.boolean(o.matchArgs)},
                    site);
}

// ---- the generated methods ------------------------------------------------------------

bool frozenClass(Interpreter& in, ClassObj* cls) {
  const Value* p = in.lookupInMro(cls, "__dataclass_params__");
  auto* inst = p ? llvm::dyn_cast_or_null<InstanceObj>(p->single()) : nullptr;
  const Value* f = inst ? inst->attrs.find("frozen") : nullptr;
  auto* b = f ? llvm::dyn_cast_or_null<BoolObj>(f->single()) : nullptr;
  return b && b->v;
}

Value dInit(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object* self) {
  Value obj = selfArg(a);
  auto* cls =
      held(self).empty() ? nullptr : llvm::dyn_cast_or_null<ClassObj>(held(self)[0].single());
  if (!cls || obj.isBottom())
    return in.none(site);
  bool frozen = frozenClass(in, cls);
  std::vector<InstanceObj*> fields = allFields(in, cls);
  // __init__'s parameters: the positional fields, then the keyword-only ones.
  std::vector<InstanceObj*> positional, keywordOnly;
  for (InstanceObj* f : fields) {
    if (fieldTag(f) == kClassVarTag || fieldFlag(in, f, "init", site) == false)
      continue;
    (fieldFlag(in, f, "kw_only", site) == true ? keywordOnly : positional).push_back(f);
  }
  std::vector<std::pair<std::string, Value>> bound;
  size_t next = 1;
  auto valueFor = [&](InstanceObj* f, bool byPosition) -> Value {
    std::string name = fieldName(f);
    if (byPosition && next < a.positional.size())
      return a.positional[next++];
    if (const Value* kw = a.keyword(name))
      return *kw;
    Value dflt = fieldAttr(f, "default");
    Value factory = fieldAttr(f, "default_factory");
    Value v;
    if (!isMissing(in, dflt))
      v = dflt;
    else if (!isMissing(in, factory))
      v = in.call(factory, {}, site);
    bool mayBeGiven = (byPosition && a.morePositional) || a.moreKeywords;
    if (mayBeGiven || v.isBottom())
      v = in.heap().join(v, in.unknown("argument `" + name + "` of " + cls->name + "()" +
                                           (mayBeGiven ? " from a splat" : " (not given)"),
                                       site));
    return v;
  };
  bound.reserve(bound.size() + positional.size());
  for (InstanceObj* f : positional)
    bound.push_back({fieldName(f), valueFor(f, true)});
  for (InstanceObj* f : keywordOnly)
    bound.push_back({fieldName(f), valueFor(f, false)});
  auto store = [&](const std::string& name, const Value& v) {
    if (!frozen) {
      in.setAttr(obj, name, v, site);
      return;
    }
    for (const Alt& alt : obj) // object.__setattr__: past a frozen class's __setattr__
      if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj)) {
        in.heap().willWrite(inst);
        inst->attrs.set(name, v);
      }
  };
  std::vector<Value> initVars;
  for (InstanceObj* f : fields) {
    std::string name = fieldName(f);
    std::string tag = fieldTag(f);
    if (tag == kClassVarTag)
      continue;
    const Value* v = nullptr;
    for (const auto& [n, bv] : bound)
      if (n == name)
        v = &bv;
    if (tag == kInitVarTag) {
      initVars.push_back(v ? *v : in.unknown("InitVar `" + name + "`", site));
      continue;
    }
    if (v) {
      store(name, *v);
      continue;
    }
    // init=False: the default, or the factory's value.
    Value dflt = fieldAttr(f, "default");
    Value factory = fieldAttr(f, "default_factory");
    if (!isMissing(in, dflt))
      store(name, dflt);
    else if (!isMissing(in, factory))
      store(name, in.call(factory, {}, site));
  }
  for (const Alt& alt : obj)
    if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj))
      if (in.lookupInMro(inst->cls, "__post_init__")) {
        CallArgs post;
        post.positional = initVars;
        in.call(in.getAttr(Value(inst, alt.origin), "__post_init__", site), post, site);
      }
  return in.none(site);
}

Value dEq(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  if (a.positional.size() < 2)
    return in.unknown("__eq__()", site);
  auto* x = llvm::dyn_cast_or_null<InstanceObj>(a.positional[0].single());
  Object* yo = a.positional[1].single();
  auto* y = llvm::dyn_cast_or_null<InstanceObj>(yo);
  if (!x || !yo || yo->kind == Kind::Unknown)
    return in.unknown("a dataclass compared with " + describe(a.positional[1]), site);
  if (!y || y->cls != x->cls) // NotImplemented both ways: identity
    return in.boolean(false, site);
  if (x == y)
    return in.boolean(true, site);
  bool unsure = false;
  for (InstanceObj* f : allFields(in, x->cls)) {
    if (fieldTag(f) != kFieldTag || fieldFlag(in, f, "compare", site) == false)
      continue;
    std::string name = fieldName(f);
    std::optional<bool> same = valuesEqual(in, in.getAttr(Value(x, site), name, site),
                                           in.getAttr(Value(y, site), name, site), site, 0);
    if (same == false)
      return in.boolean(false, site);
    if (!same)
      unsure = true;
  }
  return unsure ? in.unknown("dataclass fields compared", site) : in.boolean(true, site);
}

// ---- module functions ------------------------------------------------------------------

ClassObj* dataclassOf(Interpreter& in, Object* o) {
  ClassObj* cls = llvm::dyn_cast<ClassObj>(o);
  if (auto* inst = llvm::dyn_cast<InstanceObj>(o))
    cls = inst->cls;
  return cls && in.lookupInMro(cls, "__dataclass_fields__") ? cls : nullptr;
}

Value dFields(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  ClassObj* cls = v && v->single() ? dataclassOf(in, v->single()) : nullptr;
  if (!cls)
    return in.unknown("fields() of " + (v ? describe(*v) : std::string("nothing")), site);
  std::vector<Value> out;
  for (InstanceObj* f : allFields(in, cls))
    if (fieldTag(f) == kFieldTag)
      out.push_back(Value(f, site));
  return in.tuple(out, site);
}

Value dIsDataclass(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0);
  if (!v || v->isBottom())
    return in.unknown("is_dataclass()", site);
  std::optional<bool> result;
  for (const Alt& alt : *v) {
    if (alt.obj->kind == Kind::Unknown || alt.obj->kind == Kind::External)
      return in.unknown("is_dataclass(" + describe(alt.obj) + ")", site);
    bool is = dataclassOf(in, alt.obj) != nullptr;
    if (result && *result != is)
      return in.unknown("is_dataclass(" + describe(*v) + ")", site);
    result = is;
  }
  return in.boolean(*result, site);
}

Value dReplace(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* v = arg(a, 0, "obj");
  if (!v)
    return in.unknown("replace()", site);
  Value out;
  for (const Alt& alt : *v) {
    auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj);
    ClassObj* cls = inst ? dataclassOf(in, inst) : nullptr;
    if (!cls) {
      out = in.heap().join(out, in.unknown("replace() of " + describe(alt.obj), site));
      continue;
    }
    // As CPython: the class called with the changes and every other init field.
    CallArgs args;
    args.keywords = a.keywords;
    args.moreKeywords = a.moreKeywords;
    for (InstanceObj* f : allFields(in, cls)) {
      std::string tag = fieldTag(f);
      std::string name = fieldName(f);
      if (tag == kClassVarTag || fieldFlag(in, f, "init", site) == false || a.keyword(name))
        continue;
      if (tag == kInitVarTag) {
        if (isMissing(in, fieldAttr(f, "default")))
          out = in.heap().join(
              out, in.unknown("replace() without InitVar `" + name + "` (ValueError)", site));
        continue;
      }
      args.keywords.push_back({name, in.getAttr(Value(inst, alt.origin), name, site)});
    }
    out = in.heap().join(out, in.call(Value(inst->cls, site), args, site));
  }
  return out;
}

// asdict / astuple: copies, recursively, as CPython's _asdict_inner does.
Value copyInner(Interpreter& in, const Value& v, bool asDict, mlir::Operation* site, int depth);

Value copyOne(Interpreter& in, const Alt& alt, bool asDict, mlir::Operation* site, int depth) {
  Object* o = alt.obj;
  if (depth > 8)
    return in.unknown("a value nested deeper than copied", site);
  if (auto* inst = llvm::dyn_cast<InstanceObj>(o)) {
    if (ClassObj* cls = dataclassOf(in, inst)) {
      std::vector<std::pair<std::string, Value>> items;
      for (InstanceObj* f : allFields(in, cls))
        if (fieldTag(f) == kFieldTag) {
          std::string name = fieldName(f);
          items.push_back({name, copyInner(in, in.getAttr(Value(inst, alt.origin), name, site),
                                           asDict, site, depth + 1)});
        }
      if (!asDict) {
        std::vector<Value> elems;
        elems.reserve(items.size());
        for (auto& [_, x] : items)
          elems.push_back(x);
        return in.tuple(elems, site);
      }
      auto* d = in.heap().make<DictObj>();
      for (auto& [n, x] : items)
        d->items.push_back({in.str(n, site), x});
      return Value(d, site);
    }
    // copy.deepcopy of another object: a new one with copied attributes.
    auto* c = in.heap().make<InstanceObj>(inst->cls);
    for (llvm::StringRef n : inst->attrs.names())
      c->attrs.set(n, copyInner(in, *inst->attrs.find(n), asDict, site, depth + 1));
    c->payload = inst->payload;
    return Value(c, site);
  }
  if (auto* t = llvm::dyn_cast<TupleObj>(o)) {
    std::vector<Value> elems;
    elems.reserve(t->elems.size());
    for (const Value& e : t->elems)
      elems.push_back(copyInner(in, e, asDict, site, depth + 1));
    return in.tuple(elems, site);
  }
  if (auto* l = llvm::dyn_cast<ListObj>(o)) {
    auto* c = in.heap().make<ListObj>(o->kind);
    for (const Value& e : l->elems)
      c->elems.push_back(copyInner(in, e, asDict, site, depth + 1));
    c->exact = l->exact;
    return Value(c, site);
  }
  if (auto* d = llvm::dyn_cast<DictObj>(o)) {
    auto* c = in.heap().make<DictObj>();
    for (const auto& [k, x] : d->items)
      c->items.push_back({k, copyInner(in, x, asDict, site, depth + 1)});
    c->exact = d->exact;
    c->others = d->others;
    return Value(c, site);
  }
  return Value(o, alt.origin);
}

Value copyInner(Interpreter& in, const Value& v, bool asDict, mlir::Operation* site, int depth) {
  Value out;
  for (const Alt& alt : v)
    out = in.heap().join(out, copyOne(in, alt, asDict, site, depth));
  return out;
}

Value asdictOrTuple(Interpreter& in, const CallArgs& a, mlir::Operation* site, bool asDict) {
  const Value* v = arg(a, 0, "obj");
  if (!v)
    return in.unknown(asDict ? "asdict()" : "astuple()", site);
  Value out;
  for (const Alt& alt : *v) {
    if (!dataclassOf(in, alt.obj) || alt.obj->kind != Kind::Instance) {
      out = in.heap().join(
          out, in.unknown(std::string(asDict ? "asdict" : "astuple") + "() of " + describe(alt.obj),
                          site));
      continue;
    }
    out = in.heap().join(out, copyOne(in, alt, asDict, site, 0));
  }
  return out;
}
Value dAsdict(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return asdictOrTuple(in, a, site, true);
}
Value dAstuple(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return asdictOrTuple(in, a, site, false);
}

class DataclassesOverlay final : public Overlay {
public:
  const char* name() const override { return "dataclasses"; }
  void install(Interpreter& in) override {
    in.defineNative("dataclasses.dataclass", dDataclass);
    in.defineNative("dataclasses.field", dField);
    in.defineNative("dataclasses.fields", dFields);
    in.defineNative("dataclasses.replace", dReplace);
    in.defineNative("dataclasses.asdict", dAsdict);
    in.defineNative("dataclasses.astuple", dAstuple);
    in.defineNative("dataclasses.is_dataclass", dIsDataclass);
    moduleAttr(in, "dataclasses", "MISSING",
               Value(in.heap().make<InstanceObj>(in.externalClass("dataclasses._MISSING_TYPE"))));
    moduleAttr(in, "dataclasses", "KW_ONLY",
               Value(in.heap().make<InstanceObj>(in.externalClass("dataclasses._KW_ONLY_TYPE"))));
    moduleAttr(in, "dataclasses", "Field", Value(in.externalClass(kField)));
    ClassObj* frozenError = in.externalClass("dataclasses.FrozenInstanceError");
    ClassObj* attributeError = in.externalClass("builtins.AttributeError");
    frozenError->bases = {attributeError};
    frozenError->mro = linearize(frozenError);
    moduleAttr(in, "dataclasses", "FrozenInstanceError", Value(frozenError));
  }
};

} // namespace

std::unique_ptr<Overlay> makeDataclassesOverlay() {
  return std::make_unique<DataclassesOverlay>();
}

} // namespace pallas::eval
