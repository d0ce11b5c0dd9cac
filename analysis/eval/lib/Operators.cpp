// Operators, truth, subscripts, iteration and the displays (tuple, list,
// dict, comprehensions, f-strings) over abstract values.
#include "Activation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>

namespace pallas::eval {

using namespace py;

namespace {

std::optional<int64_t> intOf(const Object* o) {
  if (auto* i = llvm::dyn_cast<IntObj>(o))
    return i->v;
  if (auto* b = llvm::dyn_cast<BoolObj>(o))
    return b->v ? 1 : 0;
  return std::nullopt;
}

std::optional<double> numberOf(const Object* o) {
  if (auto i = intOf(o))
    return static_cast<double>(*i);
  if (auto* f = llvm::dyn_cast<FloatObj>(o))
    return f->v;
  return std::nullopt;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0)))
    m += b;
  return m;
}

} // namespace

// ---- truth --------------------------------------------------------------------------

std::optional<bool> Interpreter::truth(const Value& v, mlir::Operation* site) {
  std::optional<bool> result;
  bool first = true;
  for (const Alt& alt : v) {
    std::optional<bool> t;
    Object* o = alt.obj;
    switch (o->kind) {
    case Kind::None:
      t = false;
      break;
    case Kind::Bool:
      t = llvm::cast<BoolObj>(o)->v;
      break;
    case Kind::Int:
      t = llvm::cast<IntObj>(o)->v != 0;
      break;
    case Kind::Float:
      t = llvm::cast<FloatObj>(o)->v != 0.0;
      break;
    case Kind::Str:
    case Kind::Bytes:
      t = !llvm::cast<StrObj>(o)->v.empty();
      break;
    case Kind::Tuple:
      t = !llvm::cast<TupleObj>(o)->elems.empty();
      break;
    case Kind::List:
    case Kind::Set: {
      auto* l = llvm::cast<ListObj>(o);
      if (l->exact)
        t = !l->elems.empty();
      break;
    }
    case Kind::Dict: {
      auto* d = llvm::cast<DictObj>(o);
      if (!d->items.empty())
        t = true;
      else if (d->exact)
        t = false;
      break;
    }
    case Kind::Range: {
      auto* r = llvm::cast<RangeObj>(o);
      t = r->step > 0 ? r->start < r->stop : r->start > r->stop;
      break;
    }
    case Kind::Instance: {
      auto* inst = llvm::cast<InstanceObj>(o);
      const char* hooks[] = {"__bool__", "__len__"};
      bool hooked = false;
      for (const char* h : hooks)
        if (const Value* m = lookupInMro(inst->cls, h)) {
          hooked = true;
          Value r = call(bindDescriptor(*m, Value(o, alt.origin), inst->cls, true, site), {}, site);
          std::optional<bool> rt = truth(r, site);
          t = rt;
          break;
        }
      if (!hooked)
        t = true;
      break;
    }
    case Kind::Unknown:
      t = llvm::cast<UnknownObj>(o)->truth;
      break;
    case Kind::External:
      t = std::nullopt; // a library constant (jax.config flag, ...)
      break;
    default:
      t = true; // functions, classes, modules
    }
    if (!t)
      return std::nullopt;
    if (first)
      result = t;
    else if (result != t)
      return std::nullopt;
    first = false;
  }
  return result;
}

// ---- arithmetic ------------------------------------------------------------------------

// An operation on a traced value gives a traced value.
static bool anyTraced(const Value& a, const Value& b) {
  for (const Value* v : {&a, &b})
    for (const Alt& alt : *v)
      if (auto* u = llvm::dyn_cast<UnknownObj>(alt.obj); u && u->traced)
        return true;
  return false;
}

// The def an op is written in (null at a module's top level).
static mlir::Operation* defOf(mlir::Operation* op) {
  for (mlir::Operation* p = op ? op->getParentOp() : nullptr; p; p = p->getParentOp())
    if (llvm::isa<DefOp>(p))
      return p;
  return nullptr;
}

// A value computed from another function's value (`mode == "debug"` with
// `mode` a caller's argument) is decided where that value was written: its
// origin, for "selects ... here".
Value Interpreter::decidedBy(Value out, const Value& a, const Value& b, mlir::Operation* site) {
  mlir::Operation* here = defOf(site);
  mlir::Operation* from = nullptr;
  for (const Value* v : {&a, &b})
    for (const Alt& alt : *v)
      if (alt.origin && defOf(alt.origin) != here && !from)
        from = alt.origin;
  if (!from)
    return out;
  Value moved;
  for (const Alt& alt : out)
    moved.add(alt.obj, alt.origin == site ? from : alt.origin);
  return moved;
}

Value Interpreter::binary(llvm::StringRef op, const Value& a, const Value& b,
                          mlir::Operation* site) {
  if (tracedOperation_ && anyTraced(a, b))
    if (Value v = tracedOperation_(*this, op, {a, b}, site); !v.isBottom())
      return v;
  Value out = binaryAlts(op, a, b, site);
  if (anyTraced(a, b))
    for (const Alt& alt : out)
      if (auto* u = llvm::dyn_cast<UnknownObj>(alt.obj))
        u->traced = true;
  return decidedBy(out, a, b, site);
}

