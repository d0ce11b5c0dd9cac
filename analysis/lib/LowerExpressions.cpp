// Lowering of expressions: the values and operands every construct shares,
// argument lists, names (locals, globals, builtins), attribute chains,
// subscripts and calls (analysis/docs/dialect.md, "Expressions").
#include "Lowerer.h"
#include "NamesInternal.h"

namespace pallas::analysis::lower {

namespace {

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
      "frozenset",  "vars",       "globals"};
  return names;
}

} // namespace

// The index expressions of a subscript: its named children after the value.
std::vector<TSNode> subscriptIndices(TSNode subscript) {
  std::vector<TSNode> out;
  TSNode value = field(subscript, "value");
  for (TSNode ch : syntax::namedChildren(subscript)) {
    if (ts_node_eq(ch, value) || is(ch, "comment"))
      continue;
    out.push_back(ch);
  }
  return out;
}

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
  origins = originArray(o);
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

// The tuple or list literal a `*x` argument unpacks, written in place or
// bound to a local name; null when not known or itself holding a `*`.
TSNode Lowerer::splattedLiteral(TSNode splat) {
  TSNode v = ts_node_named_child(splat, 0);
  while (is(v, "parenthesized_expression"))
    v = ts_node_named_child(v, 0);
  if (is(v, "identifier")) {
    const Var* var = findLocal(text(v));
    const ValInfo* vi = var && !readsLate(text(v)) ? infoOf(var->value) : nullptr;
    v = vi ? vi->tupleLiteral : TSNode{};
  }
  if (!is(v, "tuple") && !is(v, "list"))
    return TSNode{};
  for (TSNode el : syntax::namedChildren(v))
    if (is(el, "list_splat") || is(el, "parenthesized_list_splat"))
      return TSNode{};
  return v;
}

CallArguments Lowerer::callArguments(TSNode argList) {
  return CallArguments{
      argList, doc_, [this](TSNode splat) { return splattedLiteral(splat); },
      [this](TSNode splat, std::string_view key) { return splattedKey(splat, key); }};
}

