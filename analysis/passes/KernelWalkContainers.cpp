// Containers of callables the KernelWalk looks into (docs/analysis.md 8.23):
// `KERNELS[key]` of a dict / list / tuple literal, of a module-level registry
// that the module's statements (`KERNELS["x"] = fn`) and decorators (`def
// register(name): def deco(fn): KERNELS[name] = fn ...`) fill, and the
// branches of `lax.switch`, every one of which JAX traces.
//
// Items are kept in the order Python puts them in; a constant key finds the
// last item of that key. What is not known statically (a computed key, a
// registration the walk cannot place) makes the lookup any of the values:
// alternatives, each walked as "may", never nothing.
#include "KernelWalkInternal.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <tuple>

namespace pallas::analysis::passes {

namespace {

// A string literal's text without its quotes (so 'x' and "x" are one key);
// other constants as written.
std::string literalKey(llvm::StringRef v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    return "s:" + v.drop_front().drop_back().str();
  return "c:" + v.str();
}

std::string constantKey(pd::ConstantOp c) {
  llvm::StringRef v = c.getValue();
  return c.getKind() == pd::ConstantKind::Str ? literalKey(v) : "c:" + v.str();
}

// A method that changes a dict or list in place other than by `c[k] = v`.
bool changesInPlace(llvm::StringRef api) {
  static const llvm::StringSet<> methods = {
      "update", "setdefault", "pop",    "popitem", "clear",   "__delitem__", "__ior__",
      "append", "extend",     "insert", "remove",  "reverse", "sort"};
  return (api.consume_front("value.") || api.consume_front("ref.")) && methods.contains(api);
}

// Whether `op` runs once, when the module is imported: a top-level
// statement of the module, or a decorator of a module-level def or class.
bool runsAtImport(mlir::Operation* op) {
  auto f = llvm::dyn_cast_or_null<pd::FuncOp>(op->getParentOp());
  if (!f || !llvm::isa_and_nonnull<mlir::ModuleOp>(f->getParentOp()))
    return false;
  if (f.getKind() == pd::FuncKind::Module)
    return !f.getBody().empty() && op->getBlock() == &f.getBody().front();
  return op->getParentRegion() == &f.getDecorators();
}

bool isItemStore(pd::PrimOp p) {
  return (p.getApi() == "value.__setitem__" || p.getApi() == "ref.__setitem__") &&
         p.getArgs().size() == 3;
}

detail::LineCol at(mlir::Operation* op) {
  return detail::lineCol(op->getLoc());
}

// A key that is a module-level name holding a constant, or an Enum member
// (8.68): the constant, as keyText reads a lookup's key; "" otherwise.
std::string constantNameKey(mlir::Value key) {
  auto g = key ? key.getDefiningOp<pd::GlobalOp>() : nullptr;
  llvm::StringRef r = g ? g.getResolved() : "";
  return r.consume_front("const:") ? literalKey(r) : std::string();
}

} // namespace

std::optional<std::string> KernelWalk::stringKey(mlir::Value key, const std::string& doc) const {
  std::optional<std::string> text = keyText(key, doc);
  if (!text || !llvm::StringRef(*text).starts_with("s:"))
    return std::nullopt;
  return text->substr(2);
}

std::optional<std::string> KernelWalk::keyText(mlir::Value keyIn, const std::string& doc) const {
  auto [key, keyDoc] = follow(keyIn, doc);
  if (!key)
    return std::nullopt;
  if (std::optional<Literal> l = literalValue(key))
    return l->kind == pd::ConstantKind::Str ? literalKey(l->text) : "c:" + l->text;
  // Another module constant the front end resolved (an Enum member, 8.68):
  // as the dict's keys spell it (constantNameKey).
  if (std::string named = constantNameKey(key); !named.empty())
    return named;
  // `fn.__name__` of a function: the name its def (or lambda) gives it.
  if (auto name = key.getDefiningOp<pd::PrimOp>();
      name && name.getApi() == "value.__name__" && name.getArgs().size() == 1) {
    Callable c = resolve(name.getArgs()[0], 1, keyDoc);
    if (!c.block || !c.alternatives.empty() || !c.boundArgs.empty())
      return std::nullopt;
    llvm::StringRef n(c.name);
    return "s:" + n.substr(n.rfind('.') + 1).str();
  }
  // `"none" if interpret else "fence"`: the branch the condition picks
  // when the walk knows it (a parameter its callers or default fix).
  if (auto cond = key.getDefiningOp<pd::OpaqueOp>();
      cond && cond.getWhat() == "conditional_expression" && cond.getArgs().size() == 3)
    if (std::optional<bool> known = truthOf(cond.getArgs()[1]))
      return keyText(cond.getArgs()[*known ? 0 : 2], keyDoc);
  // A parameter of the module-level function around the launch (`def
  // launch(name, x): pl.pallas_call(KERNELS[name], ...)`): what its callers
  // pass when they agree, else, with no caller, its default.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(key))
    if (std::optional<Literal> l = launchParameterLiteral(arg, keyDoc))
      return l->kind == pd::ConstantKind::Str ? literalKey(l->text) : "c:" + l->text;
  return std::nullopt;
}

namespace {

// `KERNELS[fn.__name__] = fn` in a decorator applied to a def of the module
// (8.59): the key is the def's name (its `__name__`), as constantKey spells
// a string; "" when the key is anything else or the decorated value is not
// a def read by its name (a stacked decorator's result).
std::string nameKey(mlir::Value key, mlir::Value fn, mlir::Value decorated) {
  auto attr = key.getDefiningOp<pd::PrimOp>();
  auto def = decorated.getDefiningOp<pd::GlobalOp>();
  if (!attr || attr.getArgs().size() != 1 || attr.getArgs()[0] != fn ||
      (attr.getApi() != "value.__name__" && attr.getApi() != "ref.__name__") || !def)
    return {};
  llvm::StringRef target = def.getResolved();
  if (!target.consume_front("local:") || target != def.getName())
    return {};
  return "s:" + target.str();
}

} // namespace

bool KernelWalk::registeredItems(const std::string& doc, llvm::StringRef name,
                                 mlir::Operation* base, std::vector<Item>& items) const {
  mlir::ModuleOp module = ws_.module(doc);
  if (!module)
    return false;
  detail::LineCol baseAt = at(base);
  bool complete = true;
  // The applications of a decorator (or factory) in the module: `@register(
  // "x") def f`, `register("x")(f)`; `factory` is the function called to
  // make the decorator (null for a decorator used bare).
  auto applications = [&](pd::FuncOp decorator, bool viaFactory,
                          llvm::function_ref<void(pd::CallIndirectOp, pd::CallOp)> fn) {
    module.walk([&](pd::CallIndirectOp apply) {
      if (apply.getArgs().size() != 1 || !strAt(apply.getKeywords(), 0).empty())
        return;
      mlir::Value callee = apply.getCallee();
      if (viaFactory) {
        auto make = callee.getDefiningOp<pd::CallOp>();
        if (make && !make.getCalleeFile() && make.getCallee() == decorator.getSymName())
          fn(apply, make);
      } else if (auto g = callee.getDefiningOp<pd::GlobalOp>();
                 g && g.getResolved() == ("local:" + decorator.getSymName()).str()) {
        fn(apply, nullptr);
      }
    });
  };
  auto isRegistry = [&](mlir::Value v) {
    auto g = v ? v.getDefiningOp<pd::GlobalOp>() : nullptr;
    return g && g.getName() == name && g.getResolved() == "?";
  };
  // `KERNELS.update(...)`, `del KERNELS[k]`, ...: changes the walk does not
  // apply; the items are not known.
  module.walk([&](mlir::Operation* op) {
    if (auto p = llvm::dyn_cast<pd::PrimOp>(op);
        p && !p.getArgs().empty() && changesInPlace(p.getApi()) && isRegistry(p.getArgs()[0]))
      complete = false;
    if (auto del = llvm::dyn_cast<pd::OpaqueOp>(op); del && del.getWhat() == "delete_statement")
      for (mlir::Value v : del.getArgs())
        if (auto item = v.getDefiningOp<pd::PrimOp>();
            item && !item.getArgs().empty() && isRegistry(item.getArgs()[0]))
          complete = false;
  });
  module.walk([&](pd::PrimOp store) {
    if (!complete || !isItemStore(store) || !isRegistry(store.getArgs()[0]))
      return;
    mlir::Operation* parent = store->getParentOp();
    // A statement of the module, after the assignment it changes.
    if (auto f = llvm::dyn_cast<pd::FuncOp>(parent); f && f.getKind() == pd::FuncKind::Module) {
      detail::LineCol l = at(store);
      if (std::pair(l.line, l.column) > std::pair(baseAt.line, baseAt.column))
        items.push_back({store.getArgs()[1],
                         store.getArgs()[2],
                         doc,
                         l.line,
                         l.column,
                         constantNameKey(store.getArgs()[1]),
                         {}});
      return;
    }
    // A decorator's body: `def deco(fn): KERNELS[...] = fn`, made by a
    // module-level factory `def register(name): ... return deco`, or a
    // module-level decorator itself.
    auto closure = llvm::dyn_cast<pd::ClosureOp>(parent);
    pd::FuncOp factory = closure ? llvm::dyn_cast<pd::FuncOp>(closure->getParentOp())
                                 : llvm::dyn_cast<pd::FuncOp>(parent);
    mlir::Block* fnBlock = closure                                 ? &closure.getBody().front()
                           : factory && !factory.getBody().empty() ? &factory.getBody().front()
                                                                   : nullptr;
    if (!factory || factory.getKind() != pd::FuncKind::Def || !fnBlock ||
        store->getBlock() != fnBlock) {
      complete = false; // put in by code the walk does not place
      return;
    }
    auto value = llvm::dyn_cast<mlir::BlockArgument>(store.getArgs()[2]);
    if (!value || value.getOwner() != fnBlock || value.getArgNumber() != 0) {
      complete = false;
      return;
    }
    bool any = false;
    applications(factory, static_cast<bool>(closure),
                 [&](pd::CallIndirectOp apply, pd::CallOp make) {
                   any = true;
                   if (!runsAtImport(apply)) {
                     complete = false; // registers when some function runs: not placed
                     return;
                   }
                   mlir::Value key = store.getArgs()[1];
                   if (auto p = llvm::dyn_cast<mlir::BlockArgument>(key)) {
                     key = {};
                     if (make && factory.getBody().front().getNumArguments() > p.getArgNumber() &&
                         p.getOwner() == &factory.getBody().front())
                       key = argumentFor(
                           make.getArgs(), [&](unsigned i) { return strAt(make.getKeywords(), i); },
                           p.getArgNumber(), strAt(factory.getArgNames(), p.getArgNumber()));
                   } else if (!key.getDefiningOp<pd::ConstantOp>()) {
                     key = {};
                   }
                   detail::LineCol l = at(apply);
                   items.push_back({key,
                                    apply.getArgs()[0],
                                    doc,
                                    l.line,
                                    l.column,
                                    nameKey(store.getArgs()[1], value, apply.getArgs()[0]),
                                    {}});
                 });
    if (!any)
      complete = false; // a registering function called some other way
  });
  // Module order (a stable sort: items of one place keep their order).
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tuple(items[a].line, items[a].column, a) <
           std::tuple(items[b].line, items[b].column, b);
  });
  std::vector<Item> sorted;
  sorted.reserve(order.size());
  for (size_t i : order)
    sorted.push_back(items[i]);
  items = std::move(sorted);
  return complete;
}

