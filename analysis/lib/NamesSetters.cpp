// Attributes an object holds after methods called on it stored them
// (docs/analysis.md 8.32), followed in execution order:
//
//   class Op:
//     def __init__(self): self.interpret = False
//     def debug(self):
//       self.interpret = True
//       return self
//     def __call__(self, x): return pl.pallas_call(..., interpret=self.interpret)(x)
//
//   Op().debug()(x)                      # True where it runs
//   op = Op(); op.debug(); op(x)         # True where it runs
//
// From each construction `K(...)`, the object is followed along a chain of
// method calls on it (a method that ends in `return self` passes it on)
// and, when a name is bound to it, along the statements after that in the
// same block. Each use (a call of the object, a method that stores nothing,
// passing it anywhere) sees the value stored last; the value at the end of
// the block counts too (a later use elsewhere sees it). Where the order is
// not known (a setter called under an `if` or in a loop, or after the
// object was passed elsewhere, which may call it later) the answer is
// unknown ("may"); the caller also checks that every call of a setter in the
// document was on an object followed here (setterCallCount).
#include "NamesInstancesInternal.h"

namespace pallas::analysis::names::instances {

namespace {

bool nestedScope(TSNode n) {
  return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
}

TSNode outerOfParens(TSNode n) {
  while (is(ts_node_parent(n), "parenthesized_expression"))
    n = ts_node_parent(n);
  return n;
}

enum class Returns { Self, Nothing, Other };

// What a method returns: its first parameter on every path (ending in
// `return self`), nothing (no return at all), or anything else.
Returns returnsOf(TSNode def, const syntax::ParsedSource& doc) {
  auto params = parametersOf(def, doc);
  std::string self = params.empty() ? std::string() : params.front().first;
  TSNode body = field(def, "body");
  TSNode last{};
  for (TSNode s : syntax::namedChildren(body))
    if (!is(s, "comment"))
      last = s;
  bool any = false, allSelf = true;
  syntax::forEachNode(body, [&](TSNode n) {
    if (nestedScope(n))
      return syntax::Walk::SkipChildren;
    if (is(n, "yield")) {
      any = true;
      allSelf = false;
    }
    if (is(n, "return_statement")) {
      any = true;
      TSNode v = ts_node_named_child_count(n) ? ts_node_named_child(n, 0) : TSNode{};
      allSelf &= is(v, "identifier") && textOf(v, doc) == self;
    }
    return syntax::Walk::Descend;
  });
  if (!any)
    return Returns::Nothing;
  return allSelf && is(last, "return_statement") ? Returns::Self : Returns::Other;
}

struct Tracker {
  Tracker(const Instances& in, const std::string& k, const std::string& attr,
          const syntax::ParsedSource& doc, size_t& accounted)
      : in(in), k(k), attr(attr), doc(doc), accounted(accounted) {}
  const Instances& in;
  const std::string& k;
  const std::string& attr;
  const syntax::ParsedSource& doc;
  size_t& accounted;
  std::vector<Located> states; // a null value: the value the object was built with
  Located current{};
  bool escaped = false;    // passed somewhere that may use (or change) it later
  bool inCompound = false; // under an if / loop / with / try of the followed block
  bool failed = false;

  // The method `m` of the object (along K's bases).
  std::optional<TSNode> method(const std::string& m) {
    bool open = false;
    for (const std::string& c : lookupOrder(in, k, open))
      if (auto d = methodNamed(in.classes.at(c).def, m, doc))
        return d;
    return std::nullopt;
  }

  // What the method `def`, called by `call`, stores in attr (its last
  // top-level `self.attr = v`); nullopt when it stores nothing; a Located
  // with a null value when what it stores is not known.
  std::optional<Located> stored(TSNode def, TSNode call) {
    auto params = parametersOf(def, doc);
    if (params.empty())
      return std::nullopt;
    TSNode value{};
    for (TSNode stmt : syntax::namedChildren(field(def, "body"))) {
      TSNode e = expressionOf(stmt);
      TSNode left = is(e, "assignment") ? field(e, "left") : TSNode{};
      if (is(left, "attribute") && textOf(field(left, "attribute"), doc) == attr &&
          textOf(field(left, "object"), doc) == params.front().first)
        value = field(e, "right");
    }
    if (isNull(value))
      return std::nullopt;
    // A parameter of the method: the argument of this call (not rebound).
    if (is(value, "identifier")) {
      std::string name = textOf(value, doc);
      bool param =
          std::any_of(params.begin() + 1, params.end(), [&](auto& p) { return p.first == name; });
      if (param) {
        bool rebound = syntax::anyNode(
            field(def, "body"),
            [&](TSNode n) {
              return (is(n, "assignment") || is(n, "augmented_assignment")) &&
                     is(field(n, "left"), "identifier") && textOf(field(n, "left"), doc) == name;
            },
            [](TSNode) { return false; });
        auto arg = rebound ? std::nullopt : argumentFor(call, def, name, doc);
        return arg ? *arg : Located{};
      }
    }
    return Located{value, def};
  }

  void use() { states.push_back(current); }