// What `**spec` holds under `key` (`pl.pallas_call(**spec)` with spec a dict
// literal, `dict(kernel=k, ...)`, or what a module function returns): the
// value when the mapping is a literal whose last entry for the key is not
// followed by a `**` part. A value from a function's return is taken only
// when it names a module-level def the function does not rebind (its other
// names are the function's, not this scope's).
TSNode Lowerer::splattedKey(TSNode splat, std::string_view key) {
  TSNode v = ts_node_named_child(splat, 0);
  bool returned = false;
  for (int hops = 0; hops < 4 && !isNull(v); ++hops) {
    while (is(v, "parenthesized_expression"))
      v = ts_node_named_child(v, 0);
    if (is(v, "identifier")) {
      const Var* var = findLocal(text(v));
      const ValInfo* vi = var && !readsLate(text(v)) ? infoOf(var->value) : nullptr;
      if (!vi)
        return TSNode{};
      v = !isNull(vi->expression) ? vi->expression : vi->constant;
      continue;
    }
    if (is(v, "call") &&
        !(is(field(v, "function"), "identifier") && text(field(v, "function")) == "dict")) {
      // Its value may read the function's names: only a module def is kept.
      std::optional<TSNode> r = names::returnedValue(v, doc_, /*readsLocals=*/true);
      v = r ? *r : TSNode{};
      returned = true;
      continue;
    }
    break;
  }
  TSNode found{};
  if (is(v, "dictionary")) {
    for (TSNode pair : syntax::namedChildren(v)) {
      if (is(pair, "dictionary_splat")) {
        found = TSNode{}; // may replace the key
        continue;
      }
      if (!is(pair, "pair"))
        continue;
      TSNode k = field(pair, "key");
      std::string kt = text(k);
      if (is(k, "string") && kt.size() >= 2 && kt.substr(1, kt.size() - 2) == key)
        found = field(pair, "value");
    }
  } else if (is(v, "call")) {
    for (TSNode a : syntax::namedChildren(field(v, "arguments"))) {
      if (is(a, "dictionary_splat") || is(a, "list_splat"))
        found = TSNode{};
      else if (is(a, "keyword_argument") && doc_.textOf(field(a, "name")) == key)
        found = field(a, "value");
    }
  }
  if (isNull(found) || !returned)
    return found;
  // From another function's body: a module-level def it does not shadow.
  if (!is(found, "identifier"))
    return TSNode{};
  TSNode def = names::enclosingScope(found);
  if (!isNull(def) && names::boundInDef(def, text(found), doc_))
    return TSNode{};
  std::optional<Binding> b = findGlobal(text(found));
  return b && b->kind == Binding::Kind::Function ? found : TSNode{};
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
  for (TSNode c : syntax::namedChildren(argList)) {
    std::string_view t = syntax::type(c);
    if (t == "comment")
      continue;
    if (t == "keyword_argument") {
      a.keywords.push_back(text(field(c, "name")));
      TSNode v = field(c, "value");
      a.values.push_back(lowerExpr(v));
      a.nodes.push_back(v);
    } else if (TSNode literal = t == "list_splat" ? splattedLiteral(c) : TSNode{};
               !isNull(literal)) {
      // `f(*args)` with args a tuple literal: its elements are the
      // positional arguments, in order.
      for (TSNode el : syntax::namedChildren(literal)) {
        if (is(el, "comment") || positional++ < skipPositional)
          continue;
        a.keywords.push_back("");
        a.values.push_back(lowerExpr(el));
        a.nodes.push_back(el);
      }
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
    if (readsLate(first))
      return std::nullopt; // rebound after this closure's def: unknown here
    // `self.launch` where the class keeps a partial of a launch API.
    if (v->value == selfValue_ && selfValue_ && !className_.empty() && pos != std::string::npos &&
        dotted.find('.', pos + 1) == std::string::npos)
      return classAttributePartial(className_, dotted.substr(pos + 1));
    ValInfo* vi = infoOf(v->value);
    if (!vi || !vi->binding)
      return std::nullopt; // a local value shadows the global
    b = vi->binding;
  } else {
    b = findGlobal(first);
    // `Cls.launch`, a class of this document keeping a partial of a launch API.
    if (b && b->kind == Binding::Kind::Class && b->file.empty() && pos != std::string::npos &&
        dotted.find('.', pos + 1) == std::string::npos)
      if (auto partial = classAttributePartial(first, dotted.substr(pos + 1)))
        return partial;
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
    return pd::ConstantOp::create(b_, b_.getUnknownLoc(), valueTy_, "", pd::ConstantKind::None)
        .getResult();
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
    return constant(n, t == "integer" ? pd::ConstantKind::Int : pd::ConstantKind::Float);
  if (t == "string" || t == "concatenated_string")
    return constant(n, pd::ConstantKind::Str);
  if (t == "true" || t == "false")
    return constant(n, pd::ConstantKind::Bool);
  if (t == "none")
    return constant(n, pd::ConstantKind::None);
  // A negative integer literal (`helpers[-1]`) is a constant too.
  if (t == "unary_operator" && doc_.textOf(field(n, "operator")) == "-" &&
      is(field(n, "argument"), "integer"))
    return constant(n, pd::ConstantKind::Int);
  if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    return lowerExpr(ts_node_named_child(n, 0));
  if (t == "lambda")
    return lowerLambda(n);
  if (t == "named_expression")
    return lowerNamedExpression(n);
  if (t == "not_operator") {
    mlir::Value v = lowerExpr(field(n, "argument"));
    return opaque(n, t, {v});
  }
  // Everything else: its sub-expressions first, then an opaque op.
  llvm::SmallVector<mlir::Value> operands;
  for (TSNode ch : syntax::namedChildren(n)) {
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
      for (TSNode part : syntax::namedChildren(ch))
        operands.push_back(lowerExpr(part));
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

// A module-level name of this file bound to an expression over constants
// (`BODY = "fenced" if WITH_FENCE else "plain"`, `DEBUG = LEVEL >= 2`):
// "const:<literal>" of the value it holds once the module has run (8.50),
// so that a constant key or condition read through it is one; "?" when the
// text does not fix it.
std::string Lowerer::foldedModuleConstant(const std::string& name, const Binding& b) {
  if (!b.file.empty())
    return "?";
  auto mv = names::moduleValue(doc_, name);
  if (!mv || mv->state != names::ModuleValue::State::Known || isNull(mv->value))
    return "?";
  bool fromModule = true;
  std::optional<names::PyConstant> c = names::constantOf(mv->value, doc_, nullptr, &fromModule);
  std::optional<std::string> spelled = c ? names::constantSourceText(*c) : std::nullopt;
  return spelled ? "const:" + *spelled : "?";
}

mlir::Value Lowerer::lowerIdentifier(TSNode n) {
  std::string name = text(n);
  if (const Var* v = findLocal(name)) {
    if (readsLate(name))
      return opaque(n, "late_bound", {});
    mlir::Value value = v->value;
    if (!ts_node_eq(n, directCallee_))
      applyNonlocal(value, false); // a closure read as a value may run later
    return value;
  }
  if (std::optional<mlir::Value> late = lateEnclosingRead(n, name))
    return *late;
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
      resolved = foldedModuleConstant(name, *b);
      break;
    }
  } else if (builtinNames().contains(name)) {
    resolved = "builtins." + name;
  }
  mlir::Value v = global(n, name, resolved);
  if (b)
    info_[v].binding = *b;
  if (b && b->kind == Binding::Kind::Partial)
    info_[v].factory = Factory{b->target, TSNode{}, true, b, false, std::nullopt};
  return v;
}

mlir::Value Lowerer::lowerAttribute(TSNode n) {
  // `Mode.DEBUG`, a member of a module-level Enum of this file (8.53): a
  // constant, like a module-level name folded to one.
  if (is(field(n, "object"), "identifier") && !findLocal(text(field(n, "object"))))
    if (auto c = names::constantOf(n, doc_, nullptr, nullptr);
        c && c->kind == names::PyConstant::Kind::Enum)
      return global(n, names::dottedName(n, doc_), "const:" + c->s);
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
    api = apiName(Api::RefAt);
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
  // `LAUNCHERS[jax.default_backend()]`: a launch API or a partial of it
  // picked from a module table (8.93), called like the partial it is.
  if (api == "value.__getitem__" && is(base, "identifier") && !findLocal(text(base)))
    if (auto b = names::launchTableEntry(n, doc_, globals_, literalLocals())) {
      findGlobal(text(base)); // the table's entries decide: an edit of it re-lowers this unit
      info_[v].binding = *b;
      info_[v].factory = Factory{b->target, TSNode{}, true, b, false, std::nullopt};
    }
  // Elements of a run_state pytree of refs are refs too.
  if (api == apiName(Api::RefAt) || prov(a.values[0]).origin == pd::origin::kRunState)
    info_[v].prov = prov(a.values[0]);
  return v;
}

mlir::Value Lowerer::lowerLambda(TSNode n) {
  return closure(n);
}

mlir::Value Lowerer::callValue(TSNode n, mlir::Value callee, const Args& args) {
  // A partial of the launch API that binds its kernel launches when called
  // with no arguments (`jax.jit(call)()`, 8.35).
  if (ValInfo* vi = infoOf(callee);
      vi && vi->factory &&
      (!args.nodes.empty() ||
       (isLaunchApi(vi->factory->api) && vi->factory->viaPartial &&
        (!isNull(partialBoundKernel(vi->factory->call, vi->factory->api)) ||
         (vi->factory->partial && !vi->factory->partial->partialKernel.empty()))))) {
    Factory f = *vi->factory;
    return applyFactory(n, f, callableOf(args.nodes.empty() ? TSNode{} : args.nodes[0]));
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
  // `self.kernel(...)` of a launch wrapper method: the launch it forwards to.
  if (auto w = launchWrapperOf(callee)) {
    CallArguments args = callArguments(argList);
    return lowerLaunchCall(n, w->api, args, &*w);
  }
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
  directCallee_ = callee;
  mlir::Value fn = lowerExpr(callee);
  directCallee_ = TSNode{};
  if (ValInfo* vi = infoOf(fn); vi && vi->factory) {
    Factory f = *vi->factory;
    TSNode first = isNull(argList) ? TSNode{} : ts_node_named_child(argList, 0);
    if (f.api == apiName(Api::InlineMgpu) && is(first, "lambda")) {
      CallableRef c;
      c.def = first;
      return applyFactory(n, f, c);
    }
    return applyFactory(n, f, callableOf(first));
  }
  Args a = lowerArgs(argList);
  mlir::Value result = callValue(n, fn, a);
  applyNonlocal(fn, true); // the call runs after its arguments
  return result;
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
        if (nesting_ >= kMaxNesting) { // partial(partial(...)) nests as deep as the file
          c.value = tooDeep(expr);
          return c;
        }
        ++nesting_;
        CallableRef inner = callableOf(ts_node_named_child(args, 0));
        --nesting_;
        inner.text = c.text;
        // A closure (`functools.partial(body, x_ref)` of a nested def) is
        // called through the partial just the same.
        if ((!inner.symbol.empty() || inner.value) && ts_node_named_child_count(args) > 1) {
          // A module function with bound arguments: the symbol names the
          // function, and the partial's value carries what it binds (a
          // kernel's `interpret=True` flag its walk reads).
          inner.value = lowerExpr(expr);
        } else {
          lowerArgs(args, 1); // the bound arguments are evaluated here
        }
        return inner;
      }
    }
  }
  if (is(expr, "lambda")) {
    c.value = closure(expr);
    return c;
  }
  if (is(expr, "identifier")) {
    if (const Var* v = findLocal(text(expr))) {
      // A local an `if` whose branch is known bound to a module function
      // (`if SAFE: kernel = plain else: kernel = fenced`): the join after
      // the if carries the function's binding.
      auto join = v->value.getDefiningOp<pd::OpaqueOp>();
      const ValInfo* vi = infoOf(v->value);
      if (join && join.getWhat() == "join" && !readsLate(text(expr)) && vi &&
          vi->alternatives.empty() && vi->binding && vi->binding->kind == Binding::Kind::Function &&
          !vi->binding->launched) {
        c.symbol = vi->binding->target;
        c.file = vi->binding->file == in_.path ? "" : vi->binding->file;
        return c;
      }
    } else if (auto b = findGlobal(text(expr));
               b && b->kind == Binding::Kind::Function && !b->launched) {
      c.symbol = b->target;
      c.file = b->file == in_.path ? "" : b->file;
      return c;
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

// `(name := value)` (8.75): the value, bound to name in the function's
// scope as an assignment would bind it, when the walrus runs whenever its
// statement does. Under a branch of `and` / `or` / a conditional, in a
// comprehension or a lambda it may not run (or runs per item): the name
// then holds a value not known (an earlier binding may stand).
mlir::Value Lowerer::lowerNamedExpression(TSNode n) {
  TSNode value = field(n, "value");
  mlir::Value v = lowerExpr(value);
  bool always = true;
  for (TSNode child = n, p = ts_node_parent(n); !isNull(p) && always;
       child = p, p = ts_node_parent(p)) {
    std::string_view pt = syntax::type(p);
    // An `elif` condition runs only when the conditions before are false.
    if (pt == "elif_clause" || pt == "lambda" || pt == "list_comprehension" ||
        pt == "set_comprehension" || pt == "dictionary_comprehension" ||
        pt == "generator_expression")
      always = false;
    else if (pt == "boolean_operator")
      always = ts_node_eq(child, field(p, "left"));
    else if (pt == "conditional_expression")
      always = ts_node_eq(child, ts_node_named_child(p, 1)); // the condition
    if (pt.ends_with("statement") || pt == "function_definition" || pt == "block")
      break;
  }
  mlir::Value bound = always ? v : opaque(n, "named_expression", {v});
  bindTarget(field(n, "name"), bound, always ? value : TSNode{});
  return v;
}

} // namespace pallas::analysis::lower
