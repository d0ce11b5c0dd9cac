// The evaluator's core: running py ops (statements, control flow, the
// expressions that are not object operations). Objects.cpp has attributes,
// calls and classes; Operators.cpp operators, truth and iteration;
// Modules.cpp imports and entry points.
#include "Activation.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pallas::eval {

using namespace py;

unsigned lineOf(mlir::Operation* op) {
  if (auto loc = llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc()))
    return loc.getStartLine();
  return 0;
}

Interpreter::Interpreter(mlir::MLIRContext* context, ModuleSource& source, Options options)
    : context_(context), source_(source), options_(options) {
  context_->getOrLoadDialect<PyDialect>();
  builtins_ = heap_.make<ModuleObj>();
  builtins_->name = "builtins";
  builtins_->executed = true;
  externalModules_["builtins"] = builtins_;
  installStandardOverlays(*this);
}

Interpreter::~Interpreter() = default;

void Interpreter::addOverlay(std::unique_ptr<Overlay> overlay) {
  overlays_.push_back(std::move(overlay));
  overlays_.back()->install(*this);
}

BuiltinObj* Interpreter::makeNative(const std::string& name, NativeFn fn, void* data) {
  BuiltinObj* b = heap_.make<BuiltinObj>(name, fn);
  b->data = data;
  return b;
}

void Interpreter::defineNative(const std::string& qualname, NativeFn fn, void* data) {
  natives_[qualname] = makeNative(qualname, fn, data);
}

const BuiltinObj* Interpreter::native(const std::string& qualname) const {
  auto it = natives_.find(qualname);
  return it == natives_.end() ? nullptr : it->second;
}

Value Interpreter::tuple(std::vector<Value> elems, mlir::Operation* origin) {
  return Value(heap_.make<TupleObj>(std::move(elems)), origin);
}

Value Interpreter::list(std::vector<Value> elems, mlir::Operation* origin) {
  auto* l = heap_.make<ListObj>();
  l->elems = std::move(elems);
  return Value(l, origin);
}

void Interpreter::sides(const std::vector<std::function<void()>>& ways) {
  sides(ways, {});
}

void Interpreter::sides(const std::vector<std::function<void()>>& ways,
                        const std::vector<std::string>& names) {
  std::vector<Heap::Side> done;
  Activation* a = current_;
  bool allDead = true;
  Flow deadFlow = Flow::Normal;
  for (const auto& way : ways) {
    heap_.beginSide();
    Flow before = a ? a->flow : Flow::Normal;
    size_t index = done.size();
    bool named = index < names.size() && !names[index].empty();
    if (named)
      why_.push_back(names[index]);
    way();
    if (named)
      why_.pop_back();
    bool live = !a || a->flow == Flow::Normal;
    if (a && !live) {
      if (deadFlow == Flow::Normal || deadFlow == a->flow)
        deadFlow = a->flow;
      else if (a->flow == Flow::Return || deadFlow == Flow::Return)
        deadFlow = Flow::Return; // some way leaves the function normally
      a->flow = before;
    }
    allDead = allDead && !live;
    done.push_back(heap_.endSide(live));
  }
  heap_.merge(done, a ? a->namesObject() : nullptr);
  if (a && allDead && !ways.empty())
    a->flow = deadFlow;
}

std::string Interpreter::documentOf(mlir::Operation* op) const {
  if (!op)
    return {};
  if (auto loc = llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc()))
    return loc.getFilename().str();
  return {};
}

// ---- regions and ops -----------------------------------------------------------------

void Exec::region(mlir::Region& r) {
  if (r.empty())
    return;
  for (mlir::Operation& o : r.front()) {
    if (a.flow != Flow::Normal)
      return;
    if (++in.steps_ > in.options_.maxSteps) {
      a.flow = Flow::Stop;
      return;
    }
    op(&o);
  }
}

Value Exec::expressionRegion(mlir::Region& r) {
  a.result = Value();
  region(r);
  Value v = a.result;
  a.result = Value();
  return v;
}