  // Follows the value `cur` (the object) through what its parents do.
  void followChain(TSNode cur) {
    for (int hops = 0; hops < 64 && !failed; ++hops) {
      cur = outerOfParens(cur);
      TSNode parent = ts_node_parent(cur);
      if (is(parent, "attribute") && ts_node_eq(field(parent, "object"), cur)) {
        TSNode call = outerOfParens(parent);
        TSNode callParent = ts_node_parent(call);
        std::string m = textOf(field(parent, "attribute"), doc);
        if (!is(callParent, "call") || !ts_node_eq(field(callParent, "function"), call)) {
          // `f = op.debug`: a bound method may run at any time later. A
          // plain attribute read (`op.block`) changes nothing.
          if (method(m))
            failed = true;
          return;
        }
        auto setters = in.setters.find(attr);
        if (setters != in.setters.end() && setters->second.count(m))
          ++accounted;
        auto def = method(m);
        if (!def) {
          failed = true; // not a method of the document's classes
          return;
        }
        if (auto v = stored(*def, callParent)) {
          if (escaped || inCompound || isNull(v->value)) {
            failed = true; // the order against the uses, or the value, is not known
            return;
          }
          current = *v;
        } else {
          use(); // a method that stores nothing: it may run the launch
        }
        if (returnsOf(*def, doc) != Returns::Self)
          return; // the object goes no further along this chain
        cur = callParent;
        continue;
      }
      if (is(parent, "call") && ts_node_eq(field(parent, "function"), cur)) {
        use(); // `op(x)`: __call__ runs with the value stored last
        return;
      }
      if (is(parent, "expression_statement"))
        return; // built and dropped
      if (is(parent, "assignment") && ts_node_eq(field(parent, "right"), cur) &&
          is(field(parent, "left"), "identifier") &&
          is(ts_node_parent(parent), "expression_statement") && !inCompound) {
        followName(textOf(field(parent, "left"), doc), ts_node_parent(parent));
        return;
      }
      use(); // passed, returned, stored, aliased: any use may come later
      escaped = true;
      return;
    }
  }

  // The statements after `stmt` in its block, for the name bound to the object.
  void followName(const std::string& name, TSNode stmt) {
    for (TSNode s = ts_node_next_named_sibling(stmt); !isNull(s) && !failed;
         s = ts_node_next_named_sibling(s)) {
      if (is(s, "comment"))
        continue;
      bool compound = !is(s, "expression_statement") && !is(s, "return_statement");
      TSNode e = expressionOf(s);
      bool rebinds = syntax::anyNode(
          s, [&](TSNode n) { return bindsName(n, name, doc); },
          [](TSNode n) { return nestedScope(n); });
      if (rebinds && !(is(e, "assignment") && is(field(e, "left"), "identifier"))) {
        failed = true; // rebound under a branch or a loop: which object is not known
        return;
      }
      inCompound = compound;
      syntax::forEachNode(is(e, "assignment") && rebinds ? field(e, "right") : s, [&](TSNode n) {
        if (failed)
          return syntax::Walk::Stop;
        if (nestedScope(n)) {
          // A closure reading the name uses the object whenever it runs.
          if (syntax::anyNode(
                  n, [&](TSNode t) { return is(t, "identifier") && textOf(t, doc) == name; },
                  [](TSNode) { return false; })) {
            use();
            escaped = true;
          }
          return syntax::Walk::SkipChildren;
        }
        if (is(n, "attribute")) {
          // Only the object side of `a.b` can be the name.
          TSNode object = field(n, "object");
          if (is(object, "identifier") && textOf(object, doc) == name) {
            followChain(object);
            return syntax::Walk::SkipChildren;
          }
          return syntax::Walk::Descend;
        }
        if (is(n, "identifier") && textOf(n, doc) == name) {
          TSNode parent = ts_node_parent(n);
          if (is(parent, "keyword_argument") && ts_node_eq(field(parent, "name"), n))
            return syntax::Walk::Descend;
          followChain(n);
        }
        return syntax::Walk::Descend;
      });
      inCompound = false;
      if (rebinds)
        return;
    }
  }
};

} // namespace

std::optional<std::vector<Located>> setterStates(const Instances& in, const std::string& k,
                                                 TSNode site, const std::string& attr,
                                                 const syntax::ParsedSource& doc,
                                                 size_t& accounted) {
  if (in.dynamicCalls)
    return std::nullopt; // `getattr(op, "debug")()`: a setter call not seen
  Tracker t(in, k, attr, doc, accounted);
  t.followChain(site);
  if (t.failed)
    return std::nullopt;
  t.use(); // what it holds at the end: a later use anywhere sees it
  return std::move(t.states);
}

size_t setterCallCount(const Instances& in, const std::string& attr,
                       const syntax::ParsedSource& doc) {
  auto it = in.setters.find(attr);
  if (it == in.setters.end())
    return 0;
  size_t n = 0;
  syntax::forEachNode(doc.root(), [&](TSNode c) {
    if (is(c, "call")) {
      TSNode callee = field(c, "function");
      while (is(callee, "parenthesized_expression"))
        callee = ts_node_named_child(callee, 0);
      if (is(callee, "attribute") && it->second.count(textOf(field(callee, "attribute"), doc)))
        ++n;
    }
    return syntax::Walk::Descend;
  });
  return n;
}

} // namespace pallas::analysis::names::instances
