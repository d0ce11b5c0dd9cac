// Lowering of Python (tree-sitter) to the `pallas` dialect. The contract of
// what each construct becomes is analysis/docs/dialect.md; this file follows
// it construct by construct.
#include "Lower.h"

#include "mlir/IR/Builders.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <optional>
#include <unordered_map>

namespace pallas::analysis::lower {

using names::Binding;
using syntax::field;
using syntax::is;
using syntax::isNull;
namespace pd = pallas::dialect;

namespace {

std::string str(std::string_view s) {
  return std::string(s);
}

bool isLaunchApi(std::string_view api) {
  return api == "pl.pallas_call" || api == "plgpu.kernel" || api == "pl.kernel" ||
         api == "pl.core_map";
}

// APIs whose decorator/factory form runs the body at once, in place.
bool runsBodyInPlace(std::string_view api) {
  return api == "pl.when" || api == "pl.loop" || api == "plgpu.nd_loop" || api == "pl.run_scoped" ||
         api == "pl.run_state";
}

constexpr unsigned kMaxNesting =
    kMaxAnalysedNesting; // deeper syntax becomes pallas.opaque "too_deep"

// The index expressions of a subscript: its named children after the value.
std::vector<TSNode> subscriptIndices(TSNode subscript) {
  std::vector<TSNode> out;
  TSNode value = field(subscript, "value");
  for (uint32_t i = 0, c = ts_node_named_child_count(subscript); i < c; ++i) {
    TSNode ch = ts_node_named_child(subscript, i);
    if (ts_node_eq(ch, value) || is(ch, "comment"))
      continue;
    out.push_back(ch);
  }
  return out;
}

const llvm::StringSet<>& builtinNames() {
  static const llvm::StringSet<> names = {
      "abs",        "all",        "any",          "bool",
      "dict",       "enumerate",  "float",        "getattr",
      "int",        "isinstance", "iter",         "len",
      "list",       "map",        "max",          "min",
      "next",       "object",     "print",        "range",
      "reversed",   "set",        "slice",        "sorted",
      "str",        "sum",        "super",        "tuple",
      "type",       "zip",        "hasattr",      "NotImplementedError",
      "ValueError", "TypeError",  "RuntimeError", "Exception",
      "divmod",     "round",      "repr",         "id",
      "hash",       "setattr",    "callable",     "format",
      "frozenset",  "vars"};
  return names;
}

// Where a value comes from, when it is (or may be) a Ref.
struct Prov {
  llvm::StringRef origin = pd::origin::kValue;
  int argIndex = -1;
};

// A higher-order API called without its body yet (`pl.when(c)`,
// `functools.partial(pl.run_scoped, ...)`, `plgpu.inline_mgpu(...)`):
// applying it to a function emits the scope / launch / wrapper.
struct Factory {
  std::string api;
  TSNode call{}; // the factory call (its arguments configure it)
  bool viaPartial = false;
  std::optional<Binding> partial; // a module-level functools.partial binding
  // The body is the call's first positional argument (`pl.run_scoped(body,
  // ...)`), not given later by a decorator or a second call.
  bool bodyInCall = false;
};

struct ValInfo {
  Prov prov;
  std::optional<Factory> factory;
  std::optional<Binding> binding; // a name that resolves like a global (local import, alias)
  TSNode constant{};              // a local name bound to a literal
  bool isParam = false;           // a parameter (for default_param evaluation)
  TSNode paramDefault{};
  TSNode closureDef{}; // the def/lambda a closure value was made from
};

struct Var {
  mlir::Value value;
  unsigned regionDepth = 0;
};

// One Python function scope (func, closure, or a body inlined into a scope).
struct FnScope {
  std::unordered_map<std::string, Var> vars;
  std::unordered_map<std::string, TSNode> defaults;
};

// Callable given to a higher-order API.
struct CallableRef {
  TSNode def{};       // function_definition or lambda node when written in place
  mlir::Value value;  // a closure or unknown callable value
  std::string symbol; // a module-level function
  std::string file;   // its file when in another document
  std::string text;
};

class Lowerer {
public:
  Lowerer(const LowerInput& in, UnitDeps& deps)
      : in_(in), doc_(in.doc), globals_(in.globals), deps_(deps), b_(in.context) {
    file_ = mlir::StringAttr::get(in.context, in.path);
    valueTy_ = pd::ValueType::get(in.context);
    refTy_ = pd::RefType::get(in.context);
  }

  mlir::Operation* lower(const Unit& unit, const std::string& symbol);

private:
  // ---- locations, types, attributes ----
  mlir::Location loc(TSNode n) {
    TSPoint p = ts_node_start_point(n);
    return mlir::FileLineColLoc::get(file_, p.row + 1, p.column + 1);
  }
  std::string text(TSNode n) { return str(doc_.textOf(n)); }
  mlir::ArrayAttr strArray(const std::vector<std::string>& v) {
    llvm::SmallVector<llvm::StringRef> refs(v.begin(), v.end());
    return b_.getStrArrayAttr(refs);
  }

  // ---- name resolution ----
  const Var* findLocal(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto v = it->vars.find(name);
      if (v != it->vars.end())
        return &v->second;
    }
    return nullptr;
  }
  std::optional<Binding> findGlobal(const std::string& name) {
    const Binding* b = globals_.find(name);
    recordLookup(name, b ? b->fingerprint() : std::string("-"));
    return b ? std::optional<Binding>(*b) : std::nullopt;
  }
  void recordLookup(const std::string& key, std::string fingerprint) {
    if (recorded_.insert(key).second)
      deps_.lookups.emplace_back(key, std::move(fingerprint));
  }
  std::optional<Binding> attributeOf(const Binding& base, const std::string& attr,
                                     const std::string& key) {
    auto r = globals_.attribute(base, attr);
    // Attribute lookups that cross into another file depend on that file.
    if (!base.file.empty())
      recordLookup(key, r ? r->fingerprint() : std::string("-"));
    return r;
  }
  // Resolve an identifier/attribute chain to a binding (global, or local
  // value with a binding), honouring local shadowing.
  std::optional<Binding> resolveBinding(TSNode expr);
  void setVar(const std::string& name, mlir::Value v) {
    forgetFacts(name);
    scopes_.back().vars[name] = Var{v, regionDepth_};
    if (!assigned_.empty())
      assigned_.back().push_back(name);
  }

  // ---- values ----
  Prov prov(mlir::Value v) {
    auto it = info_.find(v);
    return it == info_.end() ? Prov{} : it->second.prov;
  }
  ValInfo* infoOf(mlir::Value v) {
    auto it = info_.find(v);
    return it == info_.end() ? nullptr : &it->second;
  }
  mlir::Value constant(TSNode n, llvm::StringRef kind) {
    auto op = pd::ConstantOp::create(b_, loc(n), valueTy_, text(n), kind);
    info_[op.getResult()].constant = n;
    return op.getResult();
  }
  mlir::Value global(TSNode n, const std::string& name, const std::string& resolved) {
    return pd::GlobalOp::create(b_, loc(n), valueTy_, name, resolved).getResult();
  }
  mlir::Value opaque(TSNode n, llvm::StringRef what, llvm::ArrayRef<mlir::Value> operands);
  // What stands for syntax nested deeper than kMaxNesting (not lowered); the
  // first such place is recorded for the user (UnitDeps::tooDeep).
  mlir::Value tooDeep(TSNode n) {
    if (!deps_.tooDeep) {
      TSPoint p = ts_node_start_point(n);
      deps_.tooDeep = SourcePos{p.row, p.column};
    }
    return opaque(n, "too_deep", {});
  }

  struct Args {
    llvm::SmallVector<mlir::Value> values;
    std::vector<std::string> keywords;
    std::vector<TSNode> nodes;
  };
  Args lowerArgs(TSNode argList, unsigned skipPositional = 0);
  void operandInfo(llvm::ArrayRef<mlir::Value> values, mlir::ArrayAttr& origins,
                   mlir::DenseI64ArrayAttr& indices);
  mlir::Value prim(TSNode n, const std::string& api, const Args& args);

  // ---- expressions ----
  mlir::Value lowerExpr(TSNode n);
  mlir::Value lowerExprImpl(TSNode n);
  mlir::Value lowerCall(TSNode n);
  mlir::Value lowerApiCall(TSNode n, const std::string& api, TSNode argList);
  mlir::Value lowerSubscript(TSNode n);
  mlir::Value lowerAttribute(TSNode n);
  mlir::Value lowerIdentifier(TSNode n);
  mlir::Value lowerLambda(TSNode n);
  mlir::Value callValue(TSNode n, mlir::Value callee, const Args& args);

  // ---- higher order ----
  mlir::Value applyFactory(TSNode site, const Factory& f, const CallableRef& body);
  mlir::Value emitLaunch(TSNode site, const std::string& api, const std::string& form,
                         TSNode kwCall, const Binding* partial, const CallableRef& body);
  mlir::Value emitScope(TSNode site, const std::string& api, const Args& operands,
                        const std::vector<std::string>& argOrigins,
                        const std::optional<std::vector<std::string>>& allocations,
                        const CallableRef& body, llvm::ArrayRef<CallableRef> extraBodies = {});
  CallableRef callableOf(TSNode expr);
  std::string backendOf(TSNode expr, unsigned depth = 0);
  mlir::Value closure(TSNode def, std::optional<Factory> inlineMgpu = std::nullopt);
  void lowerDefInto(mlir::Block* block, TSNode def, const std::vector<std::string>& argOrigins,
                    llvm::ArrayRef<mlir::Value> args);
  void emitInlineMgpu(TSNode site, TSNode def, const Factory* f, mlir::Block* wrapper);
  bool innermostIsInlineMgpu(TSNode decorated);
  std::optional<std::vector<std::string>> typeSequenceKinds(TSNode expr, unsigned depth = 0);
  std::vector<std::string> paramNames(TSNode def);
  void bindParams(TSNode def, mlir::Block* block, const std::vector<std::string>& argOrigins);
  mlir::Value decorate(TSNode decorated, TSNode def);

  // ---- statements ----
  void lowerBlock(TSNode block);
  void lowerStatement(TSNode s);
  void lowerAssignment(TSNode a);
  void bindTarget(TSNode target, mlir::Value v, TSNode valueNode);
  void bindTargetImpl(TSNode target, mlir::Value v, TSNode valueNode);
  void lowerOneAssignment(TSNode a);
  // Returns the pallas.if it created (not necessarily the block's last op:
  // joins of names assigned in its regions follow it).
  pd::IfOp lowerIf(TSNode s, TSNode cond, TSNode consequence, uint32_t alternativeIndex);
  void lowerWith(TSNode s);
  template <typename F> void inRegion(mlir::Block* block, F&& body);
  std::optional<bool> staticCondition(TSNode cond);
  // ---- path facts (docs/analysis.md, "Paths that cannot execute") ----
  bool neverCompletes(TSNode stmt);
  bool neverCompletesBlock(TSNode block);
  void learnCondition(TSNode cond, bool truth, std::map<std::string, bool>& into);
  std::optional<bool> knownFact(TSNode expr);
  void forgetFacts(const std::string& name);

  // ---- interpret context ----
  struct Context {
    std::string kind;
    unsigned line, column;
  };

