// Overlay: itertools. Each function gives an eager list of what the
// iterator would yield: exact when its inputs are (their elements known in
// number and order) and the result is small, else a list of any length
// whose element is the join of what it may hold. Infinite iterators
// (count, cycle, repeat without times) are lists of unknown length; islice
// of a generator runs it only as far as needed.
#include "Util.h"

namespace pallas::eval {
namespace {

using namespace overlay;

constexpr size_t kMaxResults = 1024;

Value joinAll(Interpreter& in, const std::vector<Value>& items, const std::string& why,
              mlir::Operation* site) {
  Value any;
  for (const Value& v : items)
    any = in.heap().join(any, v);
  return any.isBottom() ? in.unknown(why, site) : any;
}

// What a list of unknown length holds.
Value inexact(Interpreter& in, const Value& element, mlir::Operation* site) {
  return listOf(in, {element}, false, site);
}

Interpreter::Elements elementsOf(Interpreter& in, const Value* v, mlir::Operation* site) {
  if (!v) {
    Interpreter::Elements e;
    e.exact = false;
    return e;
  }
  return in.elements(*v, site);
}

Value product(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  std::optional<int64_t> repeat = 1;
  if (const Value* r = a.keyword("repeat"))
    repeat = intOf(r);
  std::vector<Interpreter::Elements> pools;
  bool exact = !a.morePositional && repeat.has_value();
  for (const Value& v : a.positional) {
    pools.push_back(in.elements(v, site));
    exact = exact && pools.back().exact;
  }
  if (exact) {
    std::vector<Interpreter::Elements> all;
    for (int64_t k = 0; k < *repeat; ++k)
      all.insert(all.end(), pools.begin(), pools.end());
    size_t total = 1;
    for (const auto& p : all) {
      total *= p.items.size();
      if (total > kMaxResults)
        break;
    }
    if (total <= kMaxResults) {
      std::vector<std::vector<Value>> results{{}};
      for (const auto& p : all) {
        std::vector<std::vector<Value>> next;
        for (const auto& prefix : results)
          for (const Value& x : p.items) {
            next.push_back(prefix);
            next.back().push_back(x);
          }
        results = std::move(next);
      }
      std::vector<Value> out;
      out.reserve(results.size());
      for (auto& r : results)
        out.push_back(in.tuple(std::move(r), site));
      return listOf(in, std::move(out), true, site);
    }
  }
  for (const auto& p : pools)
    if (p.exact && p.items.empty())
      return listOf(in, {}, true, site);
  std::vector<Value> parts;
  parts.reserve(pools.size());
  for (const auto& p : pools)
    parts.push_back(joinAll(in, p.items, "an element of a product's input", site));
  if (!repeat || a.morePositional)
    return inexact(in, in.unknown("a tuple of itertools.product()", site), site);
  std::vector<Value> shape;
  for (int64_t k = 0; k < *repeat; ++k)
    shape.insert(shape.end(), parts.begin(), parts.end());
  return inexact(in, in.tuple(shape, site), site);
}

Value chainOf(Interpreter& in, const std::vector<Value>& iterables, bool exact,
              mlir::Operation* site) {
  std::vector<Value> out;
  for (const Value& v : iterables) {
    Interpreter::Elements e = in.elements(v, site);
    exact = exact && e.exact;
    out.insert(out.end(), e.items.begin(), e.items.end());
  }
  if (!exact && out.empty())
    out.push_back(in.unknown("an element of itertools.chain()", site));
  return listOf(in, std::move(out), exact, site);
}

Value chain(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return chainOf(in, a.positional, !a.morePositional, site);
}

Value chainFromIterable(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements outer = elementsOf(in, arg(a, 0, "iterable"), site);
  return chainOf(in, outer.items, outer.exact, site);
}

Value repeat(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* obj = arg(a, 0, "object");
  if (!obj)
    return in.unknown("itertools.repeat()", site);
  const Value* times = arg(a, 1, "times");
  if (!times)
    return inexact(in, *obj, site);
  std::optional<int64_t> n = intOf(times);
  if (!n || *n > static_cast<int64_t>(kMaxResults))
    return inexact(in, *obj, site);
  return listOf(in, std::vector<Value>(static_cast<size_t>(std::max<int64_t>(*n, 0)), *obj), true,
                site);
}

Value count(Interpreter& in, const CallArgs&, mlir::Operation* site, const Object*) {
  return inexact(in, in.unknown("an element of itertools.count()", site), site);
}

Value cycle(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0), site);
  if (e.exact && e.items.empty())
    return listOf(in, {}, true, site);
  return inexact(in, joinAll(in, e.items, "an element of itertools.cycle()", site), site);
}

