// The launch view and rule table the Mosaic GPU rule checks share
// (MosaicLaunch.h).
#include "MosaicLaunch.h"

#include "CompiledPath.h"
#include "EvalLaunches.h"
#include "KernelParams.h"
#include "LaunchCache.h"
#include "PassKnowledge.h"
#include "mlir/IR/Operation.h"
#include "pallas/analysis/detail/Dialect.h"
#include "pallas/knowledge/KnowledgeBase.h"

#include <nlohmann/json.hpp>
#include <set>

namespace pallas::analysis::passes::mosaic {

using shape::Scope;

// ---- the rules table -------------------------------------------------------------

namespace {
const nlohmann::json& entryOf(const Rule& r) {
  return *static_cast<const nlohmann::json*>(r.entry);
}
void fill(Rule& r, const nlohmann::json& e) {
  r.entry = &e;
  r.exception = e.value("exception", "");
  r.tmpl = e.value("template", "");
}
} // namespace

std::optional<int64_t> Rule::number(const char* role) const {
  if (!entry)
    return std::nullopt;
  const nlohmann::json& e = entryOf(*this);
  auto it = e.find(role);
  if (it == e.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<int64_t>();
}

std::vector<int64_t> Rule::numbers(const char* role) const {
  std::vector<int64_t> out;
  if (!entry)
    return out;
  const nlohmann::json& e = entryOf(*this);
  if (auto it = e.find(role); it != e.end() && it->is_array())
    for (const auto& x : *it)
      if (x.is_number_integer())
        out.push_back(x.get<int64_t>());
  return out;
}

std::string Rule::render(const std::map<std::string, std::string>& holes) const {
  std::string out;
  for (size_t k = 0; k < tmpl.size();) {
    size_t open = tmpl.find('{', k);
    if (open == std::string::npos) {
      out += tmpl.substr(k);
      break;
    }
    size_t close = tmpl.find('}', open);
    if (close == std::string::npos) {
      out += tmpl.substr(k);
      break;
    }
    out += tmpl.substr(k, open - k);
    std::string hole = tmpl.substr(open + 1, close - open - 1);
    auto it = holes.find(hole);
    out += it != holes.end() ? it->second : "<" + hole + ">";
    k = close + 1;
  }
  return out;
}

Rule rule(const knowledge::KnowledgeBase& kb, const char* key) {
  Rule r;
  const nlohmann::json* rules = kb.mosaicGpuRules();
  if (!rules)
    return r;
  auto it = rules->find(key);
  if (it == rules->end() || !it->is_object() || !it->value("found", false))
    return r;
  fill(r, *it);
  r.found = true;
  return r;
}

AccumulatorRule accumulatorRule(const knowledge::KnowledgeBase& kb, const std::string& operand) {
  AccumulatorRule r;
  const nlohmann::json* rules = kb.mosaicGpuRules();
  if (!rules)
    return r;
  auto table = rules->find("wgmmaAccumulatorDtypes");
  if (table == rules->end() || !table->is_object())
    return r;
  auto it = table->find(operand);
  if (it == table->end() || !it->is_object())
    return r;
  fill(r, *it);
  if (auto acc = it->find("accumulators"); acc != it->end() && acc->is_array())
    for (const auto& a : *acc)
      if (a.is_string())
        r.accumulators.push_back(a.get<std::string>());
  r.found = !r.accumulators.empty() && !r.tmpl.empty();
  return r;
}

// ---- small helpers -------------------------------------------------------------------

std::string mlirName(const std::string& dtype) {
  static const std::map<std::string, std::string> names = {
      {"float32", "f32"},
      {"float16", "f16"},
      {"bfloat16", "bf16"},
      {"float64", "f64"},
      {"int8", "i8"},
      {"int16", "i16"},
      {"int32", "i32"},
      {"int64", "i64"},
      {"uint8", "i8"},
      {"uint16", "i16"},
      {"uint32", "i32"},
      {"bool", "i1"},
      {"float8_e4m3fn", "f8E4M3FN"},
      {"float8_e5m2", "f8E5M2"},
  };
  auto it = names.find(dtype);
  return it == names.end() ? "" : it->second;
}

std::optional<int> bitsOf(const Value& dtype) {
  if (dtype.kind != Value::Kind::DType)
    return std::nullopt;
  return shape::dtypeBits(dtype.s);
}

std::string tupleText(const std::vector<int64_t>& v) {
  std::string out = "(";
  for (size_t k = 0; k < v.size(); ++k)
    out += (k ? ", " : "") + std::to_string(v[k]);
  return out + (v.size() == 1 ? ",)" : ")");
}

std::optional<std::vector<Transform>> transformsOf(const Value& holder) {
  std::vector<Transform> out;
  if (holder.kind != Value::Kind::Object)
    return std::nullopt;
  auto it = holder.fields.find("transforms");
  if (it == holder.fields.end())
    return out; // none written
  const Value& list = it->second;
  if (list.kind != Value::Kind::Seq)
    return std::nullopt;
  for (const Value& t : list.items) {
    Transform x;
    if (t.isObject(apiName(Api::TilingTransform))) {
      auto tiling = t.field("tiling").ints();
      if (!tiling)
        return std::nullopt;
      x.kind = Transform::Kind::Tiling;
      x.tiling = *tiling;
    } else if (t.isObject(apiName(Api::SwizzleTransform))) {
      Value s = t.field("swizzle");
      if (!s.isInt())
        return std::nullopt;
      x.kind = Transform::Kind::Swizzle;
      x.swizzle = s.i;
    } else if (t.kind == Value::Kind::Object) {
      x.kind = Transform::Kind::Other;
    } else {
      return std::nullopt;
    }
    out.push_back(std::move(x));
  }
  return out;
}

// ---- the session ---------------------------------------------------------------------

namespace {

Value noneValue() {
  Value v;
  v.kind = Value::Kind::None;
  return v;
}

Value defaultSpec() {
  Value s = Value::object(std::string(kBlockSpecObject));
  s.fields["block_shape"] = noneValue();
  return s;
}

} // namespace

Session::Session(const detail::PassContext& ctx, const detail::SmemIndex& index)
    : ctx_(ctx), eval_(&index.evaluator()) {}

Session::~Session() = default;

std::optional<TSNode> Session::callOf(const std::string& path, mlir::Location loc) const {
  detail::LineCol lc = detail::lineCol(loc);
  if (!lc.line)
    return std::nullopt;
  return eval_->callAt(path, lc.line - 1, lc.column ? lc.column - 1 : 0);
}

namespace {

// The call a scope op was written as: its node, document, scope, callee
// (canonical) and arguments; nullopt when the source does not have it.
struct ScopeCall {
  TSNode call;
  const syntax::ParsedSource* doc;
  Scope scope;
  std::string callee;
  Evaluator::Args args;
};

std::optional<ScopeCall> scopeCallOf(Evaluator& eval, std::optional<TSNode> call,
                                     const std::string& path) {
  const syntax::ParsedSource* doc = eval.docOf(path);
  if (!call || !doc)
    return std::nullopt;
  Scope sc = eval.scopeAt(path, *call);
  std::string callee = eval.qualifiedName(field(*call, "function"), sc);
  return ScopeCall{*call, doc, std::move(sc), std::move(callee), Evaluator::argsOf(*call, *doc)};
}

} // namespace

std::vector<Value> Session::runScopedAllocations(pd::ScopeOp scope, const std::string& path) {
  std::vector<Value> out;
  std::optional<ScopeCall> c = scopeCallOf(*eval_, callOf(path, scope->getLoc()), path);
  if (!c || c->args.splat)
    return out;
  const syntax::ParsedSource* doc = c->doc;
  const Scope& sc = c->scope;
  const Evaluator::Args& a = c->args;
  if (c->callee == apiName(Api::RunScoped) && a.keywords.empty()) {
    // pl.run_scoped(body, *allocations): the body's parameters in order.
    for (size_t k = 1; k < a.positional.size(); ++k)
      out.push_back(eval_->eval(a.positional[k], sc));
    return out;
  }
  // `@functools.partial(pl.run_scoped, acc=plgpu.ACC(...), o_smem=...)` on
  // a def: JAX calls the def with the allocations by name.
  if (c->callee != apiName(Api::Partial) || a.positional.size() != 1 ||
      eval_->qualifiedName(a.positional[0], sc) != apiName(Api::RunScoped))
    return out;
  std::vector<TSNode> chain = eval_->path(doc, c->call);
  TSNode decorated = chain.size() >= 3 ? chain[chain.size() - 3] : TSNode{};
  if (!is(decorated, "decorated_definition"))
    return out;
  TSNode def = field(decorated, "definition");
  TSNode params = field(def, "parameters");
  for (TSNode p : syntax::namedChildren(params)) {
    // `a`, `a=...`, `a: T`, `a: T = ...`; anything else (`*a`, `/`) is not
    // an allocation's name.
    TSNode id = is(p, "identifier") ? p
                : is(p, "typed_parameter") && ts_node_named_child_count(p) > 0
                    ? ts_node_named_child(p, 0)
                    : field(p, "name");
    if (isNull(id) || !is(id, "identifier"))
      return {};
    std::string name(doc->textOf(id));
    auto it = a.keywords.find(name);
    if (it == a.keywords.end())
      return {};
    out.push_back(eval_->eval(it->second, sc));
  }
  return out;
}

const std::vector<Value>& Session::pipelineSpecs(pd::ScopeOp scope, const std::string& path,
                                                 size_t* inputs) {
  auto [it, added] = pipelineSpecs_.try_emplace({scope.getOperation(), path});
  PipelineSpecs& known = it->second;
  if (inputs)
    *inputs = known.inputs;
  if (!added)
    return known.specs;
  std::optional<ScopeCall> c = scopeCallOf(*eval_, callOf(path, scope->getLoc()), path);
  if (!c || c->callee != apiName(Api::EmitPipeline))
    return known.specs;
  const Scope& sc = c->scope;
  const Evaluator::Args& a = c->args;
  std::vector<Value> out;
  size_t in = 0;
  for (const char* key : {"in_specs", "out_specs"}) {
    TSNode n = a.get(SIZE_MAX, key);
    if (isNull(n))
      continue;
    Value specs = eval_->eval(n, sc);
    if (specs.kind != Value::Kind::Seq)
      return known.specs; // not known: empty
    out.insert(out.end(), specs.items.begin(), specs.items.end());
    if (std::string_view(key) == "in_specs")
      in = out.size();
  }
  known.specs = std::move(out);
  known.inputs = in;
  if (inputs)
    *inputs = in;
  return known.specs;
}

const std::vector<TSNode>& Session::swizzleCalls(const std::string& path) {
  auto [it, added] = swizzleCalls_.try_emplace(path);
  const syntax::ParsedSource* doc = eval_->docOf(path);
  if (!added || !doc)
    return it->second;
  // Most documents never spell it: no walk over their tree then (it was a
  // fifth of an edit's analysis in a large file).
  if (doc->text().find("SwizzleTransform") == std::string_view::npos)
    return it->second;
  // One cursor walk over the tree; only calls spelled like the API are kept.
  syntax::forEachNode(doc->root(), [&](TSNode n) {
    if (is(n, "call")) {
      std::string_view callee = doc->textOf(field(n, "function"));
      if (callee.size() >= 16 && callee.substr(callee.size() - 16) == "SwizzleTransform")
        it->second.push_back(n);
    }
  });
  return it->second;
}

std::vector<pd::LaunchOp> compiledLaunches(const detail::PassContext& ctx) {
  std::vector<pd::LaunchOp> out;
  if (!ctx.module)
    return out;
  for (pd::LaunchOp l : detail::moduleScan(ctx, ctx.module).launches) {
    llvm::StringRef api = l.getApi();
    if ((api == apiText(Api::PallasCall) || api == apiText(Api::GpuKernel)) &&
        isStaticallyReachable(l))
      out.push_back(l);
  }
  return out;
}

LaunchView Session::view(pd::LaunchOp launch) {
  LaunchView v;
  v.launch = launch;
  v.path = ctx_.path;
  v.at = detail::sourceLocation(launch.getLoc());
  v.pallasCall = launch.getApi() == apiText(Api::PallasCall);
  // Paths: compiled only, or compiled among others (a warning then).
  CompiledPath compiled = mosaicGpuCompiledPathOf(launch, ctx_.options.assumePath);
  if (compiled == CompiledPath::No)
    return v;
  v.compiledCertain = compiled == CompiledPath::Certain;
  auto call = callOf(ctx_.path, launch.getLoc());
  const syntax::ParsedSource* doc = eval_->docOf(ctx_.path);
  if (!call || !doc)
    return v;
  Scope scope = eval_->scopeAt(ctx_.path, *call);
  std::string callee = eval_->qualifiedName(field(*call, "function"), scope);
  if (callee != apiName(Api::PallasCall) && callee != apiName(Api::GpuKernel))
    return v; // functools.partial / decorator forms: operands not in place
  Evaluator::Args a = Evaluator::argsOf(*call, *doc);
  auto kw = [&](const std::string& k) -> std::optional<Value> {
    TSNode n = a.get(SIZE_MAX, k);
    if (isNull(n))
      return std::nullopt;
    return eval_->eval(n, scope);
  };
  // The kernel body and its parameters.
  detail::FunctionRef body = ctx_.workspace.resolveLaunchBody(ctx_.path, launch);
  size_t numParams = 0;
  if (body) {
    v.body = body.func;
    v.bodyPath = body.path;
    numParams = body.func.getArgNames().size();
    // The parameters the Refs bind to, as Python binds the kernel's call
    // (keyword-only ones and those functools.partial binds take none).
    const syntax::ParsedSource* defDoc = eval_->docOf(body.path);
    TSNode def = defNodeAt(*eval_, body.path, body.func->getLoc());
    if (defDoc && !isNull(def)) {
      TSNode bodyArgument = a.positional.empty() ? TSNode{} : a.positional[0];
      std::vector<std::string> refs =
          refParameters(*defDoc, def, doc, partialCallOf(*eval_, bodyArgument, scope));
      if (std::any_of(refs.begin(), refs.end(), [](const std::string& n) { return n[0] == '*'; }))
        return v; // a star parameter takes however many there are
      numParams = refs.size();
    }
  } else if (launch.getBodyValue()) {
    if (auto clo = launch.getBodyValue().getDefiningOp<pd::ClosureOp>()) {
      v.body = clo;
      v.bodyPath = ctx_.path;
      numParams = clo.getArgNames().size();
    }
  }
  if (!v.body)
    return v;
  // Lowering semantics: CompilerParams(lowering_semantics=...) or the default.
  v.loweringSemantics = "";
  Value params =
      kw("compiler_params").value_or(Value::object(std::string(apiName(Api::CompilerParams))));
  if (params.isObject(apiName(Api::CompilerParams))) {
    auto it = params.fields.find("lowering_semantics");
    if (it == params.fields.end())
      v.loweringSemantics = "default";
    else if (it->second.kind == Value::Kind::Object || it->second.kind == Value::Kind::Str)
      v.loweringSemantics = it->second.s.find("Warpgroup") != std::string::npos ? "Warpgroup"
                            : it->second.s.find("Lane") != std::string::npos    ? "Lane"
                                                                                : "";
  }
  // Operands: the in-place call's arguments, then out_shape; scratch last.
  std::vector<Value> ins;
  // Its parent, found from the document's top-level statement down
  // (ts_node_parent walks from the root: per launch, quadratic in a file of
  // many launches).
  std::vector<TSNode> chain = eval_->path(doc, *call);
  TSNode parent = chain.size() >= 2 ? chain[chain.size() - 2] : TSNode{};
  bool inPlace = is(parent, "call") && ts_node_eq(field(parent, "function"), *call);
  bool insKnown = false;
  if (inPlace) {
    Evaluator::Args pa = Evaluator::argsOf(parent, *doc);
    if (!pa.splat && pa.keywords.empty()) {
      insKnown = true;
      for (TSNode n : pa.positional)
        ins.push_back(eval_->eval(n, scope));
    }
  } else if (auto kb = knowledgeFor(ctx_.options)) {
    // Built here, run elsewhere (returned, wrapped in jax.jit, called by a
    // caller in another file): the operands the evaluator saw it run with.
    if (std::optional<std::vector<Value>> ran = evaluatedOperands(ctx_, *kb, ctx_.path, v.at)) {
      insKnown = true;
      ins = std::move(*ran);
    }
  }
  Value outShape = kw("out_shape").value_or(kw("out_type").value_or(Value::unknown("out_shape")));
  if (!outShape.known())
    return v;
  std::vector<Value> outs =
      outShape.kind == Value::Kind::Seq ? outShape.items : std::vector<Value>{outShape};
  Value scratch = kw("scratch_shapes").value_or(kw("scratch_types").value_or(Value::seq({})));
  if (scratch.kind != Value::Kind::Seq)
    return v;
  size_t nScratch = scratch.items.size();
  if (numParams < nScratch + outs.size())
    return v;
  size_t nOperands = numParams - nScratch;
  size_t nIns = nOperands - outs.size();
  if (insKnown && ins.size() != nIns)
    return v; // not the call the kernel's signature says
  std::optional<Value> inSpecs, outSpecs;
  if (v.pallasCall) {
    if (kw("grid_spec"))
      return v;
    auto specsFor = [&](const char* key, size_t count) -> std::optional<Value> {
      std::optional<Value> s = kw(key);
      if (!s)
        return Value::seq(std::vector<Value>(count, defaultSpec()));
      if (s->kind == Value::Kind::Seq && s->items.size() == count)
        return s;
      if (s->isObject(kBlockSpecObject) && count == 1)
        return Value::seq({*s});
      return std::nullopt;
    };
    inSpecs = specsFor("in_specs", nIns);
    outSpecs = specsFor("out_specs", outs.size());
  }
  for (size_t k = 0; k < numParams; ++k) {
    Param p;
    if (k < nIns) {
      p.kind = Param::Kind::Input;
      p.array = insKnown ? ins[k] : Value::unknown("input operand");
      p.spec = inSpecs ? inSpecs->items[k] : Value::unknown("in_specs");
    } else if (k < nOperands) {
      p.kind = Param::Kind::Output;
      p.array = outs[k - nIns];
      p.spec = outSpecs ? outSpecs->items[k - nIns] : Value::unknown("out_specs");
    } else {
      p.kind = Param::Kind::Scratch;
      p.array = scratch.items[k - nOperands];
    }
    v.params.push_back(std::move(p));
  }
  v.ok = true;
  return v;
}

// ---- refs ------------------------------------------------------------------------------

namespace {

// The block a kernel parameter's Ref has: the BlockSpec's block_shape (None:
// the whole array), or the allocation's shape.
void describeParam(const Param& p, RefInfo& r) {
  r.kind = p.kind;
  if (p.kind == Param::Kind::Scratch) {
    r.shape = p.array.field("shape");
    r.dtype = p.array.field("dtype");
    r.holder = p.array;
    return;
  }
  r.array = p.array;
  r.dtype = p.array.field("dtype");
  r.holder = p.spec;
  Value block =
      p.spec.isObject(kBlockSpecObject) ? p.spec.field("block_shape") : Value::unknown("spec");
  r.shape = block.kind == Value::Kind::None ? p.array.field("shape") : block;
}

} // namespace

RefInfo LaunchView::ref(Session& s, mlir::Value value) const {
  RefInfo r;
  for (unsigned guard = 0; guard < 32 && value; ++guard) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      mlir::Operation* owner = arg.getOwner()->getParentOp();
      unsigned index = arg.getArgNumber();
      if (owner == body) {
        if (index >= params.size())
          return r;
        describeParam(params[index], r);
        r.param = static_cast<int>(index);
        r.known = true;
        return r;
      }
      if (auto scope = llvm::dyn_cast<pd::ScopeOp>(owner);
          scope && scope.getApi() == apiText(Api::EmitPipeline) && index >= 1) {
        // A pipeline's buffer: its spec's block, in SMEM, with the dtype of
        // the operand the pipeline is called with in that place.
        const std::vector<Value>& specs = s.pipelineSpecs(scope, bodyPath);
        if (index - 1 >= specs.size() || !specs[index - 1].isObject(kBlockSpecObject))
          return r;
        const Value& spec = specs[index - 1];
        for (mlir::Operation* user : scope->getResult(0).getUsers())
          if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(user);
              ci && ci.getCallee() == scope->getResult(0) && index - 1 < ci.getArgs().size()) {
            RefInfo operand = ref(s, ci.getArgs()[index - 1]);
            if (!operand.known)
              return r;
            r.holder = spec;
            r.shape = spec.field("block_shape");
            r.dtype = operand.dtype;
            r.kind = Param::Kind::Scratch;
            r.known = true;
            return r;
          }
        return r;
      }
      if (auto scope = llvm::dyn_cast<pd::ScopeOp>(owner)) {
        if (scope.getApi() != apiText(Api::RunScoped))
          return r;
        std::string p = bodyPath;
        std::vector<Value> allocs = s.runScopedAllocations(scope, p);
        if (index >= allocs.size())
          return r;
        r.holder = allocs[index];
        r.shape = r.holder.field("shape");
        r.dtype = r.holder.field("dtype");
        r.kind = Param::Kind::Scratch;
        r.known = true;
        return r;
      }
      if (auto clo = llvm::dyn_cast<pd::ClosureOp>(owner)) {
        // A closure's parameter: the one call of it that hands it a value
        // (run_scoped's body is called with the allocations).
        mlir::Value passed;
        unsigned calls = 0;
        for (mlir::Operation* user : clo.getResult().getUsers())
          if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(user);
              ci && ci.getCallee() == clo.getResult()) {
            ++calls;
            if (index < ci.getArgs().size())
              passed = ci.getArgs()[index];
          }
        if (calls != 1 || !passed)
          return r;
        value = passed;
        continue;
      }
      return r;
    }
    mlir::Operation* def = value.getDefiningOp();
    auto prim = llvm::dyn_cast_or_null<pd::PrimOp>(def);
    if (!prim || prim.getArgs().empty())
      return r;
    llvm::StringRef api = prim.getApi();
    if (api == apiText(Api::TransposeRef) || api == apiText(Api::RefT) ||
        api == apiText(Api::RefTranspose)) {
      r.transposed = !r.transposed;
    } else if (api == apiText(Api::RefAt)) {
      r.sliced = true;
    } else {
      return r; // not a Ref view, or a view whose shape this does not follow
    }
    value = prim.getArgs()[0];
  }
  return r;
}