void Exec::op(mlir::Operation* o) {
  llvm::TypeSwitch<mlir::Operation*>(o)
      .Case<UnitOp>([&](UnitOp u) { region(u.getBody()); })
      .Case<ConstantOp>([&](ConstantOp c) { a.set(c.getResult(), constant(c)); })
      .Case<LoadOp>([&](LoadOp l) { a.set(l.getResult(), load(l)); })
      .Case<StoreOp>([&](StoreOp s) { store(s.getName(), s.getScope(), a.get(s.getValue()), o); })
      .Case<DeleteOp>([&](DeleteOp d) { deleteName(d); })
      .Case<AnnotateOp>([&](AnnotateOp an) { annotate(an); })
      .Case<ImportOp>([&](ImportOp i) { importOp(i); })
      .Case<ImportFromOp>([&](ImportFromOp i) { importFrom(i); })
      .Case<ImportStarOp>([&](ImportStarOp i) { importStar(i); })
      .Case<DefOp>([&](DefOp d) { a.set(d.getResult(), defOp(d)); })
      .Case<ClassOp>([&](ClassOp c) { a.set(c.getResult(), classOp(c)); })
      .Case<ComprehensionOp>([&](ComprehensionOp c) { a.set(c.getResult(), comprehension(c)); })
      .Case<AppendOp>([&](AppendOp ap) { append(ap); })
      .Case<IfOp>([&](IfOp i) { ifOp(i); })
      .Case<ForOp>([&](ForOp f) { forOp(f); })
      .Case<WhileOp>([&](WhileOp w) { whileOp(w); })
      .Case<BreakOp>([&](BreakOp) {
        if (!a.loops.empty())
          a.loops.back()->exits.push_back(Heap::contentsOf(a.namesObject()));
        a.flow = Flow::Break;
      })
      .Case<ContinueOp>([&](ContinueOp) {
        if (!a.loops.empty())
          a.loops.back()->continues.push_back(Heap::contentsOf(a.namesObject()));
        a.flow = Flow::Continue;
      })
      .Case<ReturnOp>([&](ReturnOp r) {
        a.returned = in.heap_.join(a.returned, a.get(r.getValue()));
        a.returnedSomewhere = true;
        a.flow = Flow::Return;
      })
      .Case<RaiseOp>([&](RaiseOp r) {
        a.raised = r.getArgs().empty() ? in.unknown("the exception being handled", o)
                                       : a.get(r.getArgs()[0]);
        a.flow = Flow::Raise;
      })
      .Case<AssertOp>([&](AssertOp as) {
        if (as.getArgs().empty())
          return;
        if (in.truth(a.get(as.getArgs()[0]), o) == false) {
          a.raised = Value(in.externalClass("builtins.AssertionError"), o);
          a.flow = Flow::Raise;
        }
      })
      .Case<TryOp>([&](TryOp t) { tryOp(t); })
      .Case<WithOp>([&](WithOp w) { withOp(w); })
      .Case<MatchOp>([&](MatchOp m) { matchOp(m); })
      .Case<MatchClassOp>([&](MatchClassOp m) { matchClass(m); })
      .Case<ResultOp>([&](ResultOp r) { a.result = a.get(r.getValue()); })
      .Case<BoolOp>([&](BoolOp b) { a.set(b.getResult(), boolOp(b)); })
      .Case<CondOp>([&](CondOp c) { a.set(c.getResult(), condOp(c)); })
      .Case<AttrOp>([&](AttrOp at) {
        a.set(at.getResult(), in.getAttr(a.get(at.getObject()), at.getName(), o));
      })
      .Case<SetAttrOp>([&](SetAttrOp s) {
        in.setAttr(a.get(s.getObject()), s.getName(), a.get(s.getValue()), o);
      })
      .Case<DelAttrOp>([&](DelAttrOp d) {
        for (const Alt& alt : a.get(d.getObject()))
          if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj)) {
            in.heap_.willWrite(inst);
            inst->attrs.erase(d.getName());
          }
      })
      .Case<SubscriptOp>([&](SubscriptOp s) {
        a.set(s.getResult(), in.subscript(a.get(s.getObject()), a.get(s.getIndex()), o));
      })
      .Case<SetItemOp>([&](SetItemOp s) {
        in.setItem(a.get(s.getObject()), a.get(s.getIndex()), a.get(s.getValue()), o);
      })
      .Case<DelItemOp>([&](DelItemOp d) { delItem(d); })
      .Case<SliceOp>([&](SliceOp s) {
        a.set(s.getResult(), Value(in.heap_.make<SliceObj>(a.get(s.getLower()), a.get(s.getUpper()),
                                                           a.get(s.getStep())),
                                   o));
      })
      .Case<CallOp>([&](CallOp c) { a.set(c.getResult(), callOp(c)); })
      .Case<TupleOp>([&](TupleOp t) {
        a.set(t.getResult(), display(o, t.getElements(), t.getStarred(), Kind::Tuple));
      })
      .Case<ListOp>([&](ListOp l) {
        a.set(l.getResult(), display(o, l.getElements(), l.getStarred(), Kind::List));
      })
      .Case<SetOp>([&](SetOp s) {
        a.set(s.getResult(), display(o, s.getElements(), s.getStarred(), Kind::Set));
      })
      .Case<DictOp>([&](DictOp d) { a.set(d.getResult(), dictOp(d)); })
      .Case<UnpackOp>([&](UnpackOp u) { unpack(u); })
      .Case<YieldOp>([&](YieldOp y) { a.set(y.getResult(), yieldOp(y)); })
      .Case<AwaitOp>(
          [&](AwaitOp aw) { a.set(aw.getResult(), in.unknown("the result of an await", o)); })
      .Case<FormatOp>([&](FormatOp f) { a.set(f.getResult(), formatOp(f)); })
      .Case<JoinStrOp>([&](JoinStrOp j) { a.set(j.getResult(), joinStr(j)); })
      .Case<BinaryOp>([&](BinaryOp b) {
        a.set(b.getResult(), in.binary(b.getOp(), a.get(b.getLhs()), a.get(b.getRhs()), o));
      })
      .Case<UnaryOp>([&](UnaryOp u) { unaryOp(u); })
      .Case<CompareOp>([&](CompareOp c) { compareOp(c); })
      .Case<ErrorOp>([&](ErrorOp e) {
        a.set(e.getResult(),
              in.unknown(("code the parser could not read (" + e.getWhat() + ")").str(), o));
      })
      .Default([&](mlir::Operation*) {});
  if (in.resultObserver_ && o->getNumResults() == 1)
    in.resultObserver_(o, a.get(o->getResult(0)));
}