Value islice(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* it = arg(a, 0);
  if (!it || a.positional.size() < 2)
    return in.unknown("itertools.islice()", site);
  auto bound = [&](size_t i, int64_t dflt) -> std::optional<int64_t> {
    const Value* v = arg(a, i);
    if (!v || isNone(v))
      return dflt;
    return intOf(v);
  };
  std::optional<int64_t> start = 0, stop, step = 1;
  bool noStop = false;
  if (a.positional.size() == 2) {
    noStop = isNone(arg(a, 1));
    stop = bound(1, -1);
  } else {
    start = bound(1, 0);
    noStop = isNone(arg(a, 2));
    stop = bound(2, -1);
    step = bound(3, 1);
  }
  std::vector<Value> items;
  bool exact = true;
  if (auto* gen = llvm::dyn_cast_or_null<GeneratorObj>(it->single()); gen && stop && !noStop) {
    // Run the generator only as far as the slice reads.
    in.runGenerator(gen, [&](const Value& v) {
      if (in.uncertain())
        exact = false;
      items.push_back(v);
      return static_cast<int64_t>(items.size()) < *stop;
    });
  } else {
    Interpreter::Elements e = in.elements(*it, site);
    items = e.items;
    exact = e.exact;
  }
  if (!exact || !start || !stop || !step || *step <= 0 || *start < 0)
    return inexact(in, joinAll(in, items, "an element of itertools.islice()", site), site);
  std::vector<Value> out;
  int64_t n = static_cast<int64_t>(items.size());
  int64_t end = noStop ? n : std::min(*stop, n);
  for (int64_t k = *start; k < end; k += *step)
    out.push_back(items[static_cast<size_t>(k)]);
  return listOf(in, std::move(out), true, site);
}

Value accumulate(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0, "iterable"), site);
  const Value* func = arg(a, 1, "func");
  if (func && isNone(func))
    func = nullptr;
  const Value* initial = a.keyword("initial");
  if (initial && isNone(initial))
    initial = nullptr;
  auto step = [&](const Value& acc, const Value& x) {
    if (!func)
      return in.binary("+", acc, x, site);
    CallArgs ca;
    ca.positional = {acc, x};
    return in.call(*func, ca, site);
  };
  if (!e.exact) {
    Value any = in.unknown("an accumulated value", site);
    if (initial)
      any = in.heap().join(any, *initial);
    return inexact(in, any, site);
  }
  std::vector<Value> out;
  std::optional<Value> acc;
  if (initial) {
    acc = *initial;
    out.push_back(*acc);
  }
  for (const Value& x : e.items) {
    acc = acc ? step(*acc, x) : x;
    out.push_back(*acc);
  }
  return listOf(in, std::move(out), true, site);
}

// Index tuples of permutations / combinations, in CPython's order.
enum class Choose { Permutations, Combinations, WithReplacement };

void indexTuples(size_t n, size_t r, Choose how, std::vector<size_t>& cur,
                 std::vector<std::vector<size_t>>& out) {
  if (out.size() > kMaxResults)
    return;
  if (cur.size() == r) {
    out.push_back(cur);
    return;
  }
  size_t from = 0;
  if (!cur.empty() && how == Choose::Combinations)
    from = cur.back() + 1;
  if (!cur.empty() && how == Choose::WithReplacement)
    from = cur.back();
  for (size_t i = from; i < n; ++i) {
    if (how == Choose::Permutations && std::find(cur.begin(), cur.end(), i) != cur.end())
      continue;
    cur.push_back(i);
    indexTuples(n, r, how, cur, out);
    cur.pop_back();
  }
}

