// Call-site values of a launch's `interpret=` parameter (see CallContexts.h).
//
// The abstract value of an `interpret` argument is an element of the flat
// lattice  {compiled | interpret_hlo | interpret_gpu(params)} + unknown:
// a literal or module constant is one of the first three, an
// InterpretGPUParams(...) call is interpret_gpu with its options, a
// parameter of the caller is the join over *its* callers (call strings up to
// kMaxDepth deep), anything else is unknown ("may": warnings, never
// "absent"). Contexts are kept apart, not joined, so each caller gets its
// own verdict.
#include "CallContexts.h"

#include "Names.h"
#include "Syntax.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

constexpr unsigned kMaxDepth = 3;

std::string strAt(mlir::ArrayAttr a, unsigned i) {
  if (!a || i >= a.size())
    return {};
  return pd::enumName(a[i]).str();
}

std::string stripStars(llvm::StringRef name) {
  return name.ltrim('*').str();
}

mlir::Operation* opOf(pd::FuncOp f) {
  return f.getOperation();
}

std::string nameOf(pd::FuncOp f) {
  return f ? f.getSymName().str() : "?";
}

} // namespace

std::optional<ExecPath> execPathNamed(llvm::StringRef p) {
  if (p == pd::path::kCompiled)
    return ExecPath::Compiled;
  if (p == pd::path::kInterpretHlo)
    return ExecPath::InterpretHlo;
  if (p == pd::path::kInterpretGpu)
    return ExecPath::InterpretGpu;
  return std::nullopt;
}

std::optional<ExecPath> pathOfLiteral(llvm::StringRef text) {
  text = text.trim();
  if (text == "True")
    return ExecPath::InterpretHlo;
  if (text == "False" || text == "None" || text == "0")
    return ExecPath::Compiled;
  long n = 0;
  if (!text.getAsInteger(10, n))
    return n ? ExecPath::InterpretHlo : ExecPath::Compiled;
  return std::nullopt;
}