Value Interpreter::binaryAlts(llvm::StringRef op, const Value& a, const Value& b,
                              mlir::Operation* site) {
  Value out;
  for (const Alt& x : a) {
    auto one = [&](Object* y) -> Value {
      Object* l = x.obj;
      if (op == "unary-" || op == "unary+" || op == "unary~") {
        if (auto i = intOf(l)) {
          if (op == "unary-")
            return integer(-*i, site);
          if (op == "unary~")
            return integer(~*i, site);
          return integer(*i, site);
        }
        if (auto* f = llvm::dyn_cast<FloatObj>(l))
          return Value(heap_.floating(op == "unary-" ? -f->v : f->v), site);
        if (auto* inst = llvm::dyn_cast<InstanceObj>(l)) {
          const char* hook = op == "unary-" ? "__neg__" : op == "unary+" ? "__pos__" : "__invert__";
          if (lookupInMro(inst->cls, hook))
            return call(getAttr(Value(l, x.origin), hook, site), {}, site);
        }
        return unknown(op.substr(5).str() + describe(l), site);
      }
      if (l->kind == Kind::Unknown || y->kind == Kind::Unknown)
        return unknown(describe(l) + " " + op.str() + " " + describe(y), site);
      // Numbers.
      auto li = intOf(l), ri = intOf(y);
      if (li && ri) {
        int64_t p = *li, q = *ri, r = 0;
        if (op == "+")
          r = p + q;
        else if (op == "-")
          r = p - q;
        else if (op == "*")
          r = p * q;
        else if (op == "//") {
          if (q == 0)
            return unknown("division by zero", site);
          r = floorDiv(p, q);
        } else if (op == "%") {
          if (q == 0)
            return unknown("division by zero", site);
          r = floorMod(p, q);
        } else if (op == "**") {
          if (q < 0)
            return Value(heap_.floating(std::pow(static_cast<double>(p), static_cast<double>(q))),
                         site);
          r = 1;
          for (int64_t k = 0; k < q && k < 64; ++k)
            r *= p;
        } else if (op == "<<")
          r = q < 63 ? p << q : 0;
        else if (op == ">>")
          r = q < 63 ? p >> q : 0;
        else if (op == "&")
          r = p & q;
        else if (op == "|") {
          if (l->kind == Kind::Bool && y->kind == Kind::Bool)
            return boolean(p | q, site);
          r = p | q;
        } else if (op == "^")
          r = p ^ q;
        else if (op == "/") {
          if (q == 0)
            return unknown("division by zero", site);
          return Value(heap_.floating(static_cast<double>(p) / static_cast<double>(q)), site);
        } else
          return unknown("an operator", site);
        return integer(r, site);
      }
      auto lf = numberOf(l), rf = numberOf(y);
      if (lf && rf) {
        double p = *lf, q = *rf, r = 0;
        if (op == "+")
          r = p + q;
        else if (op == "-")
          r = p - q;
        else if (op == "*")
          r = p * q;
        else if (op == "/") {
          if (q == 0)
            return unknown("division by zero", site);
          r = p / q;
        } else if (op == "//") {
          if (q == 0)
            return unknown("division by zero", site);
          r = std::floor(p / q);
        } else if (op == "**")
          r = std::pow(p, q);
        else if (op == "%") {
          if (q == 0)
            return unknown("division by zero", site);
          r = p - std::floor(p / q) * q;
        } else
          return unknown("an operator", site);
        return Value(heap_.floating(r), site);
      }
      // Sequences.
      if (op == "+") {
        if (auto* s = llvm::dyn_cast<StrObj>(l))
          if (auto* t = llvm::dyn_cast<StrObj>(y); t && s->kind == t->kind)
            return Value(heap_.string(s->v + t->v, s->kind == Kind::Bytes), site);
        if (auto* s = llvm::dyn_cast<TupleObj>(l))
          if (auto* t = llvm::dyn_cast<TupleObj>(y)) {
            std::vector<Value> e = s->elems;
            e.insert(e.end(), t->elems.begin(), t->elems.end());
            return tuple(e, site);
          }
        if (auto* s = llvm::dyn_cast<ListObj>(l); s && l->kind == Kind::List)
          if (auto* t = llvm::dyn_cast<ListObj>(y); t && y->kind == Kind::List) {
            auto* r = heap_.make<ListObj>();
            r->elems = s->elems;
            r->elems.insert(r->elems.end(), t->elems.begin(), t->elems.end());
            r->exact = s->exact && t->exact;
            if (op == "+" && site && llvm::isa<BinaryOp>(site) &&
                llvm::cast<BinaryOp>(site).getInplace()) {
              heap_.willWrite(s);
              s->elems = r->elems;
              s->exact = r->exact;
              return Value(s, x.origin);
            }
            return Value(r, site);
          }
      }
      if (op == "*") {
        auto repeat = [&](Object* seq, int64_t n) -> Value {
          if (n < 0)
            n = 0;
          if (n > 4096)
            return unknown("a long repetition", site);
          if (auto* s = llvm::dyn_cast<StrObj>(seq)) {
            std::string r;
            for (int64_t k = 0; k < n; ++k)
              r += s->v;
            return Value(heap_.string(r), site);
          }
          std::vector<Value> src;
          bool exact = true;
          if (auto* t = llvm::dyn_cast<TupleObj>(seq))
            src = t->elems;
          else if (auto* li2 = llvm::dyn_cast<ListObj>(seq)) {
            src = li2->elems;
            exact = li2->exact;
          } else
            return unknown("a repetition", site);
          std::vector<Value> e;
          for (int64_t k = 0; k < n; ++k)
            e.insert(e.end(), src.begin(), src.end());
          if (seq->kind == Kind::Tuple)
            return tuple(e, site);
          auto* r = heap_.make<ListObj>();
          r->elems = e;
          r->exact = exact;
          return Value(r, site);
        };
        if (ri)
          return repeat(l, *ri);
        if (li)
          return repeat(y, *li);
      }
      if (op == "%")
        if (auto* s = llvm::dyn_cast<StrObj>(l))
          return unknown("a %-formatted string from \"" + s->v + "\"", site);
      if (op == "|")
        if (auto* d = llvm::dyn_cast<DictObj>(l))
          if (auto* e = llvm::dyn_cast<DictObj>(y)) {
            auto* r = heap_.make<DictObj>();
            r->items = d->items;
            for (const auto& [k, v] : e->items) {
              bool replaced = false;
              for (auto& [rk, rv] : r->items)
                if (Object* p = rk.single(); p && k.single() && sameValue(p, k.single()) == true) {
                  rv = v;
                  replaced = true;
                }
              if (!replaced)
                r->items.push_back({k, v});
            }
            r->exact = d->exact && e->exact;
            return Value(r, site);
          }
      // User-defined operators.
      static const std::map<std::string, std::pair<const char*, const char*>> dunders = {
          {"+", {"__add__", "__radd__"}},
          {"-", {"__sub__", "__rsub__"}},
          {"*", {"__mul__", "__rmul__"}},
          {"/", {"__truediv__", "__rtruediv__"}},
          {"//", {"__floordiv__", "__rfloordiv__"}},
          {"%", {"__mod__", "__rmod__"}},
          {"@", {"__matmul__", "__rmatmul__"}},
          {"|", {"__or__", "__ror__"}},
          {"&", {"__and__", "__rand__"}},
          {"**", {"__pow__", "__rpow__"}}};
      auto it = dunders.find(op.str());
      if (it != dunders.end()) {
        if (auto* inst = llvm::dyn_cast<InstanceObj>(l))
          if (lookupInMro(inst->cls, it->second.first)) {
            CallArgs args;
            args.positional = {Value(y, site)};
            return call(getAttr(Value(l, x.origin), it->second.first, site), args, site);
          }
        if (auto* inst = llvm::dyn_cast<InstanceObj>(y))
          if (lookupInMro(inst->cls, it->second.second)) {
            CallArgs args;
            args.positional = {Value(l, x.origin)};
            return call(getAttr(Value(y, site), it->second.second, site), args, site);
          }
      }
      return unknown(describe(l) + " " + op.str() + " " + describe(y), site);
    };
    if (b.isBottom()) {
      out = heap_.join(out, one(nullptr));
      continue;
    }
    for (const Alt& y : b)
      out = heap_.join(out, one(y.obj));
  }
  return out;
}

