// What the files of the shape evaluator share (ShapeEval.h is the public
// face): its bounds, small tree-sitter helpers, dtype spelling, parameters of
// a def. Included only by ShapeValue.cpp and ShapeEval*.cpp.
#pragma once

#include "ShapeEval.h"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::analysis::shape::detail {

constexpr int kMaxDepth = 24;      // nested evaluations (names, calls, callers)
constexpr int kMaxSteps = 200000;  // per Evaluator: pathological inputs stay bounded
constexpr int kMaxCallerDepth = 3; // caller hops when a parameter is unbound

inline std::string str(std::string_view v) {
  return std::string(v);
}

inline bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

inline TSNode unparen(TSNode n) {
  while (syntax::is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0)
    n = ts_node_named_child(n, 0);
  return n;
}

inline bool contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) &&
         ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

inline bool isDef(TSNode n) {
  return syntax::is(n, "function_definition") || syntax::is(n, "lambda");
}

// ShapeValue.cpp: dtype spelling.
// "bool" -> "bool_", "double" -> "float64", ...; other names unchanged.
std::string canonicalDtype(std::string name);
// "jnp.float16" / "numpy.float16" / "jax.numpy.float16" / "ml_dtypes.bfloat16"
// -> "float16"; "" when not a dtype.
std::string dtypeOfName(const std::string& qn);
// The dtype a value stands for (a dtype, its name, an array's dtype).
Value fromDtypeValue(const Value& v);

// ShapeEvalBindings.cpp: names and parameters.
// The Python builtins the evaluator models (or knows to be builtins).
const std::set<std::string, std::less<>>& builtinNames();
// Parameters of a def/lambda: (name, node, default-or-null, kind) in order.
struct Param {
  std::string name;
  TSNode node{};
  TSNode defaultValue{};
  bool star = false; // *args / **kwargs
};

std::vector<Param> paramsOf(TSNode def, const syntax::ParsedSource& doc);
// ShapeEvalApis.cpp: whether a `lambda` index map uses none of its
// parameters (`lambda i: (0, 0)`); nullopt when it is not a plain lambda.
std::optional<bool> lambdaIgnoresParameters(TSNode node, const syntax::ParsedSource& doc);
// One assignment target matched against `name` in a tuple assignment.
std::optional<size_t> indexInPattern(TSNode left, const std::string& name,
                                     const syntax::ParsedSource& doc);

} // namespace pallas::analysis::shape::detail

namespace pallas::analysis::shape {
// The evaluator's files read the tree through these few helpers and their own
// detail helpers; one place says so instead of a preamble in every file.
using syntax::field;
using syntax::is;
using syntax::isNull;
using syntax::namedChildren;
using namespace detail;
} // namespace pallas::analysis::shape
