// The shape/dtype evaluator (ShapeEval.h): Python expressions over the
// tree-sitter tree, evaluated the way Python would for the values that size a
// kernel. Everything not modelled is Value::unknown("<the text>").
#include "ShapeEval.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace pallas::analysis::shape {

using syntax::field;
using syntax::is;
using syntax::isNull;
using syntax::namedChildren;

namespace {

constexpr int kMaxDepth = 24;      // nested evaluations (names, calls, callers)
constexpr int kMaxSteps = 200000;  // per Evaluator: pathological inputs stay bounded
constexpr int kMaxCallerDepth = 3; // caller hops when a parameter is unbound

std::string str(std::string_view v) {
  return std::string(v);
}

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

TSNode unparen(TSNode n) {
  while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0)
    n = ts_node_named_child(n, 0);
  return n;
}

bool contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) &&
         ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

bool isDef(TSNode n) {
  return is(n, "function_definition") || is(n, "lambda");
}

// The dtype names JAX and NumPy spell, with their bit widths.
const std::map<std::string, int, std::less<>>& dtypeTable() {
  static const std::map<std::string, int, std::less<>> table = {
      {"float64", 64},
      {"float32", 32},
      {"float16", 16},
      {"bfloat16", 16},
      {"float8_e4m3fn", 8},
      {"float8_e5m2", 8},
      {"float8_e4m3b11fnuz", 8},
      {"float8_e4m3fnuz", 8},
      {"float8_e5m2fnuz", 8},
      {"float8_e8m0fnu", 8},
      {"float8_e3m4", 8},
      {"float8_e4m3", 8},
      {"float4_e2m1fn", 4},
      {"int64", 64},
      {"int32", 32},
      {"int16", 16},
      {"int8", 8},
      {"int4", 4},
      {"int2", 2},
      {"uint64", 64},
      {"uint32", 32},
      {"uint16", 16},
      {"uint8", 8},
      {"uint4", 4},
      {"uint2", 2},
      {"bool_", 8},
      {"bool", 8},
      {"complex64", 64},
      {"complex128", 128},
      {"double", 64},
      {"single", 32},
      {"half", 16},
  };
  return table;
}

std::string canonicalDtype(std::string name) {
  if (name == "bool")
    return "bool_";
  if (name == "double")
    return "float64";
  if (name == "single")
    return "float32";
  if (name == "half")
    return "float16";
  return name;
}

// "jnp.float16" / "numpy.float16" / "jax.numpy.float16" / "ml_dtypes.bfloat16"
// -> "float16"; "" when not a dtype.
std::string dtypeOfName(const std::string& qn) {
  size_t dot = qn.rfind('.');
  if (dot == std::string::npos)
    return {};
  std::string mod = qn.substr(0, dot), leaf = qn.substr(dot + 1);
  if (mod != "jnp" && mod != "numpy" && mod != "jax.numpy" && mod != "ml_dtypes" &&
      mod != "jax.dtypes")
    return {};
  if (!dtypeTable().count(leaf))
    return {};
  return canonicalDtype(leaf);
}

const std::set<std::string, std::less<>>& builtinNames() {
  static const std::set<std::string, std::less<>> names = {
      "min",        "max",   "len",  "int",       "abs", "sum",    "tuple", "list",
      "range",      "float", "bool", "round",     "pow", "divmod", "str",   "print",
      "isinstance", "dict",  "zip",  "enumerate", "map", "sorted",
  };
  return names;
}

} // namespace

// ---- Value ----------------------------------------------------------------------

Value Value::field(const std::string& name) const {
  auto it = fields.find(name);
  if (it != fields.end())
    return it->second;
  return unknown(s + "." + name);
}

std::optional<std::vector<int64_t>> Value::ints() const {
  if (kind != Kind::Seq)
    return std::nullopt;
  std::vector<int64_t> out;
  for (const Value& v : items) {
    if (!v.isInt())
      return std::nullopt;
    out.push_back(v.i);
  }
  return out;
}

std::string Value::unknownWhy() const {
  if (kind == Kind::Unknown)
    return s.empty() ? "?" : s;
  for (const Value& v : items)
    if (std::string w = v.unknownWhy(); !w.empty())
      return w;
  for (const auto& [k, v] : fields)
    if (std::string w = v.unknownWhy(); !w.empty())
      return w;
  return {};
}

std::string Value::str() const {
  switch (kind) {
  case Kind::Unknown:
    return "<unknown " + s + ">";
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float: {
    std::string t = std::to_string(f);
    return t;
  }
  case Kind::Bool:
    return i ? "True" : "False";
  case Kind::None:
    return "None";
  case Kind::Str:
    return "'" + s + "'";
  case Kind::DType:
    return s;
  case Kind::Function:
    return "<function " + s.substr(s.find('\x1f') + 1) + ">";
  case Kind::Seq: {
    std::string out = i ? "[" : "(";
    for (size_t k = 0; k < items.size(); ++k)
      out += (k ? ", " : "") + items[k].str();
    return out + (i ? "]" : items.size() == 1 ? ",)" : ")");
  }
  case Kind::Object: {
    std::string out = s + "(";
    bool first = true;
    for (const auto& [k, v] : fields) {
      out += (first ? "" : ", ") + k + "=" + v.str();
      first = false;
    }
    return out + ")";
  }
  }
  return "?";
}

std::optional<int> dtypeBits(const std::string& name) {
  auto it = dtypeTable().find(name);
  if (it == dtypeTable().end())
    return std::nullopt;
  return it->second;
}

// ---- Evaluator: structure -------------------------------------------------------

const syntax::Document* Evaluator::docOf(const std::string& path) const {
  auto f = index_.file(path);
  return f ? f->doc : nullptr;
}