Value Exec::constant(ConstantOp c) {
  Object* obj = nullptr;
  mlir::Attribute v = c.getValueAttr();
  switch (c.getKind()) {
  case ConstKind::none:
    obj = in.heap_.none();
    break;
  case ConstKind::ellipsis:
    obj = in.heap_.ellipsis();
    break;
  case ConstKind::boolean:
    obj = in.heap_.boolean(llvm::cast<mlir::BoolAttr>(v).getValue());
    break;
  case ConstKind::integer:
    obj = in.heap_.integer(llvm::cast<mlir::IntegerAttr>(v).getInt());
    break;
  case ConstKind::floating:
    obj = in.heap_.floating(llvm::cast<mlir::FloatAttr>(v).getValueAsDouble());
    break;
  case ConstKind::str:
    obj = in.heap_.string(llvm::cast<mlir::StringAttr>(v).str());
    break;
  case ConstKind::bytes:
    obj = in.heap_.string(llvm::cast<mlir::StringAttr>(v).str(), true);
    break;
  case ConstKind::bigint:
  case ConstKind::complex:
    obj = in.heap_.unknown("a number the evaluator does not model", c);
    break;
  }
  return Value(obj, c);
}

void Exec::deleteName(DeleteOp d) {
  Object* holder = a.namesObject();
  if (d.getScope() == Scope::global)
    holder = a.module;
  in.heap_.willWrite(holder);
  if (auto* f = llvm::dyn_cast<FrameObj>(holder))
    f->locals.erase(d.getName());
  else
    llvm::cast<ModuleObj>(holder)->ns.erase(d.getName());
}

void Exec::importOp(ImportOp i) {
  mlir::Operation* o = i;
  std::string name = i.getModule().str();
  Value v;
  if (i.getTop()) {
    // `import a.b.c` loads a, a.b, a.b.c and binds a.
    std::string first = name.substr(0, name.find('.'));
    ModuleObj* top = in.importModule(a.doc, first, 0, o);
    in.importModule(a.doc, name, 0, o);
    v = top ? Value(top, o) : in.unknown("module " + first, o);
  } else {
    ModuleObj* m = in.importModule(a.doc, name, 0, o);
    v = m ? Value(m, o) : in.unknown("module " + name, o);
  }
  a.set(i.getResult(), v);
}

void Exec::importFrom(ImportFromOp i) {
  mlir::Operation* o = i;
  std::string module = i.getModule().str();
  int level = static_cast<int>(i.getLevel());
  std::string name = i.getName().str();
  ModuleObj* m = in.importModule(a.doc, module, level, o);
  Value v;
  if (m && m->path.empty()) {
    v = in.getAttr(Value(m, o), name, o); // a library's name
  } else if (m) {
    if (const Value* found = m->ns.find(name))
      v = *found;
    else {
      // `from pkg import submodule`
      std::string sub = module.empty() ? name : module + "." + name;
      ModuleObj* s = in.importModule(a.doc, sub, level, o);
      v = s && !s->path.empty() ? Value(s, o) : in.getAttr(Value(m, o), name, o);
    }
  } else {
    v = in.unknown("from " + module + " import " + name, o);
  }
  a.set(i.getResult(), v);
}

void Exec::importStar(ImportStarOp i) {
  mlir::Operation* o = i;
  ModuleObj* m = in.importModule(a.doc, i.getModule().str(), static_cast<int>(i.getLevel()), o);
  if (!m || m->path.empty())
    return; // names of a library module are not known: reads of them stay globals
  in.heap_.willWrite(a.namesObject());
  const Value* all = m->ns.find("__all__");
  Interpreter::Elements names;
  if (all)
    names = in.elements(*all, o);
  if (all && names.exact) {
    for (const Value& n : names.items)
      if (auto* s = llvm::dyn_cast_or_null<StrObj>(n.single()))
        if (const Value* v = m->ns.find(s->v))
          a.names().set(s->v, *v);
  } else {
    for (llvm::StringRef n : m->ns.names())
      if (!n.starts_with("_"))
        a.names().set(n, *m->ns.find(n));
  }
}