Value Interpreter::compare(llvm::StringRef op, const Value& a, const Value& b,
                           mlir::Operation* site) {
  // `x in obj` asks obj's __contains__ (its result keeps its reason).
  if ((op == "in" || op == "not in") && b.size() == 1)
    if (auto* inst = llvm::dyn_cast<InstanceObj>(b.single());
        inst && lookupInMro(inst->cls, "__contains__")) {
      CallArgs args;
      args.positional = {a};
      Value r = call(getAttr(b, "__contains__", site), args, site);
      std::optional<bool> t = truth(r, site);
      if (t)
        return boolean(op == "in" ? *t : !*t, site);
      return op == "in" ? r : unknown("not " + describe(r), site);
    }
  std::optional<bool> result;
  bool first = true, unknownSeen = false;
  for (const Alt& x : a)
    for (const Alt& y : b) {
      std::optional<bool> t;
      Object* l = x.obj;
      Object* r = y.obj;
      if (op == "is" || op == "is not") {
        if (l == r && l->kind != Kind::Unknown)
          t = true;
        else if (l->kind == Kind::Unknown || r->kind == Kind::Unknown)
          t = std::nullopt;
        else if ((!isMutable(l->kind) && !isMutable(r->kind) && l->kind != r->kind) ||
                 l->kind == Kind::None || r->kind == Kind::None)
          t = false;
        else if (isMutable(l->kind) || isMutable(r->kind))
          t = l == r;
        else
          t = sameValue(l, r);
        if (t && op == "is not")
          t = !*t;
      } else if (op == "==" || op == "!=") {
        if (auto* inst = llvm::dyn_cast<InstanceObj>(l); inst && lookupInMro(inst->cls, "__eq__")) {
          CallArgs args;
          args.positional = {Value(r, y.origin)};
          t = truth(call(getAttr(Value(l, x.origin), "__eq__", site), args, site), site);
        } else {
          t = sameValue(l, r);
          if (!t && l->kind == Kind::Instance && r->kind == Kind::Instance)
            t = l == r; // identity unless __eq__
          if (!t && (l->kind == Kind::Instance) != (r->kind == Kind::Instance) &&
              l->kind != Kind::Unknown && r->kind != Kind::Unknown && l->kind != Kind::External &&
              r->kind != Kind::External)
            t = false;
        }
        if (t && op == "!=")
          t = !*t;
      } else if (op == "in" || op == "not in") {
        Elements e = elements(Value(r, y.origin), site);
        if (auto* d = llvm::dyn_cast<DictObj>(r)) {
          e.items.clear();
          e.exact = d->exact;
          for (const auto& [k, v] : d->items)
            e.items.push_back(k);
        }
        if (auto* s = llvm::dyn_cast<StrObj>(r))
          if (auto* sub = llvm::dyn_cast<StrObj>(l)) {
            t = s->v.find(sub->v) != std::string::npos;
            e.items.clear();
            e.exact = false;
          }
        if (!t) {
          bool any = false, unsure = !e.exact;
          for (const Value& item : e.items)
            for (const Alt& ia : item) {
              std::optional<bool> s = sameValue(l, ia.obj);
              if (s == true)
                any = true;
              else if (!s)
                unsure = true;
            }
          if (any)
            t = true;
          else if (!unsure)
            t = false;
        }
        if (t && op == "not in")
          t = !*t;
      } else {
        auto p = numberOf(l), q = numberOf(r);
        if (p && q) {
          if (op == "<")
            t = *p < *q;
          else if (op == "<=")
            t = *p <= *q;
          else if (op == ">")
            t = *p > *q;
          else if (op == ">=")
            t = *p >= *q;
        } else if (auto* s = llvm::dyn_cast<StrObj>(l)) {
          if (auto* u = llvm::dyn_cast<StrObj>(r)) {
            int c = s->v.compare(u->v);
            if (op == "<")
              t = c < 0;
            else if (op == "<=")
              t = c <= 0;
            else if (op == ">")
              t = c > 0;
            else if (op == ">=")
              t = c >= 0;
          }
        } else if (auto* tl = llvm::dyn_cast<TupleObj>(l)) {
          // Tuples compare element by element (version checks).
          if (auto* tr = llvm::dyn_cast<TupleObj>(r)) {
            size_t n = std::min(tl->elems.size(), tr->elems.size());
            std::optional<int> c = 0;
            for (size_t i = 0; i < n && c == 0; ++i) {
              auto pe = tl->elems[i].single() ? numberOf(tl->elems[i].single()) : std::nullopt;
              auto qe = tr->elems[i].single() ? numberOf(tr->elems[i].single()) : std::nullopt;
              if (!pe || !qe)
                c = std::nullopt;
              else if (*pe != *qe)
                c = *pe < *qe ? -1 : 1;
            }
            if (c && *c == 0)
              c = tl->elems.size() < tr->elems.size() ? -1 : (tl->elems.size() > tr->elems.size());
            if (c) {
              if (op == "<")
                t = *c < 0;
              else if (op == "<=")
                t = *c <= 0;
              else if (op == ">")
                t = *c > 0;
              else if (op == ">=")
                t = *c >= 0;
            }
          }
        }
      }
      if (!t) {
        unknownSeen = true;
        continue;
      }
      if (first)
        result = t;
      else if (result != t)
        unknownSeen = true;
      first = false;
    }
  if (unknownSeen || !result) {
    if (result && !unknownSeen)
      return decidedBy(boolean(*result, site), a, b, site);
    // Either value may come out.
    return decidedBy(unknown(describe(a) + " " + op.str() + " " + describe(b), site), a, b, site);
  }
  return decidedBy(boolean(*result, site), a, b, site);
}

