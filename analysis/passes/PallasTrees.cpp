// The JAX overlay for pytrees outside kernels: `jax.tree_util.tree_leaves`
// / `jax.tree.leaves` and `tree_map` / `jax.tree.map` over the containers
// JAX flattens itself (jax/_src/tree_util.py): None has no leaves; a tuple
// or list holds its items in order; a dict holds its values in the order of
// its sorted keys (and is rebuilt with them sorted); arrays, numbers,
// strings and functions are leaves. An object of another class may be a
// registered node (a namedtuple, a registered dataclass, a flax struct): its
// tree is unknown, as is one with an `is_leaf` predicate or containers the
// evaluator does not know in full.
#include "PallasOverlayState.h"

#include <algorithm>

namespace pallas::analysis::passes {

using namespace eval;

namespace {

// One node of a flattened tree: a leaf, or a container and its children.
struct Node {
  enum class Kind { Leaf, None, Tuple, List, Dict } kind = Kind::Leaf;
  Value leaf;
  std::vector<Value> keys; // Dict: sorted
  std::vector<Node> children;
};

bool isLeafObject(Interpreter& in, Object* o) {
  if (llvm::isa<IntObj, FloatObj, BoolObj, StrObj, FunctionObj>(o))
    return true;
  if (auto* inst = llvm::dyn_cast<InstanceObj>(o))
    return inst->cls == in.externalClass("jax.Array");
  return false;
}

// The dict's keys in JAX's order (sorted); nullopt when they cannot be
// compared here (mixed or unknown keys).
std::optional<std::vector<size_t>> sortedKeys(DictObj* d) {
  std::vector<size_t> order(d->items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  bool strings = true, ints = true;
  for (const auto& [k, v] : d->items) {
    strings &= llvm::isa_and_nonnull<StrObj>(k.single());
    ints &= llvm::isa_and_nonnull<IntObj>(k.single());
  }
  if (!strings && !ints && !d->items.empty())
    return std::nullopt;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    Object* x = d->items[a].first.single();
    Object* y = d->items[b].first.single();
    if (strings)
      return llvm::cast<StrObj>(x)->v < llvm::cast<StrObj>(y)->v;
    return llvm::cast<IntObj>(x)->v < llvm::cast<IntObj>(y)->v;
  });
  return order;
}

std::optional<Node> flatten(Interpreter& in, const Value& v, int depth) {
  Object* o = v.single();
  if (!o || depth > 32)
    return std::nullopt;
  Node n;
  if (llvm::isa<NoneObj>(o)) {
    n.kind = Node::Kind::None;
    return n;
  }
  auto children = [&](const std::vector<Value>& items) -> bool {
    for (const Value& item : items) {
      std::optional<Node> c = flatten(in, item, depth + 1);
      if (!c)
        return false;
      n.children.push_back(std::move(*c));
    }
    return true;
  };
  if (auto* t = llvm::dyn_cast<TupleObj>(o)) {
    n.kind = Node::Kind::Tuple;
    return children(t->elems) ? std::optional(n) : std::nullopt;
  }
  if (auto* l = llvm::dyn_cast<ListObj>(o); l && l->kind == eval::Kind::List) {
    n.kind = Node::Kind::List;
    return l->exact && children(l->elems) ? std::optional(n) : std::nullopt;
  }
  if (auto* d = llvm::dyn_cast<DictObj>(o)) {
    std::optional<std::vector<size_t>> order = d->exact ? sortedKeys(d) : std::nullopt;
    if (!order)
      return std::nullopt;
    n.kind = Node::Kind::Dict;
    std::vector<Value> values;
    for (size_t i : *order) {
      n.keys.push_back(d->items[i].first);
      values.push_back(d->items[i].second);
    }
    return children(values) ? std::optional(n) : std::nullopt;
  }
  if (!isLeafObject(in, o))
    return std::nullopt;
  n.leaf = v;
  return n;
}

void leavesOf(const Node& n, std::vector<Value>& out) {
  if (n.kind == Node::Kind::Leaf)
    out.push_back(n.leaf);
  for (const Node& c : n.children)
    leavesOf(c, out);
}

bool sameStructure(const Node& a, const Node& b) {
  if (a.kind != b.kind || a.children.size() != b.children.size())
    return false;
  for (size_t i = 0; i < a.children.size(); ++i)
    if (!sameStructure(a.children[i], b.children[i]))
      return false;
  return true;
}

// The tree `n` with its leaves replaced, in order, by `leaves[next...]`.
Value rebuild(Interpreter& in, const Node& n, const std::vector<Value>& leaves, size_t& next,
              mlir::Operation* site) {
  std::vector<Value> items;
  items.reserve(n.children.size());
  for (const Node& c : n.children)
    items.push_back(rebuild(in, c, leaves, next, site));
  switch (n.kind) {
  case Node::Kind::Leaf:
    return leaves[next++];
  case Node::Kind::None:
    return in.none(site);
  case Node::Kind::Tuple:
    return in.tuple(items, site);
  case Node::Kind::List:
    return in.list(items, site);
  case Node::Kind::Dict: {
    auto* d = in.heap().make<DictObj>();
    for (size_t i = 0; i < items.size(); ++i)
      d->items.emplace_back(n.keys[i], items[i]);
    return Value(d, site);
  }
  }
  return in.unknown("a pytree", site);
}

Value nLeaves(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  const Value* tree = args.get(0, "tree");
  std::optional<Node> n = tree && !args.keyword("is_leaf") ? flatten(in, *tree, 0) : std::nullopt;
  if (!n)
    return in.unknown("the leaves of a pytree the evaluator does not know", site);
  std::vector<Value> leaves;
  leavesOf(*n, leaves);
  return in.list(leaves, site);
}

// tree_map(f, tree, *rest): f over the leaves of `tree` and the matching
// leaves of each of `rest`, in the same structure.
Value nTreeMap(Interpreter& in, const CallArgs& args, mlir::Operation* site, const Object*) {
  if (args.positional.size() < 2 || args.morePositional || args.keyword("is_leaf"))
    return in.unknown("the result of a tree_map the evaluator does not follow", site);
  std::vector<Node> trees;
  for (size_t k = 1; k < args.positional.size(); ++k) {
    std::optional<Node> n = flatten(in, args.positional[k], 0);
    if (!n || (!trees.empty() && !sameStructure(trees.front(), *n)))
      return in.unknown("the result of a tree_map over a pytree the evaluator does not know", site);
    trees.push_back(std::move(*n));
  }
  std::vector<std::vector<Value>> leaves(trees.size());
  for (size_t k = 0; k < trees.size(); ++k)
    leavesOf(trees[k], leaves[k]);
  std::vector<Value> mapped;
  for (size_t i = 0; i < leaves[0].size(); ++i) {
    CallArgs call;
    for (const std::vector<Value>& l : leaves)
      call.positional.push_back(l[i]);
    mapped.push_back(in.call(args.positional[0], call, site));
  }
  size_t next = 0;
  return rebuild(in, trees[0], mapped, next, site);
}

} // namespace

void installTreeNatives(Interpreter& in) {
  for (const char* n : {"jax.tree_util.tree_leaves", "jax.tree.leaves"})
    in.defineNative(n, nLeaves);
  for (const char* n : {"jax.tree_util.tree_map", "jax.tree.map"})
    in.defineNative(n, nTreeMap);
}

} // namespace pallas::analysis::passes