Candidate LaunchView::finding(RuleId code, const SourceLocation& where, const std::string& what,
                              const Rule& rule, const std::string& firstLine,
                              const std::string& advice, int stage) const {
  Candidate c;
  Finding& f = c.finding;
  f.code = ruleCode(code);
  f.severity = compiledCertain ? Severity::Error : Severity::Warning;
  f.location = where;
  f.subject = what;
  f.executionPath = pathLabel(ExecPath::Compiled);
  f.launch = at;
  f.jaxVersion = jaxVersion;
  f.jaxException = rule.exception;
  f.jaxErrorFirstLine = firstLine.substr(0, firstLine.find('\n'));
  std::string raise = "will raise " + f.jaxException +
                      (f.jaxErrorFirstLine.empty() ? "" : ": " + f.jaxErrorFirstLine);
  f.message =
      what + ". " + (compiledCertain ? "" : "If the launch runs compiled, ") + "JAX " + jaxVersion +
      " " + raise +
      (stage == 0 ? " while it traces the launch. " : " when it lowers the kernel for the GPU. ") +
      advice;
  f.related.push_back({at, "the launch"});
  c.stage = stage;
  c.line = where.range.start.line;
  c.column = where.range.start.column;
  return c;
}

// ---- the kernel walk ---------------------------------------------------------------------