namespace {

LaunchFacts factsOfParams(pd::PrimOp params) {
  LaunchFacts f;
  for (unsigned i = 0; i < params.getArgs().size(); ++i) {
    std::string kw = strAt(params.getKeywords(), i);
    auto c = params.getArgs()[i].getDefiningOp<pd::ConstantOp>();
    llvm::StringRef v = c ? c.getValue() : "";
    long n = 0;
    if (kw == "skip_floating_point_ops")
      f.skipFloatingPointOps = v == "True";
    if (kw == "inline_mgpu")
      f.inlineMgpuOptionGiven = true;
    if (kw == "num_cores_or_threads" && !v.getAsInteger(10, n) && n > 1)
      f.multiThreaded = true;
  }
  return f;
}

struct Default {
  bool known = false;          // the parameter's default is known
  std::vector<ExecPath> paths; // empty: unknown
  LaunchFacts facts;
};

// What a function does to its `**kwargs` mapping before a launch that
// forwards it (8.42): `kwargs.setdefault("interpret", v)` gives v to the
// callers that leave the keyword out, `kwargs["interpret"] = v` gives v to
// every caller; any other change (`update`, `pop`, `del kwargs[k]`, one of
// the two under an `if` or in a loop) leaves the keyword unknown.
struct KwargsEdits {
  bool unknown = false;
  mlir::Value assigned;  // kwargs["interpret"] = v
  mlir::Value defaulted; // kwargs.setdefault("interpret", v)
};

bool isInterpretKey(mlir::Value key) {
  auto c = key.getDefiningOp<pd::ConstantOp>();
  if (!c || c.getKind() != pd::ConstantKind::Str)
    return false;
  llvm::StringRef v = c.getValue();
  return v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front() &&
         v.drop_front().drop_back() == "interpret";
}

KwargsEdits kwargsEdits(mlir::Value kwargs, mlir::Operation* launch) {
  static const llvm::StringSet<> mutators = {"update", "setdefault", "pop",         "popitem",
                                             "clear",  "__ior__",    "__delitem__", "__setitem__"};
  KwargsEdits out;
  for (mlir::Operation* user : kwargs.getUsers()) {
    auto p = llvm::dyn_cast<pd::PrimOp>(user);
    llvm::StringRef method = p ? p.getApi() : "";
    if (!method.consume_front("ref.") && !method.consume_front("value."))
      continue;
    // `del kwargs[k]`: the item read is deleted.
    bool deleted =
        method == "__getitem__" && llvm::any_of(user->getUsers(), [](mlir::Operation* u) {
          auto o = llvm::dyn_cast<pd::OpaqueOp>(u);
          return o && o.getWhat() == "delete_statement";
        });
    if (!deleted && (!mutators.contains(method) || p.getArgs().empty() || p.getArgs()[0] != kwargs))
      continue;
    // A literal key other than "interpret" (`kwargs.pop("block", 128)`)
    // leaves interpret alone.
    bool oneKey = deleted || method == "setdefault" || method == "__setitem__" || method == "pop" ||
                  method == "__delitem__";
    if (oneKey && p.getArgs().size() >= 2 && strAt(p.getKeywords(), 1).empty() &&
        p.getArgs()[1].getDefiningOp<pd::ConstantOp>() && !isInterpretKey(p.getArgs()[1]))
      continue;
    // A change after the launch (in the launch's own block) is not seen by it.
    mlir::Operation* mine = launch->getBlock()->findAncestorOpInBlock(*user);
    if (mine && launch->isBeforeInBlock(mine))
      continue;
    bool straight = mine == user; // in the launch's block, before it
    bool keyed = !deleted && (method == "setdefault" || method == "__setitem__") &&
                 p.getArgs().size() == 3 && strAt(p.getKeywords(), 2).empty() &&
                 isInterpretKey(p.getArgs()[1]);
    if (!straight || !keyed) {
      out.unknown = true;
      continue;
    }
    // The last such statement before the launch decides.
    mlir::Value v = p.getArgs()[2];
    if (method == "__setitem__") {
      out.assigned = v;
      out.defaulted = {};
    } else if (!out.assigned && !out.defaulted) {
      out.defaulted = v;
    }
  }
  return out;
}

// What a decorator of this module applied to `func` does to `keyword`
// before it calls `func` (8.83): `def debuggable(f): @functools.wraps(f)
// def wrapper(*args, **kwargs): kwargs["interpret"] = True; return f(*args,
// **kwargs); return wrapper`. Every call of the decorated name is a call of
// the wrapper, so its edits of **kwargs (and a keyword it passes itself)
// come before what each caller passes. nullopt when func has no such
// decorator or the wrapper is not that simple shape.
std::optional<KwargsEdits> decoratorEdits(pd::FuncOp func, llvm::StringRef keyword) {
  if (func.getDecorators().empty())
    return std::nullopt;
  auto module = func->getParentOfType<mlir::ModuleOp>();
  pd::FuncOp decorator;
  unsigned decorators = 0;
  for (mlir::Operation& op : func.getDecorators().front()) {
    auto apply = llvm::dyn_cast<pd::CallIndirectOp>(op);
    auto g = apply ? apply.getCallee().getDefiningOp<pd::GlobalOp>() : pd::GlobalOp();
    if (!apply || apply->getParentOp() != func.getOperation())
      continue;
    ++decorators;
    llvm::StringRef resolved = g ? g.getResolved() : "";
    if (module && resolved.consume_front("local:"))
      decorator = module.lookupSymbol<pd::FuncOp>(resolved);
  }
  if (decorators != 1 || !decorator || decorator.getBody().empty() ||
      decorator.getBody().front().getNumArguments() == 0)
    return std::nullopt;
  mlir::Value wrapped = decorator.getBody().front().getArgument(0);
  auto ret = llvm::dyn_cast<pd::ReturnOp>(decorator.getBody().front().getTerminator());
  mlir::Value returned = ret && ret->getNumOperands() == 1 ? ret->getOperand(0) : mlir::Value();
  // `functools.wraps(f)(wrapper)` returns the wrapper.
  if (auto call = returned ? returned.getDefiningOp<pd::CallIndirectOp>() : pd::CallIndirectOp())
    if (auto wraps = call.getCallee().getDefiningOp<pd::PrimOp>();
        wraps && wraps.getApi() == "functools.wraps" && call.getArgs().size() == 1)
      returned = call.getArgs()[0];
  auto wrapper = returned ? returned.getDefiningOp<pd::ClosureOp>() : pd::ClosureOp();
  if (!wrapper || wrapper.getBody().empty())
    return std::nullopt;
  mlir::Block& body = wrapper.getBody().front();
  mlir::Value kwargs;
  for (unsigned i = 0; i < wrapper.getArgNames().size() && i < body.getNumArguments(); ++i)
    if (strAt(wrapper.getArgNames(), i).starts_with("**"))
      kwargs = body.getArgument(i);
  // The one call of the wrapped function, forwarding **kwargs.
  pd::CallIndirectOp forward;
  unsigned calls = 0;
  wrapper.walk([&](pd::CallIndirectOp c) {
    if (c.getCallee() == wrapped) {
      forward = c;
      ++calls;
    }
  });
  if (calls != 1 || forward->getBlock() != &body)
    return std::nullopt;
  KwargsEdits out;
  bool forwardsKwargs = false;
  for (unsigned i = 0; i < forward.getArgs().size(); ++i) {
    std::string k = strAt(forward.getKeywords(), i);
    if (k == keyword)
      out.assigned = forward.getArgs()[i]; // `f(*args, interpret=True, **kwargs)`
    forwardsKwargs |= k == "**" && forward.getArgs()[i] == kwargs;
    // `f(*args, **{**kwargs, "interpret": True})`: a key after the splat of
    // kwargs replaces the caller's, one before it is only a default.
    auto merged = forward.getArgs()[i].getDefiningOp<pd::OpaqueOp>();
    if (k != "**" || !merged || merged.getWhat() != "dictionary" || keyword != "interpret")
      continue;
    bool afterKwargs = false;
    auto entries = merged.getArgs();
    for (unsigned e = 0; e < entries.size();) {
      auto splat = entries[e].getDefiningOp<pd::OpaqueOp>();
      if (splat && splat.getWhat() == "dictionary_splat") {
        bool ofKwargs = splat.getArgs().size() == 1 && splat.getArgs()[0] == kwargs;
        forwardsKwargs |= ofKwargs;
        afterKwargs |= ofKwargs;
        out.unknown |= !ofKwargs; // another mapping may hold the key
        ++e;
        continue;
      }
      if (e + 1 >= entries.size())
        break;
      if (isInterpretKey(entries[e]))
        (afterKwargs ? out.assigned : out.defaulted) = entries[e + 1];
      e += 2;
    }
  }
  if (!forwardsKwargs)
    return std::nullopt;
  if (out.assigned)
    return out;
  if (keyword != "interpret")
    return std::nullopt; // kwargsEdits reads the interpret key only
  KwargsEdits edits = kwargsEdits(kwargs, forward);
  if (!edits.assigned && !edits.defaulted)
    edits.defaulted = out.defaulted; // `**{"interpret": v, **kwargs}`
  edits.unknown |= out.unknown;
  if (!edits.assigned && !edits.defaulted && !edits.unknown)
    return std::nullopt;
  return edits;
}

std::vector<CallContext> contextsOfParam(CallIndex& index, const std::string& doc, pd::FuncOp func,
                                         const std::string& name, const Default& dflt,
                                         unsigned depth, const std::string& attribute = "",
                                         mlir::Operation* launch = nullptr, int element = -1);

} // namespace

mlir::Value argumentAt(const detail::CallArguments& args, llvm::StringRef keyword, int position,
                       bool* splat) {
  mlir::Value value;
  int pos = 0;
  bool splatted = false;
  for (unsigned j = 0; j < args.values.size(); ++j) {
    const std::string& kw = args.keywords[j];
    if (kw == "*" || kw == "**")
      splatted = true;
    else if (kw == keyword)
      value = args.values[j];
    else if (kw.empty() && !splatted) {
      if (position >= 0 && pos == position)
        value = args.values[j];
      ++pos;
    }
  }
  if (splat)
    *splat = splatted;
  return value;
}

TSNode callWrittenAt(const syntax::ParsedSource& doc, mlir::Operation* op,
                     const std::function<bool(TSNode call)>& visit) {
  SourcePos at = detail::sourceLocation(op->getLoc()).range.start;
  TSPoint p{at.line, at.column};
  for (TSNode n = ts_node_descendant_for_point_range(doc.root(), p, p); !syntax::isNull(n);
       n = ts_node_parent(n)) {
    TSPoint start = ts_node_start_point(n);
    if (start.row != p.row || start.column != p.column)
      break; // no longer written where op is
    if (syntax::is(n, "call") && visit(n))
      return n;
  }
  return TSNode{};
}