// ---- subscripts ---------------------------------------------------------------------

Value Interpreter::subscript(const Value& obj, const Value& index, mlir::Operation* site) {
  Value out;
  for (const Alt& o : obj) {
    auto one = [&](Object* idx) -> Value {
      Object* c = o.obj;
      if (c->kind == Kind::Unknown)
        return unknown(llvm::cast<UnknownObj>(c)->why + "[...]", site);
      auto seqItems = [&](std::vector<Value>& items, bool& exact) -> bool {
        if (auto* t = llvm::dyn_cast<TupleObj>(c)) {
          items = t->elems;
          exact = true;
          return true;
        }
        if (auto* l = llvm::dyn_cast<ListObj>(c); l && c->kind == Kind::List) {
          items = l->elems;
          exact = l->exact;
          return true;
        }
        return false;
      };
      std::vector<Value> items;
      bool exact = false;
      if (seqItems(items, exact)) {
        if (auto i = intOf(idx)) {
          if (!exact)
            return items.empty() ? unknown("an element of a list", site) : items[0];
          int64_t n = static_cast<int64_t>(items.size());
          int64_t k = *i < 0 ? *i + n : *i;
          if (k < 0 || k >= n)
            return unknown("an index out of range", site);
          return items[static_cast<size_t>(k)];
        }
        if (auto* sl = llvm::dyn_cast<SliceObj>(idx)) {
          if (!exact)
            return Value(c, o.origin);
          int64_t n = static_cast<int64_t>(items.size());
          auto bound = [&](const Value& v, int64_t dflt) -> std::optional<int64_t> {
            Object* b = v.single();
            if (!b || b->kind == Kind::None)
              return dflt;
            auto iv = intOf(b);
            if (!iv)
              return std::nullopt;
            int64_t k = *iv < 0 ? *iv + n : *iv;
            return std::clamp<int64_t>(k, 0, n);
          };
          auto stepV = sl->step.single();
          int64_t step = 1;
          if (stepV && stepV->kind != Kind::None) {
            auto sv = intOf(stepV);
            if (!sv || *sv == 0)
              return unknown("a slice", site);
            step = *sv;
          }
          std::vector<Value> r;
          if (step > 0) {
            auto lo = bound(sl->lo, 0), hi = bound(sl->hi, n);
            if (!lo || !hi)
              return unknown("a slice", site);
            for (int64_t k = *lo; k < *hi; k += step)
              r.push_back(items[static_cast<size_t>(k)]);
          } else {
            auto lo = bound(sl->lo, n - 1), hi = bound(sl->hi, -1);
            if (!lo || !hi)
              return unknown("a slice", site);
            for (int64_t k = std::min(*lo, n - 1); k > *hi; k += step)
              r.push_back(items[static_cast<size_t>(k)]);
          }
          if (c->kind == Kind::Tuple)
            return tuple(r, site);
          return list(r, site);
        }
        return unknown("an element of a sequence at an index not known", site);
      }
      if (auto* s = llvm::dyn_cast<StrObj>(c)) {
        if (auto i = intOf(idx)) {
          int64_t n = static_cast<int64_t>(s->v.size());
          int64_t k = *i < 0 ? *i + n : *i;
          if (k >= 0 && k < n)
            return str(std::string(1, s->v[static_cast<size_t>(k)]), site);
        }
        return unknown("part of a string", site);
      }
      if (auto* d = llvm::dyn_cast<DictObj>(c)) {
        Value found;
        bool certain = false;
        for (const auto& [k, v] : d->items) {
          Object* key = k.single();
          std::optional<bool> same = key ? sameValue(key, idx) : std::nullopt;
          if (same == true) {
            found = heap_.join(found, v);
            certain = true;
            break;
          }
          if (!same)
            found = heap_.join(found, v);
        }
        if (!d->exact)
          found =
              heap_.join(found, d->others.isBottom() ? unknown("an entry of a dict not known", site)
                                                     : d->others);
        if (found.isBottom() && !certain)
          return unknown("a missing key " + describe(idx), site); // KeyError
        return found;
      }
      if (auto* inst = llvm::dyn_cast<InstanceObj>(c))
        if (lookupInMro(inst->cls, "__getitem__")) {
          CallArgs args;
          args.positional = {Value(idx, site)};
          return call(getAttr(Value(c, o.origin), "__getitem__", site), args, site);
        }
      if (auto* cls = llvm::dyn_cast<ClassObj>(c)) {
        if (const Value* hook = lookupInMro(cls, "__class_getitem__")) {
          CallArgs args;
          args.positional = {Value(cls, site), Value(idx, site)};
          return call(*hook, args, site);
        }
        // Enum classes look members up by name (EnumType.__getitem__).
        for (const Alt& m : cls->metaclass)
          if (auto* meta = llvm::dyn_cast<ClassObj>(m.obj))
            if (const Value* hook = lookupInMro(meta, "__getitem__")) {
              CallArgs args;
              args.positional = {Value(cls, site), Value(idx, site)};
              return call(*hook, args, site);
            }
        return Value(cls, site); // typing generics: List[int] is used as a type
      }
      if (auto* e = llvm::dyn_cast<ExternalObj>(c))
        return unknown(canonical(e->qualname) + "[...]", site);
      return unknown(describe(c) + "[...]", site);
    };
    if (index.isBottom())
      continue;
    for (const Alt& i : index)
      out = heap_.join(out, one(i.obj));
  }
  return out;
}

