// Launch wrappers (docs/analysis.md, "Launch wrappers"): a call of a method
// that forwards its `*args` / `**kwargs` to a launch API is that launch,
// written at the call. JAX's own tests launch almost every kernel so
// (`self.kernel(...)`, `self.pallas_call(...)` of a base TestCase class).
#include "Lowerer.h"
#include "NamesInternal.h"

namespace pallas::analysis::lower {

namespace {

// The class definition `name` at module level of `doc` (decorated or not).
TSNode classNamed(const syntax::ParsedSource& doc, const std::string& name) {
  for (TSNode s : syntax::namedChildren(doc.root())) {
    TSNode def = is(s, "decorated_definition") ? field(s, "definition") : s;
    if (is(def, "class_definition") && doc.textOf(field(def, "name")) == name)
      return def;
  }
  return TSNode{};
}

// The method `name` written in the body of class `cls` (the last one wins).
TSNode methodNamed(const syntax::ParsedSource& doc, TSNode cls, const std::string& name) {
  TSNode out{};
  for (TSNode m : syntax::namedChildren(field(cls, "body")))
    if (is(m, "function_definition") && doc.textOf(field(m, "name")) == name)
      out = m;
  return out;
}

// Keywords a wrapper puts into its own `**kwargs` before forwarding them
// (`kwargs.setdefault("k", v)`, `kwargs["k"] = v`, also under an `if`), and
// the names its body imports (`from jax.experimental.pallas import triton as
// pltriton`), which the values may use.
void wrapperBodyKeywords(const syntax::ParsedSource& doc, TSNode block, const std::string& kwargs,
                         std::vector<std::pair<std::string, TSNode>>& out,
                         std::map<std::string, std::string>& imports, unsigned depth = 0) {
  if (depth > 4)
    return;
  auto unquote = [&](TSNode str) -> std::string {
    std::string t(doc.textOf(str));
    return t.size() >= 2 && (t[0] == '"' || t[0] == '\'') ? t.substr(1, t.size() - 2) : "";
  };
  for (TSNode st : syntax::namedChildren(block)) {
    if (is(st, "if_statement") || is(st, "else_clause") || is(st, "elif_clause") ||
        is(st, "block") || is(st, "try_statement") || is(st, "with_statement")) {
      wrapperBodyKeywords(doc, st, kwargs, out, imports, depth + 1);
      continue;
    }
    if (is(st, "import_from_statement")) {
      TSNode mod = field(st, "module_name");
      if (!is(mod, "dotted_name"))
        continue;
      for (TSNode c : syntax::namedChildren(st)) {
        if (ts_node_eq(c, mod))
          continue;
        if (is(c, "aliased_import"))
          imports[std::string(doc.textOf(field(c, "alias")))] =
              std::string(doc.textOf(mod)) + "." + std::string(doc.textOf(field(c, "name")));
        else if (is(c, "dotted_name"))
          imports[std::string(doc.textOf(c))] =
              std::string(doc.textOf(mod)) + "." + std::string(doc.textOf(c));
      }
      continue;
    }
    if (!is(st, "expression_statement"))
      continue;
    TSNode e = ts_node_named_child(st, 0);
    if (is(e, "assignment")) {
      TSNode left = field(e, "left");
      if (is(left, "subscript") && doc.textOf(field(left, "value")) == kwargs) {
        TSNode key = field(left, "subscript");
        if (is(key, "string") && !unquote(key).empty())
          out.emplace_back(unquote(key), field(e, "right"));
      }
    } else if (is(e, "call")) {
      TSNode callee = field(e, "function");
      TSNode args = field(e, "arguments");
      if (is(callee, "attribute") && doc.textOf(field(callee, "object")) == kwargs &&
          doc.textOf(field(callee, "attribute")) == "setdefault" && !isNull(args) &&
          ts_node_named_child_count(args) == 2 && is(ts_node_named_child(args, 0), "string"))
        out.emplace_back(unquote(ts_node_named_child(args, 0)), ts_node_named_child(args, 1));
    }
  }
}

// The backend a params object written in the wrapper names through one of
// its own imports (`pltriton.CompilerParams()`): "" when it does not.
std::string backendThroughImport(const syntax::ParsedSource& doc, TSNode v,
                                 const std::map<std::string, std::string>& imports) {
  if (!is(v, "call"))
    return {};
  std::string dotted = names::dottedName(field(v, "function"), doc);
  auto it = imports.find(dotted.substr(0, dotted.find('.')));
  if (it == imports.end() || !names::isJaxName(it->second))
    return {};
  std::string api = names::canonicalApi(it->second + dotted.substr(it->first.size()));
  llvm::StringRef a(api);
  if (a.starts_with("pl.triton.") || a.starts_with("jax._src.pallas.triton."))
    return "triton";
  if (a.starts_with("pl.tpu.") || a.starts_with("jax._src.pallas.mosaic."))
    return "mosaic_tpu";
  return {};
}

// The keywords a forwarding def adds to its launch: those written in the
// forwarding call, then those its body puts into its **kwargs (and the
// backend a params object among them names). `imports`: the def's own.
void addForwardedKeywords(const syntax::ParsedSource& doc, TSNode def, TSNode call,
                          LaunchWrapper& out, std::map<std::string, std::string>& imports) {
  for (TSNode a : syntax::namedChildren(field(call, "arguments")))
    if (is(a, "keyword_argument"))
      out.keywords.emplace_back(std::string(doc.textOf(field(a, "name"))), field(a, "value"));
  std::string starKwargs;
  for (TSNode p : syntax::namedChildren(field(def, "parameters")))
    if (is(p, "dictionary_splat_pattern") && ts_node_named_child_count(p) == 1)
      starKwargs = std::string(doc.textOf(ts_node_named_child(p, 0)));
  std::vector<std::pair<std::string, TSNode>> added;
  wrapperBodyKeywords(doc, field(def, "body"), starKwargs, added, imports);
  for (auto& [k, v] : added) {
    if (std::string b = backendThroughImport(doc, v, imports); !b.empty() && out.backend.empty())
      out.backend = b;
    out.keywords.emplace_back(k, v);
  }
}

} // namespace

namespace {

// `dataclasses.field(default=V)` / `field(default_factory=lambda: V)`: V,
// what the field holds when the constructor leaves it out.
TSNode fieldDefault(TSNode value, const syntax::ParsedSource& doc, const names::Globals& globals) {
  if (!is(value, "call") ||
      names::importedName(field(value, "function"), doc, globals) != "dataclasses.field")
    return value;
  for (TSNode a : syntax::namedChildren(field(value, "arguments"))) {
    if (!is(a, "keyword_argument"))
      continue;
    TSNode v = field(a, "value");
    std::string_view k = doc.textOf(field(a, "name"));
    if (k == "default")
      return v;
    if (k == "default_factory" && is(v, "lambda") && isNull(field(v, "parameters")))
      return field(v, "body");
  }
  return TSNode{};
}

// Whether the document passes `attr=` as a keyword anywhere (a dataclass's
// constructor given another value for the field): then the default is not
// what every instance holds.
bool passedAsKeyword(const syntax::ParsedSource& doc, const std::string& attr) {
  std::string_view text = doc.text();
  std::string needle = attr + "=";
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + 1)) {
    bool startsName = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) ||
                                   text[at - 1] == '_' || text[at - 1] == '.');
    bool comparison = at + needle.size() < text.size() && text[at + needle.size()] == '=';
    if (startsName && !comparison)
      return true;
  }
  return false;
}

} // namespace