  const LowerInput& in_;
  const syntax::Document& doc_;
  const names::Globals& globals_;
  UnitDeps& deps_;
  mlir::OpBuilder b_;
  mlir::StringAttr file_;
  mlir::Type valueTy_, refTy_;
  llvm::DenseMap<mlir::Value, ValInfo> info_;
  llvm::StringSet<> recorded_; // lookups already in deps_
  std::vector<FnScope> scopes_;
  std::vector<std::vector<std::string>> assigned_; // names assigned per open region
  std::vector<Context> contexts_;
  // Truth values of conditions (an identifier or attribute chain, by text)
  // known on the path being lowered, one frame per open block: inside
  // `if C:` C is true; after `if C: raise/skipTest/return` C is false.
  std::vector<std::map<std::string, bool>> facts_;
  unsigned regionDepth_ = 0;
  unsigned nesting_ = 0;
};

// ---------------------------------------------------------------------------

mlir::Value Lowerer::opaque(TSNode n, llvm::StringRef what, llvm::ArrayRef<mlir::Value> operands) {
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(operands, origins, indices);
  return pd::OpaqueOp::create(b_, loc(n), valueTy_, what, operands, origins, indices).getResult();
}

void Lowerer::operandInfo(llvm::ArrayRef<mlir::Value> values, mlir::ArrayAttr& origins,
                          mlir::DenseI64ArrayAttr& indices) {
  llvm::SmallVector<llvm::StringRef> o;
  llvm::SmallVector<int64_t> idx;
  for (mlir::Value v : values) {
    Prov p = prov(v);
    o.push_back(p.origin);
    idx.push_back(p.origin == pd::origin::kArg ? p.argIndex : -1);
  }
  origins = b_.getStrArrayAttr(o);
  indices = b_.getDenseI64ArrayAttr(idx);
}

mlir::Value Lowerer::prim(TSNode n, const std::string& api, const Args& args) {
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(args.values, origins, indices);
  auto op = pd::PrimOp::create(b_, loc(n), valueTy_, api, args.values, strArray(args.keywords),
                               origins, indices);
  if (!args.values.empty() && detail::isRefTransform(api))
    info_[op.getResult()].prov = prov(args.values[0]);
  return op.getResult();
}

Lowerer::Args Lowerer::lowerArgs(TSNode argList, unsigned skipPositional) {
  Args a;
  if (isNull(argList))
    return a;
  if (is(argList, "generator_expression")) {
    a.values.push_back(lowerExpr(argList));
    a.keywords.push_back("");
    a.nodes.push_back(argList);
    return a;
  }
  unsigned positional = 0;
  for (uint32_t i = 0, n = ts_node_named_child_count(argList); i < n; ++i) {
    TSNode c = ts_node_named_child(argList, i);
    std::string_view t = syntax::type(c);
    if (t == "comment")
      continue;
    if (t == "keyword_argument") {
      a.keywords.push_back(text(field(c, "name")));
      TSNode v = field(c, "value");
      a.values.push_back(lowerExpr(v));
      a.nodes.push_back(v);
    } else if (t == "list_splat" || t == "dictionary_splat") {
      a.keywords.push_back(t == "list_splat" ? "*" : "**");
      TSNode v = ts_node_named_child(c, 0);
      a.values.push_back(lowerExpr(v));
      a.nodes.push_back(v);
    } else {
      if (positional++ < skipPositional)
        continue;
      a.keywords.push_back("");
      a.values.push_back(lowerExpr(c));
      a.nodes.push_back(c);
    }
  }
  return a;
}

std::optional<Binding> Lowerer::resolveBinding(TSNode expr) {
  std::string dotted = names::dottedName(expr, doc_);
  if (dotted.empty())
    return std::nullopt;
  size_t pos = dotted.find('.');
  std::string first = dotted.substr(0, pos);
  std::optional<Binding> b;
  if (const Var* v = findLocal(first)) {
    ValInfo* vi = infoOf(v->value);
    if (!vi || !vi->binding)
      return std::nullopt; // a local value shadows the global
    b = vi->binding;
  } else {
    b = findGlobal(first);
  }
  while (b && pos != std::string::npos) {
    size_t next = dotted.find('.', pos + 1);
    std::string attr = dotted.substr(pos + 1, next == std::string::npos ? next : next - pos - 1);
    b = attributeOf(*b, attr, dotted.substr(0, next));
    pos = next;
  }
  return b;
}

// ---- expressions ------------------------------------------------------------

mlir::Value Lowerer::lowerExpr(TSNode n) {
  if (isNull(n))
    return pd::ConstantOp::create(b_, b_.getUnknownLoc(), valueTy_, "", "none").getResult();
  if (nesting_ >= kMaxNesting)
    return tooDeep(n);
  ++nesting_;
  mlir::Value v = lowerExprImpl(n);
  --nesting_;
  return v;
}

mlir::Value Lowerer::lowerExprImpl(TSNode n) {
  std::string_view t = syntax::type(n);
  if (t == "identifier")
    return lowerIdentifier(n);
  if (t == "call")
    return lowerCall(n);
  if (t == "attribute")
    return lowerAttribute(n);
  if (t == "subscript")
    return lowerSubscript(n);
  if (t == "integer" || t == "float")
    return constant(n, t == "integer" ? "int" : "float");
  if (t == "string" || t == "concatenated_string")
    return constant(n, "str");
  if (t == "true" || t == "false")
    return constant(n, "bool");
  if (t == "none")
    return constant(n, "none");
  // A negative integer literal (`helpers[-1]`) is a constant too.
  if (t == "unary_operator" && doc_.textOf(field(n, "operator")) == "-" &&
      is(field(n, "argument"), "integer"))
    return constant(n, "int");
  if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    return lowerExpr(ts_node_named_child(n, 0));
  if (t == "lambda")
    return lowerLambda(n);
  if (t == "not_operator") {
    mlir::Value v = lowerExpr(field(n, "argument"));
    return opaque(n, t, {v});
  }
  // Everything else: its sub-expressions first, then an opaque op.
  llvm::SmallVector<mlir::Value> operands;
  for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) {
    TSNode ch = ts_node_named_child(n, i);
    std::string_view ct = syntax::type(ch);
    if (ct == "comment" || ct == "keyword_identifier")
      continue;
    if (ct == "keyword_argument")
      ch = field(ch, "value");
    if (ct == "pair") {
      operands.push_back(lowerExpr(field(ch, "key")));
      operands.push_back(lowerExpr(field(ch, "value")));
      continue;
    }
    if (ct == "for_in_clause" || ct == "if_clause") {
      for (uint32_t j = 0, cc = ts_node_named_child_count(ch); j < cc; ++j)
        operands.push_back(lowerExpr(ts_node_named_child(ch, j)));
      continue;
    }
    operands.push_back(lowerExpr(ch));
  }
  mlir::Value v = opaque(n, t, operands);
  // `(a_ref, b_ref)` keeps the origin when every element agrees (pytrees of refs).
  if ((t == "tuple" || t == "list" || t == "expression_list") && !operands.empty()) {
    Prov p0 = prov(operands[0]);
    bool same = true;
    for (mlir::Value o : operands)
      same &= prov(o).origin == p0.origin && p0.origin != pd::origin::kArg;
    if (same)
      info_[v].prov = p0;
  }
  return v;
}

mlir::Value Lowerer::lowerIdentifier(TSNode n) {
  std::string name = text(n);
  if (const Var* v = findLocal(name))
    return v->value;
  std::optional<Binding> b = findGlobal(name);
  std::string resolved = "?";
  if (b) {
    switch (b->kind) {
    case Binding::Kind::Module:
    case Binding::Kind::Symbol:
      resolved = b->file.empty() && names::isJaxName(b->target) ? names::canonicalApi(b->target)
                                                                : b->target;
      break;
    case Binding::Kind::Function:
      resolved = (b->file.empty() ? "local:" : b->file + ":") + b->target;
      break;
    case Binding::Kind::Class:
      resolved = "class:" + b->target;
      break;
    case Binding::Kind::Constant:
      resolved = "const:" + b->target;
      break;
    case Binding::Kind::Partial:
      resolved = "partial:" + b->target;
      break;
    case Binding::Kind::Other:
      resolved = "?";
      break;
    }
  } else if (builtinNames().contains(name)) {
    resolved = "builtins." + name;
  }
  mlir::Value v = global(n, name, resolved);
  if (b)
    info_[v].binding = *b;
  if (b && b->kind == Binding::Kind::Partial)
    info_[v].factory = Factory{b->target, TSNode{}, true, *b, false};
  return v;
}

mlir::Value Lowerer::lowerAttribute(TSNode n) {
  if (auto b = resolveBinding(n)) {
    std::string dotted = names::dottedName(n, doc_);
    std::string resolved =
        b->file.empty() && names::isJaxName(b->target) ? names::canonicalApi(b->target) : b->target;
    if (b->kind == Binding::Kind::Constant)
      resolved = "const:" + b->target;
    mlir::Value v = global(n, dotted, resolved);
    info_[v].binding = *b;
    return v;
  }
  mlir::Value obj = lowerExpr(field(n, "object"));
  std::string attr = text(field(n, "attribute"));
  Args a;
  a.values.push_back(obj);
  a.keywords.push_back("");
  bool ref = pd::origin::mayBeRef(prov(obj).origin);
  mlir::Value v = prim(n, (ref ? "ref." : "value.") + attr, a);
  if (ref && (attr == "T" || attr == "at"))
    info_[v].prov = prov(obj);
  return v;
}

mlir::Value Lowerer::lowerSubscript(TSNode n) {
  TSNode base = field(n, "value");
  Args a;
  std::string api;
  if (is(base, "attribute") && text(field(base, "attribute")) == "at" && !resolveBinding(base)) {
    a.values.push_back(lowerExpr(field(base, "object")));
    api = "ref.at";
  } else {
    a.values.push_back(lowerExpr(base));
    api = pd::origin::mayBeRef(prov(a.values[0]).origin) ? "ref.__getitem__" : "value.__getitem__";
  }
  a.keywords.push_back("");
  for (TSNode index : subscriptIndices(n)) {
    a.values.push_back(lowerExpr(index));
    a.keywords.push_back("");
  }
  mlir::Value v = prim(n, api, a);
  // Elements of a run_state pytree of refs are refs too.
  if (api == "ref.at" || prov(a.values[0]).origin == pd::origin::kRunState)
    info_[v].prov = prov(a.values[0]);
  return v;
}

mlir::Value Lowerer::lowerLambda(TSNode n) {
  return closure(n);
}

mlir::Value Lowerer::callValue(TSNode n, mlir::Value callee, const Args& args) {
  if (ValInfo* vi = infoOf(callee); vi && vi->factory && !args.nodes.empty()) {
    Factory f = *vi->factory;
    return applyFactory(n, f, callableOf(args.nodes[0]));
  }
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(args.values, origins, indices);
  return pd::CallIndirectOp::create(b_, loc(n), valueTy_, callee, args.values,
                                    strArray(args.keywords), origins, indices)
      .getResult();
}

mlir::Value Lowerer::lowerCall(TSNode n) {
  TSNode callee = field(n, "function");
  TSNode argList = field(n, "arguments");
  if (is(callee, "identifier") || is(callee, "attribute")) {
    if (auto b = resolveBinding(callee)) {
      switch (b->kind) {
      case Binding::Kind::Module:
      case Binding::Kind::Symbol:
        if (b->file.empty() && names::isJaxName(b->target))
          return lowerApiCall(n, names::canonicalApi(b->target), argList);
        if (b->kind == Binding::Kind::Symbol || b->file.empty()) {
          Args a = lowerArgs(argList);
          return prim(n, b->target, a);
        }
        break;
      case Binding::Kind::Function:
        if (!b->launched) {
          Args a = lowerArgs(argList);
          mlir::ArrayAttr origins;
          mlir::DenseI64ArrayAttr indices;
          operandInfo(a.values, origins, indices);
          auto op =
              pd::CallOp::create(b_, loc(n), valueTy_, b->target,
                                 b->file.empty() || b->file == in_.path ? mlir::StringAttr()
                                                                        : b_.getStringAttr(b->file),
                                 a.values, strArray(a.keywords), origins, indices);
          return op.getResult();
        }
        break;
      case Binding::Kind::Partial: {
        lowerArgs(argList, 1);
        Factory f;
        f.api = b->target;
        f.viaPartial = true;
        f.partial = *b;
        TSNode first = isNull(argList) ? TSNode{} : ts_node_named_child(argList, 0);
        return applyFactory(n, f, callableOf(first));
      }
      default:
        break;
      }
    } else if (is(callee, "attribute")) {
      // A method call on a value: x_ref.reshape(...), acc.astype(...).
      std::string dotted = names::dottedName(callee, doc_);
      mlir::Value obj = lowerExpr(field(callee, "object"));
      if (ValInfo* vi = infoOf(obj); !(vi && vi->binding)) {
        std::string method = text(field(callee, "attribute"));
        Args a = lowerArgs(argList);
        a.values.insert(a.values.begin(), obj);
        a.keywords.insert(a.keywords.begin(), "");
        a.nodes.insert(a.nodes.begin(), field(callee, "object"));
        bool ref = pd::origin::mayBeRef(prov(obj).origin);
        return prim(n, (ref ? "ref." : "value.") + method, a);
      }
    }
  }
  mlir::Value fn = lowerExpr(callee);
  if (ValInfo* vi = infoOf(fn); vi && vi->factory) {
    Factory f = *vi->factory;
    TSNode first = isNull(argList) ? TSNode{} : ts_node_named_child(argList, 0);
    if (f.api == "plgpu.inline_mgpu" && is(first, "lambda")) {
      CallableRef c;
      c.def = first;
      return applyFactory(n, f, c);
    }
    return applyFactory(n, f, callableOf(first));
  }
  Args a = lowerArgs(argList);
  return callValue(n, fn, a);
}