void Exec::delItem(DelItemOp d) {
  for (const Alt& alt : a.get(d.getObject()))
    if (auto* dict = llvm::dyn_cast<DictObj>(alt.obj)) {
      Object* key = a.get(d.getIndex()).single();
      in.heap_.willWrite(dict);
      for (size_t i = 0; key && i < dict->items.size(); ++i)
        if (Object* k = dict->items[i].first.single(); k && sameValue(k, key) == true) {
          dict->items.erase(dict->items.begin() + static_cast<long>(i));
          break;
        }
    }
}

void Exec::unaryOp(UnaryOp u) {
  mlir::Operation* o = u;
  Value v = a.get(u.getOperand());
  if (u.getOp() == "not") {
    std::optional<bool> t = in.truth(v, o);
    if (t) {
      a.set(u.getResult(), in.boolean(!*t, o));
      return;
    }
    Value out = in.unknown("not " + describe(v), o);
    if (auto* src = llvm::dyn_cast_or_null<UnknownObj>(v.single()); src && src->onNarrow) {
      auto* neg = llvm::cast<UnknownObj>(out.single());
      neg->onNarrow = src->onNarrow;
      neg->negated = !src->negated;
    }
    a.set(u.getResult(), out);
    return;
  }
  a.set(u.getResult(), in.binary(("unary" + u.getOp()).str(), v, Value(), o));
}

void Exec::compareOp(CompareOp c) {
  mlir::Operation* o = c;
  // a < b < c: each comparison, and-ed (operands evaluated once).
  auto ops = c.getOps();
  Value result;
  std::optional<bool> all = true;
  for (size_t i = 0; i + 1 < c.getOperands().size() && i < ops.size(); ++i) {
    llvm::StringRef op = llvm::cast<mlir::StringAttr>(ops[i]).getValue();
    Value r = in.compare(op, a.get(c.getOperands()[i]), a.get(c.getOperands()[i + 1]), o);
    if (ops.size() == 1) {
      result = r;
      break;
    }
    std::optional<bool> t = in.truth(r, o);
    if (t == false) {
      all = false;
      break;
    }
    if (!t)
      all = std::nullopt;
  }
  if (ops.size() != 1)
    result = all ? in.boolean(*all, o) : in.unknown("a chained comparison", o);
  a.set(c.getResult(), result);
}

// ---- names -----------------------------------------------------------------------------

FrameObj* frameOfFree(FrameObj* frame, llvm::StringRef name) {
  for (FrameObj* f = frame ? frame->enclosing : nullptr; f; f = f->enclosing) {
    if (f->classBody)
      continue;
    if (f->locals.find(name))
      return f;
    if (f->scope) {
      mlir::ArrayAttr locals;
      if (auto d = llvm::dyn_cast<DefOp>(f->scope))
        locals = d.getLocals();
      else if (auto c = llvm::dyn_cast<ComprehensionOp>(f->scope))
        locals = c.getLocals();
      if (locals)
        for (mlir::Attribute l : locals)
          if (llvm::cast<mlir::StringAttr>(l).getValue() == name)
            return f;
    }
  }
  return nullptr;
}

std::string shadowName(llvm::StringRef name) {
  return "\x01" + name.str();
}

Value Exec::load(LoadOp l) {
  llvm::StringRef name = l.getName();
  mlir::Operation* o = l.getOperation();
  if (a.frame && l.getScope() != Scope::local)
    if (const Value* narrowed = a.frame->locals.find(shadowName(name)))
      return *narrowed;
  auto global = [&]() -> Value {
    if (const Value* v = a.module->ns.find(name))
      return *v;
    if (const Value* v = in.builtins_->ns.find(name))
      return *v;
    // A module-level __getattr__ does not serve its own globals.
    return in.unknown("name `" + name.str() + "` is not defined here", o);
  };
  switch (l.getScope()) {
  case Scope::local:
    if (a.frame)
      if (const Value* v = a.frame->locals.find(name))
        return *v;
    if (!a.frame)
      return global();
    return in.unknown("local `" + name.str() + "` read before it is bound", o);
  case Scope::global:
    return global();
  case Scope::free:
    if (FrameObj* f = frameOfFree(a.frame, name))
      if (const Value* v = f->locals.find(name))
        return *v;
    if (!a.frame)
      return global();
    return in.unknown("free variable `" + name.str() + "` read before it is bound", o);
  case Scope::name:
    if (a.frame)
      if (const Value* v = a.frame->locals.find(name))
        return *v;
    return global();
  }
  return global();
}

