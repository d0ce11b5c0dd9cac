// Values of the shape evaluator (ShapeValue.h) and the dtype names JAX and
// NumPy spell, with their bit widths.
#include "ShapeEvalInternal.h"

#include <map>

namespace pallas::analysis::shape {

namespace {

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

} // namespace

namespace detail {

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

Value fromDtypeValue(const Value& v) {
  if (v.kind == Value::Kind::DType)
    return v;
  if (v.kind == Value::Kind::Str && dtypeBits(canonicalDtype(v.s)))
    return Value::dtype(canonicalDtype(v.s));
  if (v.kind == Value::Kind::Object && v.fields.count("dtype"))
    return v.field("dtype");
  return v.known() ? Value::unknown("dtype of " + v.str()) : v;
}

} // namespace detail

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

Value asShapeTuple(Value shape) {
  return shape.isInt() ? Value::seq({std::move(shape)}) : shape;
}

Value barrierCount(Value count) {
  if (count.kind != Value::Kind::Seq)
    return count;
  int64_t product = 1;
  for (const Value& x : count.items) {
    if (!x.isInt())
      return Value::unknown("num_barriers");
    product *= x.i;
  }
  return Value::integer(product);
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

} // namespace pallas::analysis::shape