bool KernelWalk::itemsOf(mlir::Value containerIn, const std::string& docIn,
                         std::vector<Item>& items, bool& sequence) const {
  // Parameters first, then a module-level name: its value, with the items
  // the module puts into it after.
  auto [v, doc] = follow(containerIn, docIn);
  if (!v)
    return false;
  std::string registry;
  if (auto g = v.getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "?") {
    registry = g.getName().str();
    v = moduleValue(doc, registry, true);
  } else if (auto g = containerIn.getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "?") {
    registry = g.getName().str(); // followed to its (unchanged) value
  }
  auto container = v ? v.getDefiningOp<pd::OpaqueOp>() : nullptr;
  if (!container)
    return false;
  auto elems = container.getArgs();
  sequence = container.getWhat() == "list" || container.getWhat() == "tuple";
  bool known = true;
  if (container.getWhat() == "dictionary_comprehension" ||
      container.getWhat() == "list_comprehension") {
    sequence = container.getWhat() == "list_comprehension";
    known = comprehensionItems(container, doc, items);
    if (items.empty())
      return false;
  } else if (sequence) {
    for (mlir::Value e : elems)
      if (auto o = e.getDefiningOp<pd::OpaqueOp>(); o && o.getWhat().contains("splat"))
        return false;
    for (mlir::Value e : elems)
      items.push_back({{}, e, doc, 0, 0, {}, {}});
  } else if (container.getWhat() == "dictionary") {
    if (elems.size() % 2)
      return false;
    for (unsigned i = 0; i + 1 < elems.size(); i += 2) {
      std::string named = constantNameKey(elems[i]);
      if (!elems[i].getDefiningOp<pd::ConstantOp>() && named.empty())
        return false; // a splat or a computed key: positions unknown
      items.push_back({elems[i], elems[i + 1], doc, 0, 0, named, {}});
    }
  } else {
    return false;
  }
  // A registry at module level: what its statements and decorators add (a
  // list changed by item assignment is not followed).
  if (!registry.empty()) {
    std::vector<Item> more;
    bool complete = registeredItems(doc, registry, container, more);
    if (!more.empty() && sequence)
      return false;
    items.insert(items.end(), more.begin(), more.end());
    if (!complete)
      return false;
  }
  return known;
}