CallableRef Lowerer::callableOf(TSNode expr) {
  CallableRef c;
  if (isNull(expr))
    return c;
  c.text = text(expr);
  // functools.partial(kernel, ...) as a body: the function is `kernel`.
  if (is(expr, "call")) {
    TSNode fnNode = field(expr, "function");
    auto b = resolveBinding(fnNode);
    if (b && b->file.empty() && names::canonicalApi(b->target) == "functools.partial") {
      TSNode args = field(expr, "arguments");
      if (!isNull(args) && ts_node_named_child_count(args) > 0) {
        CallableRef inner = callableOf(ts_node_named_child(args, 0));
        inner.text = c.text;
        lowerArgs(args, 1); // the bound arguments are evaluated here
        return inner;
      }
    }
  }
  if (is(expr, "lambda")) {
    c.value = closure(expr);
    return c;
  }
  if (is(expr, "identifier")) {
    if (!findLocal(text(expr))) {
      if (auto b = findGlobal(text(expr));
          b && b->kind == Binding::Kind::Function && !b->launched) {
        c.symbol = b->target;
        c.file = b->file == in_.path ? "" : b->file;
        return c;
      }
    }
  } else if (is(expr, "attribute")) {
    if (auto b = resolveBinding(expr); b && b->kind == Binding::Kind::Function && !b->launched) {
      c.symbol = b->target;
      c.file = b->file == in_.path ? "" : b->file;
      return c;
    }
  }
  c.value = lowerExpr(expr);
  return c;
}

// A call of a JAX/Pallas API (canonical name).
mlir::Value Lowerer::lowerApiCall(TSNode n, const std::string& api, TSNode argList) {
  auto positional = [&](unsigned index) -> TSNode {
    if (isNull(argList) || is(argList, "generator_expression"))
      return TSNode{};
    unsigned k = 0;
    for (uint32_t i = 0, c = ts_node_named_child_count(argList); i < c; ++i) {
      TSNode ch = ts_node_named_child(argList, i);
      std::string_view t = syntax::type(ch);
      if (t == "keyword_argument" || t == "comment" || t == "list_splat" || t == "dictionary_splat")
        continue;
      if (k++ == index)
        return ch;
    }
    return TSNode{};
  };
  auto keyword = [&](std::string_view name) -> TSNode {
    if (isNull(argList))
      return TSNode{};
    for (uint32_t i = 0, c = ts_node_named_child_count(argList); i < c; ++i) {
      TSNode ch = ts_node_named_child(argList, i);
      if (is(ch, "keyword_argument") && doc_.textOf(field(ch, "name")) == name)
        return field(ch, "value");
    }
    return TSNode{};
  };
  auto bodyArg = [&](unsigned index, std::string_view kw) {
    TSNode p = positional(index);
    return isNull(p) ? keyword(kw) : p;
  };
  auto makeFactory = [&](std::string fapi, bool viaPartial) {
    mlir::Value v = opaque(n, "factory", {});
    Factory f;
    f.api = std::move(fapi);
    f.call = n;
    f.viaPartial = viaPartial;
    info_[v].factory = f;
    return v;
  };

  if (isLaunchApi(api)) {
    TSNode body = api == "pl.core_map" ? TSNode{} : bodyArg(0, "body");
    if (api == "pl.kernel" && isNull(positional(0)))
      body = keyword("body");
    if (isNull(body))
      return makeFactory(api, false);
    return emitLaunch(n, api, "call", n, nullptr, callableOf(body));
  }
  if (api == "functools.partial") {
    TSNode first = positional(0);
    if (!isNull(first) && (is(first, "identifier") || is(first, "attribute"))) {
      if (auto b = resolveBinding(first); b && b->file.empty() && names::isJaxName(b->target)) {
        std::string inner = names::canonicalApi(b->target);
        if (isLaunchApi(inner) || inner == "pl.run_scoped" || inner == "plgpu.emit_pipeline" ||
            inner == "plgpu.emit_pipeline_warp_specialized" || inner == "pl.loop" ||
            inner == "pl.when" || inner == "plgpu.nd_loop" || inner == "pl.run_state")
          return makeFactory(inner, true);
      }
    }
    Args a = lowerArgs(argList);
    return prim(n, api, a);
  }
  if (api == "pl.when" || api == "pl.loop" || api == "plgpu.nd_loop" || api == "plgpu.inline_mgpu")
    return makeFactory(api, false);
  if (api == "pl.run_scoped") {
    TSNode body = bodyArg(0, "f");
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "pl.run_state") {
    TSNode body = positional(0);
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "plgpu.emit_pipeline" || api == "plgpu.emit_pipeline_warp_specialized") {
    TSNode body = bodyArg(0, "body");
    if (isNull(body))
      return makeFactory(api, false);
    Factory f{api, n, false, std::nullopt, true};
    return applyFactory(n, f, callableOf(body));
  }
  if (api == "lax.fori_loop" || api == "jax.lax.fori_loop") {
    TSNode body = bodyArg(2, "body_fun");
    Args ops;
    for (auto [i, kw] :
         {std::pair<unsigned, const char*>{0, "lower"}, {1, "upper"}, {3, "init_val"}}) {
      TSNode a = bodyArg(i, kw);
      if (isNull(a))
        continue;
      ops.values.push_back(lowerExpr(a));
      ops.keywords.push_back(kw);
      ops.nodes.push_back(a);
    }
    return emitScope(n, "lax.fori_loop", ops, {"value", "value"}, std::nullopt, callableOf(body));
  }
  if (api == "lax.while_loop") {
    TSNode cond = bodyArg(0, "cond_fun"), body = bodyArg(1, "body_fun"),
           init = bodyArg(2, "init_val");
    Args ops;
    if (!isNull(init)) {
      ops.values.push_back(lowerExpr(init));
      ops.keywords.push_back("init_val");
    }
    CallableRef condRef = callableOf(cond);
    return emitScope(n, api, ops, {"value"}, std::nullopt, callableOf(body), {condRef});
  }
  if (api == "lax.cond") {
    TSNode pred = positional(0), t = positional(1), f = positional(2);
    Args ops;
    if (!isNull(pred)) {
      ops.values.push_back(lowerExpr(pred));
      ops.keywords.push_back("");
    }
    CallableRef fRef = callableOf(f);
    return emitScope(n, api, ops, {}, std::nullopt, callableOf(t), {fRef});
  }
  if (api == "interpret.set_gpu_interpret_mode") {
    Args a = lowerArgs(argList);
    TSPoint p = ts_node_start_point(n);
    contexts_.push_back(Context{"set_gpu_interpret_mode", p.row + 1, p.column + 1});
    return prim(n, api, a);
  }
  Args a = lowerArgs(argList);
  return prim(n, api, a);
}

// ---- higher-order constructs -------------------------------------------------

std::vector<std::string> Lowerer::paramNames(TSNode def) {
  std::vector<std::string> out;
  TSNode params = field(def, "parameters");
  if (isNull(params))
    return out;
  for (uint32_t i = 0, c = ts_node_named_child_count(params); i < c; ++i) {
    TSNode p = ts_node_named_child(params, i);
    std::string_view t = syntax::type(p);
    if (t == "identifier")
      out.push_back(text(p));
    else if (t == "default_parameter" || t == "typed_default_parameter")
      out.push_back(text(field(p, "name")));
    else if (t == "typed_parameter") {
      TSNode id = ts_node_named_child(p, 0);
      std::string name = text(id);
      if (is(id, "list_splat_pattern"))
        name = "*" + text(ts_node_named_child(id, 0));
      if (is(id, "dictionary_splat_pattern"))
        name = "**" + text(ts_node_named_child(id, 0));
      out.push_back(name);
    } else if (t == "list_splat_pattern")
      out.push_back("*" + text(ts_node_named_child(p, 0)));
    else if (t == "dictionary_splat_pattern")
      out.push_back("**" + text(ts_node_named_child(p, 0)));
  }
  return out;
}

// Bind a def's (or lambda's) parameters to the block arguments in a new
// function scope; `argOrigins` empty means "arg" (a function's own params).
void Lowerer::bindParams(TSNode def, mlir::Block* block,
                         const std::vector<std::string>& argOrigins) {
  scopes_.emplace_back();
  std::vector<std::string> names = paramNames(def);
  TSNode params = field(def, "parameters");
  std::unordered_map<std::string, TSNode> defaults;
  if (!isNull(params))
    for (uint32_t i = 0, c = ts_node_named_child_count(params); i < c; ++i) {
      TSNode p = ts_node_named_child(params, i);
      if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
        defaults[text(field(p, "name"))] = field(p, "value");
    }
  for (unsigned i = 0; i < names.size() && i < block->getNumArguments(); ++i) {
    std::string name = names[i];
    while (!name.empty() && name[0] == '*')
      name.erase(0, 1);
    mlir::Value arg = block->getArgument(i);
    ValInfo& vi = info_[arg];
    if (argOrigins.empty())
      vi.prov = Prov{pd::origin::kArg, static_cast<int>(i)};
    else {
      llvm::StringRef o =
          i < argOrigins.size() ? llvm::StringRef(argOrigins[i]) : llvm::StringRef("value");
      // Keep the attribute storage alive: origins are string constants.
      for (const char* k : {pd::origin::kValue, pd::origin::kRunScoped, pd::origin::kAcc,
                            pd::origin::kRunState, pd::origin::kPipeline, pd::origin::kRef})
        if (o == k)
          vi.prov = Prov{k, -1};
    }
    vi.isParam = true;
    if (auto d = defaults.find(names[i]); d != defaults.end())
      vi.paramDefault = d->second;
    scopes_.back().vars[name] = Var{arg, regionDepth_};
  }
}

template <typename F> void Lowerer::inRegion(mlir::Block* block, F&& body) {
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToEnd(block);
  ++regionDepth_;
  assigned_.emplace_back();
  body();
  // Names assigned inside the region are visible after it in Python, but
  // their SSA values are not: rebind them to a join at the outer level.
  std::vector<std::string> names = std::move(assigned_.back());
  assigned_.pop_back();
  --regionDepth_;
  b_.setInsertionPointAfter(block->getParentOp());
  for (const std::string& name : names) {
    auto& vars = scopes_.back().vars;
    auto it = vars.find(name);
    if (it == vars.end() || it->second.regionDepth <= regionDepth_)
      continue;
    Prov p = prov(it->second.value);
    ValInfo inner = info_.lookup(it->second.value);
    mlir::Value joined =
        pd::OpaqueOp::create(b_, block->getParentOp()->getLoc(), valueTy_, "join",
                             mlir::ValueRange{}, strArray({}), b_.getDenseI64ArrayAttr({}))
            .getResult();
    inner.prov = p;
    info_[joined] = inner;
    it->second = Var{joined, regionDepth_};
    if (!assigned_.empty())
      assigned_.back().push_back(name);
  }
}