// `self.attr` / `Cls.attr` where class Cls (of this document) holds a
// `functools.partial(<launch API>, ...)` in attr: a class attribute (also a
// dataclass field's default), or what `__init__` alone stores in
// `self.attr`. nullopt when the class binds attr otherwise, another method
// rebinds it, or a constructor may pass another value.
namespace {

// What class C stores in each of its attributes: the class body's
// `attr = V` and every method's `self.attr = V` (not in nested defs or
// classes), counted, with V kept when it holds for every instance (the
// class body's, or __init__'s).
struct AttributeStores {
  unsigned stores = 0;
  TSNode value{};
  bool classBody = false; // V is a class-body value (a dataclass field's default)
};
using ClassStores = std::unordered_map<std::string, AttributeStores>;

ClassStores scanClassStores(TSNode clsDef, const syntax::ParsedSource& doc) {
  ClassStores out;
  auto text = [&](TSNode n) { return std::string(doc.textOf(n)); };
  for (TSNode st : syntax::namedChildren(field(clsDef, "body"))) {
    if (is(st, "expression_statement") && ts_node_named_child_count(st) == 1) {
      TSNode a = ts_node_named_child(st, 0);
      if (is(a, "assignment") && is(field(a, "left"), "identifier")) {
        AttributeStores& s = out[text(field(a, "left"))];
        s = {s.stores + 1, field(a, "right"), true};
      }
      continue;
    }
    if (!is(st, "function_definition"))
      continue;
    TSNode params = field(st, "parameters");
    TSNode self = isNull(params) || ts_node_named_child_count(params) == 0
                      ? TSNode{}
                      : ts_node_named_child(params, 0);
    if (!is(self, "identifier"))
      continue;
    std::string selfName = text(self);
    bool init = text(field(st, "name")) == "__init__";
    syntax::anyNode(
        field(st, "body"),
        [&](TSNode n) {
          TSNode left = is(n, "assignment") ? field(n, "left") : TSNode{};
          if (is(left, "attribute") && is(field(left, "object"), "identifier") &&
              text(field(left, "object")) == selfName) {
            AttributeStores& s = out[text(field(left, "attribute"))];
            s = {s.stores + 1, init ? field(n, "right") : TSNode{}, false};
          }
          return false;
        },
        [](TSNode n) { return is(n, "function_definition") || is(n, "class_definition"); });
  }
  return out;
}

// One scan per class and tree: every `self.x` of every method asks, and
// JAX's test classes hold hundreds of methods. Per thread (check runs one
// Project per thread), keyed by the tree's revision, which no other tree
// ever has.
std::shared_ptr<const ClassStores> classStoresOf(TSNode clsDef, const syntax::ParsedSource& doc) {
  using Key = std::pair<uint64_t, uint32_t>;
  thread_local std::vector<std::pair<Key, std::shared_ptr<const ClassStores>>> recent;
  Key key{doc.revision(), ts_node_start_byte(clsDef)};
  for (auto& [k, table] : recent)
    if (k == key)
      return table;
  constexpr size_t kKept = 64; // classes a unit's methods read at once
  if (recent.size() == kKept)
    recent.erase(recent.begin());
  recent.emplace_back(key, std::make_shared<const ClassStores>(scanClassStores(clsDef, doc)));
  return recent.back().second;
}

} // namespace