namespace {

// The call's syntax: the innermost call written where `op` is.
TSNode callNodeAt(const syntax::ParsedSource& doc, mlir::Operation* op) {
  return callWrittenAt(doc, op, [](TSNode) { return true; });
}

// The default of the field `attribute` of the object `built` constructs
// when that call leaves the field out (8.55): the class's default
// (names::constructedField) evaluated with the module's names, which is
// where Python evaluates it. nullopt when the call passes it (by position:
// the argument reads the caller's names) or the default is not known.
std::optional<names::InterpretEval> fieldDefault(CallIndex& index, const std::string& path,
                                                 pd::CallIndirectOp built,
                                                 const std::string& attribute) {
  detail::DocumentSyntax s = index.workspace().syntaxOf(path);
  if (!s.doc || !s.globals)
    return std::nullopt;
  TSNode call = callNodeAt(*s.doc, built);
  if (syntax::isNull(call))
    return std::nullopt;
  std::optional<TSNode> v = names::constructedField(call, attribute, *s.doc, *s.globals);
  TSNode args = syntax::field(call, "arguments");
  if (!v || (ts_node_start_byte(*v) >= ts_node_start_byte(args) &&
             ts_node_end_byte(*v) <= ts_node_end_byte(args)))
    return std::nullopt;
  names::InterpretEval e = names::evaluateInterpret(*v, *s.doc, *s.globals, nullptr);
  e.text = std::string(s.doc->textOf(*v));
  return e;
}

// What the value a caller passes selects.
// `attribute`: the launch reads that attribute of the parameter
// (`interpret=cfg.interpret`): the value is the keyword of that name in the
// constructor call the caller passes (`Cfg(interpret=True)`, §8.16).
std::vector<CallContext> evaluate(CallIndex& index, const detail::CallEdge& edge, mlir::Value v,
                                  const std::string& name, unsigned depth,
                                  const std::string& attribute = "", int element = -1) {
  CallContext c;
  c.caller = nameOf(edge.caller.func);
  c.callee = edge.calleeSymbol;
  c.site = edge.site;
  mlir::Operation* def = v.getDefiningOp();
  c.selector = detail::sourceLocation(def ? def->getLoc() : edge.site->getLoc());
  // `element`: the launch reads that element of the tuple the caller passes
  // (`a, b = modes`, 8.76): a tuple or list literal without a splat.
  if (element >= 0) {
    auto seq = llvm::dyn_cast_or_null<pd::OpaqueOp>(def);
    bool literal = seq && (seq.getWhat() == "tuple" || seq.getWhat() == "list") &&
                   static_cast<size_t>(element) < seq.getArgs().size();
    for (unsigned i = 0; literal && i < seq.getArgs().size(); ++i) {
      auto splat = seq.getArgs()[i].getDefiningOp<pd::OpaqueOp>();
      literal &= !(splat && splat.getWhat() == "list_splat");
    }
    if (literal)
      return evaluate(index, edge, seq.getArgs()[static_cast<unsigned>(element)],
                      name + "[" + std::to_string(element) + "]", depth);
    c.argumentText = name + " from a run-time value";
    return {c};
  }
  if (!attribute.empty()) {
    // A copy with fields replaced (`dataclasses.replace(cfg, interpret=True)`,
    // `opts._replace(interpret=True)`): the replacement when it names the
    // field, else the field of the object copied.
    if (auto copy = llvm::dyn_cast_or_null<pd::PrimOp>(def);
        copy && !copy.getArgs().empty() &&
        (copy.getApi() == "dataclasses.replace" || copy.getApi() == "value._replace") &&
        strAt(copy.getKeywords(), 0).empty()) {
      bool splat = false;
      for (unsigned j = 1; j < copy.getArgs().size(); ++j) {
        std::string kw = strAt(copy.getKeywords(), j);
        if (kw == attribute)
          return evaluate(index, edge, copy.getArgs()[j], name + "." + attribute, depth);
        splat |= kw.empty() || kw.front() == '*';
      }
      if (!splat)
        return evaluate(index, edge, copy.getArgs()[0], name, depth, attribute);
    }
    // `cfg.interpret = True` stored before the call that passes cfg: the
    // last such store in the caller's own statements (one under an `if` or
    // a loop, or after the call, leaves it to what the object held).
    if (def && edge.site) {
      mlir::Operation* last = nullptr;
      bool uncertain = false;
      for (mlir::Operation* user : v.getUsers()) {
        auto store = llvm::dyn_cast<pd::OpaqueOp>(user);
        auto name = store ? store->getAttrOfType<mlir::StringAttr>("pallas.attribute") : nullptr;
        if (!name || name.getValue() != attribute || store.getArgs().size() != 2 ||
            store.getArgs()[0] != v)
          continue;
        if (store->getBlock() != edge.site->getBlock()) {
          uncertain |= store->getParentRegion()->isProperAncestor(edge.site->getParentRegion()) ||
                       edge.site->getParentRegion()->isProperAncestor(store->getParentRegion());
          continue;
        }
        if (store->isBeforeInBlock(edge.site) && (!last || last->isBeforeInBlock(store)))
          last = store;
      }
      if (uncertain) {
        c.argumentText = name + "." + attribute + " (set under a condition)";
        return {c};
      }
      if (last)
        return evaluate(index, edge, llvm::cast<pd::OpaqueOp>(last).getArgs()[1],
                        name + "." + attribute, depth);
    }
    if (auto built = llvm::dyn_cast_or_null<pd::CallIndirectOp>(def)) {
      auto cls = built.getCallee().getDefiningOp<pd::GlobalOp>();
      if (cls && cls.getResolved().starts_with("class:")) {
        for (unsigned j = 0; j < built.getArgs().size(); ++j)
          if (strAt(built.getKeywords(), j) == attribute)
            return evaluate(index, edge, built.getArgs()[j], name + "." + attribute, depth);
        // Left to the class's default (a dataclass / NamedTuple field of the
        // caller's file, `field(default_factory=...)` too: 8.55); passed by
        // position: not followed.
        c.argumentText = name + "." + attribute + " (a field of " + cls.getName().str() + ")";
        if (auto d = fieldDefault(index, edge.caller.path, built, attribute)) {
          c.argumentText += " (its default " + d->text + ")";
          c.usesDefault = true;
          if (d->paths.size() == 1 && d->paths[0] == "compiled")
            c.paths = {ExecPath::Compiled};
          else if (d->paths.size() == 1 && d->paths[0] == "interpret_hlo")
            c.paths = {ExecPath::InterpretHlo};
          else if (d->paths.size() == 1 && d->paths[0] == "interpret_gpu")
            c.paths = {ExecPath::InterpretGpu};
        }
        return {c};
      }
    }
    // A module-level object of the caller's file (`DEBUG_OPTIONS =
    // DEFAULTS._replace(interpret=True)`, 8.78): its field there.
    if (auto g = llvm::dyn_cast_or_null<pd::GlobalOp>(def);
        g && !g.getResolved().starts_with("late") && !g.getResolved().starts_with("/")) {
      detail::DocumentSyntax s = index.workspace().syntaxOf(edge.caller.path);
      if (s.doc && s.globals)
        if (auto e = names::moduleObjectFieldInterpret(g.getName().str(), attribute, *s.doc,
                                                       *s.globals)) {
          c.argumentText = name + "." + attribute + " of " + g.getName().str() + " (" +
                           (e->paths[0] == "compiled" ? "compiled" : "interpreted") + ")";
          if (std::optional<ExecPath> p = execPathNamed(e->paths[0]))
            c.paths = {*p};
          return {c};
        }
    }
    if (!llvm::isa<mlir::BlockArgument>(v)) {
      c.argumentText = name + "." + attribute + " from a run-time value";
      return {c};
    }
  }
  if (auto k = llvm::dyn_cast_or_null<pd::ConstantOp>(def)) {
    c.argumentText = name + "=" + k.getValue().str();
    c.argument = v;
    c.argumentDoc = edge.caller.path;
    if (auto p = pathOfLiteral(k.getValue()))
      c.paths = {*p};
    return {c};
  }
  if (auto g = llvm::dyn_cast_or_null<pd::GlobalOp>(def)) {
    llvm::StringRef r = g.getResolved();
    c.argumentText = name + "=" + g.getName().str();
    if (r.consume_front("const:"))
      if (auto p = pathOfLiteral(r))
        c.paths = {*p};
    return {c};
  }
  if (auto p = llvm::dyn_cast_or_null<pd::PrimOp>(def)) {
    c.argumentText = name + "=" + p.getApi().str() + "(...)";
    if (p.getApi() == apiText(Api::InterpretGpuParams)) {
      c.paths = {ExecPath::InterpretGpu};
      c.facts = factsOfParams(p);
    }
    return {c};
  }
  // A parameter of the caller: the values its own callers pass.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v); arg && depth + 1 < kMaxDepth) {
    auto callerFunc = llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp());
    if (callerFunc && callerFunc.getOperation() == opOf(edge.caller.func) &&
        (callerFunc.getKind() == pd::FuncKind::Def ||
         callerFunc.getKind() == pd::FuncKind::Method)) {
      std::string callerParam = stripStars(strAt(callerFunc.getArgNames(), arg.getArgNumber()));
      std::vector<CallContext> outer = contextsOfParam(
          index, edge.caller.path, callerFunc, callerParam, Default{}, depth + 1, attribute);
      if (!outer.empty())
        return outer;
    }
  }
  c.argumentText = name + " from a run-time value";
  return {c};
}