void Lowerer::lowerDefInto(mlir::Block* block, TSNode def,
                           const std::vector<std::string>& argOrigins,
                           llvm::ArrayRef<mlir::Value>) {
  inRegion(block, [&] {
    bindParams(def, block, argOrigins);
    TSNode body = field(def, "body");
    if (is(def, "lambda")) {
      mlir::Value v = lowerExpr(body);
      pd::ReturnOp::create(b_, loc(body), v);
    } else {
      lowerBlock(body);
    }
    scopes_.pop_back();
  });
}

mlir::Value Lowerer::closure(TSNode def, std::optional<Factory> inlineMgpu) {
  std::vector<std::string> names = paramNames(def);
  // An inline_mgpu wrapper is called without the launch context.
  if (inlineMgpu && !names.empty())
    names.erase(names.begin());
  std::string name = is(def, "lambda") ? "<lambda>" : text(field(def, "name"));
  auto op = pd::ClosureOp::create(b_, loc(def), valueTy_, name,
                                  is(def, "lambda") ? "lambda" : "def", strArray(names));
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  for (size_t i = 0; i < names.size(); ++i)
    block->addArgument(valueTy_, loc(def));
  if (inlineMgpu) {
    inRegion(block, [&] { emitInlineMgpu(def, def, &*inlineMgpu, block); });
  } else {
    lowerDefInto(block, def, {}, {});
  }
  info_[op.getResult()].closureDef = def;
  return op.getResult();
}

// Inside the wrapper (func or closure) of an inline_mgpu-decorated def: the
// inline_mgpu op binds the wrapper's parameters after the context.
void Lowerer::emitInlineMgpu(TSNode site, TSNode def, const Factory* f, mlir::Block* wrapper) {
  // The wrapper's parameters are what the caller passes; all become operands.
  llvm::SmallVector<mlir::Value> operands;
  for (unsigned i = 0; i < wrapper->getNumArguments(); ++i) {
    operands.push_back(wrapper->getArgument(i));
    info_[wrapper->getArgument(i)].prov = Prov{pd::origin::kArg, static_cast<int>(i)};
  }
  std::vector<std::string> names = paramNames(def);
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(operands, origins, indices);
  mlir::StringAttr argTypes, returnType;
  mlir::ArrayAttr kinds;
  int64_t count = -1;
  if (f && !isNull(f->call)) {
    TSNode args = field(f->call, "arguments");
    for (uint32_t i = 0, c = isNull(args) ? 0 : ts_node_named_child_count(args); i < c; ++i) {
      TSNode a = ts_node_named_child(args, i);
      TSNode v;
      std::string k;
      if (is(a, "keyword_argument")) {
        k = text(field(a, "name"));
        v = field(a, "value");
      } else {
        k = i == 0 ? "arg_types" : i == 1 ? "return_type" : "";
        v = a;
      }
      if (k == "arg_types") {
        argTypes = b_.getStringAttr(text(v));
        if (auto ks = typeSequenceKinds(v)) {
          count = static_cast<int64_t>(ks->size());
          kinds = strArray(*ks);
        }
      } else if (k == "return_type") {
        returnType = b_.getStringAttr(text(v));
      }
    }
  }
  if (!argTypes) {
    count = 0; // arg_types defaults to ()
    kinds = strArray({});
  }
  auto op = pd::InlineMgpuOp::create(b_, loc(site), valueTy_, operands, origins, indices, argTypes,
                                     kinds, returnType, b_.getI64IntegerAttr(count));
  mlir::Block* body = new mlir::Block();
  op.getBody().push_back(body);
  for (size_t i = 0; i < names.size(); ++i)
    body->addArgument(valueTy_, loc(def));
  lowerDefInto(body, def, {}, {});
  pd::ReturnOp::create(b_, loc(site), op.getResult());
}

mlir::Value Lowerer::emitScope(TSNode site, const std::string& api, const Args& operands,
                               const std::vector<std::string>& argOrigins,
                               const std::optional<std::vector<std::string>>& allocations,
                               const CallableRef& body, llvm::ArrayRef<CallableRef> extraBodies) {
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(operands.values, origins, indices);
  std::vector<std::string> blockOrigins = argOrigins;
  // The body's parameters are the block arguments, when its def is known
  // (written in place, or a closure of this function).
  TSNode bodyDef = body.def;
  if (isNull(bodyDef) && body.value)
    if (ValInfo* vi = infoOf(body.value))
      bodyDef = vi->closureDef;
  if (!isNull(bodyDef) && (!body.value || argOrigins.empty() || api == "pl.run_state")) {
    size_t n = paramNames(bodyDef).size();
    if (api == "plgpu.emit_pipeline" || api == "plgpu.emit_pipeline_warp_specialized") {
      blockOrigins.assign(n, pd::origin::kPipeline);
      if (n)
        blockOrigins[0] = pd::origin::kValue;
    } else if (api == "pl.run_state") {
      blockOrigins.assign(n, pd::origin::kRunState);
    } else {
      blockOrigins.resize(n, pd::origin::kValue);
    }
  }
  std::optional<std::vector<std::string>> allocs = allocations;
  if (allocs && allocs->size() != blockOrigins.size())
    allocs.reset();
  auto op = pd::ScopeOp::create(
      b_, loc(site), valueTy_, api, operands.values, strArray(operands.keywords), origins, indices,
      strArray(blockOrigins), allocs ? strArray(*allocs) : mlir::ArrayAttr(), mlir::StringAttr());
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  for (const std::string& o : blockOrigins)
    block->addArgument(o == pd::origin::kValue ? valueTy_ : refTy_, loc(site));
  if (!isNull(body.def) && !body.value) {
    lowerDefInto(block, body.def, blockOrigins, {});
    return op.getResult();
  }
  inRegion(block, [&] {
    for (unsigned i = 0; i < block->getNumArguments(); ++i) {
      Prov p;
      for (const char* k : {pd::origin::kValue, pd::origin::kRunScoped, pd::origin::kAcc,
                            pd::origin::kRunState, pd::origin::kPipeline, pd::origin::kRef})
        if (blockOrigins[i] == k)
          p = Prov{k, -1};
      info_[block->getArgument(i)].prov = p;
    }
    auto callOne = [&](const CallableRef& c) {
      if (c.symbol.empty() && c.value == nullptr)
        return;
      llvm::SmallVector<mlir::Value> args(block->getArguments().begin(),
                                          block->getArguments().end());
      mlir::ArrayAttr o;
      mlir::DenseI64ArrayAttr idx;
      operandInfo(args, o, idx);
      std::vector<std::string> kws(args.size(), "");
      // The call is located at the scope, with the body's place as callee.
      mlir::Location l = loc(site);
      if (!c.symbol.empty()) {
        pd::CallOp::create(b_, l, valueTy_, c.symbol,
                           c.file.empty() ? mlir::StringAttr() : b_.getStringAttr(c.file), args,
                           strArray(kws), o, idx);
      } else {
        if (auto* def = c.value.getDefiningOp())
          l = mlir::CallSiteLoc::get(def->getLoc(), loc(site));
        pd::CallIndirectOp::create(b_, l, valueTy_, c.value, args, strArray(kws), o, idx);
      }
    };
    for (const CallableRef& c : extraBodies)
      callOne(c);
    callOne(body);
  });
  return op.getResult();
}

mlir::Value Lowerer::applyFactory(TSNode site, const Factory& f, const CallableRef& body) {
  const std::string& api = f.api;
  if (isLaunchApi(api))
    return emitLaunch(site, api, f.partial ? "partial" : "decorator", f.partial ? TSNode{} : f.call,
                      f.partial ? &*f.partial : nullptr, body);
  // The factory call's own arguments (minus the function for partials).
  TSNode argList = isNull(f.call) ? TSNode{} : field(f.call, "arguments");
  // functools.partial(api, ...) and api(body, ...) both have one positional
  // argument that is not the construct's own.
  unsigned skip = f.viaPartial || f.bodyInCall ? 1 : 0;
  Args ops = lowerArgs(argList, skip);
  if (api == "pl.when" || api == "pl.loop" || api == "plgpu.nd_loop") {
    std::vector<std::string> origins;
    if (api != "pl.when")
      origins = {"value"};
    return emitScope(site, api, ops, origins, std::nullopt, body);
  }
  if (api == "pl.run_scoped") {
    // One block argument per allocation: positional first, then keywords in
    // the body's parameter order when the body is in place.
    std::vector<std::string> kinds, origins;
    std::vector<std::pair<std::string, std::string>> byKeyword;
    for (size_t i = 0; i < ops.values.size(); ++i) {
      std::string kind = names::allocationKind(ops.nodes[i], doc_, globals_);
      if (ops.keywords[i] == "collective_axes")
        continue;
      if (ops.keywords[i].empty())
        kinds.push_back(kind);
      else
        byKeyword.emplace_back(ops.keywords[i], kind);
    }
    if (!isNull(body.def) && !body.value) {
      std::vector<std::string> params = paramNames(body.def);
      for (size_t i = kinds.size(); i < params.size(); ++i) {
        std::string k = "other";
        for (auto& [kw, kind] : byKeyword)
          if (kw == params[i])
            k = kind;
        kinds.push_back(k);
      }
    } else {
      for (auto& [kw, kind] : byKeyword)
        kinds.push_back(kind);
    }
    for (auto& k : kinds)
      origins.push_back(k == "acc" ? pd::origin::kAcc : pd::origin::kRunScoped);
    CallableRef b2 = body;
    if (!isNull(b2.def) && !b2.value) {
      // In place: emitScope sizes the block from the def; keep our origins.
      mlir::ArrayAttr o;
      mlir::DenseI64ArrayAttr idx;
      operandInfo(ops.values, o, idx);
      auto op =
          pd::ScopeOp::create(b_, loc(site), valueTy_, api, ops.values, strArray(ops.keywords), o,
                              idx, strArray(origins), strArray(kinds), mlir::StringAttr());
      mlir::Block* block = new mlir::Block();
      op.getBody().push_back(block);
      for (auto& org : origins)
        block->addArgument(org == pd::origin::kValue ? valueTy_ : refTy_, loc(site));
      lowerDefInto(block, b2.def, origins, {});
      return op.getResult();
    }
    return emitScope(site, api, ops, origins, kinds, body);
  }
  if (api == "pl.run_state") {
    size_t n = 1;
    if (!isNull(body.def))
      n = paramNames(body.def).size();
    return emitScope(site, api, ops, std::vector<std::string>(n, pd::origin::kRunState),
                     std::nullopt, body);
  }
  if (api == "plgpu.emit_pipeline" || api == "plgpu.emit_pipeline_warp_specialized") {
    std::vector<std::string> origins;
    if (!isNull(body.def)) {
      size_t n = paramNames(body.def).size();
      origins.assign(n, pd::origin::kPipeline);
      if (n)
        origins[0] = pd::origin::kValue;
    }
    return emitScope(site, api, ops, origins, std::nullopt, body);
  }
  if (api == "plgpu.inline_mgpu") {
    // plgpu.inline_mgpu(...)(fn): wrap the def (a lambda, or a nested def
    // seen earlier) like the decorator form does.
    TSNode def = body.def;
    if (isNull(def) && body.value)
      if (ValInfo* vi = infoOf(body.value))
        def = vi->closureDef;
    if (!isNull(def))
      return closure(def, f);
    return body.value ? body.value : opaque(site, "function", {});
  }
  return opaque(site, "factory_application", ops.values);
}