std::optional<Binding> Lowerer::classAttributePartial(const std::string& cls,
                                                      const std::string& attr) {
  TSNode clsDef = classNamed(doc_, cls);
  if (isNull(clsDef))
    return std::nullopt;
  std::shared_ptr<const ClassStores> stores = classStoresOf(clsDef, doc_);
  auto it = stores->find(attr);
  if (it == stores->end() || it->second.stores != 1 || isNull(it->second.value))
    return std::nullopt;
  TSNode value =
      it->second.classBody ? fieldDefault(it->second.value, doc_, globals_) : it->second.value;
  if (isNull(value))
    return std::nullopt;
  // Read the whole text for `attr=` only for an attribute that holds a
  // partial: every `self.x` of a method asks here.
  std::optional<Binding> partial = names::launchPartial(value, doc_, globals_);
  if (!partial || passedAsKeyword(doc_, attr))
    return std::nullopt;
  return partial;
}

// `self.m` in a method of class C (or in a closure inside one) where m is a
// launch wrapper of C or of a base class of this file: the launch API it
// reaches and the keywords each forwarding call adds, outermost first.
std::optional<LaunchWrapper> Lowerer::launchWrapperOf(TSNode callee) {
  if (is(callee, "identifier"))
    return functionWrapperOf(callee);
  if (!is(callee, "attribute") || className_.empty() || !selfValue_)
    return std::nullopt;
  TSNode object = field(callee, "object");
  if (!is(object, "identifier"))
    return std::nullopt;
  const Var* self = findLocal(text(object));
  if (!self || self->value != selfValue_)
    return std::nullopt;
  // The class binding carries its wrappers; looking it up records the
  // dependency (a wrapper edited elsewhere in the file re-lowers this unit).
  std::optional<Binding> cls = findGlobal(className_);
  if (!cls || cls->kind != Binding::Kind::Class)
    return std::nullopt;
  std::string method = text(field(callee, "attribute"));
  auto found = cls->launchWrappers.find(method);
  if (found == cls->launchWrappers.end())
    return std::nullopt;
  LaunchWrapper out;
  out.method = method;
  std::string definer = found->second;
  // Follow `self.m(...)` / `super().m(...)` chains to the launch API.
  for (unsigned depth = 0; depth < 8; ++depth) {
    if (definer.starts_with("@")) {
      // Defined in a base class of another file: its portable summary.
      auto p = cls->portableWrappers.find(method);
      if (p == cls->portableWrappers.end())
        return std::nullopt;
      size_t nl = p->second.find('\n');
      out.api = p->second.substr(0, nl);
      if (nl != std::string::npos && nl + 1 < p->second.size())
        out.foreignInterpret = names::evalFromText(p->second.substr(nl + 1));
      return out;
    }
    TSNode clsDef = classNamed(doc_, definer);
    TSNode def = isNull(clsDef) ? TSNode{} : methodNamed(doc_, clsDef, method);
    if (isNull(def))
      return std::nullopt;
    // The bases of the defining class, for `super().m`.
    std::map<std::string, std::string> inherited;
    for (TSNode base : syntax::namedChildren(field(clsDef, "superclasses")))
      if (is(base, "identifier"))
        if (const Binding* b = globals_.find(text(base)); b && b->kind == Binding::Kind::Class)
          for (auto& [m, c] : b->launchWrappers)
            inherited.emplace(m, c); // the leftmost base first
    auto isWrapper = [&](const std::string& inner, bool viaSuper) {
      return (viaSuper ? inherited : cls->launchWrappers).count(inner) > 0;
    };
    auto call = names::launchWrapperCall(def, doc_, globals_, isWrapper);
    if (!call)
      return std::nullopt;
    if (!out.takesKernel)
      if (auto k = names::kernelTakingWrapperCall(def, doc_, globals_, isWrapper))
        out.takesKernel = k->second;
    // Its keywords, and what the body puts into its **kwargs before forwarding them.
    std::map<std::string, std::string> imports;
    addForwardedKeywords(doc_, def, call->call, out, imports);
    if (!call->api.empty()) {
      out.api = call->api;
      return out;
    }
    method = call->inner;
    definer = call->viaSuper ? inherited[method] : cls->launchWrappers[method];
  }
  return std::nullopt;
}

