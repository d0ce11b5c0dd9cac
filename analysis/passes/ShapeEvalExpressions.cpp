// Expressions as values (ShapeEval.h): literals, names, tuples, subscripts,
// attributes and operators, evaluated the way Python would.
#include "ShapeEvalInternal.h"

#include <cmath>

namespace pallas::analysis::shape {

// ---- Evaluator: values ----------------------------------------------------------

Value Evaluator::eval(TSNode expr, const Scope& scope) {
  steps_ = 0; // the guard is per expression: one Evaluator serves many
  return evalAt(expr, scope, 0);
}

Value Evaluator::evalAt(TSNode expr, const Scope& scope, int depth) {
  Value v = evalSyntax(expr, scope, depth);
  if (!oracle_ || isNull(expr))
    return v;
  // What the program's run saw wins where it knows all of the value and
  // the text says otherwise: the run executed the statements between the
  // binding and this use (`out_type.append(...)`, a loop, a helper's
  // return), which reading the binding's text does not.
  if (std::optional<Value> ran = oracle_(scope.path, unparen(expr)))
    if (!v.known() || (ran->unknownWhy().empty() && ran->str() != v.str()))
      return *ran;
  return v;
}

// A literal's value: ints (digits grouped with `_`, hex), floats, bools,
// None and strings; nullopt for any other node.
std::optional<Value> Evaluator::literal(std::string_view t, const std::string& text,
                                        const syntax::ParsedSource* doc, TSNode expr) {
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
    } catch (...) { // NOLINT(bugprone-empty-catch): out of range is simply not known
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
  return std::nullopt;
}

// base[i] and base[start:stop] of a sequence.
Value Evaluator::evalSubscript(TSNode expr, const std::string& text, const Scope& scope,
                               int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
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

// a < b (one comparison of ints).
Value Evaluator::evalComparison(TSNode expr, const std::string& text, const Scope& scope,
                                int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (std::optional<syntax::Comparison> cmp = syntax::comparisonOf(*doc, expr)) {
    Value a = evalAt(cmp->left, scope, depth + 1), b = evalAt(cmp->right, scope, depth + 1);
    const std::string& op = cmp->op;
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
  return Value::unknown(text);
}

Value Evaluator::evalSyntax(TSNode expr, const Scope& scope, int depth) {
  const syntax::ParsedSource* doc = docOf(scope.path);
  if (!doc || isNull(expr))
    return Value::unknown("?");
  if (++steps_ > kMaxSteps || depth > kMaxDepth)
    return Value::unknown(str(doc->textOf(expr)));
  expr = unparen(expr);
  std::string_view t = syntax::type(expr);
  std::string text = str(doc->textOf(expr));
  if (std::optional<Value> v = literal(t, text, doc, expr))
    return *v;
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
  if (t == "subscript")
    return evalSubscript(expr, text, scope, depth);
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
  if (t == "comparison_operator")
    return evalComparison(expr, text, scope, depth);
  return Value::unknown(text);
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

} // namespace pallas::analysis::shape