mlir::Value Lowerer::emitLaunch(TSNode site, const std::string& api, const std::string& form,
                                TSNode kwCall, const Binding* partial, const CallableRef& body) {
  // Keyword arguments: those of the partial (module level) and of the call.
  TSNode interpretNode{}, scratchNode{}, threadsNode{}, threadNameNode{};
  // The backend the launch's arguments select (compiler_params=, backend=,
  // a TPU interpret-params object, a TPU mesh): kernels for another backend
  // are not Mosaic GPU kernels.
  std::string backend;
  bool splatUnknown = false; // a **mapping whose keys are not known statically
  std::string splatName;     // "**kwargs" when that mapping is a name
  auto noteBackend = [&](TSNode v) {
    if (backend.empty())
      backend = backendOf(v);
  };
  if (!isNull(kwCall)) {
    TSNode args = field(kwCall, "arguments");
    for (uint32_t i = 0, c = isNull(args) ? 0 : ts_node_named_child_count(args); i < c; ++i) {
      TSNode a = ts_node_named_child(args, i);
      if (is(a, "dictionary_splat")) {
        // **opts: a dict literal or dict(...) bound to a local name gives its
        // keywords; anything else may hold interpret= (a run-time choice).
        TSNode d = ts_node_named_child(a, 0);
        while (is(d, "parenthesized_expression"))
          d = ts_node_named_child(d, 0);
        if (is(d, "identifier"))
          if (const Var* v = findLocal(text(d)))
            if (ValInfo* vi = infoOf(v->value); vi && !isNull(vi->constant))
              d = vi->constant;
        bool known = false;
        auto take = [&](std::string_view k, TSNode v) {
          if (k == "interpret")
            interpretNode = v;
          else if (k == "scratch_shapes" || k == "scratch_types")
            scratchNode = v;
          if (k == "compiler_params" || k == "backend" || k == "interpret" || k == "mesh")
            noteBackend(v);
        };
        if (is(d, "dictionary")) {
          known = true;
          for (TSNode pair : syntax::namedChildren(d)) {
            if (!is(pair, "pair")) {
              if (!is(pair, "comment"))
                known = false;
              continue;
            }
            TSNode key = field(pair, "key");
            if (!is(key, "string")) {
              known = false;
              continue;
            }
            std::string k = text(key);
            if (k.size() >= 2)
              take(std::string_view(k).substr(1, k.size() - 2), field(pair, "value"));
          }
        } else if (is(d, "call") && doc_.textOf(field(d, "function")) == "dict" &&
                   !findLocal("dict")) {
          known = true;
          for (TSNode kw : syntax::namedChildren(field(d, "arguments"))) {
            if (is(kw, "keyword_argument"))
              take(doc_.textOf(field(kw, "name")), field(kw, "value"));
            else if (!is(kw, "comment"))
              known = false;
          }
        }
        if (!known) {
          splatUnknown = true;
          // `**kwargs` of the enclosing def: its callers' keywords decide.
          if (is(d, "identifier") && splatName.empty())
            splatName = "**" + text(d);
        }
        continue;
      }
      if (!is(a, "keyword_argument")) {
        if (i == 0 && api == "pl.core_map")
          noteBackend(a); // the mesh
        continue;
      }
      std::string_view k = doc_.textOf(field(a, "name"));
      TSNode v = field(a, "value");
      if (k == "compiler_params" || k == "backend" || k == "interpret" || k == "mesh")
        noteBackend(v);
      if (k == "interpret")
        interpretNode = v;
      else if (k == "scratch_shapes" || k == "scratch_types")
        scratchNode = v;
      else if (k == "num_threads")
        threadsNode = v;
      else if (k == "thread_name")
        threadNameNode = v;
    }
    // The other arguments are evaluated (they may call user code).
    lowerArgs(args, api == "pl.core_map" ? 0 : 1);
  }
  // A launch applied through `functools.partial(pl.pallas_call, ...)` written
  // in place: the partial's keywords also count.
  names::InterpretEval eval;
  auto lookupLocal = [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    const Var* v = findLocal(name);
    if (!v)
      return std::nullopt;
    ValInfo* vi = infoOf(v->value);
    if (vi && vi->isParam && !isNull(vi->paramDefault))
      return std::make_pair(vi->paramDefault, std::string("default_param"));
    if (vi && !isNull(vi->constant))
      return std::make_pair(vi->constant, std::string("local"));
    return std::make_pair(TSNode{}, std::string("unknown"));
  };
  std::optional<bool> interpretFact =
      isNull(interpretNode) ? std::nullopt : knownFact(interpretNode);
  if (interpretFact && !*interpretFact) {
    // Falsy on every path that reaches the launch (`if self.INTERPRET:
    // self.skipTest(...)` before it): compiled. A truthy value may be True
    // or an InterpretGPUParams, so only falsity is used.
    eval.paths = {pd::path::kCompiled};
    eval.source = "condition";
    eval.text = text(interpretNode);
  } else if (!isNull(interpretNode)) {
    eval = names::evaluateInterpret(interpretNode, doc_, globals_, lookupLocal);
    // Record the module-level names the evaluation consulted.
    if (is(interpretNode, "identifier") && !findLocal(text(interpretNode)))
      findGlobal(text(interpretNode));
    // A parameter without a default: its value is whatever each caller
    // passes (the discharge pass follows the callers).
    if (is(interpretNode, "identifier"))
      if (const Var* v = findLocal(text(interpretNode)))
        if (ValInfo* vi = infoOf(v->value); vi && vi->isParam && isNull(vi->paramDefault))
          eval.source = "param";
  } else if (partial && partial->interpret) {
    eval = *partial->interpret;
  } else if (splatUnknown) {
    // interpret= may come in through **kwargs: a run-time choice ("may").
    eval.paths = {pd::path::kUnknown};
    eval.source = "unknown";
    eval.text = splatName.empty() ? "**" : splatName;
  } else {
    eval = names::evaluateInterpret(TSNode{}, doc_, globals_, nullptr);
  }
  std::optional<std::vector<std::string>> scratch;
  if (!isNull(scratchNode))
    scratch = names::scratchKinds(scratchNode, doc_, globals_);
  else if (partial && partial->scratchKnown)
    scratch = partial->scratch;
  else if (partial) {
    bool hasScratch = false;
    for (auto& [k, _] : partial->keywords)
      hasScratch |= k == "scratch_shapes" || k == "scratch_types";
    if (!hasScratch)
      scratch = std::vector<std::string>{};
  } else if (isNull(scratchNode))
    scratch = std::vector<std::string>{};

  // The interpret contexts: config value `or`-ed with interpret=.
  mlir::StringAttr contextAttr;
  mlir::IntegerAttr contextLine, contextColumn;
  if (!contexts_.empty()) {
    const Context& c = contexts_.back();
    bool falsy =
        eval.source == "absent" || (eval.paths.size() == 1 && eval.paths[0] == pd::path::kCompiled);
    if (falsy) {
      eval.paths = {pd::path::kInterpretGpu};
      eval.source = "context";
    }
    contextAttr = b_.getStringAttr(c.kind);
    contextLine = b_.getI64IntegerAttr(c.line);
    contextColumn = b_.getI64IntegerAttr(c.column);
  }
  mlir::DictionaryAttr params;
  if (!eval.params.empty()) {
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    for (auto& [k, v] : eval.params)
      attrs.push_back(b_.getNamedAttr(k, b_.getStringAttr(v)));
    params = b_.getDictionaryAttr(attrs);
  }
  mlir::IntegerAttr numThreads;
  if (is(threadsNode, "integer")) {
    int64_t n = 0;
    if (!llvm::StringRef(doc_.textOf(threadsNode)).getAsInteger(0, n))
      numThreads = b_.getI64IntegerAttr(n);
  }
  mlir::StringAttr threadName;
  if (is(threadNameNode, "string")) {
    std::string s = text(threadNameNode);
    if (s.size() >= 2)
      s = s.substr(1, s.size() - 2);
    threadName = b_.getStringAttr(s);
  }
  mlir::Value bodyValue = body.value;
  auto op = pd::LaunchOp::create(
      b_, loc(site), valueTy_, b_.getStringAttr(api), b_.getStringAttr(form),
      b_.getStringAttr(body.text),
      body.symbol.empty() ? mlir::FlatSymbolRefAttr()
                          : mlir::FlatSymbolRefAttr::get(b_.getContext(), body.symbol),
      body.file.empty() ? mlir::StringAttr() : b_.getStringAttr(body.file), bodyValue,
      strArray(eval.paths), b_.getStringAttr(eval.source),
      eval.text.empty() ? mlir::StringAttr() : b_.getStringAttr(eval.text), params,
      scratch ? strArray(*scratch) : mlir::ArrayAttr(), numThreads, threadName, contextAttr,
      contextLine, contextColumn, backend.empty() ? mlir::StringAttr() : b_.getStringAttr(backend));
  // Whether compiler_params= is given at all (JAX's defaults apply when not):
  // a discardable attribute, read by the compiled path's semantics.
  bool compilerParams = false;
  if (!isNull(kwCall)) {
    TSNode args = field(kwCall, "arguments");
    for (uint32_t i = 0, c = isNull(args) ? 0 : ts_node_named_child_count(args); i < c; ++i) {
      TSNode a = ts_node_named_child(args, i);
      compilerParams |=
          is(a, "keyword_argument") && doc_.textOf(field(a, "name")) == "compiler_params";
    }
  }
  if (partial)
    for (auto& [k, _] : partial->keywords)
      compilerParams |= k == "compiler_params";
  if (compilerParams)
    op->setAttr("pallas.compiler_params", b_.getUnitAttr());
  return op.getResult();
}

// The Pallas backend an argument of a launch names: "mosaic_tpu" for
// `pltpu.CompilerParams(...)`, `pltpu.InterpretParams(...)`, a TPU mesh,
// `backend="mosaic_tpu"` or a `{"mosaic": ...}` params dict; "triton" for the
// Triton backend's; "mosaic_gpu" for Mosaic GPU's; "" when it does not say.
std::string Lowerer::backendOf(TSNode expr, unsigned depth) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  if (isNull(expr) || depth > 4)
    return {};
  auto ofQualified = [](const std::string& q) -> std::string {
    llvm::StringRef api(q);
    if (api.starts_with("pl.tpu.") || api.starts_with("jax._src.pallas.mosaic.") ||
        api.starts_with("jax._src.tpu"))
      return "mosaic_tpu";
    if (api.starts_with("pl.triton.") || api.starts_with("jax._src.pallas.triton."))
      return "triton";
    if (api.starts_with("plgpu.") || api.starts_with("interpret."))
      return "mosaic_gpu";
    return {};
  };
  auto ofName = [](llvm::StringRef key) -> std::string {
    key = key.trim("\"'");
    if (key == "mosaic" || key == "mosaic_tpu")
      return "mosaic_tpu";
    if (key == "triton")
      return "triton";
    if (key == "mosaic_gpu")
      return "mosaic_gpu";
    return {};
  };
  if (is(expr, "string"))
    return ofName(doc_.textOf(expr));
  if (is(expr, "dictionary")) {
    for (TSNode pair : syntax::namedChildren(expr))
      if (is(pair, "pair"))
        if (std::string b = ofName(doc_.textOf(field(pair, "key"))); !b.empty())
          return b;
    return {};
  }
  if (is(expr, "call")) {
    TSNode callee = field(expr, "function");
    std::optional<Binding> b = resolveBinding(callee);
    if (b && (b->kind == Binding::Kind::Module || b->kind == Binding::Kind::Symbol) &&
        b->file.empty() && names::isJaxName(b->target))
      return ofQualified(names::canonicalApi(b->target));
    if (doc_.textOf(callee) == "dict") { // dict(mosaic=...) / dict(triton=...)
      TSNode args = field(expr, "arguments");
      for (TSNode a : syntax::namedChildren(args))
        if (is(a, "keyword_argument"))
          if (std::string k = ofName(doc_.textOf(field(a, "name"))); !k.empty())
            return k;
    }
    return {};
  }
  if (is(expr, "identifier")) {
    if (const Var* v = findLocal(text(expr))) {
      ValInfo* vi = infoOf(v->value);
      if (vi && !isNull(vi->constant))
        return backendOf(vi->constant, depth + 1);
    }
  }
  return {};
}