// The interpret= a caller's `**OPTIONS` splats hold (8.74): each a
// module-level mapping of the caller's file whose keys are known
// (NamesMappings.cpp). `known` false when a splat is anything else (or a
// `*args` one), `holds` when one of them has the key.
struct SplatKeyword {
  bool known = false, holds = false;
  std::optional<ExecPath> path; // of the value held (none: unknown)
  std::string text;
};

SplatKeyword splatKeyword(CallIndex& index, const detail::CallEdge& e,
                          const detail::CallArguments& args) {
  SplatKeyword out;
  detail::DocumentSyntax s = index.workspace().syntaxOf(e.caller.path);
  if (!s.doc || !s.globals)
    return out;
  for (unsigned j = 0; j < args.values.size(); ++j) {
    if (args.keywords[j] == "*")
      return out;
    if (args.keywords[j] != "**")
      continue;
    auto g = args.values[j] ? args.values[j].getDefiningOp<pd::GlobalOp>() : pd::GlobalOp();
    if (!g || g.getResolved().starts_with("late"))
      return out;
    std::string name = g.getName().str();
    auto mv = names::moduleValue(*s.doc, name);
    if (!mv || mv->state != names::ModuleValue::State::Known)
      return out;
    const syntax::ParsedSource& doc = *s.doc;
    names::MappingResolve moduleNames = [&doc](const std::string& n) -> TSNode {
      auto v = names::moduleValue(doc, n);
      return v && v->state == names::ModuleValue::State::Known ? v->value : TSNode{};
    };
    names::MappingKeys m;
    names::mappingKeys(mv->value, doc, moduleNames, nullptr, false, m);
    if (m.unknown)
      return out;
    if (const TSNode* v = m.find("interpret")) {
      names::InterpretEval eval = names::evaluateInterpret(*v, doc, *s.globals, nullptr);
      out.holds = true;
      out.path.reset();
      if (eval.paths.size() == 1 && eval.source != "param" && eval.source != "default_param")
        out.path = execPathNamed(eval.paths[0]);
      out.text = "interpret=" + std::string(doc.textOf(*v)) + " in **" + name;
    }
  }
  out.known = true;
  return out;
}