void Interpreter::setItem(const Value& obj, const Value& index, const Value& v,
                          mlir::Operation* site) {
  bool several = obj.size() > 1 || index.size() > 1;
  for (const Alt& o : obj) {
    Object* c = o.obj;
    if (auto* d = llvm::dyn_cast<DictObj>(c)) {
      heap_.willWrite(d);
      Object* key = index.single();
      // A library object is a key only when an overlay knows what it is
      // (a dtype): another spelling of it could be the same key.
      auto* ext = llvm::dyn_cast_or_null<ExternalObj>(key);
      if (!key || key->kind == Kind::Unknown || (ext && ext->identity.empty())) {
        d->exact = false;
        d->others = heap_.join(d->others, v);
        continue;
      }
      bool replaced = false;
      for (auto& [k, val] : d->items)
        if (Object* kk = k.single(); kk && sameValue(kk, key) == true) {
          val = several ? heap_.join(val, v) : v;
          replaced = true;
          break;
        }
      if (!replaced)
        d->items.push_back({Value(key, index.origin()), v});
    } else if (auto* l = llvm::dyn_cast<ListObj>(c); l && c->kind == Kind::List) {
      heap_.willWrite(l);
      auto i = index.single() ? intOf(index.single()) : std::nullopt;
      int64_t n = static_cast<int64_t>(l->elems.size());
      if (i && l->exact && (*i < n && *i >= -n)) {
        size_t k = static_cast<size_t>(*i < 0 ? *i + n : *i);
        l->elems[k] = several ? heap_.join(l->elems[k], v) : v;
      } else {
        Value any = v;
        for (const Value& e : l->elems)
          any = heap_.join(any, e);
        l->elems = {any};
        l->exact = false;
      }
    } else if (auto* inst = llvm::dyn_cast<InstanceObj>(c)) {
      if (lookupInMro(inst->cls, "__setitem__")) {
        CallArgs args;
        args.positional = {index, v};
        call(getAttr(Value(c, o.origin), "__setitem__", site), args, site);
      }
    }
  }
}

// ---- iteration --------------------------------------------------------------------------