bool KernelWalk::iterationElements(mlir::Value iterableIn, const std::string& docIn, size_t names,
                                   std::vector<std::vector<mlir::Value>>& elements,
                                   std::string& elementDoc) const {
  // A literal tuple / list (also through a name holding one), or zip() of
  // such literals: Python's order, no splat.
  auto literal = [&](mlir::Value in, const std::string& d, std::vector<mlir::Value>& out,
                     std::string& outDoc) {
    auto [v, vd] = follow(in, d);
    auto seq = v ? v.getDefiningOp<pd::OpaqueOp>() : nullptr;
    if (!seq || (seq.getWhat() != "tuple" && seq.getWhat() != "list"))
      return false;
    for (mlir::Value e : seq.getArgs())
      if (auto o = e.getDefiningOp<pd::OpaqueOp>(); o && o.getWhat().contains("splat"))
        return false;
    out.assign(seq.getArgs().begin(), seq.getArgs().end());
    outDoc = vd;
    return true;
  };
  auto [iterable, doc] = follow(iterableIn, docIn);
  if (!iterable)
    return false;
  std::vector<std::vector<mlir::Value>> columns;
  if (auto zip = iterable.getDefiningOp<pd::CallIndirectOp>()) {
    auto g = zip.getCallee().getDefiningOp<pd::GlobalOp>();
    if (!g || g.getResolved() != "builtins.zip" || zip.getArgs().size() != names)
      return false;
    for (unsigned i = 0; i < zip.getArgs().size(); ++i) {
      std::vector<mlir::Value> column;
      std::string columnDoc;
      if (!strAt(zip.getKeywords(), i).empty() ||
          !literal(zip.getArgs()[i], doc, column, columnDoc) ||
          (!elementDoc.empty() && columnDoc != elementDoc))
        return false;
      elementDoc = columnDoc;
      columns.push_back(std::move(column));
    }
    size_t n = columns.front().size();
    for (const auto& c : columns)
      n = std::min(n, c.size()); // zip stops at the shortest
    for (size_t i = 0; i < n; ++i) {
      std::vector<mlir::Value> row;
      row.reserve(columns.size());
      for (const auto& c : columns)
        row.push_back(c[i]);
      elements.push_back(std::move(row));
    }
    return true;
  }
  std::vector<mlir::Value> seq;
  if (!literal(iterable, doc, seq, elementDoc))
    return false;
  for (mlir::Value e : seq) {
    if (names == 1) {
      elements.push_back({e});
      continue;
    }
    // Unpacked into several names: each element a literal of that length.
    auto inner = e.getDefiningOp<pd::OpaqueOp>();
    if (!inner || (inner.getWhat() != "tuple" && inner.getWhat() != "list") ||
        inner.getArgs().size() != names)
      return false;
    elements.push_back({inner.getArgs().begin(), inner.getArgs().end()});
  }
  return true;
}

