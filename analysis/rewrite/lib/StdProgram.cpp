#include "StdProgram.h"

#include <cctype>

namespace pallas::analysis::rewrite {

ExprP mkName(std::string text, Ty ty) {
  return mkExpr(Expr::Op::Name, ty, std::move(text), {});
}
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
ExprP mkDType(std::string text) {
  return mkExpr(Expr::Op::Name, Ty::DType, std::move(text), {});
}
ExprP mkSignless(int bits) {
  auto e = std::make_shared<Expr>();
  e->op = Expr::Op::Name;
  e->ty = Ty::DType;
  e->signless = true;
  e->bits = bits;
  return e;
}

namespace {

// Does `e` mention `name`: as a Name, or inside source text kept verbatim
// (a literal such as a slice `0:n`)?
bool mentions(const Expr& e, const std::string& name) {
  if (e.op == Expr::Op::Name && e.text == name)
    return true;
  if (e.op == Expr::Op::Literal || e.op == Expr::Op::Name) {
    for (size_t at = e.text.find(name); at != std::string::npos; at = e.text.find(name, at + 1)) {
      auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      bool before = at > 0 && (word(e.text[at - 1]) || e.text[at - 1] == '.');
      bool after = at + name.size() < e.text.size() && word(e.text[at + name.size()]);
      if (!before && !after)
        return true;
    }
  }
  for (const ExprP& a : e.args)
    if (a && mentions(*a, name))
      return true;
  return false;
}

bool stmtMentions(const Stmt& s, const std::string& name) {
  if (s.value && mentions(*s.value, name))
    return true;
  if (s.ref && mentions(*s.ref, name))
    return true;
  for (const ExprP& i : s.index)
    if (i && mentions(*i, name))
      return true;
  return false;
}

} // namespace

void pruneDeadAssignments(StdProgram& program) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = program.body.size(); i-- > 0;) {
      const Stmt& s = program.body[i];
      if (s.kind != Stmt::Kind::Assign)
        continue;
      bool read = false;
      for (size_t j = i + 1; j < program.body.size() && !read; ++j) {
        read = stmtMentions(program.body[j], s.name);
        // A later assignment to the same name ends this one's life.
        if (!read && program.body[j].kind == Stmt::Kind::Assign && program.body[j].name == s.name)
          break;
      }
      if (!read) {
        program.body.erase(program.body.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
}

} // namespace pallas::analysis::rewrite