std::vector<CallContext> contextsOfParam(CallIndex& index, const std::string& doc, pd::FuncOp func,
                                         const std::string& name, const Default& dflt,
                                         unsigned depth, const std::string& attribute,
                                         mlir::Operation* launch, int element) {
  mlir::ArrayAttr names = func.getArgNames();
  int param = -1;
  bool positional = true; // no *args before it
  // `**kwargs` forwarded to the launch: each caller's `interpret=` keyword;
  // left out, the launch's own default (False: compiled).
  bool viaKwargs = llvm::StringRef(name).starts_with("**");
  for (unsigned i = 0; i < names.size(); ++i) {
    std::string n = strAt(names, i);
    if (viaKwargs ? n == name : stripStars(n) == name) {
      param = static_cast<int>(i);
      break;
    }
    if (llvm::StringRef(n).starts_with("*"))
      positional = false;
  }
  if (param < 0)
    return {};
  Default kwDefault;
  kwDefault.known = true;
  kwDefault.paths = {ExecPath::Compiled};
  // Merged after known keys (`{**DEFAULTS, **overrides}`, 8.74): theirs.
  if (auto d = launch && viaKwargs
                   ? launch->getAttrOfType<mlir::StringAttr>("pallas.kwargs_default")
                   : mlir::StringAttr()) {
    std::optional<ExecPath> p = execPathNamed(d.getValue());
    kwDefault.known = p.has_value();
    kwDefault.paths = p ? std::vector<ExecPath>{*p} : std::vector<ExecPath>{};
  }
  const Default& absent = viaKwargs ? kwDefault : dflt;
  std::string keyword = viaKwargs ? "interpret" : name;
  if (viaKwargs)
    positional = false;
  KwargsEdits edits;
  if (viaKwargs && launch && !func.getBody().empty())
    edits = kwargsEdits(func.getBody().front().getArgument(static_cast<unsigned>(param)), launch);
  // A decorator's wrapper that sets the keyword before calling func.
  if (!viaKwargs)
    if (std::optional<KwargsEdits> decorated = decoratorEdits(func, keyword))
      edits = *decorated;
  std::vector<CallContext> out;
  for (const detail::CallEdge& e : index.callersOf(doc, func.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      continue;
    mlir::Operation* call = e.site;
    // A call through transforms (`jax.vmap(functools.partial(f,
    // interpret=True))(xs)`) passes the partials' bound arguments first.
    detail::CallArguments args = detail::edgeArguments(index.workspace(), e);
    bool splat = false;
    mlir::Value value = argumentAt(args, keyword, positional ? param : -1, &splat);
    // `f(x, **DEBUG_OVERRIDES)`: the keyword the module's mapping holds (8.74).
    if (viaKwargs && splat && !value && !edits.unknown && !edits.assigned) {
      SplatKeyword sk = splatKeyword(index, e, args);
      if (sk.known && sk.holds) {
        CallContext c;
        c.caller = nameOf(e.caller.func);
        c.callee = func.getSymName().str();
        c.site = call;
        c.selector = detail::sourceLocation(call->getLoc());
        c.argumentText = sk.text;
        if (sk.path)
          c.paths = {*sk.path};
        out.push_back(std::move(c));
        continue;
      }
      splat = !sk.known; // a known mapping without the key: as if left out
    }
    // A function that passes its own parameter on to itself (a recursive
    // call, `lambda fun: kernel(fun, interpret=interpret)` in the decorator
    // form of `plgpu.kernel`) adds no value the other callers do not.
    if (auto arg = llvm::dyn_cast_or_null<mlir::BlockArgument>(value);
        arg && arg.getOwner()->getParentOp() == func.getOperation() &&
        static_cast<int>(arg.getArgNumber()) == param)
      continue;
    if (edits.unknown) {
      CallContext c;
      c.caller = nameOf(e.caller.func);
      c.callee = func.getSymName().str();
      c.site = call;
      c.selector = detail::sourceLocation(call->getLoc());
      c.argumentText = name + " (changed before the launch)";
      out.push_back(std::move(c));
      continue;
    }
    // `kwargs["interpret"] = v` replaces what the caller passes;
    // `kwargs.setdefault("interpret", v)` fills in what it leaves out.
    if (edits.assigned || (!value && !splat && edits.defaulted)) {
      for (CallContext& c :
           evaluate(index, e, edits.assigned ? edits.assigned : edits.defaulted, keyword, depth)) {
        c.caller = nameOf(e.caller.func);
        c.callee = func.getSymName().str();
        out.push_back(std::move(c));
      }
      continue;
    }
    if (value) {
      for (CallContext& c : evaluate(index, e, value, keyword, depth, attribute, element)) {
        // What the launch function's own parameter holds in this context
        // (not a field of it: `attribute` reads one).
        if (depth == 0 && attribute.empty() && c.argument && !c.parameter && !viaKwargs &&
            !func.getBody().empty())
          c.parameter = func.getBody().front().getArgument(static_cast<unsigned>(param));
        out.push_back(std::move(c));
      }
      continue;
    }
    CallContext c;
    c.caller = nameOf(e.caller.func);
    c.callee = func.getSymName().str();
    c.site = call;
    c.selector = detail::sourceLocation(call->getLoc());
    if (splat) {
      c.argumentText = name + " (through *args / **kwargs)";
    } else if (absent.known) {
      c.paths = absent.paths;
      c.facts = absent.facts;
      c.usesDefault = !viaKwargs;
      c.argumentText = viaKwargs ? "no interpret= in " + name : name + " (its default)";
    } else if (depth == 0 && !viaKwargs) {
      continue; // a required argument left out: the call raises TypeError
    } else {
      c.argumentText = name + " (its default)";
    }
    out.push_back(std::move(c));
  }
  return out;
}

// The contexts of a method's parameter: each call of the method on an
// object of its class (CallContextsMethods.cpp), a partialmethod's bound
// keyword first, then the call's argument, else the default (8.65).
std::vector<CallContext> methodContexts(CallIndex& index, const std::string& doc, pd::FuncOp method,
                                        const std::string& name, const Default& dflt) {
  mlir::ArrayAttr names = method.getArgNames();
  int param = -1;
  bool positional = true;
  for (unsigned i = 0; i < names.size(); ++i) {
    std::string n = strAt(names, i);
    if (n == name) {
      param = static_cast<int>(i);
      break;
    }
    if (llvm::StringRef(n).starts_with("*"))
      positional = false;
  }
  if (param < 1) // not a parameter after `self`
    return {};
  std::vector<CallContext> out;
  for (const MethodCall& m : methodCalls(index.workspace(), doc, method)) {
    CallContext c;
    c.caller = nameOf(m.edge.caller.func);
    c.callee = method.getSymName().str();
    c.site = m.edge.site;
    c.selector = detail::sourceLocation(m.edge.site->getLoc());
    // functools.partialmethod: the bound positional arguments come after
    // self, then the call's; the call's keywords override the bound ones.
    int at = param - 1 - static_cast<int>(m.alias.positional);
    bool splat = false;
    mlir::Value value =
        argumentAt(m.args, name, positional && at >= 0 && !m.alias.unknown ? at : -1, &splat);
    if (value) {
      for (CallContext& e : evaluate(index, m.edge, value, name, 0))
        out.push_back(std::move(e));
      continue;
    }
    auto bound = llvm::find_if(m.alias.keywords, [&](const auto& kw) { return kw.first == name; });
    if (bound != m.alias.keywords.end() && !splat) {
      c.argumentText = name + "=" + bound->second + " (functools.partialmethod)";
      if (auto p = pathOfLiteral(bound->second))
        c.paths = {*p};
      out.push_back(std::move(c));
      continue;
    }
    splat |= m.alias.unknown;
    if (splat) {
      c.argumentText = name + " (through *args / **kwargs)";
    } else if (dflt.known) {
      c.paths = dflt.paths;
      c.facts = dflt.facts;
      c.usesDefault = true;
      c.argumentText = name + " (its default)";
    } else {
      continue; // a required argument left out: the call raises TypeError
    }
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace

const std::vector<detail::CallEdge>& CallIndex::callersOf(const std::string& path,
                                                          llvm::StringRef symbol) {
  if (!built_) {
    for (detail::CallEdge& e : ws_.callEdges())
      byCallee_[{e.calleePath, e.calleeSymbol}].push_back(std::move(e));
    built_ = true;
  }
  auto it = byCallee_.find({path, symbol.str()});
  return it == byCallee_.end() ? none_ : it->second;
}

bool CallIndex::mayUseGpuMode() {
  if (!gpuMode_) {
    gpuMode_ = false;
    for (const std::string& path : ws_.documents()) {
      // The text as held: bringing each document's module up to date just
      // to read it lowered every file the project had indexed.
      std::optional<std::string_view> text = ws_.textOf(path);
      if (!text)
        if (detail::DocumentSyntax s = ws_.syntaxOf(path); s.doc)
          text = s.doc->text();
      if (!text || text->empty() || text->find("force_gpu_interpret_mode") != std::string::npos ||
          text->find("set_gpu_interpret_mode") != std::string::npos) {
        gpuMode_ = true; // a document without its text is not known not to
        break;
      }
    }
  }
  return *gpuMode_;
}

namespace {

// `interpret=FLAG` with FLAG a module-level name of the launch's file that a
// function rebinds with `global` and the module never runs (8.57): what
// FLAG holds when each caller of the launching function calls it, the
// literal of the last setter that caller's own statements ran before the
// call (names::valueSetBefore at the call). Unknown for a caller that runs
// none, or one in another file. Empty when no caller settles it.
std::vector<CallContext> globalSetterCallContexts(CallIndex& index, const std::string& doc,
                                                  pd::LaunchOp launch, const std::string& name) {
  auto owner = llvm::dyn_cast_or_null<pd::FuncOp>(launch->getParentOp());
  for (mlir::Operation* op = launch->getParentOp(); op && !owner; op = op->getParentOp())
    if (llvm::isa<pd::ClosureOp>(op))
      return {}; // a closure runs when it is called, not when its def is
    else
      owner = llvm::dyn_cast<pd::FuncOp>(op);
  if (!owner || owner.getKind() != pd::FuncKind::Def)
    return {};
  detail::DocumentSyntax s = index.workspace().syntaxOf(doc);
  if (!s.doc || !s.globals)
    return {};
  auto mv = names::moduleValue(*s.doc, name);
  if (!mv || mv->state != names::ModuleValue::State::Unknown)
    return {};
  std::vector<CallContext> out;
  bool settled = false;
  for (const detail::CallEdge& e : index.callersOf(doc, owner.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      continue;
    CallContext c;
    c.caller = nameOf(e.caller.func);
    c.callee = owner.getSymName().str();
    c.selector = detail::sourceLocation(e.site->getLoc());
    c.argumentText = name + " (as the caller's statements before the call leave it)";
    TSNode call = e.caller.path == doc ? callNodeAt(*s.doc, e.site) : TSNode{};
    std::optional<names::ModuleValue> set =
        syntax::isNull(call) ? std::nullopt : names::valueSetBefore(*s.doc, name, call);
    if (set && set->state == names::ModuleValue::State::Known) {
      names::InterpretEval v = names::evaluateInterpret(set->value, *s.doc, *s.globals, nullptr);
      c.argumentText = name + "=" + std::string(s.doc->textOf(set->value)) +
                       " (set by a call before the call of `" + c.callee + "`)";
      if (v.paths.size() == 1 && v.paths[0] == "compiled")
        c.paths = {ExecPath::Compiled};
      else if (v.paths.size() == 1 && v.paths[0] == "interpret_hlo")
        c.paths = {ExecPath::InterpretHlo};
      settled |= !c.paths.empty();
    }
    out.push_back(std::move(c));
  }
  return settled ? out : std::vector<CallContext>{};
}

} // namespace

std::vector<CallContext> interpretCallContexts(CallIndex& index, const std::string& doc,
                                               pd::LaunchOp launch) {
  // interpret= an expression over the function's parameters (8.30).
  if (launch->hasAttr("pallas.interpret_parameters"))
    return expressionCallContexts(index, doc, launch);
  llvm::StringRef source = pd::stringifyEnum(launch.getInterpretSource());
  auto text = launch.getInterpretText();
  bool viaKwargs = source == "unknown" && text && text->starts_with("**");
  // `interpret=cfg.interpret` with cfg a parameter: what each caller's
  // object holds in that field.
  std::string attribute;
  std::string name = text ? text->trim().str() : std::string();
  if (source == "unknown" && !name.empty() && name.find_first_of(".*()[] ") == std::string::npos)
    if (auto set = globalSetterCallContexts(index, doc, launch, name); !set.empty())
      return set;
  // `cfg.interpret` with cfg a parameter: its default's field (8.46) or
  // not known; either way each caller's object decides.
  if ((source == "unknown" || (source == "default_param" && name.find('.') != std::string::npos)) &&
      !viaKwargs) {
    size_t dot = name.find('.');
    if (dot == std::string::npos || dot == 0 || name.find('.', dot + 1) != std::string::npos)
      return {};
    attribute = name.substr(dot + 1);
    name = name.substr(0, dot);
    auto ident = [](llvm::StringRef id) {
      return !id.empty() && !isdigit(static_cast<unsigned char>(id.front())) &&
             llvm::all_of(
                 id, [](char ch) { return isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
    };
    if (!ident(name) || !ident(attribute))
      return {};
  } else if (source != "param" && source != "default_param" && !viaKwargs) {
    return {};
  }
  // `modes[0]`: an element unpacked from the parameter `modes` (8.76).
  int element = -1;
  if (size_t br = name.find('['); source == "default_param" && attribute.empty() &&
                                  br != std::string::npos && br > 0 && name.back() == ']') {
    if (llvm::StringRef(name).slice(br + 1, name.size() - 1).getAsInteger(10, element) ||
        element < 0)
      return {};
    name = name.substr(0, br);
  }
  if (!text || (attribute.empty() && text->contains('.')))
    return {};
  // The function whose parameter it is: the innermost enclosing def with a
  // parameter of that name (a closure's parameter has no call edges).
  pd::FuncOp owner;
  for (mlir::Operation* op = launch->getParentOp(); op; op = op->getParentOp()) {
    mlir::ArrayAttr names;
    if (auto c = llvm::dyn_cast<pd::ClosureOp>(op))
      names = c.getArgNames();
    else if (auto f = llvm::dyn_cast<pd::FuncOp>(op))
      names = f.getArgNames();
    else
      continue;
    bool has = false;
    for (unsigned i = 0; i < names.size(); ++i)
      has |= viaKwargs ? strAt(names, i) == name : stripStars(strAt(names, i)) == name;
    if (!has)
      continue;
    owner = llvm::dyn_cast<pd::FuncOp>(op);
    break;
  }
  // `args.interpret` with `args = parser.parse_args(...)` (8.66).
  if (!owner && !attribute.empty())
    return argparseCallContexts(index, doc, launch, name, attribute);
  if (!owner || (owner.getKind() != pd::FuncKind::Def &&
                 (owner.getKind() != pd::FuncKind::Method || viaKwargs || !attribute.empty())))
    return {};
  Default dflt;
  if (source == "default_param") {
    dflt.known = true;
    for (mlir::Attribute a : launch.getPaths()) {
      llvm::StringRef p = pd::enumName(a);
      if (p == pd::path::kCompiled)
        dflt.paths.push_back(ExecPath::Compiled);
      else if (p == pd::path::kInterpretHlo)
        dflt.paths.push_back(ExecPath::InterpretHlo);
      else if (p == pd::path::kInterpretGpu)
        dflt.paths.push_back(ExecPath::InterpretGpu);
      else {
        dflt.paths.clear();
        break;
      }
    }
    if (dflt.paths.size() > 1)
      dflt.paths.clear();
  }
  // A method's calls on objects of its class and its partialmethod aliases
  // (8.65); else the calls methodCallee resolves (`K(...)(x)`, a
  // staticmethod called on the class: 8.71).
  if (owner.getKind() == pd::FuncKind::Method)
    if (std::vector<CallContext> m = methodContexts(index, doc, owner, name, dflt); !m.empty())
      return m;
  return contextsOfParam(index, doc, owner, name, dflt, 0, attribute, launch.getOperation(),
                         element);
}

namespace {

// The `with force_gpu_interpret_mode(...)` scope around an op, if any.
pd::ScopeOp gpuModeScopeAround(mlir::Operation* op) {
  for (mlir::Operation* cur = op->getParentOp(); cur; cur = cur->getParentOp())
    if (auto s = llvm::dyn_cast<pd::ScopeOp>(cur))
      if (s.getApi() == "python.with" && s.getContext() &&
          *s.getContext() == "force_gpu_interpret_mode")
        return s;
  return {};
}

// Whether the scope's mode is None or False (`force_gpu_interpret_mode(None)`):
// no mode then, the launch's own interpret= applies.
bool scopeHidesMode(pd::ScopeOp with) {
  for (mlir::Value v : with.getArgs())
    if (auto mode = v.getDefiningOp<pd::PrimOp>();
        mode && mode.getApi() == apiText(Api::ForceGpuInterpretMode) && !mode.getArgs().empty())
      if (auto c = mode.getArgs()[0].getDefiningOp<pd::ConstantOp>())
        return pathOfLiteral(c.getValue()) == ExecPath::Compiled;
  return false;
}

LaunchFacts factsOfScope(pd::ScopeOp with) {
  for (mlir::Value v : with.getArgs())
    if (auto mode = v.getDefiningOp<pd::PrimOp>();
        mode && mode.getApi() == apiText(Api::ForceGpuInterpretMode) && !mode.getArgs().empty())
      if (auto params = mode.getArgs()[0].getDefiningOp<pd::PrimOp>();
          params && params.getApi() == apiText(Api::InterpretGpuParams))
        return factsOfParams(params);
  return {};
}

// `set_gpu_interpret_mode(params)` run before `call` (8.56): by a
// statement of the call's block before it, or by a function such a
// statement calls, among that function's own statements. The mode is
// process-wide, so the call runs in it. `set` is the last such call
// (null: none); `uncertain` when one is made under a condition or loop
// there (it may or may not have run).
struct GpuModeSet {
  pd::PrimOp set;
  bool uncertain = false;
};

bool setsGpuMode(mlir::Operation* op) {
  auto p = llvm::dyn_cast<pd::PrimOp>(op);
  return p && p.getApi() == apiText(Api::SetGpuInterpretMode);
}

void scanForGpuModeSet(mlir::Block& block, mlir::Operation* end, const detail::Workspace& ws,
                       const std::string& path, bool followCalls, GpuModeSet& out) {
  for (mlir::Operation& op : block) {
    if (&op == end)
      break;
    if (setsGpuMode(&op)) {
      out.set = llvm::cast<pd::PrimOp>(op);
      continue;
    }
    if (auto call = llvm::dyn_cast<pd::CallOp>(op); call && followCalls) {
      detail::FunctionRef f = ws.resolveCall(path, call);
      if (f.func && !f.func.getBody().empty())
        scanForGpuModeSet(f.func.getBody().front(), nullptr, ws, f.path, false, out);
      continue;
    }
    for (mlir::Region& r : op.getRegions())
      r.walk([&](mlir::Operation* inner) {
        if (setsGpuMode(inner) && !llvm::isa<pd::FuncOp, pd::ClosureOp>(inner->getParentOp()))
          out.uncertain = true;
      });
  }
}

// Callers of `func` (to `depth` more calls) that run it inside the mode;
// the others (`plain`) run the launch's own paths (`own`: empty when not
// known).
void gpuModeCallers(CallIndex& index, const std::string& doc, pd::FuncOp func, unsigned depth,
                    const std::vector<ExecPath>& own, std::vector<CallContext>& gpu,
                    std::vector<CallContext>& plain) {
  for (const detail::CallEdge& e : index.callersOf(doc, func.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      continue;
    mlir::Operation* call = e.site;
    CallContext c;
    c.caller = nameOf(e.caller.func);
    c.callee = func.getSymName().str();
    if (pd::ScopeOp with = gpuModeScopeAround(call); with && !scopeHidesMode(with)) {
      c.paths = {ExecPath::InterpretGpu};
      c.facts = factsOfScope(with);
      c.selector = detail::sourceLocation(with->getLoc());
      c.argumentText = "inside `with force_gpu_interpret_mode(...)`";
      gpu.push_back(std::move(c));
      continue;
    }
    GpuModeSet set;
    if (mlir::Operation* stmt = call->getBlock()->findAncestorOpInBlock(*call))
      scanForGpuModeSet(*call->getBlock(), stmt, index.workspace(), e.caller.path, true, set);
    auto params = set.set && !set.set.getArgs().empty()
                      ? set.set.getArgs()[0].getDefiningOp<pd::PrimOp>()
                      : pd::PrimOp();
    if (!set.uncertain && params && params.getApi() == apiText(Api::InterpretGpuParams)) {
      c.paths = {ExecPath::InterpretGpu};
      c.facts = factsOfParams(params);
      c.selector = detail::sourceLocation(set.set->getLoc());
      c.argumentText = "after `set_gpu_interpret_mode(...)`";
      gpu.push_back(std::move(c));
      continue;
    }
    size_t before = gpu.size();
    pd::FuncOp callerFunc = e.caller.func;
    std::vector<CallContext> outerPlain;
    if (callerFunc && callerFunc.getKind() == pd::FuncKind::Def && depth + 1 < kMaxDepth)
      gpuModeCallers(index, e.caller.path, callerFunc, depth + 1, own, gpu, outerPlain);
    // The launch's own paths through this caller unless every way to it is
    // in the mode.
    if (gpu.size() == before || !outerPlain.empty() ||
        index.callersOf(e.caller.path, nameOf(e.caller.func)).empty()) {
      c.paths = own;
      c.usesDefault = true; // the launch's own InterpretGPUParams, if it passes one
      c.selector = detail::sourceLocation(call->getLoc());
      c.argumentText = "outside GPU interpret mode";
      plain.push_back(std::move(c));
    }
  }
}

} // namespace

std::vector<CallContext> gpuModeCallContexts(CallIndex& index, const std::string& doc,
                                             pd::LaunchOp launch) {
  // JAX 0.10.2 computes `config_value or interpret` and InterpretGPUParams()
  // is true: a caller inside the mode runs the launch in GPU interpret mode
  // whatever its own interpret= says (issue 36). A launch built inside a
  // mode (or a `force_gpu_interpret_mode(None)`) of its own function has its
  // paths from the front end.
  if (launch.getContext() || launch->hasAttr("pallas.gpu_mode_hidden") || !index.mayUseGpuMode())
    return {};
  auto owner = launch->getParentOfType<pd::FuncOp>();
  if (!owner || owner.getKind() != pd::FuncKind::Def)
    return {};
  std::vector<ExecPath> own;
  for (mlir::Attribute a : launch.getPaths()) {
    std::optional<ExecPath> p = execPathNamed(pd::enumName(a));
    if (!p) { // a run-time value: both of runtimeChoicePaths, as "may"
      own.clear();
      break;
    }
    own.push_back(*p);
  }
  std::vector<CallContext> gpu, plain;
  gpuModeCallers(index, doc, owner, 0, own, gpu, plain);
  if (gpu.empty())
    return {};
  for (CallContext& c : plain)
    gpu.push_back(std::move(c));
  return gpu;
}

namespace {

// Whether every `return` of `func`'s own body returns `value`.
bool returnsOnly(pd::FuncOp func, mlir::Value value) {
  bool any = false, other = false;
  func.getBody().walk([&](pd::ReturnOp r) {
    mlir::Operation* fn = r->getParentOp();
    while (fn && !llvm::isa<pd::FuncOp, pd::ClosureOp>(fn))
      fn = fn->getParentOp();
    if (fn != func.getOperation())
      return;
    any = true;
    other |= r.getValue() != value;
  });
  return any && !other;
}

} // namespace

LaunchBodyArguments launchBodyArguments(CallIndex& index, const std::string& doc,
                                        pd::LaunchOp launch) {
  LaunchBodyArguments out;
  mlir::Value body = launch.getBodyValue();
  // `spec.body` with `spec` the parameter: that attribute of what each
  // caller passes (a NamedTuple / dataclass of kernels, 8.88).
  std::string attribute;
  // (A parameter's attribute is lowered as `ref.` or `value.`: the
  // parameter may be a Ref.)
  if (auto read = body ? body.getDefiningOp<pd::PrimOp>() : nullptr;
      read && read.getArgs().size() == 1 && llvm::isa<mlir::BlockArgument>(read.getArgs()[0])) {
    llvm::StringRef api = read.getApi();
    if (api.consume_front("value.") || api.consume_front("ref.")) {
      attribute = api.str();
      body = read.getArgs()[0];
    }
  }
  auto arg = llvm::dyn_cast_or_null<mlir::BlockArgument>(body);
  if (!arg)
    return out;
  mlir::Operation* owner = arg.getOwner()->getParentOp();
  // A closure its def returns (a decorator factory: `def launcher(**opts):
  // def wrap(body): ... return wrap`): called where what a call of the def
  // returns is applied (`launcher(interpret=True)(f)`, the decorator
  // `@launcher(interpret=True)`, 8.64).
  auto closure = llvm::dyn_cast_or_null<pd::ClosureOp>(owner);
  auto func = llvm::dyn_cast_or_null<pd::FuncOp>(closure ? closure->getParentOp() : owner);
  // A method too (`Launcher().kernel(body, ...)`, 8.77): its calls on
  // objects of a known class are call edges whose arguments line up with
  // its parameters (the receiver first, 8.72).
  if (!func ||
      (func.getKind() != pd::FuncKind::Def &&
       (func.getKind() != pd::FuncKind::Method || closure)) ||
      (closure && !returnsOnly(func, closure.getResult())))
    return out;
  mlir::ArrayAttr names = closure ? closure.getArgNames() : func.getArgNames();
  std::string name = strAt(names, arg.getArgNumber());
  if (name.empty() || llvm::StringRef(name).starts_with("*"))
    return out;
  // Positional only when no `*args` / keyword-only marker comes before it.
  bool positional = true;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    positional &= !llvm::StringRef(strAt(names, i)).starts_with("*");
  out.function = func.getSymName().str();
  for (const detail::CallEdge& e : index.callersOf(doc, func.getSymName())) {
    if (!e.site || llvm::isa<pd::LaunchOp>(e.site))
      continue;
    std::vector<detail::CallArguments> calls;
    if (!closure) {
      calls.push_back(detail::edgeArguments(index.workspace(), e));
    } else if (auto make = llvm::dyn_cast<pd::CallOp>(e.site)) {
      for (mlir::Operation* user : make->getResult(0).getUsers())
        if (auto apply = llvm::dyn_cast<pd::CallIndirectOp>(user);
            apply && apply.getCallee() == make->getResult(0)) {
          detail::CallArguments a;
          for (unsigned i = 0; i < apply.getArgs().size(); ++i) {
            a.values.push_back(apply.getArgs()[i]);
            a.keywords.push_back(strAt(apply.getKeywords(), i));
          }
          calls.push_back(std::move(a));
        }
    }
    for (const detail::CallArguments& args : calls) {
      mlir::Value value =
          argumentAt(args, name, positional ? static_cast<int>(arg.getArgNumber()) : -1, nullptr);
      // A caller passing its own parameter on (a recursive call, a chain of
      // wrappers) adds no kernel the others do not name.
      if (value && !llvm::isa<mlir::BlockArgument>(value))
        out.arguments.push_back({value, e.caller.path, nameOf(e.caller.func),
                                 attribute.empty() ? name : name + "." + attribute, e.site,
                                 attribute});
    }
  }
  return out;
}

} // namespace pallas::analysis::passes
