// A value of the shape evaluator (ShapeEval.h): what a Python expression that
// sizes a kernel evaluates to (an int, a tuple, a dtype, an SMEM object...), or
// Unknown with the text that was not known. No tree-sitter, no MLIR here.
#pragma once

#include "pallas/analysis/detail/Apis.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::analysis::shape {

// Object values are named by the API that built them, from the catalogue.
using analysis::detail::Api;
using analysis::detail::apiName;
// The object either BlockSpec spelling (pl. / plgpu.) builds: JAX's class name.
inline constexpr std::string_view kBlockSpecObject = analysis::detail::apiLeaf(Api::BlockSpec);

struct Value {
  enum class Kind { Unknown, Int, Float, Bool, None, Str, Seq, DType, Object, Function };
  Kind kind = Kind::Unknown;
  int64_t i = 0;
  double f = 0;
  // Str: the string; DType: the canonical dtype name ("float16");
  // Object: the canonical API that built it ("plgpu.SMEM", "jax.ShapeDtypeStruct",
  // "array" for jnp arrays); Function: "path\x1fsymbol"; Unknown: what is unknown.
  std::string s;
  std::vector<Value> items;            // Seq: tuple/list items
  std::map<std::string, Value> fields; // Object: its attributes (shape, dtype, ...)

  static Value unknown(std::string why) {
    Value v;
    v.s = std::move(why);
    return v;
  }
  static Value integer(int64_t n) {
    Value v;
    v.kind = Kind::Int;
    v.i = n;
    return v;
  }
  static Value seq(std::vector<Value> items) {
    Value v;
    v.kind = Kind::Seq;
    v.items = std::move(items);
    return v;
  }
  static Value dtype(std::string name) {
    Value v;
    v.kind = Kind::DType;
    v.s = std::move(name);
    return v;
  }
  static Value object(std::string api) {
    Value v;
    v.kind = Kind::Object;
    v.s = std::move(api);
    return v;
  }
  static Value none() {
    Value v;
    v.kind = Kind::None;
    return v;
  }
  // A bool; Kind::Bool with i = 0 also stands for "a bool, false unless set".
  static Value boolean(bool b) {
    Value v;
    v.kind = Kind::Bool;
    v.i = b ? 1 : 0;
    return v;
  }
  bool known() const { return kind != Kind::Unknown; }
  bool isInt() const { return kind == Kind::Int; }
  bool isObject(std::string_view api) const { return kind == Kind::Object && s == api; }
  // An attribute of an Object (Unknown when absent).
  Value field(const std::string& name) const;
  // Every Int of a Seq of Ints, nullopt otherwise.
  std::optional<std::vector<int64_t>> ints() const;
  // The first unknown piece of this value (for "unknown: x"), "" when known.
  std::string unknownWhy() const;
  // Python-like text: (128, 64), float16, SMEM((2, 128), float16).
  std::string str() const;
};

// How JAX reads the arguments of its allocations, the same wherever the
// allocation's value comes from (the shape evaluator's call, or an object
// the program built):
// - a shape given as one int is a 1-tuple (plgpu.SMEM(128, ...));
Value asShapeTuple(Value shape);
// - a barrier count given as a tuple is their product (num_barriers=(2, 3)
//   allocates 6), unknown when one of them is.
Value barrierCount(Value count);

// Size of one element in bits (float16 -> 16), nullopt for names that are
// not dtypes.
std::optional<int> dtypeBits(const std::string& name);

} // namespace pallas::analysis::shape