// The kinds ("ref" for plgpu.RefType(...), "array" otherwise) of the types an
// inline_mgpu `arg_types=` declares, evaluating what Python would: a tuple or
// list literal, `+` of sequences, `*` by an integer literal, None (no
// argument), a single type (one argument). nullopt when the source does not
// determine it (a name bound elsewhere, a splat): then nothing is checked.
std::optional<std::vector<std::string>> Lowerer::typeSequenceKinds(TSNode expr, unsigned depth) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  if (isNull(expr) || depth > 16)
    return std::nullopt;
  auto single = [&](TSNode el) -> std::optional<std::string> {
    TSNode callee = is(el, "call") ? field(el, "function") : el;
    auto b = resolveBinding(callee);
    std::string api = b && b->file.empty() ? names::canonicalApi(b->target) : "";
    if (api == "plgpu.RefType")
      return std::string("ref");
    if (is(el, "call") || (b && names::isJaxName(b->target)))
      return std::string("array");
    return std::nullopt;
  };
  if (is(expr, "none"))
    return std::vector<std::string>{};
  if (is(expr, "tuple") || is(expr, "list")) {
    std::vector<std::string> ks;
    for (TSNode el : syntax::namedChildren(expr)) {
      if (is(el, "comment"))
        continue;
      auto k = single(el);
      if (!k)
        return std::nullopt;
      ks.push_back(*k);
    }
    return ks;
  }
  if (is(expr, "binary_operator")) {
    std::string_view op = doc_.textOf(field(expr, "operator"));
    TSNode l = field(expr, "left"), r = field(expr, "right");
    auto strip = [](TSNode n) {
      while (is(n, "parenthesized_expression"))
        n = ts_node_named_child(n, 0);
      return n;
    };
    auto isSeq = [&](TSNode n) {
      n = strip(n);
      return is(n, "tuple") || is(n, "list") || is(n, "binary_operator");
    };
    if (op == "+") {
      if (!isSeq(l) || !isSeq(r))
        return std::nullopt;
      auto a = typeSequenceKinds(l, depth + 1), b = typeSequenceKinds(r, depth + 1);
      if (!a || !b)
        return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return a;
    }
    if (op == "*") {
      l = strip(l);
      r = strip(r);
      if (is(l, "integer"))
        std::swap(l, r);
      int64_t n = 0;
      if (!isSeq(l) || !is(r, "integer") || llvm::StringRef(doc_.textOf(r)).getAsInteger(0, n) ||
          n < 0)
        return std::nullopt;
      auto a = typeSequenceKinds(l, depth + 1);
      if (!a)
        return std::nullopt;
      std::vector<std::string> out;
      for (int64_t i = 0; i < n && out.size() < 4096; ++i)
        out.insert(out.end(), a->begin(), a->end());
      return out;
    }
    return std::nullopt;
  }
  if (auto k = single(expr))
    return std::vector<std::string>{*k};
  return std::nullopt;
}

bool Lowerer::innermostIsInlineMgpu(TSNode decorated) {
  TSNode last{};
  for (uint32_t i = 0, c = ts_node_named_child_count(decorated); i < c; ++i)
    if (is(ts_node_named_child(decorated, i), "decorator"))
      last = ts_node_named_child(decorated, i);
  if (isNull(last))
    return false;
  TSNode e = ts_node_named_child(last, 0);
  TSNode callee = is(e, "call") ? field(e, "function") : e;
  auto b = resolveBinding(callee);
  return b && b->file.empty() && names::isJaxName(b->target) &&
         names::canonicalApi(b->target) == "plgpu.inline_mgpu";
}

// Apply a nested def's decorators (innermost first). Returns the value the
// def's name is bound to.
mlir::Value Lowerer::decorate(TSNode decorated, TSNode def) {
  std::vector<TSNode> decorators;
  for (uint32_t i = 0, c = ts_node_named_child_count(decorated); i < c; ++i) {
    TSNode d = ts_node_named_child(decorated, i);
    if (is(d, "decorator"))
      decorators.push_back(ts_node_named_child(d, 0));
  }
  // Decorators that run the body in place or wrap it take the def itself
  // when they are innermost.
  mlir::Value current;
  bool first = true;
  for (auto it = decorators.rbegin(); it != decorators.rend(); ++it, first = false) {
    TSNode expr = *it;
    mlir::Value dec = lowerExpr(expr);
    ValInfo* vi = infoOf(dec);
    if (vi && vi->factory) {
      Factory f = *vi->factory;
      CallableRef body;
      body.text = text(field(def, "name"));
      if (first && f.api == "plgpu.inline_mgpu") {
        current = closure(def, f);
        continue;
      }
      if (first && (runsBodyInPlace(f.api) || f.api == "plgpu.emit_pipeline" ||
                    f.api == "plgpu.emit_pipeline_warp_specialized")) {
        body.def = def;
      } else {
        body.value = current ? current : closure(def);
      }
      current = applyFactory(expr, f, body);
      continue;
    }
    if (!current)
      current = closure(def);
    Args a;
    a.values.push_back(current);
    a.keywords.push_back("");
    a.nodes.push_back(def);
    current = callValue(expr, dec, a);
  }
  if (!current)
    current = closure(def);
  return current;
}

// ---- statements -------------------------------------------------------------

void Lowerer::lowerBlock(TSNode block) {
  if (isNull(block))
    return;
  facts_.emplace_back();
  std::vector<TSNode> stmts = syntax::namedChildren(block);
  for (size_t i = 0; i < stmts.size(); ++i) {
    lowerStatement(stmts[i]);
    if (i + 1 == stmts.size() || !neverCompletes(stmts[i]))
      continue;
    // The statements after one that never completes (raise, return,
    // self.skipTest(...), pytest.skip(...), sys.exit(...)) cannot run: they
    // are lowered (names, hover) into a region that is statically dead, so
    // the walk skips them and a launch there is not analysed.
    size_t j = i + 1;
    while (j < stmts.size() && is(stmts[j], "comment"))
      ++j;
    if (j == stmts.size())
      break;
    mlir::Value c = constant(stmts[j], "bool");
    auto op = pd::IfOp::create(b_, loc(stmts[j]), c, b_.getBoolAttr(false));
    mlir::Block* thenBlock = new mlir::Block();
    op.getThenRegion().push_back(thenBlock);
    op.getElseRegion().push_back(new mlir::Block());
    inRegion(thenBlock, [&] {
      for (size_t k = j; k < stmts.size(); ++k)
        lowerStatement(stmts[k]);
    });
    break;
  }
  facts_.pop_back();
}

// Calls that never return normally: the test frameworks' skips and
// failures and the process exits.
static bool isNoReturnCall(llvm::StringRef callee) {
  return callee == "self.skipTest" || callee == "self.fail" || callee == "pytest.skip" ||
         callee == "pytest.fail" || callee == "pytest.xfail" || callee == "pytest.exit" ||
         callee == "sys.exit" || callee == "os._exit" || callee == "exit" || callee == "quit";
}

bool Lowerer::neverCompletes(TSNode s) {
  std::string_view t = syntax::type(s);
  if (t == "raise_statement" || t == "return_statement" || t == "continue_statement" ||
      t == "break_statement")
    return true;
  if (t == "expression_statement" && ts_node_named_child_count(s) == 1) {
    TSNode e = ts_node_named_child(s, 0);
    return is(e, "call") && isNoReturnCall(names::dottedName(field(e, "function"), doc_)) &&
           !findLocal(names::dottedName(field(e, "function"), doc_));
  }
  if (t == "if_statement") {
    // Every branch (an else included) never completes.
    if (!neverCompletesBlock(field(s, "consequence")))
      return false;
    bool hasElse = false;
    for (TSNode alt : syntax::namedChildren(s)) {
      if (is(alt, "elif_clause") && !neverCompletesBlock(field(alt, "consequence")))
        return false;
      if (is(alt, "else_clause")) {
        hasElse = true;
        if (!neverCompletesBlock(field(alt, "body")))
          return false;
      }
    }
    return hasElse;
  }
  if (t == "block")
    return neverCompletesBlock(s);
  return false;
}

bool Lowerer::neverCompletesBlock(TSNode block) {
  if (isNull(block))
    return false;
  for (TSNode s : syntax::namedChildren(block))
    if (neverCompletes(s))
      return true;
  return false;
}

// What `cond` being `truth` tells about the names in it: `not`, `and` (all
// true), `or` (all false); a plain name or attribute chain is recorded.
void Lowerer::learnCondition(TSNode cond, bool truth, std::map<std::string, bool>& into) {
  while (is(cond, "parenthesized_expression"))
    cond = ts_node_named_child(cond, 0);
  if (is(cond, "not_operator"))
    return learnCondition(field(cond, "argument"), !truth, into);
  if (is(cond, "boolean_operator")) {
    std::string_view op = doc_.textOf(field(cond, "operator"));
    if ((op == "and" && truth) || (op == "or" && !truth)) {
      learnCondition(field(cond, "left"), truth, into);
      learnCondition(field(cond, "right"), truth, into);
    }
    return;
  }
  std::string name = names::dottedName(cond, doc_);
  if (!name.empty())
    into[name] = truth;
}

std::optional<bool> Lowerer::knownFact(TSNode expr) {
  while (is(expr, "parenthesized_expression"))
    expr = ts_node_named_child(expr, 0);
  std::string name = names::dottedName(expr, doc_);
  if (name.empty())
    return std::nullopt;
  for (auto it = facts_.rbegin(); it != facts_.rend(); ++it)
    if (auto f = it->find(name); f != it->end())
      return f->second;
  return std::nullopt;
}

// An assignment to `name` (or to an attribute of it) ends what was known.
void Lowerer::forgetFacts(const std::string& name) {
  for (auto& frame : facts_)
    for (auto it = frame.begin(); it != frame.end();)
      it = (it->first == name || llvm::StringRef(it->first).starts_with(name + "."))
               ? frame.erase(it)
               : std::next(it);
}

std::optional<bool> Lowerer::staticCondition(TSNode cond) {
  while (is(cond, "parenthesized_expression"))
    cond = ts_node_named_child(cond, 0);
  if (auto f = knownFact(cond))
    return f;
  if (is(cond, "true"))
    return true;
  if (is(cond, "false") || is(cond, "none"))
    return false;
  if (is(cond, "integer"))
    return doc_.textOf(cond) != "0";
  if (is(cond, "not_operator")) {
    auto inner = staticCondition(field(cond, "argument"));
    if (inner)
      return !*inner;
    return std::nullopt;
  }
  if (is(cond, "identifier") && !findLocal(text(cond))) {
    auto b = globals_.find(text(cond));
    if (b && b->kind == Binding::Kind::Constant) {
      const std::string& t = b->target;
      if (t == "True")
        return true;
      if (t == "False" || t == "None" || t == "0")
        return false;
    }
  }
  return std::nullopt;
}