Interpreter::Elements Interpreter::elements(const Value& iterable, mlir::Operation* site) {
  Elements out;
  if (iterable.size() != 1) {
    // Several iterables: each element may be any of theirs.
    Value any;
    for (const Alt& alt : iterable) {
      Elements e = elements(Value(alt.obj, alt.origin), site);
      for (const Value& v : e.items)
        any = heap_.join(any, v);
    }
    if (!any.isBottom())
      out.items.push_back(any);
    return out;
  }
  Object* o = iterable.single();
  switch (o->kind) {
  case Kind::Tuple:
    out.exact = true;
    out.items = llvm::cast<TupleObj>(o)->elems;
    return out;
  case Kind::List:
  case Kind::Set: {
    auto* l = llvm::cast<ListObj>(o);
    out.exact = l->exact;
    out.items = l->elems;
    if (!out.exact && out.items.size() > 1) {
      Value any;
      for (const Value& v : out.items)
        any = heap_.join(any, v);
      out.items = {any};
    }
    return out;
  }
  case Kind::Dict: {
    auto* d = llvm::cast<DictObj>(o);
    out.exact = d->exact;
    for (const auto& [k, v] : d->items)
      out.items.push_back(k);
    if (!d->exact) {
      Value any = unknown("a key of a dict not known", site);
      for (const Value& k : out.items)
        any = heap_.join(any, k);
      out.items = {any};
    }
    return out;
  }
  case Kind::Str: {
    auto* s = llvm::cast<StrObj>(o);
    out.exact = s->v.size() <= 256;
    for (char c : s->v)
      out.items.push_back(str(std::string(1, c), site));
    return out;
  }
  case Kind::Range: {
    auto* r = llvm::cast<RangeObj>(o);
    int64_t n = 0;
    if (r->step > 0 && r->stop > r->start)
      n = (r->stop - r->start + r->step - 1) / r->step;
    else if (r->step < 0 && r->stop < r->start)
      n = (r->start - r->stop - r->step - 1) / -r->step;
    if (n <= static_cast<int64_t>(options_.maxUnroll)) {
      out.exact = true;
      for (int64_t k = 0; k < n; ++k)
        out.items.push_back(integer(r->start + k * r->step, site));
    } else {
      out.items.push_back(unknown("an element of a long range", site));
    }
    return out;
  }
  case Kind::Generator: {
    auto* g = llvm::cast<GeneratorObj>(o);
    bool unsure = false;
    // A yield inside a branch of the generator's own code may not happen;
    // the code consuming it being in a branch (a kernel traced as one
    // possible run) does not make its yields uncertain.
    size_t consumerDepth = heap_.branchDepth();
    std::vector<Value> got;
    runGenerator(g, [&](const Value& v) {
      if (heap_.branchDepth() > consumerDepth)
        unsure = true;
      got.push_back(v);
      return got.size() < options_.maxUnroll;
    });
    out.exact = !unsure && got.size() < options_.maxUnroll;
    out.items = got;
    if (!out.exact) {
      Value any;
      for (const Value& v : got)
        any = heap_.join(any, v);
      out.items.clear();
      if (!any.isBottom())
        out.items.push_back(any);
    }
    return out;
  }
  case Kind::Instance: {
    auto* inst = llvm::cast<InstanceObj>(o);
    if (lookupInMro(inst->cls, "__iter__")) {
      Value it = call(getAttr(iterable, "__iter__", site), {}, site);
      if (it.single() == o) // `return self` with __next__: not followed
        break;
      return elements(it, site);
    }
    break;
  }
  case Kind::Class: {
    auto* cls = llvm::cast<ClassObj>(o);
    for (const Alt& m : cls->metaclass)
      if (auto* meta = llvm::dyn_cast<ClassObj>(m.obj))
        if (const Value* hook = lookupInMro(meta, "__iter__")) {
          CallArgs args;
          args.positional = {iterable};
          return elements(call(*hook, args, site), site);
        }
    break;
  }
  default:
    break;
  }
  out.exact = false;
  out.items.push_back(unknown("an element of " + describe(o), site));
  return out;
}

std::optional<bool> Interpreter::exceptionMatches(const Value& exception, const Value& type,
                                                  mlir::Operation* site) {
  if (exception.isBottom())
    return std::nullopt;
  std::vector<ClassObj*> types;
  Elements list = elements(type, site);
  std::vector<Value> typeValues =
      type.single() && type.single()->kind == Kind::Tuple ? list.items : std::vector<Value>{type};
  for (const Value& t : typeValues)
    for (const Alt& alt : t) {
      if (auto* c = llvm::dyn_cast<ClassObj>(alt.obj))
        types.push_back(c);
      else if (auto* e = llvm::dyn_cast<ExternalObj>(alt.obj))
        types.push_back(externalClass(e->qualname));
      else
        return std::nullopt;
    }
  std::optional<bool> result;
  for (const Alt& alt : exception) {
    ClassObj* cls = llvm::dyn_cast<ClassObj>(alt.obj);
    if (!cls)
      if (auto* inst = llvm::dyn_cast<InstanceObj>(alt.obj))
        cls = inst->cls;
    if (!cls)
      return std::nullopt;
    bool any = false;
    for (ClassObj* t : types)
      any = any || isSubclass(cls, t) || t->external == "builtins.BaseException" ||
            (t->external == "builtins.Exception" && cls->external != "builtins.KeyboardInterrupt");
    // A library class whose bases an overlay did not give may derive from
    // any of the types; the builtin exceptions' hierarchy is known.
    bool unsure = !any && (hasLibraryBase(cls) || (!cls->external.empty() && cls->bases.empty()));
    if (unsure)
      return std::nullopt;
    if (result && *result != any)
      return std::nullopt;
    result = any;
  }
  return result;
}

bool Interpreter::hasLibraryBase(ClassObj* cls) {
  for (ClassObj* c : cls->mro)
    if (!c->external.empty() && c->external != "builtins.object" &&
        c->external.rfind("builtins.", 0) != 0)
      return true;
  return false;
}

// ---- displays ---------------------------------------------------------------------------