bool KernelWalk::comprehensionItems(pd::OpaqueOp comp, const std::string& doc,
                                    std::vector<Item>& items) const {
  // Lowered as its parts in source order: the key and value (or the
  // element), then the `for` clause's target and iterable, then any `if`.
  bool dict = comp.getWhat() == "dictionary_comprehension";
  unsigned head = dict ? 2 : 1;
  auto args = comp.getArgs();
  if (args.size() != head + 2 && args.size() != head + 3)
    return false;                          // several `for` clauses or `if`s: not followed
  bool filtered = args.size() == head + 3; // an `if` may leave any item out
  // The target: one name or a tuple of names (the comprehension's own
  // variables, lowered as unresolved globals).
  std::vector<std::string> names;
  auto nameOf = [](mlir::Value v) -> std::string {
    auto g = v ? v.getDefiningOp<pd::GlobalOp>() : nullptr;
    return g && g.getResolved() == "?" ? g.getName().str() : std::string();
  };
  mlir::Value target = args[head];
  if (auto pattern = target.getDefiningOp<pd::OpaqueOp>();
      pattern && (pattern.getWhat() == "pattern_list" || pattern.getWhat() == "tuple_pattern" ||
                  pattern.getWhat() == "tuple")) {
    for (mlir::Value n : pattern.getArgs())
      names.push_back(nameOf(n));
  } else {
    names.push_back(nameOf(target));
  }
  if (names.empty() || llvm::any_of(names, [](const std::string& n) { return n.empty(); }))
    return false;
  std::vector<std::vector<mlir::Value>> elements;
  std::string elementDoc;
  if (!iterationElements(args[head + 1], doc, names.size(), elements, elementDoc))
    return false;
  // The reads of the target's names in the key and the value.
  std::vector<std::pair<mlir::Value, size_t>> reads;
  llvm::SmallVector<mlir::Value> work{args[0]};
  if (dict)
    work.push_back(args[1]);
  for (unsigned guard = 0; !work.empty() && guard < 256; ++guard) {
    mlir::Value v = work.pop_back_val();
    mlir::Operation* def = v.getDefiningOp();
    if (!def)
      continue;
    if (std::string n = nameOf(v); !n.empty()) {
      auto it = llvm::find(names, n);
      if (it != names.end())
        reads.push_back({v, static_cast<size_t>(it - names.begin())});
      continue;
    }
    for (mlir::Value operand : def->getOperands())
      work.push_back(operand);
  }
  detail::LineCol l = at(comp);
  for (const std::vector<mlir::Value>& element : elements) {
    Item item{{}, args[dict ? 1 : 0], doc, l.line, l.column, {}, {}};
    ScopedBindings bound(argValues_);
    for (auto& [read, index] : reads) {
      item.captured.push_back({read, {element[index], elementDoc}});
      bound.set(read, item.captured.back().second);
    }
    if (dict) {
      std::optional<std::string> key = keyText(args[0], doc);
      if (!key)
        filtered = true; // a key not known: the lookup may find any item
      else
        item.keyString = *key;
    }
    items.push_back(std::move(item));
  }
  return !filtered;
}