void Exec::store(llvm::StringRef name, Scope scope, const Value& v, mlir::Operation* at) {
  (void)at;
  if (a.frame && scope != Scope::local && a.frame->locals.find(shadowName(name))) {
    in.heap_.willWrite(a.frame);
    a.frame->locals.erase(shadowName(name)); // the variable is written: no longer narrowed
  }
  Object* holder = a.namesObject();
  if (scope == Scope::global)
    holder = a.module;
  else if (scope == Scope::free) {
    if (FrameObj* f = frameOfFree(a.frame, name))
      holder = f;
  }
  in.heap_.willWrite(holder);
  if (auto* f = llvm::dyn_cast<FrameObj>(holder))
    f->locals.set(name, v);
  else
    llvm::cast<ModuleObj>(holder)->ns.set(name, v);
}

void Exec::annotate(AnnotateOp an) {
  Object* holder = a.namesObject();
  AttrMap& ns = a.names();
  const Value* existing = ns.find("__annotations__");
  DictObj* dict = existing ? llvm::dyn_cast_or_null<DictObj>(existing->single()) : nullptr;
  if (!dict) {
    dict = in.heap_.make<DictObj>();
    in.heap_.willWrite(holder);
    ns.set("__annotations__", Value(dict, an));
  }
  in.heap_.willWrite(dict);
  dict->items.push_back({in.str(an.getName().str(), an), a.get(an.getAnnotation())});
}

// ---- control flow ------------------------------------------------------------------

// What a condition tells about the variable it tests, on each side: `x`,
// `not x`, `x is None`, `x is not None` (as type checkers narrow).
struct Narrowing {
  LoadOp load;
  enum Test { Truthy, Falsy, IsNone, NotNone } whenTrue = Truthy;
};

std::optional<Narrowing> narrowingOf(mlir::Value cond) {
  mlir::Operation* def = cond.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto l = llvm::dyn_cast_or_null<LoadOp>(def))
    return Narrowing{l, Narrowing::Truthy};
  if (auto u = llvm::dyn_cast_or_null<UnaryOp>(def); u && u.getOp() == "not")
    if (auto l = u.getOperand().getDefiningOp<LoadOp>())
      return Narrowing{l, Narrowing::Falsy};
  if (auto c = llvm::dyn_cast_or_null<CompareOp>(def); c && c.getOperands().size() == 2) {
    llvm::StringRef op = llvm::cast<mlir::StringAttr>(c.getOps()[0]).getValue();
    if (op != "is" && op != "is not")
      return std::nullopt;
    auto isNone = [](mlir::Value v) {
      auto k = v.getDefiningOp<ConstantOp>();
      return k && k.getKind() == ConstKind::none;
    };
    LoadOp l = c.getOperands()[0].getDefiningOp<LoadOp>();
    if (!l || !isNone(c.getOperands()[1])) {
      l = c.getOperands()[1].getDefiningOp<LoadOp>();
      if (!l || !isNone(c.getOperands()[0]))
        return std::nullopt;
    }
    return Narrowing{l, op == "is" ? Narrowing::IsNone : Narrowing::NotNone};
  }
  return std::nullopt;
}

void Exec::narrow(const Narrowing& n, bool onTrueSide) {
  Narrowing::Test test = n.whenTrue;
  if (!onTrueSide)
    test = test == Narrowing::Truthy   ? Narrowing::Falsy
           : test == Narrowing::Falsy  ? Narrowing::Truthy
           : test == Narrowing::IsNone ? Narrowing::NotNone
                                       : Narrowing::IsNone;
  Value v = load(LoadOp(n.load));
  Value out;
  bool changed = false;
  for (const Alt& alt : v) {
    std::optional<bool> t = in.truth(Value(alt.obj, alt.origin), n.load);
    bool isNone = alt.obj->kind == Kind::None;
    bool unknown = alt.obj->kind == Kind::Unknown;
    bool keep = true;
    switch (test) {
    case Narrowing::Truthy:
      keep = t != false;
      if (keep && !t && unknown) {
        out.add(in.heap_.make<UnknownObj>(llvm::cast<UnknownObj>(alt.obj)->why,
                                          llvm::cast<UnknownObj>(alt.obj)->at, true),
                alt.origin);
        changed = true;
        continue;
      }
      break;
    case Narrowing::Falsy:
      keep = t != true;
      if (keep && !t && unknown) {
        out.add(in.heap_.make<UnknownObj>(llvm::cast<UnknownObj>(alt.obj)->why,
                                          llvm::cast<UnknownObj>(alt.obj)->at, false),
                alt.origin);
        changed = true;
        continue;
      }
      break;
    case Narrowing::IsNone:
      keep = isNone || unknown;
      if (unknown) {
        out.add(in.heap_.none(), alt.origin);
        changed = true;
        continue;
      }
      break;
    case Narrowing::NotNone:
      keep = !isNone;
      break;
    }
    if (keep)
      out.add(alt.obj, alt.origin);
    else
      changed = true;
  }
  LoadOp load = n.load;
  if (!changed || out.isBottom())
    return;
  // A local is narrowed in place. A global, a free variable or a class-body
  // name is narrowed in this frame only (a shadow the loads here read): the
  // variable itself is not written, so a side that leaves (a raise in the
  // other branch) takes its narrowing with it.
  if (load.getScope() == Scope::local || !a.frame) {
    store(load.getName(), load.getScope(), out, load);
    return;
  }
  in.heap_.willWrite(a.frame);
  a.frame->locals.set(shadowName(load.getName()), out);
}

