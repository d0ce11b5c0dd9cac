// Python from a StdProgram. Parenthesises every compound operand of an
// operator, so the printed code never depends on Python's precedence table
// matching the DAG's shape.
#include "StdProgram.h"

#include <string>

namespace pallas::analysis::rewrite {
namespace {

bool atomic(const Expr& e) {
  switch (e.op) {
  case Expr::Op::Binary:
  case Expr::Op::Unary:
    return false;
  default:
    return true;
  }
}

std::string operand(const Expr& e, const StdProgram& p) {
  std::string s = printExpr(e, p);
  return atomic(e) ? s : "(" + s + ")";
}

std::string joinArgs(const std::vector<ExprP>& args, size_t from,
                     const std::vector<std::string>& keywords, const StdProgram& p) {
  std::string out;
  for (size_t i = from; i < args.size(); ++i) {
    if (!out.empty())
      out += ", ";
    size_t k = i - from;
    if (k < keywords.size() && !keywords[k].empty())
      out += keywords[k] + "=";
    out += printExpr(*args[i], p);
  }
  return out;
}

std::string indices(const std::vector<ExprP>& idx, size_t from, const StdProgram& p) {
  if (idx.size() <= from)
    return "...";
  std::string out;
  for (size_t i = from; i < idx.size(); ++i) {
    if (i > from)
      out += ", ";
    out += printExpr(*idx[i], p);
  }
  if (idx.size() - from == 1 && idx[from]->op == Expr::Op::Tuple && idx[from]->args.empty())
    return "()";
  return out;
}

} // namespace

std::string printExpr(const Expr& e, const StdProgram& p) {
  switch (e.op) {
  case Expr::Op::Name:
    if (e.ty == Ty::DType && e.signless)
      return p.jnp + ".int" + std::to_string(e.bits);
    return e.text;
  case Expr::Op::Literal:
    return e.text;
  case Expr::Op::Tuple: {
    std::string s = joinArgs(e.args, 0, {}, p);
    return "(" + s + (e.args.size() == 1 ? ",)" : ")");
  }
  case Expr::Op::List:
    return "[" + joinArgs(e.args, 0, {}, p) + "]";
  case Expr::Op::Index:
    return operand(*e.args[0], p) + "[" + indices(e.args, 1, p) + "]";
  case Expr::Op::RefAt:
    return operand(*e.args[0], p) + ".at[" + indices(e.args, 1, p) + "]";
  case Expr::Op::Binary:
    return operand(*e.args[0], p) + " " + e.text + " " + operand(*e.args[1], p);
  case Expr::Op::Unary:
    return e.text + operand(*e.args[0], p);
  case Expr::Op::Call:
    return e.text + "(" + joinArgs(e.args, 0, e.keywords, p) + ")";
  case Expr::Op::Method:
    return operand(*e.args[0], p) + "." + e.text + "(" + joinArgs(e.args, 1, e.keywords, p) + ")";
  case Expr::Op::Attr:
    return operand(*e.args[0], p) + "." + e.text;
  }
  return e.text;
}

std::string printPython(const StdProgram& p, const std::string& indent,
                        const std::string& bodyIndent) {
  std::string params;
  for (const auto& n : p.params)
    params += (params.empty() ? "" : ", ") + n;
  std::string out = indent + "def " + p.name + "(" + params + "):\n";
  const std::string& in = bodyIndent;
  out += in + "# Rewritten from plgpu.inline_mgpu by pallas-lsp: standard Pallas, runs in\n";
  out += in + "# interpret mode too (layouts and swizzles are the compiler's choice now).\n";
  // The user's comments are user text: they stay, above the new body.
  for (const auto& c : p.comments)
    out += in + c + "\n";
  bool any = false;
  for (const Stmt& s : p.body) {
    switch (s.kind) {
    case Stmt::Kind::Assign:
      out += in + s.name + " = " + printExpr(*s.value, p) + "\n";
      break;
    case Stmt::Kind::Store: {
      std::string idx = "...";
      if (!s.index.empty()) {
        std::vector<ExprP> all{s.ref};
        all.insert(all.end(), s.index.begin(), s.index.end());
        idx = indices(all, 1, p);
      }
      out += in + operand(*s.ref, p) + "[" + idx + "] = " + printExpr(*s.value, p) + "\n";
      break;
    }
    case Stmt::Kind::Return:
      out += in + "return " + printExpr(*s.value, p) + "\n";
      break;
    case Stmt::Kind::Expr:
      out += in + printExpr(*s.value, p) + "\n";
      break;
    }
    any = true;
  }
  if (!any)
    out += in + "pass\n";
  return out;
}

} // namespace pallas::analysis::rewrite