pd::IfOp Lowerer::lowerIf(TSNode s, TSNode cond, TSNode consequence, uint32_t altIndex) {
  mlir::Value c = lowerExpr(cond);
  auto st = staticCondition(cond);
  if (is(cond, "identifier") && !findLocal(text(cond)))
    findGlobal(text(cond));
  auto op = pd::IfOp::create(b_, loc(s), c, st ? b_.getBoolAttr(*st) : mlir::BoolAttr());
  mlir::Block* thenBlock = new mlir::Block();
  op.getThenRegion().push_back(thenBlock);
  mlir::Block* elseBlock = new mlir::Block();
  op.getElseRegion().push_back(elseBlock);
  std::map<std::string, bool> whenTrue, whenFalse;
  learnCondition(cond, true, whenTrue);
  learnCondition(cond, false, whenFalse);
  facts_.push_back(whenTrue);
  inRegion(thenBlock, [&] { lowerBlock(consequence); });
  facts_.pop_back();
  facts_.push_back(whenFalse);
  struct PopFacts {
    std::vector<std::map<std::string, bool>>& f;
    ~PopFacts() { f.pop_back(); }
  } popFacts{facts_};
  // Alternatives: the named children of the if statement after the block.
  // The clauses once (indexed access to a node's children is not O(1)); an
  // elif chain nests one pallas.if per clause, so it counts as nesting.
  std::vector<TSNode> alts;
  if (altIndex != 0xffffffffu) {
    alts = syntax::namedChildren(s);
    alts.erase(alts.begin(), alts.begin() + std::min<size_t>(altIndex, alts.size()));
  }
  inRegion(elseBlock, [&] {
    for (size_t i = 0; i < alts.size(); ++i) {
      TSNode alt = alts[i];
      if (is(alt, "elif_clause")) {
        // Remaining clauses belong to that elif's else region.
        unsigned saved = nesting_;
        if (++nesting_ >= kMaxNesting) {
          tooDeep(alt);
          nesting_ = saved;
          return;
        }
        pd::IfOp inner =
            lowerIf(alt, field(alt, "condition"), field(alt, "consequence"), 0xffffffffu);
        inRegion(&inner.getElseRegion().front(), [&] {
          for (size_t j = i + 1; j < alts.size(); ++j) {
            TSNode rest = alts[j];
            if (is(rest, "elif_clause")) {
              if (++nesting_ >= kMaxNesting) {
                tooDeep(rest);
                break;
              }
              inner =
                  lowerIf(rest, field(rest, "condition"), field(rest, "consequence"), 0xffffffffu);
              b_.setInsertionPointToEnd(&inner.getElseRegion().front());
            } else if (is(rest, "else_clause")) {
              lowerBlock(field(rest, "body"));
            }
          }
        });
        nesting_ = saved;
        return;
      }
      if (is(alt, "else_clause"))
        lowerBlock(field(alt, "body"));
    }
  });
  return op;
}

void Lowerer::lowerWith(TSNode s) {
  std::string context;
  TSNode contextNode{};
  Args items;
  std::vector<std::pair<TSNode, mlir::Value>> targets;
  TSNode clause{};
  for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i)
    if (is(ts_node_named_child(s, i), "with_clause"))
      clause = ts_node_named_child(s, i);
  for (uint32_t i = 0, c = isNull(clause) ? 0 : ts_node_named_child_count(clause); i < c; ++i) {
    TSNode item = ts_node_named_child(clause, i);
    if (!is(item, "with_item"))
      continue;
    TSNode value = field(item, "value");
    TSNode target{};
    if (is(value, "as_pattern")) {
      TSNode alias = field(value, "alias");
      target = isNull(alias) ? TSNode{} : ts_node_named_child(alias, 0);
      value = ts_node_named_child(value, 0);
    }
    TSNode callee = is(value, "call") ? field(value, "function") : value;
    if (auto b = resolveBinding(callee);
        b && b->file.empty() &&
        names::canonicalApi(b->target) == "interpret.force_gpu_interpret_mode") {
      context = "force_gpu_interpret_mode";
      contextNode = value;
    }
    mlir::Value v = lowerExpr(value);
    items.values.push_back(v);
    items.keywords.push_back("");
    if (!isNull(target))
      targets.emplace_back(target, v);
  }
  for (auto& [t, v] : targets)
    bindTarget(t, v, TSNode{});
  mlir::ArrayAttr origins;
  mlir::DenseI64ArrayAttr indices;
  operandInfo(items.values, origins, indices);
  auto op = pd::ScopeOp::create(b_, loc(s), valueTy_, "python.with", items.values,
                                strArray(items.keywords), origins, indices, strArray({}),
                                mlir::ArrayAttr(),
                                context.empty() ? mlir::StringAttr() : b_.getStringAttr(context));
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  if (!context.empty()) {
    TSPoint p = ts_node_start_point(contextNode);
    contexts_.push_back(Context{context, p.row + 1, p.column + 1});
  }
  size_t depth = contexts_.size();
  inRegion(block, [&] { lowerBlock(field(s, "body")); });
  // set_gpu_interpret_mode inside the block stays (it is global); only the
  // with's own context ends here.
  if (!context.empty() && contexts_.size() >= depth)
    contexts_.erase(contexts_.begin() + (depth - 1));
}

void Lowerer::bindTarget(TSNode target, mlir::Value v, TSNode valueNode) {
  // Nested targets (`((a,),) = x`) recurse once per level.
  if (nesting_ >= kMaxNesting) {
    tooDeep(target);
    return;
  }
  ++nesting_;
  bindTargetImpl(target, v, valueNode);
  --nesting_;
}

void Lowerer::bindTargetImpl(TSNode target, mlir::Value v, TSNode valueNode) {
  std::string_view t = syntax::type(target);
  if (t == "identifier") {
    setVar(text(target), v);
    if (!isNull(valueNode)) {
      TSNode vn = valueNode;
      while (is(vn, "parenthesized_expression"))
        vn = ts_node_named_child(vn, 0);
      std::string_view vt = syntax::type(vn);
      if (vt == "true" || vt == "false" || vt == "none" || vt == "integer" || vt == "call" ||
          vt == "dictionary" || vt == "string")
        info_[v].constant = vn;
    }
    return;
  }
  if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" ||
      t == "expression_list" || t == "list") {
    TSNode vn = valueNode;
    while (is(vn, "parenthesized_expression"))
      vn = ts_node_named_child(vn, 0);
    uint32_t n = ts_node_named_child_count(target);
    for (uint32_t i = 0; i < n; ++i) {
      TSNode el = ts_node_named_child(target, i);
      Args a;
      a.values.push_back(v);
      a.keywords.push_back("");
      mlir::Value part = opaque(el, "unpack", {v});
      // Unpacking a tuple of refs / a run_state pytree keeps the origin.
      Prov p = prov(v);
      if (p.origin != pd::origin::kArg)
        info_[part].prov = p;
      if (is(el, "list_splat_pattern"))
        el = ts_node_named_child(el, 0);
      bindTarget(el, part, TSNode{});
    }
    return;
  }
  if (t == "subscript") {
    // x_ref[idx] = v  ->  ref.__setitem__(x_ref, idx..., v)
    TSNode base = field(target, "value");
    Args a;
    std::string api;
    if (is(base, "attribute") && text(field(base, "attribute")) == "at" && !resolveBinding(base)) {
      Args inner;
      inner.values.push_back(lowerExpr(field(base, "object")));
      inner.keywords.push_back("");
      a.values.push_back(prim(base, "ref.at", inner));
    } else {
      a.values.push_back(lowerExpr(base));
    }
    a.keywords.push_back("");
    for (TSNode index : subscriptIndices(target)) {
      a.values.push_back(lowerExpr(index));
      a.keywords.push_back("");
    }
    a.values.push_back(v);
    a.keywords.push_back("");
    api = pd::origin::mayBeRef(prov(a.values[0]).origin) ? "ref.__setitem__" : "value.__setitem__";
    prim(target, api, a);
    return;
  }
  if (t == "attribute") {
    forgetFacts(text(target));
    mlir::Value obj = lowerExpr(field(target, "object"));
    opaque(target, "setattr", {obj, v});
    return;
  }
  opaque(target, t, {v});
}

void Lowerer::lowerAssignment(TSNode a) {
  // `a = b = c = 1` nests to the right; lowered innermost first (as the
  // recursion did), but iteratively: 60,000 chained targets overflowed it.
  std::vector<TSNode> chain{a};
  while (is(field(chain.back(), "right"), "assignment"))
    chain.push_back(field(chain.back(), "right"));
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    lowerOneAssignment(*it);
}

void Lowerer::lowerOneAssignment(TSNode a) {
  TSNode left = field(a, "left");
  TSNode right = field(a, "right");
  if (is(right, "assignment"))
    right = field(right, "left"); // lowered just before
  if (isNull(right))
    return; // annotation only: `x: int`
  TSNode r = right;
  while (is(r, "parenthesized_expression"))
    r = ts_node_named_child(r, 0);
  // a, b = x, y  ->  element-wise, so each keeps its own origin.
  if ((is(left, "pattern_list") || is(left, "tuple_pattern")) &&
      (is(r, "expression_list") || is(r, "tuple")) &&
      ts_node_named_child_count(left) == ts_node_named_child_count(r)) {
    std::vector<mlir::Value> values;
    for (uint32_t i = 0, n = ts_node_named_child_count(r); i < n; ++i)
      values.push_back(lowerExpr(ts_node_named_child(r, i)));
    for (uint32_t i = 0, n = ts_node_named_child_count(left); i < n; ++i)
      bindTarget(ts_node_named_child(left, i), values[i], ts_node_named_child(r, i));
    return;
  }
  mlir::Value v = lowerExpr(right);
  bindTarget(left, v, right);
}

