#include "StdProgram.h"

namespace pallas::analysis::rewrite {

ExprP mkName(std::string text, Ty ty) { return mkExpr(Expr::Op::Name, ty, std::move(text), {}); }
ExprP mkLiteral(std::string text, Ty ty) {
  return mkExpr(Expr::Op::Literal, ty, std::move(text), {});
}
ExprP mkExpr(Expr::Op op, Ty ty, std::string text, std::vector<ExprP> args,
             std::vector<std::string> keywords) {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->ty = ty;
  e->text = std::move(text);
  e->args = std::move(args);
  e->keywords = std::move(keywords);
  return e;
}
ExprP mkDType(std::string text) { return mkExpr(Expr::Op::Name, Ty::DType, std::move(text), {}); }
ExprP mkSignless(int bits) {
  auto e = std::make_shared<Expr>();
  e->op = Expr::Op::Name;
  e->ty = Ty::DType;
  e->signless = true;
  e->bits = bits;
  return e;
}

} // namespace pallas::analysis::rewrite