Value choose(Interpreter& in, const CallArgs& a, mlir::Operation* site, Choose how) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0, "iterable"), site);
  const Value* rv = arg(a, 1, "r");
  std::optional<int64_t> r;
  if (!rv || isNone(rv)) {
    if (how == Choose::Permutations && e.exact)
      r = static_cast<int64_t>(e.items.size());
  } else {
    r = intOf(rv);
  }
  if (e.exact && r && *r >= 0) {
    std::vector<std::vector<size_t>> idx;
    std::vector<size_t> cur;
    size_t n = e.items.size();
    if (how != Choose::WithReplacement && static_cast<size_t>(*r) > n)
      return listOf(in, {}, true, site);
    if (how == Choose::WithReplacement && n == 0 && *r > 0)
      return listOf(in, {}, true, site);
    indexTuples(n, static_cast<size_t>(*r), how, cur, idx);
    if (idx.size() <= kMaxResults) {
      std::vector<Value> out;
      for (const auto& t : idx) {
        std::vector<Value> parts;
        parts.reserve(t.size());
        for (size_t i : t)
          parts.push_back(e.items[i]);
        out.push_back(in.tuple(std::move(parts), site));
      }
      return listOf(in, std::move(out), true, site);
    }
  }
  Value any = joinAll(in, e.items, "an element of the input", site);
  if (!r || *r > 64)
    return inexact(in, in.unknown("a tuple of elements of the input", site), site);
  return inexact(in, in.tuple(std::vector<Value>(static_cast<size_t>(*r), any), site), site);
}

Value permutations(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return choose(in, a, site, Choose::Permutations);
}
Value combinations(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return choose(in, a, site, Choose::Combinations);
}
Value combinationsWithReplacement(Interpreter& in, const CallArgs& a, mlir::Operation* site,
                                  const Object*) {
  return choose(in, a, site, Choose::WithReplacement);
}

Value zipLongest(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fill = a.keyword("fillvalue");
  Value fillValue = fill ? *fill : in.none(site);
  std::vector<Interpreter::Elements> seqs;
  bool exact = !a.morePositional;
  size_t n = 0;
  for (const Value& v : a.positional) {
    seqs.push_back(in.elements(v, site));
    exact = exact && seqs.back().exact;
    n = std::max(n, seqs.back().items.size());
  }
  if (!exact) {
    std::vector<Value> parts;
    parts.reserve(seqs.size());
    for (const auto& s : seqs)
      parts.push_back(in.heap().join(joinAll(in, s.items, "an element", site), fillValue));
    return inexact(in, in.tuple(parts, site), site);
  }
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> parts;
    parts.reserve(seqs.size());
    for (const auto& s : seqs)
      parts.push_back(i < s.items.size() ? s.items[i] : fillValue);
    out.push_back(in.tuple(std::move(parts), site));
  }
  return listOf(in, std::move(out), true, site);
}

Value starmap(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  const Value* fn = arg(a, 0);
  Interpreter::Elements e = elementsOf(in, arg(a, 1), site);
  if (!fn)
    return in.unknown("itertools.starmap()", site);
  std::vector<Value> out;
  for (const Value& item : e.items) {
    Interpreter::Elements args = in.elements(item, site);
    CallArgs ca;
    ca.positional = args.items;
    if (!args.exact) {
      ca.positional.clear();
      ca.morePositional = true;
    }
    out.push_back(in.call(*fn, ca, site));
  }
  if (!e.exact && out.empty())
    out.push_back(in.unknown("an element of itertools.starmap()", site));
  return listOf(in, std::move(out), e.exact, site);
}

// takewhile / dropwhile / filterfalse: the predicate decides each element.
enum class While { Take, Drop, FilterFalse };

Value byPredicate(Interpreter& in, const CallArgs& a, mlir::Operation* site, While how) {
  const Value* pred = arg(a, 0);
  Interpreter::Elements e = elementsOf(in, arg(a, 1), site);
  if (!pred)
    return in.unknown("an itertools predicate", site);
  std::vector<Value> out;
  bool exact = e.exact, dropping = true;
  for (const Value& x : e.items) {
    std::optional<bool> t;
    if (how == While::FilterFalse && isNone(pred)) {
      t = in.truth(x, site);
    } else {
      CallArgs ca;
      ca.positional = {x};
      t = in.truth(in.call(*pred, ca, site), site);
    }
    if (how == While::Take) {
      if (t == false)
        break;
      if (!t)
        exact = false;
      out.push_back(x);
    } else if (how == While::Drop) {
      if (dropping && t == true)
        continue;
      if (dropping && !t)
        exact = false;
      dropping = false;
      out.push_back(x);
    } else {
      if (t == true)
        continue;
      if (!t)
        exact = false;
      out.push_back(x);
    }
  }
  if (!exact && out.empty())
    out.push_back(in.unknown("an element", site));
  return listOf(in, std::move(out), exact, site);
}