void Lowerer::lowerStatement(TSNode s) {
  std::string_view t = syntax::type(s);
  if (nesting_ >= kMaxNesting) {
    tooDeep(s);
    return;
  }
  ++nesting_;
  if (t == "expression_statement") {
    for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
      TSNode e = ts_node_named_child(s, i);
      if (is(e, "assignment"))
        lowerAssignment(e);
      else if (is(e, "augmented_assignment")) {
        TSNode left = field(e, "left");
        mlir::Value cur = lowerExpr(left);
        mlir::Value rhs = lowerExpr(field(e, "right"));
        mlir::Value v = opaque(e, "augmented_assignment", {cur, rhs});
        bindTarget(left, v, TSNode{});
      } else
        lowerExpr(e);
    }
  } else if (t == "return_statement") {
    TSNode v = ts_node_named_child_count(s) ? ts_node_named_child(s, 0) : TSNode{};
    mlir::Value val = isNull(v) ? mlir::Value() : lowerExpr(v);
    pd::ReturnOp::create(b_, loc(s), val);
  } else if (t == "if_statement") {
    // Alternatives start after the consequence block.
    uint32_t altIndex = 0;
    for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
      TSNode ch = ts_node_named_child(s, i);
      if (is(ch, "elif_clause") || is(ch, "else_clause")) {
        altIndex = i;
        break;
      }
      altIndex = c;
    }
    lowerIf(s, field(s, "condition"), field(s, "consequence"), altIndex);
    // A branch that never completes: after the statement, its condition has
    // the other truth value (`if self.INTERPRET: self.skipTest(...)`).
    if (!facts_.empty()) {
      TSNode cond = field(s, "condition");
      bool thenDead = neverCompletesBlock(field(s, "consequence"));
      TSNode elseBody{};
      bool elif = false;
      for (TSNode alt : syntax::namedChildren(s)) {
        elif |= is(alt, "elif_clause");
        if (is(alt, "else_clause"))
          elseBody = field(alt, "body");
      }
      bool elseDead = !isNull(elseBody) && neverCompletesBlock(elseBody);
      if (!elif && thenDead && !elseDead)
        learnCondition(cond, false, facts_.back());
      else if (!elif && elseDead && !thenDead)
        learnCondition(cond, true, facts_.back());
    }
  } else if (t == "for_statement" || t == "while_statement") {
    Args ops;
    TSNode head = t == "for_statement" ? field(s, "right") : field(s, "condition");
    ops.values.push_back(lowerExpr(head));
    ops.keywords.push_back("");
    mlir::ArrayAttr origins;
    mlir::DenseI64ArrayAttr indices;
    operandInfo(ops.values, origins, indices);
    auto op = pd::ScopeOp::create(b_, loc(s), valueTy_,
                                  t == "for_statement" ? "python.for" : "python.while", ops.values,
                                  strArray(ops.keywords), origins, indices, strArray({}),
                                  mlir::ArrayAttr(), mlir::StringAttr());
    mlir::Block* block = new mlir::Block();
    op.getBody().push_back(block);
    inRegion(block, [&] {
      if (t == "for_statement") {
        TSNode left = field(s, "left");
        bindTarget(left, opaque(left, "iter", {ops.values[0]}), TSNode{});
      }
      lowerBlock(field(s, "body"));
      TSNode alt = field(s, "alternative");
      if (!isNull(alt))
        lowerBlock(field(alt, "body"));
    });
  } else if (t == "with_statement") {
    lowerWith(s);
  } else if (t == "try_statement") {
    auto op = pd::ScopeOp::create(b_, loc(s), valueTy_, "python.try", mlir::ValueRange{},
                                  strArray({}), strArray({}), b_.getDenseI64ArrayAttr({}),
                                  strArray({}), mlir::ArrayAttr(), mlir::StringAttr());
    mlir::Block* block = new mlir::Block();
    op.getBody().push_back(block);
    inRegion(block, [&] {
      lowerBlock(field(s, "body"));
      for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
        TSNode clause = ts_node_named_child(s, i);
        std::string_view ct = syntax::type(clause);
        if (ct == "except_clause" || ct == "except_group_clause") {
          for (uint32_t j = 0, cc = ts_node_named_child_count(clause); j < cc; ++j) {
            TSNode ch = ts_node_named_child(clause, j);
            if (is(ch, "block"))
              lowerBlock(ch);
          }
        } else if (ct == "else_clause" || ct == "finally_clause") {
          TSNode body = field(clause, "body");
          if (isNull(body))
            for (uint32_t j = 0, cc = ts_node_named_child_count(clause); j < cc; ++j)
              if (is(ts_node_named_child(clause, j), "block"))
                body = ts_node_named_child(clause, j);
          lowerBlock(body);
        }
      }
    });
  } else if (t == "function_definition") {
    setVar(text(field(s, "name")), closure(s));
  } else if (t == "decorated_definition") {
    TSNode def = field(s, "definition");
    if (is(def, "function_definition"))
      setVar(text(field(def, "name")), decorate(s, def));
    else if (!isNull(def))
      setVar(text(field(def, "name")), opaque(def, "class", {}));
  } else if (t == "class_definition") {
    setVar(text(field(s, "name")), opaque(s, "class", {}));
  } else if (t == "import_statement" || t == "import_from_statement") {
    // A local import binds names like a module-level one would.
    names::Globals local;
    (void)local;
    TSNode moduleNode = field(s, "module_name");
    for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
      TSNode ch = ts_node_named_child(s, i);
      if (ts_node_eq(ch, moduleNode) || !(is(ch, "dotted_name") || is(ch, "aliased_import")))
        continue;
      std::string module = t == "import_from_statement" ? text(field(s, "module_name")) : "";
      std::string name, alias;
      if (is(ch, "aliased_import")) {
        name = text(field(ch, "name"));
        alias = text(field(ch, "alias"));
      } else {
        name = text(ch);
        alias = t == "import_statement" ? name.substr(0, name.find('.')) : name;
        if (t == "import_statement")
          name = alias;
      }
      Binding b;
      b.kind = Binding::Kind::Symbol;
      b.target = module.empty() ? name : module + "." + name;
      mlir::Value v =
          global(ch, alias, names::isJaxName(b.target) ? names::canonicalApi(b.target) : b.target);
      info_[v].binding = b;
      setVar(alias, v);
    }
  } else if (t == "pass_statement" || t == "break_statement" || t == "continue_statement" ||
             t == "comment" || t == "global_statement" || t == "nonlocal_statement") {
    // nothing to model
  } else if (t == "ERROR") {
    // Syntax error: keep what is inside visible, statements and expressions.
    llvm::SmallVector<mlir::Value> operands;
    for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
      TSNode ch = ts_node_named_child(s, i);
      std::string_view ct = syntax::type(ch);
      if (ct.ends_with("_statement") || ct == "function_definition" ||
          ct == "decorated_definition" || ct == "ERROR" || ct == "block")
        ct == "block" ? lowerBlock(ch) : lowerStatement(ch);
      else if (ct != "comment")
        operands.push_back(lowerExpr(ch));
    }
    opaque(s, "ERROR", operands);
  } else if (t == "block") {
    lowerBlock(s);
  } else {
    // raise, assert, delete, match, print, exec...: their expressions.
    llvm::SmallVector<mlir::Value> operands;
    for (uint32_t i = 0, c = ts_node_named_child_count(s); i < c; ++i) {
      TSNode ch = ts_node_named_child(s, i);
      std::string_view ct = syntax::type(ch);
      if (ct == "block")
        lowerBlock(ch);
      else if (ct.ends_with("_statement") || ct == "case_clause" || ct == "ERROR")
        lowerStatement(ch);
      else if (ct != "comment")
        operands.push_back(lowerExpr(ch));
    }
    opaque(s, t, operands);
  }
  --nesting_;
}

// ---- units ------------------------------------------------------------------

mlir::Operation* Lowerer::lower(const Unit& unit, const std::string& symbol) {
  TSNode def = unit.def;
  std::vector<std::string> params = isNull(def) ? std::vector<std::string>{} : paramNames(def);
  if (!isNull(def) && is(unit.node, "decorated_definition") && innermostIsInlineMgpu(unit.node) &&
      !params.empty())
    params.erase(params.begin()); // the wrapper is called without the context
  auto func = pd::FuncOp::create(b_, loc(unit.node), symbol, unit.kind, strArray(params));
  mlir::Block* decorators = new mlir::Block();
  func.getDecorators().push_back(decorators);
  mlir::Block* body = new mlir::Block();
  func.getBody().push_back(body);
  for (size_t i = 0; i < params.size(); ++i)
    body->addArgument(valueTy_, loc(def));

  std::optional<Factory> inlineMgpu;
  // Decorators run in module scope, innermost first, applied to @symbol.
  if (is(unit.node, "decorated_definition") && !isNull(def)) {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(decorators);
    scopes_.emplace_back();
    std::vector<TSNode> decs;
    for (uint32_t i = 0, c = ts_node_named_child_count(unit.node); i < c; ++i) {
      TSNode d = ts_node_named_child(unit.node, i);
      if (is(d, "decorator"))
        decs.push_back(ts_node_named_child(d, 0));
    }
    mlir::Value current;
    bool first = true;
    for (auto it = decs.rbegin(); it != decs.rend(); ++it, first = false) {
      mlir::Value dec = lowerExpr(*it);
      ValInfo* vi = infoOf(dec);
      if (vi && vi->factory) {
        Factory f = *vi->factory;
        if (first && f.api == "plgpu.inline_mgpu") {
          inlineMgpu = f;
          continue;
        }
        CallableRef c;
        c.text = unit.kind == "method" ? unit.name : symbol;
        if (current)
          c.value = current;
        else if (unit.kind == "method")
          c.value = global(def, unit.name, "local:" + symbol);
        else
          c.symbol = symbol;
        current = applyFactory(*it, f, c);
        continue;
      }
      if (!current)
        current = global(def, text(field(def, "name")), "local:" + symbol);
      Args a;
      a.values.push_back(current);
      a.keywords.push_back("");
      current = callValue(*it, dec, a);
    }
    scopes_.pop_back();
  }

  mlir::OpBuilder::InsertionGuard guard(b_);
  if (!isNull(def)) {
    if (inlineMgpu) {
      b_.setInsertionPointToEnd(body);
      scopes_.emplace_back();
      emitInlineMgpu(def, def, &*inlineMgpu, body);
      scopes_.pop_back();
    } else {
      b_.setInsertionPointToEnd(body);
      bindParams(def, body, {});
      lowerBlock(field(def, "body"));
      scopes_.pop_back();
    }
  } else {
    b_.setInsertionPointToEnd(body);
    scopes_.emplace_back();
    // A top-level statement: imports are module bindings (Globals); other
    // statements lower like a function body.
    std::string_view t = syntax::type(unit.node);
    if (t != "import_statement" && t != "import_from_statement" && t != "future_import_statement")
      lowerStatement(unit.node);
    scopes_.pop_back();
  }
  return func.getOperation();
}

} // namespace

// ---- public -------------------------------------------------------------------

std::vector<Unit> enumerateUnits(const syntax::Document& doc) {
  std::vector<Unit> units;
  auto add = [&](TSNode node, TSNode def, std::string kind, std::string name) {
    Unit u;
    u.node = node;
    u.def = def;
    u.kind = std::move(kind);
    u.name = std::move(name);
    u.text = doc.textOf(node);
    TSPoint p = ts_node_start_point(node);
    u.startRow = p.row;
    u.startColumn = p.column;
    u.hasError = ts_node_has_error(node) || is(node, "ERROR");
    u.textHash = llvm::xxh3_64bits(llvm::StringRef(u.text.data(), u.text.size()));
    if ((u.kind == "def" || u.kind == "method") && !u.hasError) {
      // Decorators are the text between the statement's start and the def's.
      uint32_t b = ts_node_start_byte(node), e = ts_node_start_byte(def);
      u.headerHash = llvm::hash_combine(u.kind, u.name, doc.text().substr(b, e - b));
    } else {
      u.headerHash = llvm::hash_combine(u.kind, u.textHash);
    }
    units.push_back(std::move(u));
  };
  std::function<void(TSNode, bool)> scan = [&](TSNode parent, bool insideError) {
    for (TSNode s : syntax::namedChildren(parent)) {
      std::string_view t = syntax::type(s);
      if (t == "comment")
        continue;
      TSNode def = s;
      if (t == "decorated_definition")
        def = field(s, "definition");
      if (is(def, "function_definition")) {
        add(s, def, "def", str(doc.textOf(field(def, "name"))));
      } else if (is(def, "class_definition")) {
        std::string cls = str(doc.textOf(field(def, "name")));
        TSNode body = field(def, "body");
        bool anyMethod = false;
        for (TSNode m : syntax::namedChildren(body)) {
          TSNode mdef = is(m, "decorated_definition") ? field(m, "definition") : m;
          if (is(mdef, "function_definition")) {
            add(m, mdef, "method", cls + "." + str(doc.textOf(field(mdef, "name"))));
            anyMethod = true;
          }
        }
        // A class without methods is still a statement that binds a name.
        if (!anyMethod)
          add(s, TSNode{}, "module", "__module__");
      } else if (t == "ERROR" && !insideError && !doc.recoveredChunks(s).empty()) {
        // A syntax error spanning several statements: its chunks, each
        // parsed on its own, give the units.
        for (TSNode chunk : doc.recoveredChunks(s))
          scan(chunk, true);
      } else if (t == "ERROR" && !insideError) {
        // Keep definitions inside a top-level syntax error analysable.
        bool anyDef = false;
        for (uint32_t j = 0, n = ts_node_named_child_count(s); j < n; ++j) {
          std::string_view ct = syntax::type(ts_node_named_child(s, j));
          anyDef |= ct == "function_definition" || ct == "decorated_definition" ||
                    ct == "class_definition";
        }
        if (anyDef)
          scan(s, true);
        else
          add(s, TSNode{}, "module", "__module__");
      } else {
        add(s, TSNode{}, "module", "__module__");
      }
    }
  };
  scan(doc.root(), false);
  return units;
}

std::string lookupFingerprint(const std::string& key, const names::Globals& globals) {
  size_t pos = key.find('.');
  const Binding* first = globals.find(key.substr(0, pos));
  if (!first)
    return "-";
  if (pos == std::string::npos)
    return first->fingerprint();
  std::optional<Binding> b = *first;
  while (b && pos != std::string::npos) {
    size_t next = key.find('.', pos + 1);
    b = globals.attribute(*b,
                          key.substr(pos + 1, next == std::string::npos ? next : next - pos - 1));
    pos = next;
  }
  return b ? b->fingerprint() : std::string("-");
}

mlir::Operation* lowerUnit(const LowerInput& in, const Unit& unit, const std::string& symbol,
                           UnitDeps& deps) {
  Lowerer l(in, deps);
  return l.lower(unit, symbol);
}

} // namespace pallas::analysis::lower