// `f(...)` with f a module-level function of this file that forwards its
// `*args` / `**kwargs` to a launch API (8.47): that launch, written at the
// call, as for a wrapper method. Its own keywords (in the forwarding call
// or put into its **kwargs) must not read its parameters or locals: their
// values are not known at the call, so such a function is not followed.
std::optional<LaunchWrapper> Lowerer::functionWrapperOf(TSNode callee) {
  std::string name = text(callee);
  if (findLocal(name))
    return std::nullopt;
  std::optional<Binding> b = findGlobal(name); // records the dependency
  if (!b || b->kind != Binding::Kind::Function || !b->file.empty() || b->wrapsLaunch.empty())
    return std::nullopt;
  TSNode def{};
  for (TSNode s : syntax::namedChildren(doc_.root()))
    if (is(s, "function_definition") && text(field(s, "name")) == name)
      def = s;
  if (isNull(def))
    return std::nullopt;
  auto call = names::launchWrapperCall(def, doc_, globals_, nullptr);
  if (!call || call->api.empty())
    return std::nullopt;
  LaunchWrapper out;
  out.method = name;
  out.api = call->api;
  std::map<std::string, std::string> imports;
  addForwardedKeywords(doc_, def, call->call, out, imports);
  for (auto& [k, v] : out.keywords)
    if (syntax::anyNode(
            v,
            [&](TSNode n) {
              return is(n, "identifier") && !imports.count(text(n)) &&
                     names::boundInDef(def, text(n), doc_);
            },
            [](TSNode) { return false; }))
      return std::nullopt;
  return out;
}