KernelWalk::Callable KernelWalk::resolveItem(const Item& item, unsigned depth) const {
  ScopedBindings bound(argValues_);
  for (auto& [read, value] : item.captured)
    bound.set(read, value);
  Callable c = resolve(item.value, depth, item.doc);
  for (auto& p : item.captured)
    c.captured.push_back(p);
  return c;
}

KernelWalk::Callable KernelWalk::lookupItem(mlir::Value container, mlir::Value keyValue,
                                            unsigned depth, const std::string& doc,
                                            mlir::Value fallback) const {
  std::vector<Item> items;
  bool sequence = false;
  bool known = itemsOf(container, doc, items, sequence);
  if (items.empty())
    return {};
  std::optional<std::string> key = keyText(keyValue, doc);
  const Item* found = nullptr;
  bool certain = known && key;
  if (certain && sequence) {
    long index = 0, n = static_cast<long>(items.size());
    llvm::StringRef k(*key);
    if (!k.consume_front("c:") || k.getAsInteger(10, index))
      return {};
    if (index < 0)
      index += n;
    if (index < 0 || index >= n)
      return {};
    found = &items[static_cast<size_t>(index)];
  } else if (certain) {
    for (const Item& it : items) {
      auto c = it.key ? it.key.getDefiningOp<pd::ConstantOp>() : nullptr;
      if (!c && it.keyString.empty()) {
        certain = false; // a registration whose key is not known may be this one
        break;
      }
      if ((c ? constantKey(c) : it.keyString) == *key)
        found = &it;
    }
    if (certain && !found) // dict.get's default, else a KeyError when it runs
      return fallback ? resolve(fallback, depth + 1, doc) : Callable{};
  }
  if (certain)
    return resolveItem(*found, depth + 1);
  // Not known which: any of the values (each walked, its failures "may").
  Callable out;
  for (const Item& it : items) {
    Callable c = resolveItem(it, depth + 1);
    if (!c.block || !c.alternatives.empty())
      continue;
    c.dispatchText = "when the item looked up is " + c.name;
    out.alternatives.push_back(std::move(c));
  }
  if (fallback && !sequence)
    if (Callable c = resolve(fallback, depth + 1, doc); c.block && c.alternatives.empty()) {
      c.dispatchText = "when the key is missing and the default " + c.name + " is used";
      out.alternatives.push_back(std::move(c));
    }
  return out;
}

