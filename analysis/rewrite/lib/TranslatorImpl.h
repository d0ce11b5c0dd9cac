// The Translator: the pallas ops of one inline_mgpu region -> StdProgram
// (Translate.h). Private to analysis/rewrite/lib. The implementation is
// split by job:
//   Translate.cpp        the walk, statements, operands and values, an op's syntax
//   TranslateOps.cpp     pallas ops: constants, globals, primitives, Python operators
//   TranslateMosaic.cpp  Mosaic GPU, MLIR ir and raw dialect APIs (most of them block)
//   TranslateNames.cpp   what an API name is (dialect op, Mosaic GPU, ir, jnp/lax)
#pragma once

#include "Translate.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pallas::analysis::rewrite {

namespace pd = pallas::dialect;

// "jax._src.lib.mlir.dialects.memref.store" -> {"memref", "store"}.
std::pair<std::string, std::string> dialectOp(llvm::StringRef api);

// The part of a Mosaic GPU API after its module: "mgpu.FragmentedArray.splat"
// and "jax.experimental.mosaic.gpu.fragmented_array.FragmentedArray.splat"
// both give "FragmentedArray.splat"; "" for other APIs.
std::string mgpuName(llvm::StringRef api);

// "jax._src.lib.mlir.ir.F32Type.get" -> "F32Type.get".
std::string irName(llvm::StringRef api);

bool isJnpOrLax(llvm::StringRef api);

class Translator {
public:
  Translator(pd::InlineMgpuOp op, const SourceIndex& src, StdProgram& prog)
      : op_(op), src_(src), prog_(prog) {
    // Number the ops that share a start position and a kind: nested
    // expressions that start at the same place (`x + x + y`) are lowered
    // innermost first, which is also the order of nodesStartingAt.
    std::map<std::pair<std::pair<uint32_t, uint32_t>, std::string>, unsigned> seen;
    op_.getBody().walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation* o) {
      OpPos p = opPos(o->getLoc());
      if (!p.valid)
        return;
      auto key = std::make_pair(std::make_pair(p.pos.line, p.pos.column), kindKey(o));
      nth_[o] = seen[key]++;
    });
  }

  bool run() {
    if (op_.getBody().empty())
      return true; // an empty body: `def f(ctx): pass`
    mlir::Block& body = op_.getBody().front();
    for (mlir::Operation& o : body) {
      if (!statement(&o))
        return false;
    }
    return true;
  }

  std::string blocker;
  OpPos blockerPos;

private:
  // ---- syntax of an op ----------------------------------------------------
  static std::string kindKey(mlir::Operation* o);

  TSNode syntaxOf(mlir::Operation* o);

  // The nodes starting at `p` that an op of `o`'s kind can stand for,
  // innermost first.
  std::vector<TSNode> candidatesOf(mlir::Operation* o, const OpPos& p);

  // The syntax node of each operand of `o`, in operand order (mirrors the
  // lowering's order of sub-expressions; null where it cannot be told).
  std::vector<TSNode> operandNodes(mlir::Operation* o);

  // ---- blocking -------------------------------------------------------------
  ExprP block(mlir::Operation* o, std::string what);

  // ---- values -------------------------------------------------------------------
  bool inRegion(mlir::Value v);

  ExprP operand(mlir::Operation* user, unsigned i);

  ExprP value(mlir::Value v);

  // A value that may appear in standard code.
  ExprP usable(mlir::Operation* user, ExprP e);

  ExprP keywordOperand(mlir::Operation* user, mlir::ArrayAttr keywords, llvm::StringRef kw,
                       unsigned positional);

  bool hasKeyword(mlir::ArrayAttr keywords, llvm::StringRef kw, unsigned positional);

  // is_signed=False turns a signless integer dtype into an unsigned one.
  ExprP applySignedness(ExprP dtype, const ExprP& isSigned);

  static bool isFalse(const ExprP& e);

  // `e` marked as an unsigned view (see Expr::unsignedView).
  static ExprP asUnsigned(ExprP e, bool unsignedView = true);

  static bool anyUnsigned(const std::vector<ExprP>& args);

  // The value of a Python integer constant expression (literals, unary minus,
  // + - * << | & ^ of them), when it is one and fits in 64 bits.
  static std::optional<int64_t> intConstant(const ExprP& e, int depth = 0);

  // Mosaic GPU builds an integer operand's constant with the array's width
  // (so 1 << 31 on int32 is the bit pattern 0x80000000); JAX refuses a Python
  // int outside int32 with OverflowError. A bitwise operator, or any operator
  // on an unsigned view, with such a constant is refused rather than
  // rewritten into code that does not run.
  bool intConstantsFit(mlir::Operation* o, const std::string& tok, const std::vector<ExprP>& args);

  // A binary operator on an operand Mosaic GPU treats as unsigned: the
  // two's-complement ones are the same on a signed dtype; `>>` becomes a
  // logical shift; the rest would compute a different answer: refused.
  ExprP unsignedBinary(mlir::Operation* o, const std::string& tok, std::vector<ExprP> args, Ty ty);

  ExprP jnp(const std::string& fn);
  std::string jnpName(const std::string& fn);

  // ---- ops ------------------------------------------------------------------------
  ExprP translate(mlir::Operation* o);

  // Python builtins of plain Python values (`slice(0, 64)`, `min(a, b)`):
  // the same call in standard code. nullptr when it is not one.
  ExprP builtinCall(pd::CallIndirectOp ci);

  ExprP prim(pd::PrimOp p);

  ExprP refAt(mlir::Operation* o, unsigned base);

  bool isAttributeAccess(mlir::Operation* o);

  ExprP method(pd::PrimOp p);

  // Mosaic GPU APIs with no standard meaning (everything mgpuApi does not map).
  static bool blocksAlways(const std::string& m);
  // Layout objects (mgpu.WGMMA_LAYOUT, mgpu.WGStridedFragLayout(...)): only
  // ever passed as `layout=`, which standard code drops.
  static bool isLayout(const std::string& m);

  ExprP mgpuApi(pd::PrimOp p, const std::string& m);

  ExprP irType(pd::PrimOp p, const std::string& t);

  ExprP dialect(pd::PrimOp p, const std::string& d, const std::string& op);

  ExprP opaque(pd::OpaqueOp q);

  // ---- statements -----------------------------------------------------------------
  // The Python name an op's value is bound to (`x = <op>`), or "".
  std::string boundName(mlir::Operation* o);

  bool statement(mlir::Operation* o);

  pd::InlineMgpuOp op_;
  const SourceIndex& src_;
  StdProgram& prog_;
  llvm::DenseMap<mlir::Value, ExprP> vals_;
  llvm::DenseMap<mlir::Value, ExprP> scalarDtype_;
  llvm::DenseSet<mlir::Value> registers_;
  llvm::DenseMap<mlir::Operation*, unsigned> nth_;
  std::map<std::pair<std::pair<uint32_t, uint32_t>, std::string>, std::vector<TSNode>> candidates_;
};

} // namespace pallas::analysis::rewrite