std::vector<TSNode> Evaluator::pathTo(TSNode root, TSNode target) {
  std::vector<TSNode> out{root};
  uint32_t s = ts_node_start_byte(target), e = ts_node_end_byte(target);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (unsigned guard = 0; guard < 100000 && !ts_node_eq(out.back(), target); ++guard) {
    if (ts_tree_cursor_goto_first_child_for_byte(&cursor, s) < 0)
      break;
    bool found = false;
    do {
      TSNode n = ts_tree_cursor_current_node(&cursor);
      if (ts_node_start_byte(n) > s)
        break;
      if (ts_node_end_byte(n) >= e) {
        found = true;
        break;
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
    if (!found)
      break;
    out.push_back(ts_tree_cursor_current_node(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<TSNode> Evaluator::pathToPoint(TSNode root, TSPoint point) {
  std::vector<TSNode> out{root};
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  auto before = [](TSPoint a, TSPoint b) {
    return a.row < b.row || (a.row == b.row && a.column < b.column);
  };
  for (unsigned guard = 0; guard < 100000; ++guard) {
    if (ts_tree_cursor_goto_first_child_for_point(&cursor, point) < 0)
      break;
    // The child may end exactly at the point (`(` before an argument that
    // starts there): the node that contains it is a later sibling.
    TSNode n = ts_tree_cursor_current_node(&cursor);
    while (!before(point, ts_node_end_point(n)) && ts_tree_cursor_goto_next_sibling(&cursor))
      n = ts_tree_cursor_current_node(&cursor);
    if (before(point, ts_node_start_point(n)) || !before(point, ts_node_end_point(n)))
      break;
    out.push_back(n);
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

const std::vector<TSNode>& Evaluator::topLevel(const syntax::Document* doc) const {
  auto it = topLevel_.find(doc);
  if (it == topLevel_.end())
    it = topLevel_.emplace(doc, namedChildren(doc->root())).first;
  return it->second;
}

std::vector<TSNode> Evaluator::path(const syntax::Document* doc, TSNode target) const {
  const std::vector<TSNode>& top = topLevel(doc);
  uint32_t s = ts_node_start_byte(target), e = ts_node_end_byte(target);
  auto it = std::upper_bound(top.begin(), top.end(), s,
                             [](uint32_t b, TSNode n) { return b < ts_node_start_byte(n); });
  if (it != top.begin() && ts_node_end_byte(*(it - 1)) >= e) {
    std::vector<TSNode> out{doc->root()};
    std::vector<TSNode> rest = pathTo(*(it - 1), target);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  return pathTo(doc->root(), target);
}

std::vector<TSNode> Evaluator::pathAt(const syntax::Document* doc, TSPoint point) const {
  const std::vector<TSNode>& top = topLevel(doc);
  auto before = [](TSPoint a, TSPoint b) {
    return a.row < b.row || (a.row == b.row && a.column < b.column);
  };
  auto it = std::upper_bound(top.begin(), top.end(), point, [&](TSPoint p, TSNode n) {
    return before(p, ts_node_start_point(n));
  });
  if (it != top.begin() && before(point, ts_node_end_point(*(it - 1)))) {
    std::vector<TSNode> out{doc->root()};
    std::vector<TSNode> rest = pathToPoint(*(it - 1), point);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  return pathToPoint(doc->root(), point);
}

Scope Evaluator::scopeAt(const std::string& path, TSNode node) const {
  Scope s;
  s.path = path;
  const syntax::Document* doc = docOf(path);
  if (!doc)
    return s;
  std::vector<TSNode> chain = this->path(doc, node);
  for (size_t k = chain.size(); k-- > 0;)
    if (!ts_node_eq(chain[k], node) && isDef(chain[k])) {
      s.function = chain[k];
      break;
    }
  return s;
}

std::optional<TSNode> Evaluator::callAt(const std::string& path, uint32_t row,
                                        uint32_t column) const {
  const syntax::Document* doc = docOf(path);
  if (!doc)
    return std::nullopt;
  TSPoint p{row, column};
  // The innermost call that starts there (`pl.pallas_call(...)` rather than
  // `pl.pallas_call(...)(x)`).
  std::vector<TSNode> chain = pathAt(doc, p);
  for (size_t k = chain.size(); k-- > 0;) {
    TSPoint s = ts_node_start_point(chain[k]);
    if (is(chain[k], "call") && s.row == row && s.column == column)
      return chain[k];
  }
  return std::nullopt;
}

Evaluator::Args Evaluator::argsOf(TSNode call, const syntax::Document& doc) {
  Args a;
  TSNode args = field(call, "arguments");
  if (isNull(args))
    return a;
  if (is(args, "generator_expression")) {
    a.splat = true;
    return a;
  }
  for (TSNode c : namedChildren(args)) {
    if (is(c, "comment"))
      continue;
    if (is(c, "keyword_argument")) {
      TSNode name = field(c, "name");
      TSNode value = field(c, "value");
      if (!isNull(name) && !isNull(value))
        a.keywords[str(doc.textOf(name))] = value;
      continue;
    }
    if (is(c, "list_splat") || is(c, "dictionary_splat")) {
      a.splat = true;
      continue;
    }
    a.positional.push_back(c);
  }
  return a;
}

TSNode Evaluator::Args::get(size_t index, const std::string& keyword) const {
  auto it = keywords.find(keyword);
  if (it != keywords.end())
    return it->second;
  if (index < positional.size())
    return positional[index];
  return TSNode{};
}

namespace {

// Parameters of a def/lambda: (name, node, default-or-null, kind) in order.
struct Param {
  std::string name;
  TSNode node{};
  TSNode defaultValue{};
  bool star = false; // *args / **kwargs
};

std::vector<Param> paramsOf(TSNode def, const syntax::Document& doc) {
  std::vector<Param> out;
  TSNode params = field(def, "parameters");
  if (isNull(params))
    return out;
  for (TSNode p : namedChildren(params)) {
    Param q;
    q.node = p;
    if (is(p, "identifier")) {
      q.name = str(doc.textOf(p));
    } else if (is(p, "default_parameter") || is(p, "typed_default_parameter")) {
      q.name = str(doc.textOf(field(p, "name")));
      q.defaultValue = field(p, "value");
    } else if (is(p, "typed_parameter")) {
      for (TSNode c : namedChildren(p))
        if (is(c, "identifier")) {
          q.name = str(doc.textOf(c));
          break;
        }
    } else if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern")) {
      q.star = true;
      for (TSNode c : namedChildren(p))
        if (is(c, "identifier"))
          q.name = str(doc.textOf(c));
    } else {
      continue; // keyword separator, positional separator
    }
    out.push_back(q);
  }
  return out;
}

} // namespace

std::string Evaluator::qualifiedName(TSNode expr, const Scope& scope) const {
  expr = unparen(expr);
  auto f = index_.file(scope.path);
  if (!f || !f->globals)
    return {};
  std::string dotted = names::dottedName(expr, *f->doc);
  if (dotted.empty())
    return {};
  std::string first = dotted.substr(0, dotted.find('.'));
  // A local name (parameter or assignment of an enclosing def) shadows.
  for (const Scope* s = &scope; s; s = s->parent.get()) {
    if (s->bound.count(first))
      return {};
    if (!isNull(s->function) && localNames(s->path, s->function).count(first))
      return {};
  }
  const names::Binding* b = f->globals->find(first);
  if (!b) {
    if (builtinNames().count(first) && dotted == first)
      return "builtins." + first;
    return {};
  }
  auto r = names::resolveGlobalExpr(expr, *f->doc, *f->globals);
  if (!r || (r->kind != names::Binding::Kind::Module && r->kind != names::Binding::Kind::Symbol))
    return {};
  if (!r->file.empty())
    return {};
  return names::isJaxName(r->target) ? names::canonicalApi(r->target) : r->target;
}

// Parameters and names assigned in a def's body, once per def.
const std::set<std::string>& Evaluator::localNames(const std::string& path, TSNode def) const {
  const syntax::Document* doc = docOf(path);
  auto key = std::make_pair(static_cast<const void*>(doc), ts_node_start_byte(def));
  auto it = localNames_.find(key);
  if (it != localNames_.end())
    return it->second;
  std::set<std::string> names;
  if (doc) {
    for (const Param& p : paramsOf(def, *doc))
      names.insert(p.name);
    TSNode body = field(def, "body");
    if (is(body, "block")) {
      Bindings all;
      lastAssignment(body, std::string(), body, *doc, nullptr, &all);
      for (const auto& [n, b] : all)
        names.insert(n);
    }
  }
  return localNames_.emplace(key, std::move(names)).first->second;
}

// The last statement before `use` in `block` (and the blocks nested in it,
// not in nested defs or classes) that binds `name`: an assignment's right
// side (or a whole tuple assignment), or a def. `conditional` is set when it
// sits in an if/for/while/try that does not also hold `use`.
std::optional<TSNode> Evaluator::lastAssignment(TSNode block, const std::string& name, TSNode use,
                                                const syntax::Document& doc, bool* conditional,
                                                Bindings* all) const {
  // A whole module is scanned once: every name's last binding is kept.
  if (!all && ts_node_eq(block, use) && is(block, "module")) {
    auto it = moduleBindings_.find(&doc);
    if (it == moduleBindings_.end()) {
      it = moduleBindings_.emplace(&doc, Bindings{}).first;
      lastAssignment(block, std::string(), block, doc, nullptr, &it->second);
    }
    auto b = it->second.find(name);
    if (b == it->second.end())
      return std::nullopt;
    if (conditional)
      *conditional = b->second.second;
    return b->second.first;
  }
  std::optional<TSNode> found;
  bool foundConditional = false;
  uint32_t limit = ts_node_start_byte(use);
  bool whole = ts_node_eq(block, use); // every statement counts
  std::function<void(TSNode, bool, int)> scan = [&](TSNode b, bool cond, int depth) {
    if (depth > 64)
      return;
    for (TSNode st : namedChildren(b)) {
      if (!whole && ts_node_start_byte(st) >= limit)
        break;
      std::string_view t = syntax::type(st);
      // `x = x + 1`: the use in the right side sees the binding before it.
      bool complete = whole || ts_node_end_byte(st) <= limit;
      if (t == "expression_statement" && complete) {
        for (TSNode e : namedChildren(st)) {
          if (!is(e, "assignment") && !is(e, "augmented_assignment"))
            continue;
          // Chained `a = b = 1`: the right side is itself an assignment.
          TSNode cur = e;
          while (is(cur, "assignment") || is(cur, "augmented_assignment")) {
            TSNode left = field(cur, "left");
            bool hit = false;
            if (is(left, "identifier")) {
              if (all)
                (*all)[str(doc.textOf(left))] = {cur, cond};
              hit = doc.textOf(left) == name;
            } else if (is(left, "pattern_list") || is(left, "tuple_pattern") ||
                       is(left, "list_pattern")) {
              for (TSNode c : namedChildren(left))
                if (is(c, "identifier")) {
                  if (all)
                    (*all)[str(doc.textOf(c))] = {cur, cond};
                  hit |= doc.textOf(c) == name;
                }
            }
            if (hit) {
              found = cur;
              foundConditional = cond;
            }
            TSNode right = field(cur, "right");
            if (!is(right, "assignment"))
              break;
            cur = right;
          }
        }
      } else if ((t == "function_definition" || t == "class_definition") && complete) {
        if (all)
          (*all)[str(doc.textOf(field(st, "name")))] = {st, cond};
        if (doc.textOf(field(st, "name")) == name) {
          found = st;
          foundConditional = cond;
        }
      } else if (t == "decorated_definition" && complete) {
        TSNode def = field(st, "definition");
        if (all && !isNull(def))
          (*all)[str(doc.textOf(field(def, "name")))] = {def, cond};
        if (!isNull(def) && doc.textOf(field(def, "name")) == name) {
          found = def;
          foundConditional = cond;
        }
      } else if (t == "if_statement" || t == "for_statement" || t == "while_statement" ||
                 t == "try_statement" || t == "with_statement" || t == "match_statement") {
        bool holdsUse = !whole && contains(st, use);
        bool nowCond = cond || (t != "with_statement" && !holdsUse);
        if (t == "for_statement") {
          TSNode left = field(st, "left");
          if (is(left, "identifier") && all)
            (*all)[str(doc.textOf(left))] = {left, true};
          if (is(left, "identifier") && doc.textOf(left) == name) {
            found = left;
            foundConditional = true;
          }
        }
        std::function<void(TSNode, int)> blocks = [&](TSNode n, int d) {
          if (d > 8)
            return;
          for (TSNode c : namedChildren(n)) {
            if (is(c, "block"))
              scan(c, nowCond, depth + 1);
            else if (is(c, "elif_clause") || is(c, "else_clause") || is(c, "except_clause") ||
                     is(c, "finally_clause") || is(c, "case_clause"))
              blocks(c, d + 1);
          }
        };
        blocks(st, 0);
      }
    }
  };
  scan(block, false, 0);
  if (found && conditional)
    *conditional = foundConditional;
  return found;
}

std::optional<TSNode> Evaluator::moduleDef(const std::string& path, const std::string& name) const {
  const syntax::Document* doc = docOf(path);
  if (!doc)
    return std::nullopt;
  bool conditional = false;
  TSNode root = doc->root();
  auto n = lastAssignment(root, name, root, *doc, &conditional);
  if (!n || conditional)
    return std::nullopt;
  return n;
}

// ---- Evaluator: values ----------------------------------------------------------

Value Evaluator::eval(TSNode expr, const Scope& scope) {
  steps_ = 0; // the guard is per expression: one Evaluator serves many
  return evalAt(expr, scope, 0);
}

namespace {

Value fromDtypeValue(const Value& v) {
  if (v.kind == Value::Kind::DType)
    return v;
  if (v.kind == Value::Kind::Str && dtypeBits(canonicalDtype(v.s)))
    return Value::dtype(canonicalDtype(v.s));
  if (v.kind == Value::Kind::Object && v.fields.count("dtype"))
    return v.field("dtype");
  return v.known() ? Value::unknown("dtype of " + v.str()) : v;
}

// One assignment target matched against `name` in a tuple assignment.
std::optional<size_t> indexInPattern(TSNode left, const std::string& name,
                                     const syntax::Document& doc) {
  size_t k = 0;
  for (TSNode c : namedChildren(left)) {
    if (is(c, "identifier") && doc.textOf(c) == name)
      return k;
    ++k;
  }
  return std::nullopt;
}

} // namespace

Value Evaluator::evalAt(TSNode expr, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  if (!doc || isNull(expr))
    return Value::unknown("?");
  if (++steps_ > kMaxSteps || depth > kMaxDepth)
    return Value::unknown(str(doc->textOf(expr)));
  expr = unparen(expr);
  std::string_view t = syntax::type(expr);
  std::string text = str(doc->textOf(expr));
  if (t == "integer") {
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits += c;
    try {
      size_t used = 0;
      long long v = std::stoll(digits, &used, 0);
      if (used == digits.size())
        return Value::integer(v);
    } catch (...) {
    }
    return Value::unknown(text);
  }
  if (t == "float") {
    Value v;
    v.kind = Value::Kind::Float;
    try {
      v.f = std::stod(text);
    } catch (...) {
      return Value::unknown(text);
    }
    return v;
  }
  if (t == "true" || t == "false") {
    Value v;
    v.kind = Value::Kind::Bool;
    v.i = t == "true";
    return v;
  }
  if (t == "none") {
    Value v;
    v.kind = Value::Kind::None;
    return v;
  }
  if (t == "string") {
    if (text.size() >= 2 && (text[0] == '"' || text[0] == '\'') && text.back() == text[0] &&
        text.find(text[0], 1) == text.size() - 1) {
      Value v;
      v.kind = Value::Kind::Str;
      v.s = text.substr(1, text.size() - 2);
      return v;
    }
    return Value::unknown(text);
  }
  if (t == "tuple" || t == "list" || t == "expression_list") {
    std::vector<Value> items;
    for (TSNode c : namedChildren(expr)) {
      if (is(c, "comment"))
        continue;
      if (is(c, "list_splat")) {
        Value inner = evalAt(ts_node_named_child(c, 0), scope, depth + 1);
        if (inner.kind != Value::Kind::Seq)
          return Value::unknown(text);
        items.insert(items.end(), inner.items.begin(), inner.items.end());
        continue;
      }
      items.push_back(evalAt(c, scope, depth + 1));
    }
    Value v = Value::seq(std::move(items));
    v.i = t == "list"; // printed as a list
    return v;
  }
  if (t == "identifier" || t == "attribute") {
    std::string qn = qualifiedName(expr, scope);
    if (!qn.empty()) {
      if (std::string d = dtypeOfName(qn); !d.empty())
        return Value::dtype(d);
      Value v = Value::object(qn); // plgpu.GMEM, pl.ANY, pl.squeezed ...
      return v;
    }
    if (t == "identifier")
      return evalName(text, expr, scope, depth + 1);
    Value base = evalAt(field(expr, "object"), scope, depth + 1);
    Value r = evalAttribute(base, str(doc->textOf(field(expr, "attribute"))));
    if (!r.known() && base.known())
      r.s = text;
    return r;
  }
  if (t == "call")
    return evalCall(expr, scope, depth + 1);
  if (t == "binary_operator") {
    TSNode op = field(expr, "operator");
    Value a = evalAt(field(expr, "left"), scope, depth + 1);
    Value b = evalAt(field(expr, "right"), scope, depth + 1);
    if (!a.known())
      return a;
    if (!b.known())
      return b;
    Value r = evalBinary(str(doc->textOf(op)), a, b);
    if (!r.known())
      r.s = text;
    return r;
  }
  if (t == "unary_operator") {
    Value a = evalAt(field(expr, "argument"), scope, depth + 1);
    std::string op = str(doc->textOf(field(expr, "operator")));
    if (a.isInt() && op == "-")
      return Value::integer(-a.i);
    if (a.isInt() && op == "+")
      return a;
    return a.known() ? Value::unknown(text) : a;
  }
  if (t == "subscript") {
    Value base = evalAt(field(expr, "value"), scope, depth + 1);
    TSNode sub = field(expr, "subscript");
    if (base.kind != Value::Kind::Seq)
      return base.known() ? Value::unknown(text) : base;
    if (is(sub, "slice")) {
      // a[start:stop] (no step)
      std::vector<TSNode> parts = namedChildren(sub);
      int64_t n = static_cast<int64_t>(base.items.size());
      int64_t lo = 0, hi = n;
      // tree-sitter gives the parts without field names; read ':' positions.
      uint32_t colon = ts_node_start_byte(sub);
      std::string st = str(doc->textOf(sub));
      size_t c = st.find(':');
      if (c == std::string::npos || st.find(':', c + 1) != std::string::npos)
        return Value::unknown(text);
      colon += static_cast<uint32_t>(c);
      for (TSNode p : parts) {
        Value v = evalAt(p, scope, depth + 1);
        if (!v.isInt())
          return Value::unknown(text);
        int64_t k = v.i < 0 ? v.i + n : v.i;
        k = std::clamp<int64_t>(k, 0, n);
        (ts_node_start_byte(p) < colon ? lo : hi) = k;
      }
      std::vector<Value> items;
      for (int64_t k = lo; k < hi; ++k)
        items.push_back(base.items[static_cast<size_t>(k)]);
      return Value::seq(std::move(items));
    }
    Value idx = evalAt(sub, scope, depth + 1);
    if (!idx.isInt())
      return Value::unknown(text);
    int64_t n = static_cast<int64_t>(base.items.size());
    int64_t k = idx.i < 0 ? idx.i + n : idx.i;
    if (k < 0 || k >= n)
      return Value::unknown(text);
    return base.items[static_cast<size_t>(k)];
  }
  if (t == "conditional_expression") {
    std::vector<TSNode> parts = namedChildren(expr);
    if (parts.size() == 3) {
      Value c = evalAt(parts[1], scope, depth + 1);
      if (c.kind == Value::Kind::Bool)
        return evalAt(c.i ? parts[0] : parts[2], scope, depth + 1);
      Value a = evalAt(parts[0], scope, depth + 1), b = evalAt(parts[2], scope, depth + 1);
      if (a.known() && a.str() == b.str())
        return a;
    }
    return Value::unknown(text);
  }
  if (t == "comparison_operator") {
    std::vector<TSNode> parts = namedChildren(expr);
    if (parts.size() == 2) {
      Value a = evalAt(parts[0], scope, depth + 1), b = evalAt(parts[1], scope, depth + 1);
      std::string between(doc->text().substr(
          ts_node_end_byte(parts[0]), ts_node_start_byte(parts[1]) - ts_node_end_byte(parts[0])));
      std::string op;
      for (char ch : between)
        if (ch != ' ')
          op += ch;
      if (a.isInt() && b.isInt()) {
        Value v;
        v.kind = Value::Kind::Bool;
        v.i = op == "<"    ? a.i < b.i
              : op == "<=" ? a.i <= b.i
              : op == ">"  ? a.i > b.i
              : op == ">=" ? a.i >= b.i
              : op == "==" ? a.i == b.i
              : op == "!=" ? a.i != b.i
                           : -1;
        if (v.i >= 0)
          return v;
      }
    }
    return Value::unknown(text);
  }
  return Value::unknown(text);
}

Value Evaluator::evalName(const std::string& name, TSNode use, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  if (!doc)
    return Value::unknown(name);
  if (auto it = scope.bound.find(name); it != scope.bound.end())
    return it->second;
  if (!isNull(scope.function)) {
    TSNode body = field(scope.function, "body");
    bool conditional = false;
    if (is(body, "block")) {
      if (auto a = lastAssignment(body, name, use, *doc, &conditional)) {
        if (conditional)
          return Value::unknown(name);
        if (is(*a, "function_definition")) {
          Value v;
          v.kind = Value::Kind::Function;
          v.s = scope.path + '\x1f' + std::to_string(ts_node_start_byte(*a));
          return v;
        }
        if (!is(*a, "assignment"))
          return Value::unknown(name);
        TSNode left = field(*a, "left");
        TSNode right = field(*a, "right");
        while (is(right, "assignment"))
          right = field(right, "right");
        Value v = evalAt(right, scope, depth + 1);
        if (is(left, "identifier"))
          return v;
        auto k = indexInPattern(left, name, *doc);
        if (v.kind == Value::Kind::Seq && k && *k < v.items.size())
          return v.items[*k];
        return Value::unknown(name);
      }
    }
    for (const Param& p : paramsOf(scope.function, *doc))
      if (p.name == name)
        return p.star ? Value::unknown(name) : paramValue(name, p.node, scope, depth + 1);
    // A closure: the enclosing def's names.
    Scope outer = scope.parent ? *scope.parent : scopeAt(scope.path, scope.function);
    if (!scope.parent && !isNull(outer.function))
      return evalName(name, outer.function, outer, depth + 1);
    if (scope.parent)
      return evalName(name, scope.function, outer, depth + 1);
  }
  // Module level: the last binding in the file.
  TSNode root = doc->root();
  bool conditional = false;
  if (auto a = lastAssignment(root, name, root, *doc, &conditional)) {
    if (conditional)
      return Value::unknown(name);
    if (is(*a, "function_definition")) {
      Value v;
      v.kind = Value::Kind::Function;
      v.s = scope.path + '\x1f' + std::to_string(ts_node_start_byte(*a));
      return v;
    }
    if (is(*a, "assignment")) {
      Scope module;
      module.path = scope.path;
      TSNode left = field(*a, "left");
      TSNode right = field(*a, "right");
      while (is(right, "assignment"))
        right = field(right, "right");
      Value v = evalAt(right, module, depth + 1);
      if (is(left, "identifier"))
        return v;
      auto k = indexInPattern(left, name, *doc);
      if (v.kind == Value::Kind::Seq && k && *k < v.items.size())
        return v.items[*k];
    }
    return Value::unknown(name);
  }
  // Imported from another workspace file: that file's binding.
  auto f = index_.file(scope.path);
  if (f && f->globals)
    if (const names::Binding* b = f->globals->find(name); b && !b->file.empty()) {
      if (b->kind == names::Binding::Kind::Function) {
        Value v;
        v.kind = Value::Kind::Function;
        v.s = b->file + '\x1f' + b->target;
        return v;
      }
      std::string leaf = b->target.substr(b->target.rfind('.') + 1);
      Scope other;
      other.path = b->file;
      if (other.path != scope.path && docOf(other.path))
        return evalName(leaf.empty() ? name : leaf, TSNode{}, other, depth + 1);
    }
  return Value::unknown(name);
}

Value Evaluator::paramValue(const std::string& name, TSNode param, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  TSNode defaultValue{};
  if (is(param, "default_parameter") || is(param, "typed_default_parameter"))
    defaultValue = field(param, "value");
  // A module-level def: what its callers pass.
  TSNode def = scope.function;
  TSNode parent{};
  if (const syntax::Document* d = docOf(scope.path)) {
    std::vector<TSNode> chain = this->path(d, def);
    size_t k = chain.size() >= 2 ? chain.size() - 2 : 0;
    if (chain.size() >= 2 && is(chain[k], "decorated_definition") && k > 0)
      --k;
    if (chain.size() >= 2)
      parent = chain[k];
  }
  if (is(def, "function_definition") && is(parent, "module") && depth < kMaxDepth) {
    Value v = fromCallers(name, scope, depth + 1);
    if (v.known())
      return v;
    if (v.s != "<no callers>")
      return v;
  }
  if (!isNull(defaultValue)) {
    Scope outer = scopeAt(scope.path, def);
    return evalAt(defaultValue, outer, depth + 1);
  }
  (void)doc;
  return Value::unknown(name);
}

Value Evaluator::fromCallers(const std::string& name, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  if (!doc || depth > kMaxDepth)
    return Value::unknown(name);
  std::string symbol = str(doc->textOf(field(scope.function, "name")));
  // Caller hops are bounded: a deep chain of parameters is unknown.
  int hops = 0;
  for (int d = depth; d > 0; d -= 4)
    ++hops;
  if (hops > kMaxCallerDepth * 3)
    return Value::unknown(name);
  std::vector<SourceIndex::CallSite> sites = index_.callersOf(scope.path, symbol);
  if (sites.empty())
    return Value::unknown("<no callers>");
  std::vector<Param> params = paramsOf(scope.function, *doc);
  size_t position = 0;
  bool keywordOnly = false;
  for (const Param& p : params) {
    if (p.name == name)
      break;
    if (p.star)
      keywordOnly = true;
    ++position;
  }
  std::optional<Value> agreed;
  for (const SourceIndex::CallSite& site : sites) {
    auto call = callAt(site.path, site.row, site.column);
    const syntax::Document* cdoc = docOf(site.path);
    if (!call || !cdoc)
      return Value::unknown(name);
    Evaluator::Args args = Evaluator::argsOf(*call, *cdoc);
    TSNode arg = args.get(keywordOnly ? SIZE_MAX : position, name);
    Value v;
    if (isNull(arg)) {
      if (args.splat)
        return Value::unknown(name);
      const Param& p = params[std::min(position, params.size() - 1)];
      if (isNull(p.defaultValue))
        return Value::unknown(name);
      v = evalAt(p.defaultValue, scopeAt(scope.path, scope.function), depth + 1);
    } else {
      v = evalAt(arg, scopeAt(site.path, *call), depth + 1);
    }
    if (!v.known())
      return Value::unknown(name);
    if (agreed && agreed->str() != v.str())
      return Value::unknown(name + " (callers disagree)");
    agreed = v;
  }
  return agreed ? *agreed : Value::unknown(name);
}

Value Evaluator::evalAttribute(const Value& base, const std::string& attr) {
  if (!base.known())
    return base;
  if (base.kind == Value::Kind::DType) {
    if (attr == "itemsize") {
      auto bits = dtypeBits(base.s);
      return bits && *bits % 8 == 0 ? Value::integer(*bits / 8) : Value::unknown("itemsize");
    }
    if (attr == "name") {
      Value v;
      v.kind = Value::Kind::Str;
      v.s = base.s;
      return v;
    }
    if (attr == "dtype")
      return base;
    return Value::unknown(attr);
  }
  if (base.kind == Value::Kind::Object) {
    if (base.fields.count(attr))
      return base.field(attr);
    Value shape = base.field("shape");
    if (attr == "ndim" && shape.kind == Value::Kind::Seq)
      return Value::integer(static_cast<int64_t>(shape.items.size()));
    if (attr == "size")
      if (auto dims = shape.ints()) {
        int64_t n = 1;
        for (int64_t d : *dims)
          n *= d;
        return Value::integer(n);
      }
    if (attr == "itemsize")
      return evalAttribute(base.field("dtype"), "itemsize");
    return Value::unknown(base.s + "." + attr);
  }
  return Value::unknown(attr);
}

Value Evaluator::evalBinary(const std::string& op, const Value& a, const Value& b) {
  if (a.isInt() && b.isInt()) {
    int64_t x = a.i, y = b.i;
    if (op == "+")
      return Value::integer(x + y);
    if (op == "-")
      return Value::integer(x - y);
    if (op == "*")
      return Value::integer(x * y);
    if (op == "//" && y != 0) {
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0)))
        --q; // Python floors
      return Value::integer(q);
    }
    if (op == "%" && y != 0) {
      int64_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
      return Value::integer(r);
    }
    if (op == "**" && y >= 0 && y < 63) {
      int64_t r = 1;
      for (int64_t k = 0; k < y; ++k)
        r *= x;
      return Value::integer(r);
    }
    if (op == "<<" && y >= 0 && y < 62)
      return Value::integer(x << y);
    if (op == ">>" && y >= 0 && y < 63)
      return Value::integer(x >> y);
    if (op == "/" && y != 0) {
      Value v;
      v.kind = Value::Kind::Float;
      v.f = static_cast<double>(x) / static_cast<double>(y);
      return v;
    }
    return Value::unknown(op);
  }
  if (a.kind == Value::Kind::Seq && b.kind == Value::Kind::Seq && op == "+") {
    std::vector<Value> items = a.items;
    items.insert(items.end(), b.items.begin(), b.items.end());
    Value v = Value::seq(std::move(items));
    v.i = a.i;
    return v;
  }
  if (op == "*" &&
      ((a.kind == Value::Kind::Seq && b.isInt()) || (a.isInt() && b.kind == Value::Kind::Seq))) {
    const Value& s = a.kind == Value::Kind::Seq ? a : b;
    int64_t n = a.isInt() ? a.i : b.i;
    std::vector<Value> items;
    for (int64_t k = 0; k < n && items.size() < 4096; ++k)
      items.insert(items.end(), s.items.begin(), s.items.end());
    Value v = Value::seq(std::move(items));
    v.i = s.i;
    return v;
  }
  return Value::unknown(op);
}

Value Evaluator::evalCall(TSNode call, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  TSNode callee = unparen(field(call, "function"));
  std::string qn = qualifiedName(callee, scope);
  if (!qn.empty())
    return evalApi(qn, call, scope, depth);
  // jnp.dtype(x).itemsize is an attribute; x.astype(d) etc. are not modelled.
  Value f = is(callee, "identifier") ? evalAt(callee, scope, depth + 1) : Value{};
  if (f.kind == Value::Kind::Function) {
    std::string path = f.s.substr(0, f.s.find('\x1f'));
    std::string key = f.s.substr(f.s.find('\x1f') + 1);
    const syntax::Document* fdoc = docOf(path);
    if (fdoc) {
      TSNode def{};
      if (!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)) {
        uint32_t byte = static_cast<uint32_t>(std::stoul(key));
        TSPoint at{};
        {
          TSNode n = ts_node_descendant_for_byte_range(fdoc->root(), byte, byte);
          at = ts_node_start_point(n);
          if (ts_node_start_byte(n) != byte)
            at = TSPoint{UINT32_MAX, 0};
        }
        for (TSNode n : pathAt(fdoc, at))
          if (is(n, "function_definition") && ts_node_start_byte(n) == byte)
            def = n;
      } else if (auto d = moduleDef(path, key); d && is(*d, "function_definition")) {
        def = *d;
      }
      if (!isNull(def))
        return evalUserCall(def, path, call, scope, depth + 1);
    }
  }
  return Value::unknown(str(doc->textOf(callee)) + "(...)");
}

// A user helper that returns a value: `def smem_tile(bm): return plgpu.SMEM(...)`.
// Its parameters are bound to the call's arguments; one return statement.
Value Evaluator::evalUserCall(TSNode def, const std::string& path, TSNode call, const Scope& scope,
                              int depth) {
  const syntax::Document* fdoc = docOf(path);
  const syntax::Document* doc = docOf(scope.path);
  if (!fdoc || !doc)
    return Value::unknown("call");
  TSNode body = field(def, "body");
  std::optional<TSNode> ret;
  int returns = 0;
  std::function<void(TSNode, int)> find = [&](TSNode n, int d) {
    if (d > 64 || returns > 1)
      return;
    for (TSNode c : namedChildren(n)) {
      if (is(c, "return_statement")) {
        ++returns;
        ret = c;
      } else if (!is(c, "function_definition") && !is(c, "class_definition") &&
                 !is(c, "decorated_definition") && !is(c, "lambda")) {
        find(c, d + 1);
      }
    }
  };
  find(body, 0);
  if (returns != 1 || !ret || ts_node_named_child_count(*ret) == 0)
    return Value::unknown(str(fdoc->textOf(field(def, "name"))) + "(...)");
  Scope inner;
  inner.path = path;
  inner.function = def;
  Evaluator::Args args = Evaluator::argsOf(call, *doc);
  if (args.splat)
    return Value::unknown(str(fdoc->textOf(field(def, "name"))) + "(...)");
  size_t k = 0;
  for (const Param& p : paramsOf(def, *fdoc)) {
    if (p.star)
      break;
    TSNode a = args.get(k++, p.name);
    if (!isNull(a))
      inner.bound[p.name] = evalAt(a, scope, depth + 1);
    else if (!isNull(p.defaultValue))
      inner.bound[p.name] = evalAt(p.defaultValue, scopeAt(path, def), depth + 1);
  }
  return evalAt(ts_node_named_child(*ret, 0), inner, depth + 1);
}

Value Evaluator::evalApi(const std::string& api, TSNode call, const Scope& scope, int depth) {
  const syntax::Document* doc = docOf(scope.path);
  Evaluator::Args a = Evaluator::argsOf(call, *doc);
  auto arg = [&](size_t index, const std::string& keyword) -> Value {
    TSNode n = a.get(index, keyword);
    if (isNull(n))
      return Value::unknown("<absent " + keyword + ">");
    return evalAt(n, scope, depth + 1);
  };
  auto has = [&](size_t index, const std::string& keyword) {
    return !isNull(a.get(index, keyword));
  };
  std::string text = str(doc->textOf(call));
  if (text.size() > 60)
    text = text.substr(0, 57) + "...";
  std::string leaf = api.substr(api.rfind('.') + 1);
  bool numpyLike = startsWith(api, "jnp.") || startsWith(api, "numpy.");
  if (!dtypeOfName(api).empty())
    return Value::unknown(text); // jnp.float32(1.0): a scalar, not a dtype
  if (api == "jnp.dtype" || api == "numpy.dtype") {
    Value d = fromDtypeValue(arg(0, "dtype"));
    return d;
  }
  if (api == "builtins.min" || api == "builtins.max" || api == "builtins.sum") {
    std::vector<Value> vals;
    if (a.positional.size() == 1) {
      Value s = arg(0, "");
      if (s.kind != Value::Kind::Seq)
        return Value::unknown(text);
      vals = s.items;
    } else {
      for (size_t k = 0; k < a.positional.size(); ++k)
        vals.push_back(arg(k, ""));
    }
    if (vals.empty() && api != "builtins.sum")
      return Value::unknown(text);
    int64_t r = api == "builtins.sum" ? 0 : 0;
    bool first = true;
    for (const Value& v : vals) {
      if (!v.isInt())
        return v.known() ? Value::unknown(text) : v;
      if (api == "builtins.sum")
        r += v.i;
      else if (first || (api == "builtins.min" ? v.i < r : v.i > r))
        r = v.i;
      first = false;
    }
    return Value::integer(r);
  }
  if (api == "math.prod" || api == "numpy.prod") {
    Value s = arg(0, "");
    if (s.kind != Value::Kind::Seq)
      return s.known() ? Value::unknown(text) : s;
    int64_t r = 1;
    for (const Value& v : s.items) {
      if (!v.isInt())
        return v.known() ? Value::unknown(text) : v;
      r *= v.i;
    }
    return Value::integer(r);
  }
  if (api == "builtins.len") {
    Value s = arg(0, "");
    if (s.kind == Value::Kind::Seq)
      return Value::integer(static_cast<int64_t>(s.items.size()));
    return s.known() ? Value::unknown(text) : s;
  }
  if (api == "builtins.int" || api == "builtins.abs") {
    Value v = arg(0, "");
    if (v.isInt())
      return api == "builtins.abs" ? Value::integer(v.i < 0 ? -v.i : v.i) : v;
    if (v.kind == Value::Kind::Float && api == "builtins.int")
      return Value::integer(static_cast<int64_t>(v.f));
    return v.known() ? Value::unknown(text) : v;
  }
  if (api == "builtins.tuple" || api == "builtins.list") {
    Value v = arg(0, "");
    v.i = api == "builtins.list";
    return v.kind == Value::Kind::Seq ? v : (v.known() ? Value::unknown(text) : v);
  }
  if (api == "pl.cdiv") {
    Value x = arg(0, ""), y = arg(1, "");
    if (x.isInt() && y.isInt() && y.i > 0)
      return Value::integer((x.i + y.i - 1) / y.i);
    return Value::unknown(text);
  }
  if (api == "jax.ShapeDtypeStruct") {
    Value v = Value::object("jax.ShapeDtypeStruct");
    v.fields["shape"] = arg(0, "shape");
    v.fields["dtype"] = fromDtypeValue(arg(1, "dtype"));
    return v;
  }
  if (numpyLike && (leaf == "zeros" || leaf == "ones" || leaf == "empty" || leaf == "full")) {
    Value v = Value::object("array");
    Value shape = arg(0, "shape");
    if (shape.isInt())
      shape = Value::seq({shape});
    v.fields["shape"] = shape;
    size_t dtypeIndex = leaf == "full" ? 2 : 1;
    v.fields["dtype"] =
        has(dtypeIndex, "dtype")
            ? fromDtypeValue(arg(dtypeIndex, "dtype"))
            : (leaf == "full" ? Value::unknown("dtype of " + text) : Value::dtype("float32"));
    return v;
  }
  if (startsWith(api, "jax.random.") &&
      (leaf == "normal" || leaf == "uniform" || leaf == "bernoulli")) {
    Value v = Value::object("array");
    v.fields["shape"] = arg(1, "shape");
    v.fields["dtype"] = has(2, "dtype") ? fromDtypeValue(arg(2, "dtype")) : Value::dtype("float32");
    return v;
  }
  if (api == "plgpu.SMEM" || api == "plgpu.GMEM" || api == "plgpu.TMEM" || api == "pl.ANY" ||
      api == "plgpu.ACC" || api == "plgpu.ACC.init") {
    Value v = Value::object(api);
    Value shape = arg(0, "shape");
    if (shape.isInt())
      shape = Value::seq({shape});
    v.fields["shape"] = shape;
    v.fields["dtype"] = has(1, "dtype")
                            ? fromDtypeValue(arg(1, "dtype"))
                            : (startsWith(api, "plgpu.ACC") ? Value::dtype("float32")
                                                            : Value::unknown("dtype of " + text));
    if (has(99, "transforms"))
      v.fields["transforms"] = arg(99, "transforms");
    return v;
  }
  if (api == "plgpu.Barrier") {
    Value v = Value::object(api);
    v.fields["num_arrivals"] = has(0, "num_arrivals") ? arg(0, "num_arrivals") : Value::integer(1);
    Value nb = has(1, "num_barriers") ? arg(1, "num_barriers") : Value::integer(1);
    if (nb.kind == Value::Kind::Seq) { // a tuple of counts: their product
      int64_t n = 1;
      for (const Value& x : nb.items) {
        if (!x.isInt()) {
          n = -1;
          break;
        }
        n *= x.i;
      }
      nb = n < 0 ? Value::unknown("num_barriers") : Value::integer(n);
    }
    v.fields["num_barriers"] = nb;
    Value orders;
    orders.kind = Value::Kind::Bool;
    v.fields["orders_tensor_core"] =
        has(2, "orders_tensor_core") ? arg(2, "orders_tensor_core") : orders;
    return v;
  }
  if (api == "pl.BlockSpec" || api == "plgpu.BlockSpec") {
    Value v = Value::object("BlockSpec");
    if (has(0, "block_shape")) {
      Value b = arg(0, "block_shape");
      if (b.isInt())
        b = Value::seq({b});
      v.fields["block_shape"] = b;
    } else {
      Value none;
      none.kind = Value::Kind::None;
      v.fields["block_shape"] = none;
    }
    if (has(2, "memory_space"))
      v.fields["memory_space"] = arg(2, "memory_space");
    if (has(99, "delay_release"))
      v.fields["delay_release"] = arg(99, "delay_release");
    if (has(99, "transforms"))
      v.fields["transforms"] = arg(99, "transforms");
    return v;
  }
  // Issue 17 (PLS006-PLS008, MosaicLaunch.h): the transforms of a BlockSpec
  // or an SMEM allocation.
  if (api == "plgpu.TilingTransform") {
    Value v = Value::object(api);
    v.fields["tiling"] = arg(0, "tiling");
    return v;
  }
  if (api == "plgpu.SwizzleTransform") {
    Value v = Value::object(api);
    v.fields["swizzle"] = arg(0, "swizzle");
    return v;
  }
  if (api == "plgpu.CompilerParams") {
    Value v = Value::object(api);
    if (!a.positional.empty() || a.splat)
      v.fields["<positional>"] = Value::unknown(text);
    for (const auto& [k, n] : a.keywords)
      v.fields[k] = evalAt(n, scope, depth + 1);
    return v;
  }
  if (api == "builtins.range")
    return Value::unknown(text);
  return Value::unknown(text);
}

} // namespace pallas::analysis::shape