namespace {

using Visit = std::function<void(mlir::Operation*, const std::string&, unsigned)>;

struct Walker {
  Session& s;
  const Visit& visit;
  std::set<mlir::Operation*> active;
  unsigned order = 0;

  void region(mlir::Region& r, const std::string& path, int depth) {
    if (depth > 32)
      return;
    for (mlir::Block& block : r)
      for (mlir::Operation& op : block)
        this->op(&op, path, depth);
  }
  void enter(mlir::Operation* fn, mlir::Region& body, const std::string& path, int depth) {
    if (active.count(fn))
      return;
    active.insert(fn);
    region(body, path, depth + 1);
    active.erase(fn);
  }
  void op(mlir::Operation* o, const std::string& path, int depth) {
    if (auto ifOp = llvm::dyn_cast<pd::IfOp>(o)) {
      auto sc = ifOp.getStaticCond();
      if (!sc || *sc)
        region(ifOp.getThenRegion(), path, depth + 1);
      if (!sc || !*sc)
        region(ifOp.getElseRegion(), path, depth + 1);
      return;
    }
    if (llvm::isa<pd::ClosureOp>(o))
      return; // a definition: its body runs where it is called
    visit(o, path, order++);
    if (auto call = llvm::dyn_cast<pd::CallOp>(o)) {
      detail::FunctionRef f = s.ctx().workspace.resolveCall(path, call);
      if (f)
        enter(f.func, f.func.getBody(), f.path, depth);
      return;
    }
    if (auto ci = llvm::dyn_cast<pd::CallIndirectOp>(o)) {
      if (auto clo = ci.getCallee().getDefiningOp<pd::ClosureOp>())
        enter(clo, clo.getBody(), path, depth);
      return;
    }
    for (mlir::Region& r : o->getRegions())
      region(r, path, depth + 1);
  }
};

} // namespace

void walkKernel(Session& s, const LaunchView& v, const Visit& visit) {
  if (!v.body)
    return;
  Walker w{s, visit, {v.body}, 0};
  w.region(v.body->getRegions().back(), v.bodyPath, 0);
}

} // namespace pallas::analysis::passes::mosaic