Value takewhile(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return byPredicate(in, a, site, While::Take);
}
Value dropwhile(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return byPredicate(in, a, site, While::Drop);
}
Value filterfalse(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  return byPredicate(in, a, site, While::FilterFalse);
}

Value compress(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements data = elementsOf(in, arg(a, 0, "data"), site);
  Interpreter::Elements sel = elementsOf(in, arg(a, 1, "selectors"), site);
  if (!data.exact || !sel.exact)
    return inexact(in, joinAll(in, data.items, "an element of itertools.compress()", site), site);
  std::vector<Value> out;
  bool exact = true;
  for (size_t i = 0; i < data.items.size() && i < sel.items.size(); ++i) {
    std::optional<bool> t = in.truth(sel.items[i], site);
    if (t == false)
      continue;
    if (!t)
      exact = false;
    out.push_back(data.items[i]);
  }
  return listOf(in, std::move(out), exact, site);
}

Value pairwise(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0), site);
  if (!e.exact) {
    Value any = joinAll(in, e.items, "an element", site);
    return inexact(in, in.tuple({any, any}, site), site);
  }
  std::vector<Value> out;
  for (size_t i = 0; i + 1 < e.items.size(); ++i)
    out.push_back(in.tuple({e.items[i], e.items[i + 1]}, site));
  return listOf(in, std::move(out), true, site);
}

Value groupby(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0, "iterable"), site);
  const Value* key = arg(a, 1, "key");
  if (key && isNone(key))
    key = nullptr;
  auto keyOf = [&](const Value& x) {
    if (!key)
      return x;
    CallArgs ca;
    ca.positional = {x};
    return in.call(*key, ca, site);
  };
  if (e.exact) {
    std::vector<std::pair<Value, std::vector<Value>>> groups;
    bool known = true;
    for (const Value& x : e.items) {
      Value k = keyOf(x);
      if (!groups.empty()) {
        std::optional<bool> same = in.truth(in.compare("==", groups.back().first, k, site), site);
        if (same == true) {
          groups.back().second.push_back(x);
          continue;
        }
        if (!same) {
          known = false;
          break;
        }
      }
      groups.push_back({k, {x}});
    }
    if (known) {
      std::vector<Value> out;
      out.reserve(groups.size());
      for (auto& [k, members] : groups)
        out.push_back(in.tuple({k, listOf(in, members, true, site)}, site));
      return listOf(in, std::move(out), true, site);
    }
  }
  Value any = joinAll(in, e.items, "an element", site);
  return inexact(in, in.tuple({keyOf(any), inexact(in, any, site)}, site), site);
}

Value tee(Interpreter& in, const CallArgs& a, mlir::Operation* site, const Object*) {
  Interpreter::Elements e = elementsOf(in, arg(a, 0), site);
  std::optional<int64_t> n = arg(a, 1, "n") ? intOf(arg(a, 1, "n")) : std::optional<int64_t>(2);
  if (!n || *n < 0 || *n > 64)
    return in.unknown("itertools.tee()", site);
  std::vector<Value> copies;
  copies.reserve(static_cast<size_t>(*n));
  for (int64_t k = 0; k < *n; ++k)
    copies.push_back(listOf(in, e.items, e.exact, site));
  return in.tuple(copies, site);
}

class ItertoolsOverlay final : public Overlay {
public:
  const char* name() const override { return "itertools"; }
  void install(Interpreter& in) override {
    struct Fn {
      const char* name;
      NativeFn fn;
    };
    static const Fn fns[] = {{"product", product},
                             {"chain", chain},
                             {"chain.from_iterable", chainFromIterable},
                             {"repeat", repeat},
                             {"count", count},
                             {"cycle", cycle},
                             {"islice", islice},
                             {"accumulate", accumulate},
                             {"permutations", permutations},
                             {"combinations", combinations},
                             {"combinations_with_replacement", combinationsWithReplacement},
                             {"zip_longest", zipLongest},
                             {"starmap", starmap},
                             {"takewhile", takewhile},
                             {"dropwhile", dropwhile},
                             {"filterfalse", filterfalse},
                             {"compress", compress},
                             {"pairwise", pairwise},
                             {"groupby", groupby},
                             {"tee", tee}};
    for (const Fn& f : fns)
      in.defineNative(std::string("itertools.") + f.name, f.fn);
  }
};

} // namespace

std::unique_ptr<Overlay> makeItertoolsOverlay() {
  return std::make_unique<ItertoolsOverlay>();
}

} // namespace pallas::eval