Value Exec::display(mlir::Operation* op, mlir::ValueRange elems, llvm::ArrayRef<bool> starred,
                    Kind kind) {
  std::vector<Value> items;
  bool exact = true;
  for (size_t i = 0; i < elems.size(); ++i) {
    Value v = a.get(elems[i]);
    if (i < starred.size() && starred[i]) {
      Interpreter::Elements e = in.elements(v, op);
      if (!e.exact)
        exact = false;
      items.insert(items.end(), e.items.begin(), e.items.end());
    } else {
      items.push_back(v);
    }
  }
  if (kind == Kind::Tuple && exact)
    return in.tuple(items, op);
  auto* l = in.heap_.make<ListObj>(kind == Kind::Set ? Kind::Set : Kind::List);
  l->elems = items;
  l->exact = exact;
  if (kind == Kind::Tuple) // a tuple whose length is not known reads like a list
    return Value(l, op);
  return Value(l, op);
}

Value Exec::dictOp(DictOp d) {
  auto* dict = in.heap_.make<DictObj>();
  auto items = d.getItems();
  auto splat = d.getSplat();
  size_t k = 0;
  Value self(dict, d);
  for (bool isSplat : splat) {
    if (isSplat) {
      Value m = a.get(items[k++]);
      auto* src = llvm::dyn_cast_or_null<DictObj>(m.single());
      if (!src) {
        dict->exact = false;
        dict->others = in.heap_.join(dict->others, in.unknown("an entry of " + describe(m), d));
        continue;
      }
      for (const auto& [key, val] : src->items)
        in.setItem(self, key, val, d);
      if (!src->exact) {
        dict->exact = false;
        dict->others = in.heap_.join(dict->others, src->others);
      }
    } else {
      Value key = a.get(items[k]);
      Value val = a.get(items[k + 1]);
      k += 2;
      in.setItem(self, key, val, d);
    }
  }
  return self;
}

void Exec::unpack(UnpackOp u) {
  Value v = a.get(u.getValue());
  int64_t star = u.getStar();
  size_t n = u.getTargets().size();
  Interpreter::Elements e = in.elements(v, u);
  if (e.exact && (star >= 0 ? e.items.size() >= n - 1 : e.items.size() == n)) {
    size_t before = star >= 0 ? static_cast<size_t>(star) : n;
    size_t after = star >= 0 ? n - before - 1 : 0;
    for (size_t i = 0; i < before; ++i)
      a.set(u.getTargets()[i], e.items[i]);
    if (star >= 0) {
      std::vector<Value> middle(e.items.begin() + static_cast<long>(before),
                                e.items.end() - static_cast<long>(after));
      a.set(u.getTargets()[before], in.list(middle, u));
      for (size_t i = 0; i < after; ++i)
        a.set(u.getTargets()[before + 1 + i], e.items[e.items.size() - after + i]);
    }
    return;
  }
  Value any;
  for (const Value& item : e.items)
    any = in.heap_.join(any, item);
  if (any.isBottom() || e.exact)
    any = in.unknown("an element unpacked from " + describe(v), u);
  for (auto [i, target] : llvm::enumerate(u.getTargets())) {
    if (static_cast<int64_t>(i) == star) {
      auto* l = in.heap_.make<ListObj>();
      l->exact = false;
      l->elems.push_back(any);
      a.set(target, Value(l, u));
    } else {
      a.set(target, any);
    }
  }
}

Value Exec::comprehension(ComprehensionOp c) {
  llvm::StringRef kind = c.getKind();
  Object* target = nullptr;
  if (kind == "dict")
    target = in.heap_.make<DictObj>();
  else
    target = in.heap_.make<ListObj>(kind == "set" ? Kind::Set : Kind::List);
  auto* frame = in.heap_.make<FrameObj>();
  frame->enclosing = a.frame;
  frame->module = a.module;
  frame->scope = c;
  Interpreter::Activation act;
  act.module = a.module;
  act.frame = frame;
  act.doc = a.doc;
  act.appendTarget = target;
  act.set(c.getBody().front().getArgument(0), a.get(c.getIterable()));
  Interpreter::Activation* saved = in.current_;
  in.current_ = &act;
  Exec{in, act}.region(c.getBody());
  in.current_ = saved;
  return Value(target, c);
}

void Exec::append(AppendOp ap) {
  Object* t = a.appendTarget;
  if (!t)
    return;
  if (ap.getItems().size() == 2)
    in.setItem(Value(t, ap), a.get(ap.getItems()[0]), a.get(ap.getItems()[1]), ap);
  else if (auto* l = llvm::dyn_cast<ListObj>(t)) {
    in.heap_.willWrite(l);
    l->elems.push_back(a.get(ap.getItems()[0]));
  }
}

Value Exec::yieldOp(YieldOp y) {
  Value v = a.get(y.getValue());
  if (!a.onYield)
    return in.unknown("a value sent into a generator", y);
  if (y.getFrom()) {
    Interpreter::Elements e = in.elements(v, y);
    for (const Value& item : e.items) {
      if (!a.onYield(item)) {
        a.flow = Flow::Stop;
        break;
      }
    }
    return in.unknown("the result of yield from", y);
  }
  if (!a.onYield(v))
    a.flow = Flow::Stop;
  return in.none(y);
}

