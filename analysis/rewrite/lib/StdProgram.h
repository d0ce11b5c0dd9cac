// The standard-Pallas program an inline_mgpu body becomes: a typed
// expression DAG plus a statement list, built from the pallas ops of the
// region (Translate.cpp) and printed as Python (PrintPython.cpp). The types
// are what lets the translation refuse what it cannot express: a Mosaic GPU
// FragmentedArray becomes an Array, a memref a Ref, an `ir.Value` a Scalar,
// an `ir.Type` a DType; layouts and the launch context have no standard
// counterpart and are only ever dropped or refused.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pallas::analysis::rewrite {

enum class Ty {
  Ref,    // a Pallas Ref (kernel ref, ref.at view)
  Array,  // a jax array (was: mgpu.FragmentedArray)
  Scalar, // a scalar (was: an ir.Value of a scalar type)
  DType,  // a dtype (was: an ir.Type)
  Py,     // a plain Python value: shapes, axes, indices, literals
  Layout, // a Mosaic GPU layout: dropped in standard code
  Ctx,    // the launch context: anything done with it blocks the rewrite
  Api,    // a module or function reference not yet called (mgpu.c, ir.F32Type)
};

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

struct Expr {
  enum class Op {
    Name,    // `text` as written: a parameter, a variable, an outer name
    Literal, // `text`: a Python literal
    Tuple,   // (args...)
    List,    // [args...]
    Index,   // args[0][args[1:]], `...` when there are no indices
    RefAt,   // args[0].at[args[1:]]
    Binary,  // args[0] `text` args[1]
    Unary,   // `text`args[0]
    Call,    // text(args..., keywords...) ; keywords[i] names args[i] ("" positional)
    Method,  // args[0].text(args[1:]...)
    Attr,    // args[0].text
  };
  Op op = Op::Literal;
  Ty ty = Ty::Py;
  std::string text;
  std::vector<ExprP> args;
  std::vector<std::string> keywords; // parallel to args for Call/Method (Method: args[1:])
  // DType only: an integer type without signedness (ir.IntegerType.get_signless),
  // printed as int/uint once `is_signed` is known; `bits` its width.
  bool signless = false;
  int bits = 0;
  // Array only: Mosaic GPU treats the value as unsigned (loaded or made with
  // is_signed=False) while the standard code's dtype may be signed (a ref's
  // int32). Ops whose result depends on signedness (>>, //, %, /, <, max,
  // astype) must not be printed as plain jnp operators on it.
  bool unsignedView = false;
};

struct Stmt {
  enum class Kind { Assign, Store, Return, Expr };
  Kind kind = Kind::Expr;
  std::string name;         // Assign
  ExprP ref;                // Store: the ref
  std::vector<ExprP> index; // Store: indices (empty: `...`)
  ExprP value;              // Assign/Store/Return/Expr
};

struct StdProgram {
  std::string name;                // the def's name
  std::vector<std::string> params; // parameters, launch context removed
  std::vector<Stmt> body;
  std::string jnp = "jnp", lax = "lax"; // names the printed code uses
  std::vector<std::string> comments;    // the original body's comments, kept verbatim
};

// Builders (keep the construction sites short).
ExprP mkName(std::string text, Ty ty);
ExprP mkLiteral(std::string text, Ty ty = Ty::Py);
ExprP mkExpr(Expr::Op op, Ty ty, std::string text, std::vector<ExprP> args,
             std::vector<std::string> keywords = {});
ExprP mkDType(std::string text);
ExprP mkSignless(int bits);

// Drops assignments nothing later reads (`i32 = jnp.int32` left from an
// ir.IntegerType the region only needed for Mosaic GPU): standard code has no
// side effects in an assignment, so this never changes what it computes.
void pruneDeadAssignments(StdProgram& program);

// Python source of the program: `def name(params):` prefixed with `indent`,
// its body lines with `bodyIndent` (the file's own indentation), ending with
// a newline.
std::string printPython(const StdProgram& program, const std::string& indent,
                        const std::string& bodyIndent);
std::string printExpr(const Expr& e, const StdProgram& program);

} // namespace pallas::analysis::rewrite