// What the wrapper's own keywords select: they are written in the wrapper's
// body, whose locals are not known here, so only what they show by
// themselves is used (a literal interpret=, a backend's params object).
void Lowerer::applyWrapperKeywords(const LaunchWrapper& w, LaunchKeywords& kw,
                                   std::optional<names::InterpretEval>& interpret,
                                   bool& scratchUnknown) {
  if (kw.backend.empty())
    kw.backend = w.backend;
  if (w.foreignInterpret)
    interpret = w.foreignInterpret;
  for (auto& [k, v] : w.keywords) {
    // A parameter of a kernel-taking wrapper is the caller's value, read from
    // the caller's own keywords (`out_type=out_shape`, `scratch_types=scratch_shapes`).
    if (w.takesKernel && is(v, "identifier") && llvm::is_contained(w.takesKernel->params, text(v)))
      continue;
    if (k == "interpret") {
      names::InterpretEval e = names::evaluateInterpret(v, doc_, globals_, nullptr);
      e.source = e.paths.size() == 1 && e.paths[0] == pd::path::kUnknown ? "unknown" : e.source;
      interpret = e;
    }
    if (k == "compiler_params" || k == "backend" || k == "mesh" || k == "interpret") {
      if (kw.backend.empty() && !is(v, "identifier"))
        kw.backend = backendOf(v);
    }
    kw.compilerParams |= k == "compiler_params";
    kw.wrapperCompilerParams |= k == "compiler_params";
    scratchUnknown |= k == "scratch_shapes" || k == "scratch_types";
    if (k == "num_threads")
      kw.threads = v;
    if (k == "thread_name")
      kw.threadName = v;
  }
}

} // namespace pallas::analysis::lower