// An overlay's test (UnknownObj::onNarrow) learns which way a branch went.
void narrowTest(Interpreter& in, const Value& cond, bool onTrueSide, mlir::Operation* site) {
  for (const Alt& alt : cond)
    if (auto* u = llvm::dyn_cast<UnknownObj>(alt.obj); u && u->onNarrow) {
      CallArgs args;
      args.positional = {in.boolean(onTrueSide != u->negated, site)};
      in.call(Value(u->onNarrow, site), args, site);
    }
}

void Exec::ifOp(IfOp i) {
  std::optional<bool> t = in.truth(a.get(i.getCondition()), i);
  if (t == true)
    region(i.getThenRegion());
  else if (t == false)
    region(i.getElseRegion());
  else {
    std::string line = std::to_string(lineOf(i));
    std::optional<Narrowing> n = narrowingOf(i.getCondition());
    Value cond = a.get(i.getCondition());
    in.sides({[&] {
                if (n)
                  narrow(*n, true);
                narrowTest(in, cond, true, i);
                if (in.takeInfeasible()) {
                  a.flow = Flow::Stop;
                  return;
                }
                region(i.getThenRegion());
              },
              [&] {
                if (n)
                  narrow(*n, false);
                narrowTest(in, cond, false, i);
                if (in.takeInfeasible()) {
                  a.flow = Flow::Stop;
                  return;
                }
                region(i.getElseRegion());
              }},
             {"when the `if` at line " + line + " is true",
              "when the `if` at line " + line + " is false"});
  }
}

Value Exec::boolOp(BoolOp b) {
  Value lhs = a.get(b.getLhs());
  bool isAnd = b.getOp() == "and";
  std::optional<bool> t = in.truth(lhs, b);
  if (t.has_value()) {
    if (*t == !isAnd)
      return lhs; // `x or y` with x true, `x and y` with x false
    return expressionRegion(b.getRhs());
  }
  // Either: the result is lhs's alternatives that end it, or rhs.
  Value out;
  for (const Alt& alt : lhs) {
    std::optional<bool> at = in.truth(Value(alt.obj, alt.origin), b);
    if (!at || *at == !isAnd)
      out.add(alt.obj, alt.origin);
  }
  Value rhs;
  in.sides({[&] { rhs = expressionRegion(b.getRhs()); }, [] {}},
           {"when the `" + b.getOp().str() + "` at line " + std::to_string(lineOf(b)) +
                " reads its right side",
            ""});
  return in.heap_.join(out, rhs);
}

Value Exec::condOp(CondOp c) {
  std::optional<bool> t = in.truth(a.get(c.getCondition()), c);
  if (t == true)
    return expressionRegion(c.getThenRegion());
  if (t == false)
    return expressionRegion(c.getElseRegion());
  Value x, y;
  std::string line = std::to_string(lineOf(c));
  in.sides({[&] { x = expressionRegion(c.getThenRegion()); },
            [&] { y = expressionRegion(c.getElseRegion()); }},
           {"when the condition at line " + line + " is true",
            "when the condition at line " + line + " is false"});
  return in.heap_.join(x, y);
}

void Exec::finishLoop(Interpreter::Activation::Loop& loop) {
  // Where a break may have left the loop: the locals are the join.
  if (loop.exits.empty())
    return;
  Object* holder = a.namesObject();
  std::vector<Heap::Side> sides;
  Heap::Side here;
  here.live = a.flow == Flow::Normal;
  sides.push_back(here);
  for (const auto& exit : loop.exits) {
    Heap::Side s;
    s.written.push_back({holder, {Heap::contentsOf(holder), exit}});
    sides.push_back(s);
  }
  in.heap_.merge(sides, nullptr);
}

