// Lowering of a kernel launch (pl.pallas_call, plgpu.kernel, pl.kernel,
// pl.core_map) to pallas.launch: its keywords (interpret=, scratch shapes,
// threads), the interpret contexts around it and the backend it selects.
#include "Lowerer.h"
#include "NamesInternal.h"

#include <algorithm>
#include <functional>
#include <set>

namespace pallas::analysis::lower {

// The keywords of the launch call `args` (the arguments of the call, or of
// `pl.pallas_call(...)` applied as a decorator), those inside a `**mapping`
// whose keys are known included.
LaunchKeywords Lowerer::launchKeywords(TSNode args, const std::string& api) {
  LaunchKeywords kw;
  std::vector<TSNode> all = syntax::namedChildren(args);
  for (size_t i = 0; i < all.size(); ++i) {
    TSNode a = all[i];
    if (is(a, "dictionary_splat")) {
      takeSplatKeywords(ts_node_named_child(a, 0), kw);
      continue;
    }
    if (!is(a, "keyword_argument")) {
      if (i == 0 && api == apiName(Api::CoreMap)) {
        noteLaunchBackend(kw, a); // the mesh
        kw.mesh = a;
      }
      continue;
    }
    std::string_view k = doc_.textOf(field(a, "name"));
    TSNode v = field(a, "value");
    if (k == "compiler_params" || k == "backend" || k == "interpret" || k == "mesh")
      noteLaunchBackend(kw, v);
    else if (kw.specsBackend.empty() && (k == "in_specs" || k == "out_specs" || k == "grid_spec" ||
                                         k == "scratch_shapes" || k == "scratch_types"))
      kw.specsBackend = backendMentionedIn(v);
    kw.compilerParams |= k == "compiler_params";
    if (k == "interpret")
      kw.interpret = v;
    else if (k == "scratch_shapes" || k == "scratch_types")
      kw.scratch = v;
    else if (k == "num_threads")
      kw.threads = v;
    else if (k == "thread_name")
      kw.threadName = v;
    else if (k == "cluster_names")
      kw.clusterNames = v;
    else if (k == "in_specs")
      kw.inSpecs = v;
    else if (k == "out_specs")
      kw.outSpecs = v;
    kw.threadNameGiven |= k == "thread_name";
    kw.clusterNamesGiven |= k == "cluster_names";
  }
  return kw;
}

void Lowerer::overrideKeywords(LaunchKeywords& kw, const LaunchKeywords& applied) {
  for (auto [into, from] : {std::pair{&kw.interpret, applied.interpret},
                            {&kw.scratch, applied.scratch},
                            {&kw.threads, applied.threads},
                            {&kw.threadName, applied.threadName},
                            {&kw.clusterNames, applied.clusterNames},
                            {&kw.inSpecs, applied.inSpecs},
                            {&kw.outSpecs, applied.outSpecs}})
    if (!isNull(from))
      *into = from;
  if (!applied.backend.empty())
    kw.backend = applied.backend;
  if (kw.specsBackend.empty())
    kw.specsBackend = applied.specsBackend;
  kw.compilerParams |= applied.compilerParams;
  kw.threadNameGiven |= applied.threadNameGiven;
  kw.clusterNamesGiven |= applied.clusterNamesGiven;
  // A **mapping of unknown keys at the call may replace the partial's
  // interpret= (unless the call also spells it).
  if (applied.splatUnknown) {
    kw.splatUnknown = true;
    kw.splatName = applied.splatName;
    kw.kwargsFallback = applied.kwargsFallback;
    kw.kwargsFallbackKnown = applied.kwargsFallbackKnown;
    kw.interpretMapping = applied.interpretMapping;
    if (isNull(applied.interpret))
      kw.interpret = TSNode{};
  }
}

// **opts: the keys of the mapping (mappingKeys above); a mapping whose keys
// are not all known may hold interpret= (a run-time choice) unless a key
// written after its unknown part gives it.
void Lowerer::takeSplatKeywords(TSNode d, LaunchKeywords& kw) {
  while (is(d, "parenthesized_expression"))
    d = ts_node_named_child(d, 0);
  // A local bound to a dict literal or dict(...) call, else a module-level
  // name holding one once the module has run (8.15).
  auto resolve = [&](const std::string& name) -> TSNode {
    if (const Var* v = findLocal(name)) {
      ValInfo* vi = infoOf(v->value);
      if (!vi || vi->isParam || readsLate(name))
        return TSNode{};
      // `opts = TABLE[key]` with a key over parameters (8.73).
      if (isNull(vi->constant) && is(vi->expression, "subscript"))
        return vi->expression;
      return vi->constant;
    }
    findGlobal(name); // record the lookup: a rebinding re-lowers this unit
    if (auto mv = names::moduleValue(doc_, name);
        mv && mv->state == names::ModuleValue::State::Known)
      return mv->value;
    return TSNode{};
  };
  // The key of a `TABLE[key]` part: a local bound once to a constant (not
  // a parameter: each caller passes its own, 8.73), else a module name.
  names::LocalLookup keyLookup =
      [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    const Var* v = findLocal(name);
    if (!v)
      return std::nullopt;
    ValInfo* vi = infoOf(v->value);
    if (!vi || vi->isParam || readsLate(name) || isNull(vi->constant))
      return std::make_pair(TSNode{}, std::string("unknown"));
    return std::make_pair(vi->constant, std::string("local"));
  };
  names::MappingKeys m;
  names::mappingKeys(d, doc_, resolve, keyLookup, findLocal("dict") != nullptr, m, 0);
  for (const auto& [k, v] : m.keys) {
    if (k == "interpret")
      kw.interpret = v;
    else if (k == "scratch_shapes" || k == "scratch_types")
      kw.scratch = v;
    if (k == "compiler_params" || k == "backend" || k == "interpret" || k == "mesh")
      noteLaunchBackend(kw, v);
  }
  if (!m.unknown)
    return;
  kw.splatUnknown = true;
  if (m.find("interpret"))
    return; // written after every unknown part
  TSNode last = m.lastUnknown;
  auto before = std::find_if(m.keysBeforeLast.begin(), m.keysBeforeLast.end(),
                             [](const auto& k) { return k.first == "interpret"; });
  // `**kwargs` of the enclosing def, also merged after known keys (`{**DEFAULTS,
  // **overrides}`, 8.74): its callers' keywords decide, and a caller that
  // passes no interpret= gets what the keys before it hold.
  if (is(last, "identifier") && kw.splatName.empty()) {
    kw.splatName = "**" + text(last);
    kw.kwargsFallback = before != m.keysBeforeLast.end() ? before->second : TSNode{};
    kw.kwargsFallbackKnown = !m.unknownBeforeLast;
    return;
  }
  // `LAUNCH_OPTIONS[backend]`, a module-level table of mappings indexed by a
  // parameter (8.73): the entry each caller's key picks.
  if (is(last, "subscript") && is(field(last, "value"), "identifier") &&
      !findLocal(text(field(last, "value"))) && !m.unknownBeforeLast &&
      before == m.keysBeforeLast.end())
    kw.interpretMapping = last;
}

void Lowerer::noteLaunchBackend(LaunchKeywords& kw, TSNode v) {
  if (kw.backend.empty())
    kw.backend = backendOf(v);
}

std::string Lowerer::backendMentionedIn(TSNode expr) {
  // Specs are short; the bound keeps a generated 5,000-term list linear.
  constexpr unsigned kMaxNodes = 512;
  std::vector<TSNode> work{expr};
  for (unsigned seen = 0; !work.empty() && seen < kMaxNodes; ++seen) {
    TSNode n = work.back();
    work.pop_back();
    if (isNull(n))
      continue;
    if (is(n, "attribute") || is(n, "identifier")) {
      std::optional<Binding> b = resolveBinding(n);
      if (std::string backend = b ? names::backendOfBinding(*b) : std::string(); !backend.empty())
        return backend;
      if (is(n, "attribute")) // its parts are the same chain, shorter
        continue;
      // A spec built on a line of its own (`spec = pl.BlockSpec(...)`).
      if (const Var* v = findLocal(text(n)))
        if (ValInfo* vi = infoOf(v->value); vi && !isNull(vi->constant))
          work.push_back(vi->constant);
      continue;
    }
    for (TSNode c : syntax::namedChildren(n))
      work.push_back(c);
  }
  return {};
}

// Which paths (compiled, interpreted) the launch's interpret= selects, from
// what the path being lowered knows, the expression itself, the module-level
// partial the launch goes through, or an unknown **mapping.
names::InterpretEval Lowerer::launchInterpret(const LaunchKeywords& kw, const Binding* partial) {
  names::InterpretEval eval;
  auto lookupLocal = [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    const Var* v = findLocal(name);
    if (!v)
      return std::nullopt;
    if (readsLate(name))
      return std::make_pair(TSNode{}, std::string("unknown")); // rebound after this closure
    return describeLocal(infoOf(v->value));
  };
  TSNode interpretNode = kw.interpret;
  std::optional<bool> interpretFact =
      isNull(interpretNode) ? std::nullopt : knownFact(interpretNode);
  if (interpretFact && !*interpretFact) {
    // Falsy on every path that reaches the launch (`if self.INTERPRET:
    // self.skipTest(...)` before it): compiled. A truthy value may be True
    // or an InterpretGPUParams, so only falsity is used.
    eval.paths = {pd::path::kCompiled};
    eval.source = "condition";
    eval.text = text(interpretNode);
  } else if (std::optional<names::InterpretEval> each = loopInterpret(interpretNode, lookupLocal)) {
    eval = *each;
  } else if (std::optional<names::InterpretEval> one =
                 joinedInterpret(interpretNode, lookupLocal)) {
    eval = *one;
  } else if (std::optional<names::InterpretEval> viaCls = classmethodAttribute(interpretNode)) {
    eval = *viaCls;
  } else if (!isNull(interpretNode)) {
    uint64_t returnsBefore = names::returnsFollowed();
    eval = names::evaluateInterpret(interpretNode, doc_, globals_, lookupLocal);
    // It followed a module-level function's return (8.31): lowered again
    // when the document's functions change.
    if (names::returnsFollowed() != returnsBefore)
      deps_.instances = names::instancesFingerprint(doc_);
    // Record the module-level names the evaluation consulted.
    if (is(interpretNode, "identifier") && !findLocal(text(interpretNode)))
      findGlobal(text(interpretNode));
    // `self.interpret`: the document's instances decide (8.25).
    if (is(interpretNode, "attribute") && is(field(interpretNode, "object"), "identifier"))
      deps_.instances = names::instancesFingerprint(doc_);
    // `CFG.interpret` of a module-level config object (8.16).
    if (TSNode obj = field(interpretNode, "object");
        is(interpretNode, "attribute") && is(obj, "identifier") && !findLocal(text(obj)))
      findGlobal(text(obj));
    // A parameter without a default: its value is whatever each caller
    // passes (the discharge pass follows the callers).
    if (is(interpretNode, "identifier"))
      if (const Var* v = findLocal(text(interpretNode)); v && !readsLate(text(interpretNode))) {
        ValInfo* vi = infoOf(v->value);
        if (vi && vi->isParam && isNull(vi->paramDefault))
          eval.source = "param";
        // A local holding a parameter of a def (`interpret = debug`, also
        // through a nonlocal rebinding, 8.19): the callers pass that
        // parameter, by its own name.
        auto arg = llvm::dyn_cast<mlir::BlockArgument>(v->value);
        auto f = arg ? llvm::dyn_cast_or_null<pd::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
        if (vi && vi->isParam && f && (eval.source == "param" || eval.source == "default_param") &&
            arg.getArgNumber() < f.getArgNames().size()) {
          llvm::StringRef param = pd::enumName(f.getArgNames()[arg.getArgNumber()]);
          eval.text = param.ltrim('*').str();
        }
        // An element unpacked from a parameter's tuple default (8.76): that
        // element of what each caller passes, `modes[0]`.
        if (vi && vi->paramElementIndex >= 0 && eval.source == "default_param")
          eval.text = vi->paramElementOf + "[" + std::to_string(vi->paramElementIndex) + "]";
      }
  } else if (partial && partial->interpret) {
    eval = *partial->interpret;
  } else if (kw.splatUnknown) {
    // interpret= may come in through **kwargs: a run-time choice ("may").
    eval.paths = {pd::path::kUnknown};
    eval.source = "unknown";
    eval.text = kw.splatName.empty() ? "**" : kw.splatName;
  } else {
    eval = names::evaluateInterpret(TSNode{}, doc_, globals_, nullptr);
  }
  return eval;
}

// `cls.interpret` in a classmethod: the class attribute of the method's
// class (or a base), as `Cls.interpret` reads it.
std::optional<names::InterpretEval> Lowerer::classmethodAttribute(TSNode interpretNode) {
  if (!selfIsClass_ || !selfValue_ || !is(interpretNode, "attribute"))
    return std::nullopt;
  TSNode object = field(interpretNode, "object");
  const Var* v = is(object, "identifier") ? findLocal(text(object)) : nullptr;
  if (!v || v->value != selfValue_ || readsLate(text(object)))
    return std::nullopt;
  findGlobal(className_); // the class's attributes decide: record the dependency
  deps_.instances = names::instancesFingerprint(doc_);
  return names::classAttributeInterpret(interpretNode, doc_, globals_, className_);
}

// A local's value as interpret= evaluation reads it: its node and kind
// (names::LocalLookup).
std::pair<TSNode, std::string> Lowerer::describeLocal(const ValInfo* vi) {
  if (vi && vi->isParam && !isNull(vi->paramDefault))
    return {vi->paramDefault, "default_param"};
  if (vi && !isNull(vi->orDefault)) // `p = p or E` (8.51)
    return {vi->orDefault, "default_param"};
  if (vi && !isNull(vi->elementDefault)) // `a, b = modes` (8.76)
    return {vi->elementDefault, "default_param"};
  if (vi && !isNull(vi->constant))
    return {vi->constant, "local"};
  return {TSNode{}, "unknown"};
}

// interpret= a name an `if` / `match` rebinds on branches whose condition
// is not known (`if DEBUG_ENV: interpret = True / else: interpret = False`):
// one of the values runs, so the launch takes each branch's path ("may"
// when they differ). nullopt when interpret= is no such name.
std::optional<names::InterpretEval>
Lowerer::joinedInterpret(TSNode interpretNode, const names::LocalLookup& lookupLocal) {
  if (!is(interpretNode, "identifier") || readsLate(text(interpretNode)))
    return std::nullopt;
  std::string name = text(interpretNode);
  const Var* v = findLocal(name);
  const ValInfo* vi = v ? infoOf(v->value) : nullptr;
  if (!vi || vi->alternatives.empty())
    return std::nullopt;
  names::InterpretEval out;
  out.text = name;
  out.source = "condition";
  std::set<std::string> paths;
  for (mlir::Value alternative : vi->alternatives) {
    const ValInfo* ai = infoOf(alternative);
    names::LocalLookup branch =
        [&](const std::string& n) -> std::optional<std::pair<TSNode, std::string>> {
      return n == name ? std::optional(describeLocal(ai)) : lookupLocal(n);
    };
    names::InterpretEval e = names::evaluateInterpret(interpretNode, doc_, globals_, branch);
    if (e.paths.empty() || llvm::is_contained(e.paths, pd::path::kUnknown))
      return names::InterpretEval{{pd::path::kUnknown}, "unknown", name, {}, false};
    paths.insert(e.paths.begin(), e.paths.end());
    if (out.params.empty())
      out.params = e.params;
  }
  out.paths.assign(paths.begin(), paths.end());
  return out;
}

// interpret= a `for` target that takes every element of a literal in turn
// inside that loop (8.26): each element's path runs, so each is certain
// (`pallas.every_path` when there are several and the launch is not under
// an `if` or in a closure there); one unknown element makes the whole
// unknown. nullopt when interpret= is no such target.
std::optional<names::InterpretEval> Lowerer::loopInterpret(TSNode interpretNode,
                                                           const names::LocalLookup& lookupLocal) {
  if (!is(interpretNode, "identifier") || readsLate(text(interpretNode)))
    return std::nullopt;
  const Var* v = findLocal(text(interpretNode));
  ValInfo* vi = v ? infoOf(v->value) : nullptr;
  mlir::Operation* iter = v ? v->value.getDefiningOp() : nullptr;
  // The loop's own target (after the loop the name is a join that keeps
  // the target's info: the last element only, not followed).
  if (!vi || isNull(vi->iterElements) || !iter || !iter->hasAttr("pallas.every_element"))
    return std::nullopt;
  mlir::Operation* loop = iter->getParentOp();
  mlir::Operation* here = b_.getInsertionBlock()->getParentOp();
  if (!loop || !here || !loop->isAncestor(here))
    return std::nullopt; // after the loop: its last element only
  // Under an `if` in the loop (it may test v), or in a closure made there
  // (it runs when called, reading v then): not every element reaches it.
  bool every = true;
  for (mlir::Operation* op = here; op && op != loop; op = op->getParentOp())
    every &= !llvm::isa<pd::IfOp, pd::ClosureOp>(op);
  names::InterpretEval out;
  out.text = text(interpretNode);
  out.source = "module_constant";
  std::set<std::string> paths;
  for (TSNode el : syntax::namedChildren(vi->iterElements)) {
    if (is(el, "comment"))
      continue;
    names::InterpretEval e = names::evaluateInterpret(el, doc_, globals_, lookupLocal);
    if (e.paths.empty() || llvm::is_contained(e.paths, pd::path::kUnknown))
      return names::InterpretEval{{pd::path::kUnknown}, "unknown", out.text, {}, false};
    paths.insert(e.paths.begin(), e.paths.end());
    if (out.params.empty())
      out.params = e.params;
  }
  if (paths.empty())
    return std::nullopt; // an empty loop: the launch never runs
  out.paths.assign(paths.begin(), paths.end());
  out.everyPath = every && paths.size() > 1;
  return out;
}

// The kinds of the launch's scratch shapes; nullopt when they are not known
// (a module-level partial whose scratch_shapes= is not a literal).
std::optional<std::vector<std::string>> Lowerer::launchScratch(TSNode scratchNode,
                                                               const Binding* partial) {
  if (!isNull(scratchNode))
    return names::scratchKinds(scratchNode, doc_, globals_);
  if (partial && partial->scratchKnown)
    return partial->scratch;
  if (partial) {
    bool hasScratch = false;
    for (auto& [k, _] : partial->keywords)
      hasScratch |= k == "scratch_shapes" || k == "scratch_types";
    if (hasScratch)
      return std::nullopt;
  }
  return std::vector<std::string>{};
}

// For each scratch allocation written as a call with a literal, non-empty
// `transforms=` tuple/list: its last transform's text (undone first on
// access). Allocations whose transforms are not literal are left out.
std::vector<std::string> Lowerer::scratchTransforms(TSNode scratchNode) {
  std::vector<std::string> out;
  while (is(scratchNode, "parenthesized_expression"))
    scratchNode = ts_node_named_child(scratchNode, 0);
  // dict(name=SMEM(...), ...) names the allocations like a dict literal.
  if (is(scratchNode, "call") && doc_.textOf(field(scratchNode, "function")) == "dict" &&
      !findLocal("dict"))
    scratchNode = field(scratchNode, "arguments");
  else if (!(is(scratchNode, "list") || is(scratchNode, "tuple") || is(scratchNode, "dictionary")))
    return out;
  for (TSNode el : syntax::namedChildren(scratchNode)) {
    if (is(el, "pair") || is(el, "keyword_argument"))
      el = field(el, "value");
    if (!is(el, "call"))
      continue;
    for (TSNode a : syntax::namedChildren(field(el, "arguments"))) {
      if (!is(a, "keyword_argument") || doc_.textOf(field(a, "name")) != "transforms")
        continue;
      TSNode v = field(a, "value");
      while (is(v, "parenthesized_expression"))
        v = ts_node_named_child(v, 0);
      if (!is(v, "tuple") && !is(v, "list"))
        continue;
      std::string last;
      for (TSNode t : syntax::namedChildren(v))
        if (!is(t, "comment"))
          last = text(t);
      if (!last.empty())
        out.push_back(last);
    }
  }
  return out;
}

namespace {

TSNode unparenthesized(TSNode n) {
  while (is(n, "parenthesized_expression"))
    n = ts_node_named_child(n, 0);
  return n;
}

// Whether an index_map lambda certainly returns something other than the
// literal zeros JAX's GPU interpreter accepts: an element that is a
// non-zero integer literal or reads one of the lambda's parameters (JAX
// traces it, and the output is then not a literal). False when not known
// (a def, a name that may hold 0).
bool indexMapMoves(TSNode lambda, const syntax::ParsedSource& doc) {
  if (!is(lambda, "lambda"))
    return false;
  std::set<std::string_view> params;
  for (TSNode p : syntax::namedChildren(field(lambda, "parameters"))) {
    TSNode name = is(p, "identifier") ? p : ts_node_named_child(p, 0);
    if (is(name, "identifier"))
      params.insert(doc.textOf(name));
  }
  TSNode body = unparenthesized(field(lambda, "body"));
  std::vector<TSNode> elements =
      is(body, "tuple") ? syntax::namedChildren(body) : std::vector<TSNode>{body};
  std::function<bool(TSNode)> readsParam = [&](TSNode n) {
    if (is(n, "identifier"))
      return params.count(doc.textOf(n)) > 0;
    if (is(n, "lambda"))
      return false; // its own scope
    for (TSNode c : syntax::namedChildren(n))
      if (readsParam(c))
        return true;
    return false;
  };
  for (TSNode e : elements) {
    e = unparenthesized(e);
    if (is(e, "integer") && doc.textOf(e) != "0")
      return true;
    if (readsParam(e))
      return true;
  }
  return false;
}

} // namespace

// The first BlockSpec of a pallas_call's in_specs / out_specs (a spec, or a
// literal list / tuple of them) whose index_map certainly moves the block:
// its text as written, "" when there is none or it is not known. GPU
// interpret mode runs only whole-array blocks that stay at the origin.
std::string Lowerer::movingBlockSpec(TSNode specs) {
  specs = unparenthesized(specs);
  std::vector<TSNode> items = is(specs, "list") || is(specs, "tuple") ? syntax::namedChildren(specs)
                                                                      : std::vector<TSNode>{specs};
  for (TSNode item : items) {
    item = unparenthesized(item);
    if (is(item, "list") || is(item, "tuple")) {
      if (std::string inner = movingBlockSpec(item); !inner.empty())
        return inner;
      continue;
    }
    if (!is(item, "call") ||
        !llvm::StringRef(doc_.textOf(field(item, "function"))).ends_with("BlockSpec"))
      continue;
    TSNode indexMap{};
    unsigned positional = 0;
    for (TSNode a : syntax::namedChildren(field(item, "arguments"))) {
      if (is(a, "keyword_argument")) {
        if (doc_.textOf(field(a, "name")) == "index_map")
          indexMap = field(a, "value");
      } else if (!is(a, "comment") && positional++ == 1) {
        indexMap = a;
      }
    }
    if (!isNull(indexMap) && indexMapMoves(unparenthesized(indexMap), doc_))
      return text(item);
  }
  return "";
}

// The barrier-like scratch allocations of a launch, in order, as the dtype
// names JAX prints ("barrier,cluster_barrier"): GPU interpret mode fills
// scratch with its default uninitialised value ("nan": a value only for
// float, int and bool dtypes) unless it allocates that dtype itself, which
// the knowledge table says per launch kind (KernelWalk decides,
// GpuInterpretRules.cpp). A pallas_call's semaphores fail otherwise (not
// modelled). "" when there is none or it is not known.
std::string Lowerer::uninitializedScratch(TSNode scratchNode, const std::string& api) {
  bool pallasCall = api == apiName(Api::PallasCall);
  std::string out;
  for (TSNode item : scratchItems(scratchNode)) {
    std::string kind = names::allocationKind(item, doc_, globals_);
    TSNode callee = is(item, "call") ? field(item, "function") : item;
    bool cluster = llvm::StringRef(doc_.textOf(callee)).ends_with("ClusterBarrier");
    std::string dtype = kind == "barrier" ? (cluster ? "cluster_barrier" : "barrier")
                        : kind == "semaphore" && !pallasCall ? "semaphore"
                                                             : "";
    if (!dtype.empty())
      out += (out.empty() ? "" : ",") + dtype;
  }
  return out;
}

// The allocations a literal scratch_shapes= / scratch_types= lists, in the
// order the kernel receives them: a list or tuple, a dict literal or
// `dict(name=...)`. Empty when it is not written so.
std::vector<TSNode> Lowerer::scratchItems(TSNode scratchNode) {
  scratchNode = unparenthesized(scratchNode);
  std::vector<TSNode> items;
  if (is(scratchNode, "call") && doc_.textOf(field(scratchNode, "function")) == "dict" &&
      !findLocal("dict")) {
    for (TSNode a : syntax::namedChildren(field(scratchNode, "arguments")))
      if (is(a, "keyword_argument"))
        items.push_back(field(a, "value"));
  } else if (is(scratchNode, "list") || is(scratchNode, "tuple")) {
    for (TSNode el : syntax::namedChildren(scratchNode))
      if (!is(el, "comment"))
        items.push_back(el);
  } else if (is(scratchNode, "dictionary")) {
    for (TSNode pair : syntax::namedChildren(scratchNode))
      if (is(pair, "pair"))
        items.push_back(field(pair, "value"));
  }
  return items;
}

// Each `plgpu.Barrier(...)` of the scratch allocations, as [position in the
// scratch list, num_arrivals, num_barriers]; a count that is not an integer
// literal or module constant is 0 (JAX's defaults are 1). GPU interpret mode
// checks how each barrier is indexed and completed.
std::vector<std::array<int64_t, 3>> Lowerer::barrierScratch(TSNode scratchNode) {
  std::vector<std::array<int64_t, 3>> out;
  std::vector<TSNode> items = scratchItems(scratchNode);
  for (size_t i = 0; i < items.size(); ++i) {
    TSNode item = unparenthesized(items[i]);
    if (!is(item, "call") || names::allocationKind(item, doc_, globals_) != "barrier" ||
        llvm::StringRef(doc_.textOf(field(item, "function"))).ends_with("ClusterBarrier"))
      continue;
    std::array<int64_t, 3> barrier{static_cast<int64_t>(i), 1, 1};
    unsigned position = 0;
    for (TSNode a : syntax::namedChildren(field(item, "arguments"))) {
      TSNode value = a;
      int slot = -1;
      if (is(a, "keyword_argument")) {
        std::string k = text(field(a, "name"));
        slot = k == "num_arrivals" ? 1 : k == "num_barriers" ? 2 : -1;
        value = field(a, "value");
      } else if (!is(a, "comment")) {
        slot = position < 2 ? int(position) + 1 : -1;
        ++position;
      }
      if (slot < 0)
        continue;
      // A literal, or a module constant (`num_barriers=STAGES`).
      std::optional<names::PyConstant> c = names::constantOf(value, doc_, nullptr, nullptr);
      barrier[slot] = c && c->kind == names::PyConstant::Kind::Int ? c->i : 0;
    }
    out.push_back(barrier);
  }
  return out;
}

// The axis names of the launch's thread mesh as GPU interpret mode lists
// them for a scoped allocation's collective axes: the cluster names, then
// the thread name ("" when there is none). A pallas_call has no mesh (one
// unnamed thread axis). nullopt when a name is not a literal.
std::optional<std::vector<std::string>> Lowerer::meshAxes(const LaunchKeywords& kw,
                                                          const std::string& api) {
  if (api == apiName(Api::PallasCall))
    return std::vector<std::string>{""};
  if (api == apiName(Api::CoreMap))
    return coreMapMeshAxes(kw.mesh);
  if (api != apiName(Api::GpuKernel))
    return std::nullopt;
  auto literal = [&](TSNode n) -> std::optional<std::string> {
    n = unparenthesized(n);
    if (!is(n, "string"))
      return std::nullopt;
    // A plain one-line literal: no prefix (f, b, r), no escapes.
    std::string t = text(n);
    if (t.size() < 2 || (t[0] != '"' && t[0] != '\'') || t.back() != t[0] ||
        t.find('\\') != std::string::npos || t.rfind(std::string(3, t[0]), 0) == 0)
      return std::nullopt;
    return t.substr(1, t.size() - 2);
  };
  std::vector<std::string> axes;
  if (kw.clusterNamesGiven) {
    TSNode names = unparenthesized(kw.clusterNames);
    if (!is(names, "tuple") && !is(names, "list"))
      return std::nullopt;
    for (TSNode n : syntax::namedChildren(names)) {
      if (is(n, "comment"))
        continue;
      std::optional<std::string> name = literal(n);
      if (!name)
        return std::nullopt;
      axes.push_back(*name);
    }
  }
  if (!kw.threadNameGiven) {
    axes.push_back("");
    return axes;
  }
  std::optional<std::string> thread = literal(kw.threadName);
  if (!thread)
    return std::nullopt;
  axes.push_back(*thread);
  return axes;
}

// A pl.core_map's plgpu.Mesh: written in the call, or a local name bound
// once to one (its lowered keywords: string constants).
std::optional<std::vector<std::string>> Lowerer::coreMapMeshAxes(TSNode mesh) {
  mesh = unparenthesized(mesh);
  if (is(mesh, "call")) {
    std::optional<Binding> b = resolveBinding(field(mesh, "function"));
    if (!b || names::canonicalApi(b->target) != apiName(Api::Mesh))
      return std::nullopt;
    std::string kernelApi(apiName(Api::GpuKernel));
    return meshAxes(launchKeywords(field(mesh, "arguments"), kernelApi), kernelApi);
  }
  const Var* v = is(mesh, "identifier") ? findLocal(text(mesh)) : nullptr;
  auto made = v && !readsLate(text(mesh)) ? v->value.getDefiningOp<pd::PrimOp>() : pd::PrimOp();
  if (!made || made.getApi() != llvm::StringRef(apiName(Api::Mesh)))
    return std::nullopt;
  auto str = [](mlir::Value x) -> std::optional<std::string> {
    auto c = x ? x.getDefiningOp<pd::ConstantOp>() : pd::ConstantOp();
    if (!c || c.getKind() != pd::ConstantKind::Str || c.getValue().size() < 2 ||
        c.getValue().contains('\\'))
      return std::nullopt;
    return c.getValue().drop_front().drop_back().str();
  };
  std::vector<std::string> axes;
  std::optional<std::string> thread;
  bool threadGiven = false;
  for (unsigned i = 0; i < made.getArgs().size(); ++i) {
    llvm::StringRef k = pd::enumName(made.getKeywords()[i]);
    mlir::Value arg = made.getArgs()[i];
    if (k == "cluster_names") {
      auto seq = arg.getDefiningOp<pd::OpaqueOp>();
      if (!seq || (seq.getWhat() != "tuple" && seq.getWhat() != "list"))
        return std::nullopt;
      for (mlir::Value n : seq.getArgs()) {
        std::optional<std::string> name = str(n);
        if (!name)
          return std::nullopt;
        axes.push_back(*name);
      }
    } else if (k == "thread_name") {
      threadGiven = true;
      thread = str(arg);
      if (!thread)
        return std::nullopt;
    } else if (k.empty() || k.starts_with("*")) {
      return std::nullopt; // positional or splatted: not read here
    }
  }
  axes.push_back(threadGiven ? *thread : "");
  return axes;
}

// The value of the process-wide mode a context sets: the default
// InterpretGPUParams() when left out, else its expression evaluated as an
// interpret= value is (None / False: compiled, i.e. no mode).
names::InterpretEval Lowerer::contextMode(const Context& c) {
  names::InterpretEval mode;
  if (isNull(c.mode)) {
    mode.paths = {pd::path::kInterpretGpu};
    return mode;
  }
  auto lookupLocal = [&](const std::string& name) -> std::optional<std::pair<TSNode, std::string>> {
    const Var* v = findLocal(name);
    if (!v)
      return std::nullopt;
    return describeLocal(infoOf(v->value));
  };
  return names::evaluateInterpret(c.mode, doc_, globals_, lookupLocal);
}

mlir::Value Lowerer::emitLaunch(TSNode site, const std::string& api, const std::string& form,
                                TSNode kwCall, const Binding* partial, const CallableRef& body,
                                const LaunchWrapper* wrapper, TSNode appliedCall) {
  // Keyword arguments: those of the partial (module level) and of the call.
  LaunchKeywords kw;
  if (!isNull(kwCall)) {
    TSNode args = field(kwCall, "arguments");
    kw = launchKeywords(args, api);
    // The other arguments are evaluated (they may call user code).
    lowerArgs(args, api == apiName(Api::CoreMap) ? 0 : 1);
  }
  // The call applying a partial: only its keywords (its arguments were
  // lowered where the call was).
  if (!isNull(appliedCall))
    overrideKeywords(kw, launchKeywords(field(appliedCall, "arguments"), api));
  // A launch wrapper method adds keywords of its own (after the caller's).
  std::optional<names::InterpretEval> wrapperInterpret;
  bool wrapperScratch = false;
  if (wrapper)
    applyWrapperKeywords(*wrapper, kw, wrapperInterpret, wrapperScratch);
  names::InterpretEval eval = wrapperInterpret ? *wrapperInterpret : launchInterpret(kw, partial);
  std::optional<std::vector<std::string>> scratch = launchScratch(kw.scratch, partial);
  if (wrapperScratch)
    scratch.reset();
  const CallableRef& kernel =
      wrapper && wrapper->takesKernel ? wrappedKernel(site, *wrapper, body, scratch) : body;

  // The interpret contexts: JAX 0.10.2 computes `config_value or interpret`
  // (pallas_call.py, core.py, helpers.py) and InterpretGPUParams() is true,
  // so a mode that is set wins over any interpret= of the launch (True,
  // False, its own InterpretGPUParams), with the mode's params; a mode of
  // None (`force_gpu_interpret_mode(None)`) leaves the launch's own
  // interpret= and hides a process-wide mode (issue 36).
  mlir::StringAttr contextAttr;
  mlir::IntegerAttr contextLine, contextColumn;
  bool modeHidden = false;
  if (!contexts_.empty()) {
    const Context& c = contexts_.back();
    names::InterpretEval mode = contextMode(c);
    if (mode.paths.size() == 1 && mode.paths[0] == pd::path::kCompiled) {
      modeHidden = true;
    } else {
      eval.paths = {pd::path::kInterpretGpu};
      eval.source = "context";
      eval.params = mode.params;
      contextAttr = b_.getStringAttr(c.kind);
      contextLine = b_.getI64IntegerAttr(c.line);
      contextColumn = b_.getI64IntegerAttr(c.column);
    }
  }
  mlir::DictionaryAttr params;
  if (!eval.params.empty()) {
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    for (auto& [k, v] : eval.params)
      attrs.push_back(b_.getNamedAttr(k, b_.getStringAttr(v)));
    params = b_.getDictionaryAttr(attrs);
  }
  mlir::IntegerAttr numThreads;
  // A literal or a module constant (`num_threads=THREADS`).
  if (!isNull(kw.threads))
    if (std::optional<names::PyConstant> c = names::constantOf(kw.threads, doc_, nullptr, nullptr);
        c && c->kind == names::PyConstant::Kind::Int)
      numThreads = b_.getI64IntegerAttr(c->i);
  mlir::StringAttr threadName;
  if (is(kw.threadName, "string")) {
    std::string s = text(kw.threadName);
    if (s.size() >= 2)
      s = s.substr(1, s.size() - 2);
    threadName = b_.getStringAttr(s);
  }
  auto op = pd::LaunchOp::create(
      b_, loc(site), valueTy_, b_.getStringAttr(api),
      pd::LaunchFormAttr::get(b_.getContext(),
                              pd::symbolizeLaunchForm(form).value_or(pd::LaunchForm::Call)),
      b_.getStringAttr(kernel.text),
      kernel.symbol.empty() ? mlir::FlatSymbolRefAttr()
                            : mlir::FlatSymbolRefAttr::get(b_.getContext(), kernel.symbol),
      kernel.file.empty() ? mlir::StringAttr() : b_.getStringAttr(kernel.file), kernel.value,
      pathArray(eval.paths),
      pd::InterpretSourceAttr::get(
          b_.getContext(),
          pd::symbolizeInterpretSource(eval.source).value_or(pd::InterpretSource::Unknown)),
      eval.text.empty() ? mlir::StringAttr() : b_.getStringAttr(eval.text), params,
      scratch ? allocArray(*scratch) : mlir::ArrayAttr(), numThreads, threadName, contextAttr,
      contextLine, contextColumn,
      kw.selectedBackend().empty() ? mlir::StringAttr() : b_.getStringAttr(kw.selectedBackend()));
  // Whether compiler_params= is given at all (JAX's defaults apply when not):
  // a discardable attribute, read by the compiled path's semantics.
  bool compilerParams = kw.compilerParams;
  if (partial)
    for (auto& [k, _] : partial->keywords)
      compilerParams |= k == "compiler_params";
  if (compilerParams)
    op->setAttr("pallas.compiler_params", b_.getUnitAttr());
  // interpret= an expression over parameters of the def around the launch
  // (`interpret=(mode == "debug")`): the callers' arguments decide (8.30).
  if (!wrapperInterpret && eval.source == "unknown" && contextAttr == nullptr) {
    mlir::DictionaryAttr over = interpretParameters(kw.interpret);
    // `**TABLE[key]` (8.73): the entry's interpret= under each caller's key.
    if (!over && isNull(kw.interpret) && !isNull(kw.interpretMapping))
      over = interpretParameters(kw.interpretMapping, site);
    if (over)
      op->setAttr("pallas.interpret_parameters", over);
  }
  // `**overrides` merged after known keys (8.74): what a caller that passes
  // no interpret= gets.
  if (!wrapperInterpret && isNull(kw.interpret) && kw.splatName.starts_with("**") &&
      (!kw.kwargsFallbackKnown || !isNull(kw.kwargsFallback)))
    op->setAttr("pallas.kwargs_default", b_.getStringAttr(kwargsDefaultPath(kw)));
  // Built where the process-wide mode is None: a module-level
  // set_gpu_interpret_mode does not reach it (LaunchRuns, CallContexts).
  if (modeHidden)
    op->setAttr("pallas.gpu_mode_hidden", b_.getUnitAttr());
  // Several paths, each of which runs (a loop over the values, 8.26).
  if (eval.everyPath)
    op->setAttr("pallas.every_path", b_.getUnitAttr());
  // Reached through a wrapper method (`self.kernel(...)`): which one, and
  // whether it builds compiler_params= itself (its lowering semantics, e.g.
  // a class attribute, are not visible at the call).
  if (wrapper)
    op->setAttr("pallas.wrapper", b_.getStringAttr(wrapper->method));
  // The caller's keywords are the kernel-taking wrapper's own (its `grid=`
  // is the pipeline's), not those of the launch API it reaches.
  if (wrapper && wrapper->takesKernel)
    op->setAttr("pallas.wrapper_takes_kernel", b_.getUnitAttr());
  if (kw.wrapperCompilerParams)
    op->setAttr("pallas.wrapper_compiler_params", b_.getUnitAttr());
  // Scratch allocations given plgpu transforms= (the HLO interpreter cannot
  // undo them): the transform JAX undoes first, as written, per allocation.
  std::vector<std::string> transformed = scratchTransforms(kw.scratch);
  if (!transformed.empty())
    op->setAttr("pallas.scratch_transforms", strArray(transformed));
  // Through a launch wrapper, when the caller's scratch is what it launches
  // with (as for `scratch` above).
  if (std::string dtype = isNull(kw.scratch) ? "" : uninitializedScratch(kw.scratch, api);
      !dtype.empty() && !wrapperScratch)
    op->setAttr("pallas.uninitialized_scratch", b_.getStringAttr(dtype));
  if (!isNull(kw.scratch) && !wrapperScratch) {
    llvm::SmallVector<mlir::Attribute> barriers;
    for (const std::array<int64_t, 3>& b : barrierScratch(kw.scratch))
      barriers.push_back(b_.getDenseI64ArrayAttr(b));
    if (!barriers.empty())
      op->setAttr("pallas.barrier_scratch", b_.getArrayAttr(barriers));
  }
  // The thread mesh's axis names (GPU interpret mode checks a scoped
  // allocation's collective axes against them).
  bool mayInterpretGpu = llvm::any_of(eval.paths, [](const std::string& p) {
    return p == pd::path::kInterpretGpu || p == pd::path::kUnknown;
  });
  if (!wrapper && mayInterpretGpu)
    if (std::optional<std::vector<std::string>> axes = meshAxes(kw, api))
      op->setAttr("pallas.mesh_axes", strArray(*axes));
  // A pallas_call block that moves with the grid (GPU interpret mode runs
  // only whole-array blocks at the origin): the spec as written.
  if (api == apiName(Api::PallasCall) && !wrapper)
    for (TSNode specs : {kw.inSpecs, kw.outSpecs})
      if (std::string moving = isNull(specs) ? "" : movingBlockSpec(specs); !moving.empty()) {
        op->setAttr("pallas.moving_block", b_.getStringAttr(moving));
        break;
      }
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
    if (b && names::isJaxBinding(*b))
      return names::backendOfBinding(*b);
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

} // namespace pallas::analysis::lower