namespace pallas::analysis::lower {

// A kernel-taking wrapper that runs the caller's kernel in a pipeline
// (`PallasTest.pallas_call`): the launch's body is
//   closure(<gmem refs>..., <scratch refs>...):
//     pipeline = emit_pipeline scope(indices, <buffers>...): kernel(<buffers>..., <scratch>...)
//     pipeline(<gmem refs>...)
// so the walk binds the pipeline's copies on the launch's Refs and judges the
// caller's kernel on the pipeline's buffers, as JAX runs it. The kernel's own
// parameters say how many Refs it takes; the last len(scratch) are scratch.
CallableRef Lowerer::wrappedKernel(TSNode site, const LaunchWrapper& w, const CallableRef& kernel,
                                   const std::optional<std::vector<std::string>>& scratch) {
  if (!w.takesKernel || w.takesKernel->pipelineApi.empty())
    return kernel;
  TSNode def = kernel.def;
  if (isNull(def) && kernel.value)
    if (ValInfo* vi = infoOf(kernel.value))
      def = vi->closureDef;
  if (isNull(def) && !kernel.symbol.empty() && kernel.file.empty())
    for (TSNode s : syntax::namedChildren(doc_.root())) {
      TSNode d = is(s, "decorated_definition") ? field(s, "definition") : s;
      if (is(d, "function_definition") && text(field(d, "name")) == kernel.symbol)
        def = d;
    }
  if (isNull(def))
    return kernel; // its Refs are not known: judged as written
  CallableRef callee = kernel;
  if (callee.symbol.empty() && !callee.value)
    callee.value = closure(def);
  size_t n = paramNames(def).size();
  size_t nScratch = scratch ? std::min(scratch->size(), n) : 0;
  size_t nGmem = n - nScratch;

  std::vector<std::string> argNames;
  argNames.reserve(n);
  for (size_t i = 0; i < n; ++i)
    argNames.push_back(i < nGmem ? "gmem" + std::to_string(i)
                                 : "scratch" + std::to_string(i - nGmem));
  auto op = pd::ClosureOp::create(b_, loc(site), valueTy_, "<" + w.method + ">",
                                  pd::ClosureKind::Def, strArray(argNames));
  mlir::Block* block = new mlir::Block();
  op.getBody().push_back(block);
  for (size_t i = 0; i < n; ++i)
    block->addArgument(valueTy_, loc(site));
  inRegion(block, [&] {
    for (unsigned i = 0; i < n; ++i)
      info_[block->getArgument(i)].prov = Prov{pd::origin::kArg, static_cast<int>(i)};
    std::vector<std::string> blockOrigins(1 + nGmem, pd::origin::kPipeline);
    blockOrigins[0] = pd::origin::kValue;
    mlir::ArrayAttr noOrigins;
    mlir::DenseI64ArrayAttr noIndices;
    operandInfo({}, noOrigins, noIndices);
    auto pipe = pd::ScopeOp::create(
        b_, loc(site), valueTy_, w.takesKernel->pipelineApi, mlir::ValueRange{}, strArray({}),
        noOrigins, noIndices, originArray(blockOrigins), mlir::ArrayAttr(), mlir::StringAttr());
    mlir::Block* body = new mlir::Block();
    pipe.getBody().push_back(body);
    for (const std::string& o : blockOrigins)
      body->addArgument(o == pd::origin::kValue ? valueTy_ : refTy_, loc(site));
    inRegion(body, [&] {
      info_[body->getArgument(0)].prov = Prov{pd::origin::kValue, -1};
      llvm::SmallVector<mlir::Value> args;
      for (unsigned i = 1; i < body->getNumArguments(); ++i) {
        info_[body->getArgument(i)].prov = Prov{pd::origin::kPipeline, -1};
        args.push_back(body->getArgument(i));
      }
      for (size_t i = nGmem; i < n; ++i)
        args.push_back(block->getArgument(i));
      mlir::ArrayAttr o;
      mlir::DenseI64ArrayAttr idx;
      operandInfo(args, o, idx);
      std::vector<std::string> kws(args.size(), "");
      if (!callee.symbol.empty())
        pd::CallOp::create(b_, loc(site), valueTy_, callee.symbol, mlir::StringAttr(), args,
                           strArray(kws), o, idx);
      else
        pd::CallIndirectOp::create(b_, loc(site), valueTy_, callee.value, args, strArray(kws), o,
                                   idx);
    });
    // The pipeline runs on the launch's GMEM Refs.
    llvm::SmallVector<mlir::Value> gmem;
    for (size_t i = 0; i < nGmem; ++i)
      gmem.push_back(block->getArgument(i));
    mlir::ArrayAttr o;
    mlir::DenseI64ArrayAttr idx;
    operandInfo(gmem, o, idx);
    std::vector<std::string> kws(gmem.size(), "");
    // Located where the wrapper runs its pipeline (JAX blames that call).
    TSNode run = w.takesKernel->pipelineRun;
    pd::CallIndirectOp::create(b_, loc(isNull(run) ? site : run), valueTy_, pipe.getResult(), gmem,
                               strArray(kws), o, idx);
  });
  CallableRef out;
  out.value = op.getResult();
  out.text = kernel.text;
  return out;
}

} // namespace pallas::analysis::lower