void Exec::loopBody(ForOp f, const Value& element, Interpreter::Activation::Loop& loop) {
  mlir::Block& body = f.getBody().front();
  a.set(body.getArgument(0), element);
  loop.continues.clear();
  region(f.getBody());
  if (a.flow == Flow::Continue)
    a.flow = Flow::Normal;
  if (!loop.continues.empty() && a.flow == Flow::Normal) {
    Object* holder = a.namesObject();
    std::vector<Heap::Side> sides(1);
    for (const auto& c : loop.continues) {
      Heap::Side s;
      s.written.push_back({holder, {Heap::contentsOf(holder), c}});
      sides.push_back(s);
    }
    in.heap_.merge(sides, nullptr);
    loop.continues.clear();
  }
}

void Exec::forOp(ForOp f) {
  Value iterable = a.get(f.getIterable());
  Interpreter::Activation::Loop loop;
  a.loops.push_back(&loop);
  llvm::scope_exit pop([&] { a.loops.pop_back(); });

  // A generator runs, and its consumer (the loop body) runs at each yield.
  if (auto* gen = llvm::dyn_cast_or_null<GeneratorObj>(iterable.single())) {
    bool broke = false;
    in.runGenerator(gen, [&](const Value& item) {
      loopBody(f, item, loop);
      if (a.flow == Flow::Break) {
        a.flow = Flow::Normal;
        broke = true;
        return false;
      }
      return a.flow == Flow::Normal;
    });
    if (!broke && a.flow == Flow::Normal)
      region(f.getOrelse());
    finishLoop(loop);
    return;
  }

  Interpreter::Elements items = in.elements(iterable, f);
  if (items.exact && items.items.size() <= in.options_.maxUnroll) {
    bool maybeBroken = false;
    for (const Value& item : items.items) {
      size_t exitsBefore = loop.exits.size();
      if (!maybeBroken) {
        loopBody(f, item, loop);
      } else {
        in.sides({[&] { loopBody(f, item, loop); }, [] {}},
                 {"when the `for` at line " + std::to_string(lineOf(f)) + " did not break", ""});
      }
      if (a.flow == Flow::Break) { // certain break: the current state is the exit
        a.flow = Flow::Normal;
        loop.exits.clear();
        a.loops.pop_back();
        pop.release();
        return;
      }
      if (a.flow != Flow::Normal)
        return;
      maybeBroken = maybeBroken || loop.exits.size() > exitsBefore;
    }
    if (maybeBroken)
      in.sides({[&] { region(f.getOrelse()); }, [] {}});
    else
      region(f.getOrelse());
    finishLoop(loop);
    return;
  }
  // Unknown number of iterations: the body may run (twice, so values that
  // one iteration hands the next are seen), or not at all.
  Value element = items.items.empty() ? in.unknown("an element of " + describe(iterable), f)
                                      : items.items.front();
  for (int round = 0; round < 2; ++round) {
    in.sides({[&] {
                loopBody(f, element, loop);
                if (a.flow == Flow::Break)
                  a.flow = Flow::Normal;
              },
              [] {}},
             {"when the `for` at line " + std::to_string(lineOf(f)) + " runs its body", ""});
    if (a.flow != Flow::Normal)
      return;
  }
  in.sides({[&] { region(f.getOrelse()); }, [] {}});
  finishLoop(loop);
}

void Exec::whileOp(WhileOp w) {
  Interpreter::Activation::Loop loop;
  a.loops.push_back(&loop);
  llvm::scope_exit pop([&] { a.loops.pop_back(); });
  auto body = [&] {
    loop.continues.clear();
    region(w.getBody());
    if (a.flow == Flow::Continue)
      a.flow = Flow::Normal;
  };
  for (unsigned i = 0; i < in.options_.maxUnroll; ++i) {
    std::optional<bool> t = in.truth(expressionRegion(w.getCondition()), w);
    if (a.flow != Flow::Normal)
      return;
    if (t == false) {
      region(w.getOrelse());
      finishLoop(loop);
      return;
    }
    if (t == true) {
      body();
      if (a.flow == Flow::Break) {
        a.flow = Flow::Normal;
        loop.exits.clear();
        return;
      }
      if (a.flow != Flow::Normal)
        return;
      continue;
    }
    break; // not known: below
  }
  for (int round = 0; round < 2; ++round) {
    in.sides({[&] {
                body();
                if (a.flow == Flow::Break)
                  a.flow = Flow::Normal;
              },
              [] {}},
             {"when the `while` at line " + std::to_string(lineOf(w)) + " runs its body", ""});
    if (a.flow != Flow::Normal)
      return;
  }
  in.sides({[&] { region(w.getOrelse()); }, [] {}});
  finishLoop(loop);
}