Value Exec::formatOp(FormatOp f) {
  Value v = a.get(f.getArgs()[0]);
  Object* o = v.single();
  bool hasSpec = f.getArgs().size() > 1;
  if (o && !hasSpec && f.getConversion().empty()) {
    if (auto* s = llvm::dyn_cast<StrObj>(o); s && o->kind == Kind::Str)
      return in.str(s->v, f);
    if (auto* i = llvm::dyn_cast<IntObj>(o))
      return in.str(std::to_string(i->v), f);
    if (auto* b = llvm::dyn_cast<BoolObj>(o))
      return in.str(b->v ? "True" : "False", f);
    if (o->kind == Kind::None)
      return in.str("None", f);
    if (auto* inst = llvm::dyn_cast<InstanceObj>(o))
      if (in.lookupInMro(inst->cls, "__format__") || in.lookupInMro(inst->cls, "__str__")) {
        const char* hook = in.lookupInMro(inst->cls, "__format__") ? "__format__" : "__str__";
        CallArgs args;
        if (std::string(hook) == "__format__")
          args.positional.push_back(in.str("", f));
        return in.call(in.getAttr(v, hook, f), args, f);
      }
  }
  return in.unknown("a formatted value", f);
}

Value Exec::joinStr(JoinStrOp j) {
  std::string out;
  for (mlir::Value p : j.getParts()) {
    auto* s = llvm::dyn_cast_or_null<StrObj>(a.get(p).single());
    if (!s)
      return in.unknown("an f-string", j);
    out += s->v;
  }
  return in.str(out, j);
}

void Exec::matchClass(MatchClassOp m) {
  Value subject = a.get(m.getSubject());
  Value cls = a.get(m.getCls());
  CallArgs args;
  args.positional = {subject, cls};
  const BuiltinObj* isinst = in.native("builtins.isinstance");
  Value matched = isinst ? isinst->fn(in, args, m, isinst) : in.unknown("isinstance", m);
  a.set(m.getMatched(), matched);
  // Positional sub-patterns read __match_args__.
  Value names = in.getAttr(cls, "__match_args__", m);
  Interpreter::Elements e = in.elements(names, m);
  for (size_t i = 0; i < m.getParts().size(); ++i) {
    Value part;
    if (e.exact && i < e.items.size())
      if (auto* s = llvm::dyn_cast_or_null<StrObj>(e.items[i].single()))
        part = in.getAttr(subject, s->v, m);
    if (part.isBottom())
      part = in.unknown("a positional sub-pattern's subject", m);
    a.set(m.getParts()[i], part);
  }
}

void Exec::withOp(WithOp w) {
  Value manager = a.get(w.getManager());
  mlir::Block& body = w.getBody().front();
  auto runBody = [&](const Value& entered) {
    a.set(body.getArgument(0), entered);
    region(w.getBody());
  };
  std::vector<std::function<void()>> ways;
  for (const Alt& alt : manager) {
    Object* m = alt.obj;
    ways.push_back([&, m, alt] {
      Value self(m, alt.origin);
      // A generator-based context manager (contextlib overlay): the body runs
      // at its yield, the rest of the generator after it.
      if (auto* inst = llvm::dyn_cast<InstanceObj>(m))
        if (GeneratorObj* gen = in.contextGenerator(inst)) {
          bool ran = false;
          in.runGenerator(gen, [&](const Value& v) {
            if (ran)
              return true;
            ran = true;
            runBody(v);
            return true;
          });
          if (!ran)
            runBody(in.unknown("the value a context manager yields", w));
          return;
        }
      bool hasEnter = false;
      if (auto* inst = llvm::dyn_cast<InstanceObj>(m))
        hasEnter = in.lookupInMro(inst->cls, "__enter__") != nullptr;
      if (!hasEnter) {
        runBody(in.unknown("what " + describe(m) + " enters", w));
        return;
      }
      Value entered = in.call(in.getAttr(self, "__enter__", w), {}, w);
      if (in.pendingRaise_) { // __enter__ raised: the body does not run
        in.pendingRaise_ = false;
        a.raised = in.pendingException_;
        a.flow = Flow::Raise;
        return;
      }
      Flow pending = Flow::Normal;
      runBody(entered);
      pending = a.flow;
      Value exception = a.raised;
      a.flow = Flow::Normal;
      // __exit__ sees the exception the body raised, and a true result
      // suppresses it (contextlib.suppress, assertRaises).
      CallArgs exitArgs;
      exitArgs.positional = {in.none(w), in.none(w), in.none(w)};
      if (pending == Flow::Raise) {
        Value type;
        for (const Alt& e : exception) {
          if (llvm::isa<ClassObj>(e.obj))
            type.add(e.obj, e.origin);
          else if (auto* inst = llvm::dyn_cast<InstanceObj>(e.obj))
            type.add(inst->cls, e.origin);
          else
            type = in.heap_.join(type, in.unknown("the type of " + describe(e.obj), w));
        }
        if (exception.isBottom())
          exception = type = in.unknown("the exception raised", w);
        exitArgs.positional = {type, exception, in.unknown("a traceback", w)};
      }
      Value suppressed = in.call(in.getAttr(self, "__exit__", w), exitArgs, w);
      if (in.pendingRaise_) {
        in.pendingRaise_ = false;
        a.raised = in.pendingException_;
        a.flow = Flow::Raise;
        return;
      }
      if (pending == Flow::Raise) {
        std::optional<bool> t = in.truth(suppressed, w);
        if (t == true)
          return;
        if (!t) { // may be suppressed: the code after the with may run
          ++in.mayRaise_;
          return;
        }
        a.raised = exception;
      }
      if (a.flow == Flow::Normal)
        a.flow = pending;
    });
  }
  if (ways.size() == 1)
    ways[0]();
  else if (!ways.empty())
    in.sides(ways);
}

} // namespace pallas::eval