void KernelWalk::onSwitch(pd::PrimOp prim) {
  // lax.switch(index, branches, *operands): the operands go to each branch.
  mlir::Value branches;
  llvm::SmallVector<mlir::Value> args;
  llvm::SmallVector<llvm::StringRef> kws, orgs;
  for (unsigned i = 0, positional = 0; i < prim.getArgs().size(); ++i) {
    llvm::StringRef kw = strAt(prim.getKeywords(), i);
    if (kw == "branches" || (kw.empty() && positional == 1))
      branches = prim.getArgs()[i];
    else if ((kw.empty() && positional >= 2) || kw == "*" || kw == "operand") {
      args.push_back(prim.getArgs()[i]);
      kws.push_back(kw == "operand" ? "" : kw);
      orgs.push_back(strAt(prim.getOrigins(), i));
    }
    if (kw.empty())
      ++positional;
  }
  std::vector<Item> items;
  bool sequence = false;
  if (!branches || !itemsOf(branches, doc_, items, sequence) || !sequence)
    return;
  mlir::Builder b(prim->getContext());
  mlir::ArrayAttr keywords = b.getStrArrayAttr(kws), origins = b.getStrArrayAttr(orgs);
  for (const Item& it : items)
    onCall(prim, resolveItem(it, 0), args, keywords, origins);
}

} // namespace pallas::analysis::passes