void Exec::tryOp(TryOp t) {
  uint64_t mayRaiseBefore = in.mayRaise_;
  // The handlers are active while the body runs (Interpreter::catcherOf).
  size_t active = in.handlers_.size();
  if (!t.getHandlers().empty())
    for (mlir::Operation& h : t.getHandlers().front())
      if (auto e = llvm::dyn_cast<ExceptOp>(h)) {
        Interpreter::ActiveHandler ah;
        ah.except = e;
        ah.bare = e.getExceptionType().empty();
        if (!ah.bare)
          ah.type = expressionRegion(e.getExceptionType());
        // `except E: ...; raise` hands the failure on.
        for (mlir::Operation& op : llvm::reverse(e.getBody().front())) {
          if (op.hasTrait<mlir::OpTrait::IsTerminator>())
            continue;
          ah.raisesAgain = llvm::isa<RaiseOp>(op);
          break;
        }
        in.handlers_.push_back(ah);
      }
  // Innermost last: the first handler of a try is tried first.
  std::reverse(in.handlers_.begin() + active, in.handlers_.end());
  region(t.getBody());
  in.handlers_.resize(active);
  bool raised = a.flow == Flow::Raise;
  bool mayRaise = raised || in.mayRaise_ != mayRaiseBefore;
  std::vector<ExceptOp> handlers;
  if (!t.getHandlers().empty())
    for (mlir::Operation& h : t.getHandlers().front())
      if (auto e = llvm::dyn_cast<ExceptOp>(h))
        handlers.push_back(e);
  auto runHandler = [&](ExceptOp h) {
    a.set(h.getBody().front().getArgument(0),
          a.raised.isBottom() ? in.unknown("the exception caught", h) : a.raised);
    region(h.getBody());
  };
  // Does handler h catch the exception raised? (nullopt: not known)
  auto catches = [&](ExceptOp h) -> std::optional<bool> {
    if (h.getExceptionType().empty())
      return true;
    Value type = expressionRegion(h.getExceptionType());
    return in.exceptionMatches(a.raised, type, h);
  };
  if (raised && !handlers.empty()) {
    Value exc = a.raised;
    a.flow = Flow::Normal;
    std::vector<std::function<void()>> ways;
    bool certain = false;
    for (ExceptOp h : handlers) {
      std::optional<bool> c = catches(h);
      if (c == false)
        continue;
      if (c == true) {
        ways.push_back([&, h] {
          a.raised = exc;
          runHandler(h);
        });
        certain = true;
        break;
      }
      ways.push_back([&, h] {
        a.raised = exc;
        runHandler(h);
      });
    }
    if (!certain)
      ways.push_back([&, exc] {
        a.raised = exc;
        a.flow = Flow::Raise;
      });
    if (ways.size() == 1)
      ways[0]();
    else
      in.sides(ways);
  } else if (a.flow == Flow::Normal) {
    if (mayRaise && !handlers.empty()) {
      std::vector<std::function<void()>> ways;
      std::vector<std::string> names{""};
      ways.push_back([&] { region(t.getOrelse()); });
      for (ExceptOp h : handlers) {
        ways.push_back([&, h] {
          a.raised = Value();
          runHandler(h);
        });
        names.push_back("when the `except` at line " + std::to_string(lineOf(h)) + " runs");
      }
      in.sides(ways, names);
    } else {
      region(t.getOrelse());
    }
  }
  // finally runs whatever happened, and the way out stays unless it leaves itself.
  if (!t.getFinalbody().empty()) {
    Flow pending = a.flow;
    a.flow = Flow::Normal;
    region(t.getFinalbody());
    if (a.flow == Flow::Normal)
      a.flow = pending;
  }
}

mlir::Operation* Interpreter::catcherOf(llvm::StringRef name, mlir::Operation* site) {
  const Value* cls = builtins_ ? builtins_->ns.find(name) : nullptr;
  if (!cls)
    return nullptr;
  for (auto h = handlers_.rbegin(); h != handlers_.rend(); ++h) {
    bool catches = h->bare || exceptionMatches(*cls, h->type, site) == true;
    if (!catches)
      continue; // not certainly this one: an outer one may
    if (h->raisesAgain)
      return nullptr;
    return h->except;
  }
  return nullptr;
}

void Exec::matchOp(MatchOp m) {
  std::vector<CaseOp> cases;
  for (mlir::Operation& c : m.getCases().front())
    if (auto k = llvm::dyn_cast<CaseOp>(c))
      cases.push_back(k);
  a.set(m.getSubject(), a.get(m.getSubject()));
  std::function<void(size_t)> from = [&](size_t i) {
    if (i >= cases.size())
      return;
    std::optional<bool> matched = in.truth(expressionRegion(cases[i].getPattern()), cases[i]);
    if (matched == true)
      region(cases[i].getBody());
    else if (matched == false)
      from(i + 1);
    else
      in.sides({[&] { region(cases[i].getBody()); }, [&] { from(i + 1); }},
               {"when the `case` at line " + std::to_string(lineOf(cases[i])) + " matches", ""});
  };
  from(0);
}

} // namespace pallas::eval
