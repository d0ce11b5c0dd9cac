#include "EvalLaunches.h"

#include "LaunchCache.h"
#include "PallasOverlayState.h"
#include "mlir/IR/BuiltinOps.h"
#include "pallas/eval/Interpreter.h"
#include "pallas/py/Dialect.h"
#include "pallas/support/LineIndex.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

bool evaluatorEngine() {
  const char* e = std::getenv("PALLAS_LSP_ENGINE");
  return !(e && std::string(e) == "walk");
}

namespace {

// The evaluator's view of the workspace.
class WorkspaceSource final : public eval::ModuleSource {
public:
  explicit WorkspaceSource(const detail::Workspace& ws) : ws_(ws) {}
  mlir::ModuleOp pyModule(const std::string& path) override { return ws_.pyModule(path); }
  std::optional<std::string> resolveImport(const std::string& importer, const std::string& module,
                                           int level) override {
    return ws_.moduleFile(module, level, importer);
  }
  std::string moduleName(const std::string& path) override {
    std::filesystem::path p(path);
    if (p.stem() == "__init__")
      return p.parent_path().filename().string();
    return p.stem().string();
  }

private:
  const detail::Workspace& ws_;
};

} // namespace

struct Evaluation {
  std::unique_ptr<WorkspaceSource> source;
  std::unique_ptr<eval::Interpreter> interpreter;
  std::vector<LaunchRecord> launches;
  // Launches of other documents this one's run reached (a caller's run of a
  // helper's launch), kept for those documents' checks.
  std::vector<LaunchRecord> elsewhere;
  // This document's launches as other documents' runs reach them (their
  // callers pass their own arguments), found on first use.
  bool callersRead = false;
  std::vector<const LaunchRecord*> fromCallers;
  std::vector<std::string> callerDocs; // the documents whose runs those are
  // What each expression evaluated to, as the resource checks' shape values
  // (the same every time it ran; else not known), by its source range.
  // (By op while the program runs, which is cheap; by source range on the
  // first question, rangeKey.)
  llvm::DenseMap<mlir::Operation*, std::optional<shape::Value>> shapes;
  std::unordered_map<std::string, mlir::Operation*> shapeAt;
  bool shapesIndexed = false;
  // What the checks' views point into, kept for the run.
  std::deque<CallContext> contexts;
  std::deque<GlobalMode> modes;
};

namespace {

// Each document's line index, made on first use: the overlay asks for the
// written text of ops many times per run, and scanning from the top of a
// 10k-line file for each was a tenth of an edit's CPU.
class WrittenSources {
public:
  explicit WrittenSources(const detail::Workspace& ws) : ws_(ws) {}

  const support::LineIndex* linesOf(const std::string& path) {
    auto it = lines_.find(path);
    if (it == lines_.end()) {
      std::optional<std::string_view> text = ws_.textOf(path);
      it = lines_.try_emplace(path, text ? std::optional<support::LineIndex>(*text) : std::nullopt)
               .first;
    }
    return it->second ? &*it->second : nullptr;
  }
  // The offset of a location's 1-based (line, column) (column 0 reads as 1).
  static std::optional<size_t> offset(const support::LineIndex& lines, unsigned line,
                                      unsigned column) {
    return line ? lines.offset(line - 1, column ? column - 1 : 0) : std::nullopt;
  }

private:
  const detail::Workspace& ws_;
  std::unordered_map<std::string, std::optional<support::LineIndex>> lines_;
};

// The evaluations of one pass run, by document, and which documents import
// each document (importersOf).
struct Evaluations : std::map<std::string, std::unique_ptr<Evaluation>> {
  explicit Evaluations(const detail::Workspace& ws) : written(ws) {}
  std::map<std::string, std::vector<std::string>> importers;
  WrittenSources written;
};

std::optional<shape::Value> shapeValueOfObject(eval::Interpreter& in, eval::Object* o, int depth);

std::string rangeKey(const std::string& file, unsigned l0, unsigned c0, unsigned l1, unsigned c1) {
  return file + '\x1f' + std::to_string(l0) + ':' + std::to_string(c0) + '-' + std::to_string(l1) +
         ':' + std::to_string(c1);
}

// Whether an entry point is run with arguments the evaluator made up: it
// has a parameter without a default that a caller would have to give.
bool madeUpArguments(mlir::Operation* entry) {
  auto def = llvm::dyn_cast_or_null<py::DefOp>(entry);
  if (!def)
    return false;
  llvm::StringRef kinds = def.getParamKinds();
  llvm::ArrayRef<bool> hasDefault = def.getHasDefault();
  for (size_t k = 0; k < kinds.size() && k < hasDefault.size(); ++k)
    if ((kinds[k] == 'p' || kinds[k] == 'n' || kinds[k] == 'k') && !hasDefault[k])
      return true;
  return false;
}

// An evaluator value as a shape value: numbers, strings, tuples and lists of
// them, dtypes, jax.ShapeDtypeStruct / arrays; nullopt for anything else or
// for alternatives that differ.
std::optional<shape::Value> shapeValueOf(eval::Interpreter& in, const eval::Value& v, int depth) {
  if (v.isBottom() || depth > 4)
    return std::nullopt;
  std::optional<shape::Value> out;
  for (const eval::Alt& alt : v) {
    std::optional<shape::Value> one = shapeValueOfObject(in, alt.obj, depth);
    if (!one || (out && out->str() != one->str()))
      return std::nullopt;
    out = std::move(one);
  }
  return out;
}

// A JAX allocation or transform the program built (plgpu.SMEM(...),
// plgpu.Barrier(...), plgpu.TilingTransform(...): the overlay's data
// objects, PallasOverlay.cpp makeData) as the shape evaluator spells the
// same call (ShapeEvalApis.cpp): what a scratch list built by a
// comprehension or a helper holds. nullopt for anything else.
std::optional<shape::Value> allocationShapeValue(eval::Interpreter& in, eval::InstanceObj* inst,
                                                 const std::string& api, int depth) {
  using detail::Api;
  using detail::apiName;
  if (inst->attrs.find("_incomplete"))
    return std::nullopt; // built with *args / **kwargs: not all arguments known
  auto given = [&](size_t index, const char* name) -> const eval::Value* {
    if (const eval::Value* v = inst->attrs.find(name))
      return v;
    return index == SIZE_MAX ? nullptr : inst->attrs.find("_" + std::to_string(index));
  };
  auto value = [&](size_t index, const char* name) {
    const eval::Value* v = given(index, name);
    std::optional<shape::Value> sv = v ? shapeValueOf(in, *v, depth + 1) : std::nullopt;
    return sv ? *sv : shape::Value::unknown(name);
  };
  shape::Value v = shape::Value::object(api);
  if (api == apiName(Api::Smem) || api == apiName(Api::Gmem) || api == apiName(Api::Tmem) ||
      api == apiName(Api::Acc)) {
    v.fields["shape"] = shape::asShapeTuple(value(0, "shape"));
    v.fields["dtype"] = given(1, "dtype") || api != apiName(Api::Acc)
                            ? value(1, "dtype")
                            : shape::Value::dtype("float32");
    if (given(SIZE_MAX, "transforms"))
      v.fields["transforms"] = value(SIZE_MAX, "transforms");
    if (api == apiName(Api::Tmem))
      for (const char* k : {"packed", "collective", "layout"})
        if (given(SIZE_MAX, k))
          v.fields[k] = value(SIZE_MAX, k);
    return v;
  }
  if (api == apiName(Api::Barrier)) {
    v.fields["num_arrivals"] =
        given(0, "num_arrivals") ? value(0, "num_arrivals") : shape::Value::integer(1);
    v.fields["num_barriers"] = given(1, "num_barriers")
                                   ? shape::barrierCount(value(1, "num_barriers"))
                                   : shape::Value::integer(1);
    v.fields["orders_tensor_core"] = given(2, "orders_tensor_core") ? value(2, "orders_tensor_core")
                                                                    : shape::Value::boolean(false);
    return v;
  }
  if (api == apiName(Api::ClusterBarrier)) {
    v.fields["num_arrivals"] = given(SIZE_MAX, "num_arrivals") ? value(SIZE_MAX, "num_arrivals")
                                                               : shape::Value::integer(1);
    v.fields["num_barriers"] = given(SIZE_MAX, "num_barriers")
                                   ? shape::barrierCount(value(SIZE_MAX, "num_barriers"))
                                   : shape::Value::integer(1);
    v.fields["collective_axes"] = value(SIZE_MAX, "collective_axes");
    return v;
  }
  if (api == apiName(Api::BlockSpec) || api == apiName(Api::GpuBlockSpec)) {
    v = shape::Value::object(std::string(shape::kBlockSpecObject));
    v.fields["block_shape"] = given(0, "block_shape") ? shape::asShapeTuple(value(0, "block_shape"))
                                                      : shape::Value::none();
    if (const eval::Value* space = given(2, "memory_space")) {
      // A memory space named, not called: plgpu.GMEM, pl.ANY, ...
      auto* e = llvm::dyn_cast_or_null<eval::ExternalObj>(space->single());
      if (!e)
        return std::nullopt;
      v.fields["memory_space"] = shape::Value::object(in.canonical(e->qualname));
    }
    if (given(SIZE_MAX, "delay_release"))
      v.fields["delay_release"] = value(SIZE_MAX, "delay_release");
    // Whether the index map ignores the grid indices (pipeline.py
    // _is_index_invariant): no index_map, or a function of the program
    // that never reads its parameters.
    shape::Value invariant = shape::Value::boolean(true);
    if (const eval::Value* map = given(1, "index_map"); map && !map->isBottom()) {
      auto* fn = llvm::dyn_cast_or_null<eval::FunctionObj>(map->single());
      auto def = fn ? llvm::dyn_cast_or_null<py::DefOp>(fn->def) : py::DefOp();
      if (def) {
        std::set<std::string> params;
        for (mlir::Attribute p : def.getParams())
          params.insert(llvm::cast<mlir::StringAttr>(p).getValue().str());
        bool reads = false;
        def.getBody().walk(
            [&](py::LoadOp load) { reads = reads || params.count(load.getName().str()) > 0; });
        invariant.i = reads ? 0 : 1;
        v.fields["index_map_invariant"] = invariant;
      }
    } else {
      v.fields["index_map_invariant"] = invariant;
    }
    if (given(SIZE_MAX, "transforms"))
      v.fields["transforms"] = value(SIZE_MAX, "transforms");
    return v;
  }
  if (api == apiName(Api::TilingTransform)) {
    v.fields["tiling"] = value(0, "tiling");
    return v;
  }
  if (api == apiName(Api::SwizzleTransform)) {
    v.fields["swizzle"] = value(0, "swizzle");
    return v;
  }
  return std::nullopt;
}

std::optional<shape::Value> shapeValueOfObject(eval::Interpreter& in, eval::Object* o, int depth) {
  using K = shape::Value::Kind;
  shape::Value sv;
  switch (o->kind) {
  case eval::Kind::Int:
    return shape::Value::integer(llvm::cast<eval::IntObj>(o)->v);
  case eval::Kind::Bool:
    sv.kind = K::Bool;
    sv.i = llvm::cast<eval::BoolObj>(o)->v;
    return sv;
  case eval::Kind::Float:
    sv.kind = K::Float;
    sv.f = llvm::cast<eval::FloatObj>(o)->v;
    return sv;
  case eval::Kind::None:
    sv.kind = K::None;
    return sv;
  case eval::Kind::Str:
    sv.kind = K::Str;
    sv.s = llvm::cast<eval::StrObj>(o)->v;
    return sv;
  case eval::Kind::Tuple:
  case eval::Kind::List: {
    const std::vector<eval::Value>& elems = o->kind == eval::Kind::Tuple
                                                ? llvm::cast<eval::TupleObj>(o)->elems
                                                : llvm::cast<eval::ListObj>(o)->elems;
    if (auto* l = llvm::dyn_cast<eval::ListObj>(o); l && !l->exact)
      return std::nullopt;
    std::vector<shape::Value> items;
    for (const eval::Value& e : elems) {
      std::optional<shape::Value> item = shapeValueOf(in, e, depth + 1);
      items.push_back(item ? *item : shape::Value::unknown("an element"));
    }
    return shape::Value::seq(std::move(items));
  }
  case eval::Kind::External: {
    // jnp.float32, numpy.float16, jax.numpy.bfloat16: a dtype by its leaf.
    std::string q = in.canonical(llvm::cast<eval::ExternalObj>(o)->qualname);
    std::string leaf = q.substr(q.rfind('.') + 1);
    if (shape::dtypeBits(leaf) && (q.starts_with("jnp.") || q.starts_with("numpy.") ||
                                   q.starts_with("np.") || q.starts_with("ml_dtypes.")))
      return shape::Value::dtype(leaf);
    return std::nullopt;
  }
  case eval::Kind::Instance: {
    auto* inst = llvm::cast<eval::InstanceObj>(o);
    std::string api = in.canonical(inst->cls->external);
    if (std::optional<shape::Value> alloc = allocationShapeValue(in, inst, api, depth))
      return alloc;
    if (api != "jax.ShapeDtypeStruct" && api != "jax.Array")
      return std::nullopt;
    shape::Value obj = shape::Value::object(api == "jax.Array" ? "array" : api);
    for (const char* field : {"shape", "dtype"})
      if (const eval::Value* f = inst->attrs.find(field))
        if (std::optional<shape::Value> fv = shapeValueOf(in, *f, depth + 1))
          obj.fields[field] = *fv;
    return obj;
  }
  default:
    return std::nullopt;
  }
}

std::string writtenText(WrittenSources& sources, mlir::Operation* op);

std::string fileOf(mlir::Operation* op) {
  auto r = op ? llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc()) : mlir::FileLineColRange();
  return r ? r.getFilename().str() : std::string();
}

Evaluations& evaluationsOf(const detail::PassContext& ctx) {
  if (!ctx.evaluation)
    ctx.evaluation = std::make_shared<Evaluations>(ctx.workspace);
  return *static_cast<Evaluations*>(ctx.evaluation.get());
}

Evaluation& evaluate(const detail::PassContext& ctx, const knowledge::KnowledgeBase& kb,
                     const std::string& doc) {
  Evaluations& all = evaluationsOf(ctx);
  auto it = all.find(doc);
  if (it != all.end())
    return *it->second;
  auto ev = std::make_unique<Evaluation>();
  ev->source = std::make_unique<WorkspaceSource>(ctx.workspace);
  mlir::ModuleOp py = ctx.workspace.pyModule(doc);
  if (py) {
    ev->interpreter = std::make_unique<eval::Interpreter>(py.getContext(), *ev->source);
    auto overlay = std::make_unique<PallasOverlay>(kb);
    WrittenSources& written = all.written;
    overlay->setSourceText([&written](mlir::Operation* op) { return writtenText(written, op); });
    // A GPU found on this machine (its compute capability) is where JAX runs.
    overlay->setHostPlatform(ctx.options.gpuComputeCapability.empty() ? "cpu" : "gpu");
    ev->interpreter->addOverlay(std::move(overlay));
    eval::Interpreter& in = *ev->interpreter;
    Evaluation* into = ev.get();
    in.observeResults([&in, into](mlir::Operation* op, const eval::Value& v) {
      std::optional<shape::Value> sv = shapeValueOf(in, v, 0);
      // A run with made-up arguments (an entry point whose parameters no
      // call gives) knows only what does not depend on them: a value it
      // cannot know says nothing against the value a real call computed
      // (`linear(x, w)` from main(), and `linear` run on its own).
      if ((!sv || !sv->unknownWhy().empty()) && madeUpArguments(in.currentEntry()))
        return;
      auto it = into->shapes.find(op);
      if (it == into->shapes.end()) {
        into->shapes.try_emplace(op, std::move(sv));
        return;
      }
      // Another run of it gave another value (or none): not known.
      if (it->second && (!sv || sv->str() != it->second->str()))
        it->second.reset();
    });
    ev->interpreter->loadDocument(doc);
    ev->interpreter->runEntryPoints(doc);
    for (LaunchRecord& r : ev->interpreter->overlay<PallasOverlay>()->finish(*ev->interpreter))
      (r.event.doc == doc ? ev->launches : ev->elsewhere).push_back(std::move(r));
  }
  Evaluation& ref = *ev;
  all[doc] = std::move(ev);
  return ref;
}

// At most this many other documents are run for one document's callers.
constexpr size_t kMaxCallerDocuments = 8;

// The workspace's documents whose code imports `doc` (`import pkg.ops`,
// `from . import ops`, `from .ops import f`). Only a file whose text names
// doc's module is lowered and walked; each answer is kept for the run.
const std::vector<std::string>& importersOf(const detail::PassContext& ctx,
                                            const std::string& doc) {
  Evaluations& all = evaluationsOf(ctx);
  auto [it, fresh] = all.importers.try_emplace(doc);
  if (!fresh)
    return it->second;
  std::filesystem::path p(doc);
  std::string stem =
      p.stem() == "__init__" ? p.parent_path().filename().string() : p.stem().string();
  const detail::Workspace& ws = ctx.workspace;
  for (const std::string& other : ws.documents()) {
    if (other == doc)
      continue;
    std::optional<std::string_view> text = ws.textOf(other);
    // A cheap filter first: the importer spells the module's name, or, for
    // a package's __init__, imports relatively (`from . import x` names
    // neither the package nor the file).
    bool relativeToPackage =
        p.stem() == "__init__" && text && text->find("from .") != std::string_view::npos;
    if (!text || (text->find(stem) == std::string_view::npos && !relativeToPackage))
      continue;
    mlir::ModuleOp py = ws.pyModule(other);
    if (!py)
      continue;
    bool imports = false;
    auto resolvesHere = [&](const std::string& module, int level) {
      std::optional<std::string> f = ws.moduleFile(module, level, other);
      return f && *f == doc;
    };
    py->walk([&](mlir::Operation* op) {
      if (imports)
        return mlir::WalkResult::interrupt();
      if (auto i = llvm::dyn_cast<py::ImportOp>(op)) {
        llvm::StringRef m = i.getModule();
        imports = m.contains(stem) && resolvesHere(m.str(), 0);
      } else if (auto f = llvm::dyn_cast<py::ImportFromOp>(op)) {
        std::string m = f.getModule().str();
        int level = static_cast<int>(f.getLevel());
        std::string sub = m.empty() ? f.getName().str() : m + "." + f.getName().str();
        imports = (f.getName() == stem && resolvesHere(sub, level)) ||
                  (llvm::StringRef(m).contains(stem) && resolvesHere(m, level)) ||
                  (level > 0 && m.empty() && p.stem() == "__init__" && resolvesHere(m, level));
      } else if (auto star = llvm::dyn_cast<py::ImportStarOp>(op)) {
        imports = resolvesHere(star.getModule().str(), static_cast<int>(star.getLevel()));
      }
      return mlir::WalkResult::advance();
    });
    if (imports)
      it->second.push_back(other);
  }
  return it->second;
}

// A document whose launches an entry point reached with arguments it made
// up (a parameter's default): the workspace's files that call into it run
// the same launches with their own arguments (`add(x, interpret=True)` in
// another file). Their records of this document's launches join its own.
Evaluation& evaluateWithCallers(const detail::PassContext& ctx, const knowledge::KnowledgeBase& kb,
                                const std::string& doc) {
  Evaluation& ev = evaluate(ctx, kb, doc);
  if (ev.callersRead)
    return ev;
  ev.callersRead = true;
  bool guessed = std::any_of(ev.launches.begin(), ev.launches.end(),
                             [](const LaunchRecord& r) { return r.event.entryDef != nullptr; });
  if (!guessed)
    return ev;
  std::set<std::string> callers;
  std::set<std::string> reaching{doc};
  std::vector<detail::CallEdge> edges = ctx.workspace.callEdges();
  for (bool grew = true; grew && callers.size() < kMaxCallerDocuments;) {
    grew = false;
    auto reach = [&](const std::string& caller) {
      if (callers.size() < kMaxCallerDocuments && reaching.insert(caller).second) {
        callers.insert(caller);
        grew = true;
      }
    };
    for (const detail::CallEdge& e : edges)
      if (reaching.count(e.calleePath))
        reach(e.caller.path);
    // A file that imports one reaching this document may call into it in
    // ways the call index does not see (a name imported from a module that
    // re-exports it, a function another import's code calls).
    for (const std::string& r : std::vector<std::string>(reaching.begin(), reaching.end()))
      for (const std::string& importer : importersOf(ctx, r))
        reach(importer);
  }
  ev.callerDocs.assign(callers.begin(), callers.end());
  for (const std::string& caller : callers) {
    if (ctx.stopRequested())
      break;
    Evaluation& other = evaluate(ctx, kb, caller);
    // The caller's run reports the launch at its own call (event.doc is the
    // caller); the launch itself is in this document.
    for (const auto* list : {&other.launches, &other.elsewhere})
      for (const LaunchRecord& r : *list)
        if (fileOf(r.event.site) == doc)
          ev.fromCallers.push_back(&r);
  }
  return ev;
}

mlir::Operation* defAround(mlir::Operation* op) {
  for (mlir::Operation* p = op ? op->getParentOp() : nullptr; p; p = p->getParentOp())
    if (llvm::isa<py::DefOp>(p))
      return p;
  return nullptr;
}

std::string functionAround(mlir::Operation* op) {
  mlir::Operation* d = defAround(op);
  return d ? llvm::cast<py::DefOp>(d).getName().str() : std::string("the module");
}

// The source text of an op as written (all its lines).
std::string writtenText(WrittenSources& sources, mlir::Operation* op) {
  auto r = op ? llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc()) : mlir::FileLineColRange();
  const support::LineIndex* lines = r ? sources.linesOf(r.getFilename().str()) : nullptr;
  if (!lines)
    return {};
  std::optional<size_t> start =
      WrittenSources::offset(*lines, r.getStartLine(), r.getStartColumn());
  std::optional<size_t> end = WrittenSources::offset(*lines, r.getEndLine(), r.getEndColumn());
  if (!start || !end || *end <= *start)
    return {};
  return std::string(lines->text().substr(*start, *end - *start));
}

// The source text of an op (one line at most, trimmed to 60 characters).
std::string textOf(WrittenSources& sources, mlir::Operation* op) {
  auto r = llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc());
  const support::LineIndex* lines = r ? sources.linesOf(r.getFilename().str()) : nullptr;
  if (!lines)
    return {};
  std::optional<size_t> start =
      WrittenSources::offset(*lines, r.getStartLine(), r.getStartColumn());
  auto line = r.getStartLine() ? lines->lineBounds(r.getStartLine() - 1) : std::nullopt;
  if (!start || !line || *start >= line->second)
    return {};
  std::optional<size_t> end = r.getEndLine() == r.getStartLine()
                                  ? WrittenSources::offset(*lines, r.getEndLine(), r.getEndColumn())
                                  : std::optional<size_t>(line->second);
  if (!end || *end <= *start)
    return {};
  std::string out(lines->text().substr(*start, std::min(*end, line->second) - *start));
  if (out.size() > 60)
    out = out.substr(0, 57) + "...";
  return out;
}

// A document written as a program: its `if __name__ == "__main__":` block
// is what runs (as written at the start of a line).
bool isProgram(const detail::Workspace& ws, const std::string& doc) {
  std::optional<std::string_view> text = ws.textOf(doc);
  if (!text)
    return false;
  // Each line that starts with `if` and names both __name__ and "__main__".
  for (size_t at = text->find("__main__"); at != std::string_view::npos;
       at = text->find("__main__", at + 1)) {
    size_t start = text->rfind('\n', at);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = text->substr(start, at - start);
    if (line.starts_with("if ") && line.find("__name__") != std::string_view::npos)
      return true;
  }
  return false;
}

bool within(mlir::Operation* inner, mlir::Operation* outer) {
  auto a = llvm::dyn_cast<mlir::FileLineColRange>(inner->getLoc());
  auto b = llvm::dyn_cast<mlir::FileLineColRange>(outer->getLoc());
  if (!a || !b || a.getFilename() != b.getFilename())
    return false;
  auto before = [](unsigned l1, unsigned c1, unsigned l2, unsigned c2) {
    return l1 < l2 || (l1 == l2 && c1 <= c2);
  };
  return before(b.getStartLine(), b.getStartColumn(), a.getStartLine(), a.getStartColumn()) &&
         before(a.getEndLine(), a.getEndColumn(), b.getEndLine(), b.getEndColumn());
}

uint64_t traceKey(const KernelTrace& t) {
  std::string s;
  for (const BoundPrimitive& b : t.bindings) {
    detail::LineCol lc = detail::lineCol(b.site->getLoc());
    s += b.api + "@" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + "/" +
         std::to_string(static_cast<int>(b.refs.kind)) +
         std::to_string(static_cast<int>(b.refs.phase)) + b.interpretRule + b.unknownDispatch + ";";
  }
  return llvm::xxh3_64bits(s);
}

} // namespace

shape::Evaluator::Oracle
evaluatedShapes(const detail::PassContext& ctx,
                const std::shared_ptr<const knowledge::KnowledgeBase>& kb) {
  if (!evaluatorEngine() || !kb)
    return {};
  return [&ctx, kb](const std::string& path, TSNode expr) -> std::optional<shape::Value> {
    TSPoint a = ts_node_start_point(expr), b = ts_node_end_point(expr);
    std::string key = rangeKey(path, a.row + 1, a.column + 1, b.row + 1, b.column + 1);
    // The checked document's run first (it calls the helpers with real
    // arguments), else the file's own, else the runs of the documents that
    // call into it (a kernel built from a caller's configuration): the
    // first that knows the value.
    auto lookIn = [&](const std::string& doc) -> std::optional<shape::Value> {
      Evaluation& ev = evaluate(ctx, *kb, doc);
      if (!ev.shapesIndexed) {
        ev.shapesIndexed = true;
        for (const auto& [op, value] : ev.shapes)
          if (auto r = llvm::dyn_cast<mlir::FileLineColRange>(op->getLoc())) {
            std::string k = rangeKey(r.getFilename().str(), r.getStartLine(), r.getStartColumn(),
                                     r.getEndLine(), r.getEndColumn());
            // Ops sharing a range: one that has a value speaks for it.
            auto [at, fresh] = ev.shapeAt.try_emplace(k, op);
            if (!fresh && !ev.shapes.lookup(at->second) && value)
              at->second = op;
          }
      }
      if (auto it = ev.shapeAt.find(key); it != ev.shapeAt.end())
        if (std::optional<shape::Value> v = ev.shapes.lookup(it->second); v && v->known())
          return v;
      return std::nullopt;
    };
    if (std::optional<shape::Value> v = lookIn(ctx.path))
      return v;
    if (path != ctx.path)
      if (std::optional<shape::Value> v = lookIn(path))
        return v;
    // Only now the callers: finding them evaluates every document that
    // calls into this one, which most questions never need.
    for (const std::string& caller : evaluateWithCallers(ctx, *kb, ctx.path).callerDocs) {
      if (ctx.stopRequested())
        break;
      if (std::optional<shape::Value> v = lookIn(caller))
        return v;
    }
    return std::nullopt;
  };
}

std::vector<const LaunchRecord*> evaluatedRecordsAt(const detail::PassContext& ctx,
                                                    const knowledge::KnowledgeBase& kb,
                                                    const std::string& doc,
                                                    const SourceLocation& at) {
  Evaluation& ev = evaluateWithCallers(ctx, kb, doc);
  std::vector<const LaunchRecord*> out;
  auto here = [&](const LaunchRecord& r) {
    SourceLocation s = detail::sourceLocation(r.event.site->getLoc());
    return s.path == at.path && s.range.start == at.range.start;
  };
  for (const LaunchRecord& r : ev.launches)
    if (here(r))
      out.push_back(&r);
  for (const LaunchRecord* r : ev.fromCallers)
    if (here(*r))
      out.push_back(r);
  return out;
}

std::optional<std::vector<shape::Value>> evaluatedOperands(const detail::PassContext& ctx,
                                                           const knowledge::KnowledgeBase& kb,
                                                           const std::string& doc,
                                                           const SourceLocation& at) {
  Evaluations& all = evaluationsOf(ctx);
  // What an op evaluated to in whichever run ran it (ops are unique to
  // their module, so at most one evaluation has it).
  auto observed = [&](mlir::Operation* op) -> std::optional<shape::Value> {
    for (const auto& [path, ev] : all)
      if (auto it = ev->shapes.find(op); it != ev->shapes.end())
        return it->second;
    return std::nullopt;
  };
  std::optional<std::vector<shape::Value>> out;
  for (const LaunchRecord* r : evaluatedRecordsAt(ctx, kb, doc, at)) {
    const LaunchEvent* built = r->event.built ? r->event.built : &r->event;
    for (mlir::Operation* site : built->runCalls) {
      auto call = llvm::dyn_cast<py::CallOp>(site);
      if (!call)
        return std::nullopt;
      std::vector<shape::Value> ins;
      mlir::ArrayAttr kinds = call.getArgKinds();
      for (unsigned i = 0; i < call.getArgs().size(); ++i) {
        auto kind = i < kinds.size() ? llvm::dyn_cast<mlir::StringAttr>(kinds[i]) : nullptr;
        mlir::Operation* def = call.getArgs()[i].getDefiningOp();
        std::optional<shape::Value> v = def ? observed(def) : std::nullopt;
        if (!kind || !kind.getValue().empty() || !v || !v->known())
          return std::nullopt; // a keyword, a splat, or a value not known
        ins.push_back(std::move(*v));
      }
      auto same = [&](const std::vector<shape::Value>& a) {
        return a.size() == ins.size() &&
               std::equal(
                   a.begin(), a.end(), ins.begin(),
                   [](const shape::Value& x, const shape::Value& y) { return x.str() == y.str(); });
      };
      if (out && !same(*out))
        return std::nullopt; // calls with different operands
      out = std::move(ins);
    }
  }
  return out;
}

const std::vector<LaunchRecord>& evaluatedLaunches(detail::PassContext& ctx,
                                                   const knowledge::KnowledgeBase& kb,
                                                   const std::string& doc) {
  return evaluate(ctx, kb, doc).launches;
}

void forEachEvaluatedLaunch(detail::PassContext& ctx, const std::string& doc, mlir::ModuleOp module,
                            const knowledge::KnowledgeBase& kb, const LaunchVisitor& perLaunch) {
  (void)module;
  Evaluation& ev = evaluateWithCallers(ctx, kb, doc);
  // Records of one call site (several contexts reach it) are judged together.
  std::vector<std::pair<mlir::Operation*, std::vector<const LaunchRecord*>>> bySite;
  std::vector<const LaunchRecord*> all;
  all.reserve(ev.launches.size() + ev.fromCallers.size());
  for (const LaunchRecord& r : ev.launches)
    all.push_back(&r);
  all.insert(all.end(), ev.fromCallers.begin(), ev.fromCallers.end());
  for (const LaunchRecord* rp : all) {
    const LaunchRecord& r = *rp;
    // A caller's run of this document's launch is reported at the launch.
    bool ownRun =
        r.event.reportedAt && r.event.doc == doc &&
        std::find(ev.fromCallers.begin(), ev.fromCallers.end(), rp) == ev.fromCallers.end();
    mlir::Operation* at = ownRun ? r.event.reportedAt : r.event.site;
    auto it = std::find_if(bySite.begin(), bySite.end(), [&](auto& p) { return p.first == at; });
    if (it == bySite.end())
      bySite.push_back({at, {&r}});
    else
      it->second.push_back(&r);
  }
  // A launch the workspace's callers reached is judged as they run it: this
  // document's own run of it from an entry point with made-up arguments
  // (what nothing here calls) is a guess their runs replace, as within one
  // file an entry point's run stands only when no caller ran it.
  for (auto& [at, records] : bySite) {
    auto fromCaller = [&](const LaunchRecord* r) {
      return std::find(ev.fromCallers.begin(), ev.fromCallers.end(), r) != ev.fromCallers.end();
    };
    if (std::any_of(records.begin(), records.end(), fromCaller))
      records.erase(std::remove_if(records.begin(), records.end(),
                                   [&](const LaunchRecord* r) {
                                     return !fromCaller(r) && r->event.entryDef != nullptr;
                                   }),
                    records.end());
  }
  const std::string& assumed = ctx.options.assumePath;
  const bool program = isProgram(ctx.workspace, doc);
  for (auto& [at, records] : bySite) {
    if (ctx.stopRequested())
      return;
    LaunchSite site;
    site.op = at;
    site.api = records.front()->event.api;
    site.location = detail::sourceLocation(at->getLoc());
    site.selector = site.location;
    site.facts.numThreads = records.front()->event.numThreads;
    site.facts.multiThreaded = site.facts.numThreads > 1;
    // A program's launch that nothing in the program calls (a kernel variant
    // the script does not pick, a cache warmer nobody runs) fails only if
    // something else calls it: its paths are a "may".
    // (Each build of the launch on its own: the one the program calls is
    // judged as certain, one an uncalled function builds is not.)
    // Module code's pl.pallas_call results may reach the program in ways the
    // evaluation does not follow (a cache filled at import), so only a build
    // in a function nothing calls, or a plgpu.kernel never called, counts.
    auto neverCalled = [&](const LaunchRecord* r) {
      const LaunchEvent* built = r->event.built ? r->event.built : &r->event;
      return program && built->runCalls.empty() && !built->calledSomewhere &&
             built->api != "pl.core_map" && (built->entryDef || built->api == "plgpu.kernel");
    };
    site.programNeverCalls = std::all_of(records.begin(), records.end(), neverCalled);
    // Caught only where every record's calls catch it.
    for (size_t i = 0; i < records.size(); ++i) {
      const LaunchEvent* built =
          records[i]->event.built ? records[i]->event.built : &records[i]->event;
      if (i == 0) {
        for (const auto& [name, by] : built->caught)
          site.caught[name] = detail::sourceLocation(by->getLoc());
        continue;
      }
      for (auto it = site.caught.begin(); it != site.caught.end();)
        it = built->caught.count(it->first) ? std::next(it) : site.caught.erase(it);
    }
    struct Run {
      LaunchRun run;
      const GlobalMode* global = nullptr;
      const KernelTrace* trace = nullptr;
      const KernelTrace* gpuTrace = nullptr;
    };
    std::vector<Run> runs;
    std::map<std::tuple<int, bool, uint64_t>, size_t> seen;
    for (const LaunchRecord* r : records) {
      std::vector<SelectedPath> selected = r->selected;
      if (!assumed.empty()) {
        ExecPath p = assumed == "interpret"       ? ExecPath::InterpretHlo
                     : assumed == "gpu-interpret" ? ExecPath::InterpretGpu
                                                  : ExecPath::Compiled;
        selected = {{p, false, site.facts, {r->event.site, ""}}};
      }
      for (const SelectedPath& sp : selected) {
        auto t = r->traces.find(sp.path);
        if (t == r->traces.end() || !t->second.kernelKnown)
          continue;
        auto key = std::make_tuple(static_cast<int>(sp.path), sp.may, traceKey(t->second));
        if (seen.count(key))
          continue;
        Run run;
        run.run.pc = {sp.path, sp.may || neverCalled(r)};
        run.run.facts = sp.facts;
        run.trace = &t->second;
        auto g = r->traces.find(ExecPath::InterpretGpu);
        run.gpuTrace = g == r->traces.end() ? nullptr : &g->second;
        mlir::Operation* sel = sp.selector.at;
        bool byMode = assumed.empty() && sel && sp.path == ExecPath::InterpretGpu &&
                      !r->event.mode.isBottom() && r->event.mode.single() &&
                      r->event.mode.single()->kind != eval::Kind::None;
        if (byMode) {
          ev.modes.push_back({});
          ev.modes.back().call = sel;
          ev.modes.back().facts = sp.facts;
          run.global = &ev.modes.back();
        } else if (assumed.empty() && sel && sel != r->event.site && !within(sel, r->event.site) &&
                   !within(sel, at) && defAround(sel) != defAround(r->event.site)) {
          // Decided in another function: the one whose value reaches the
          // launch, and the function it calls on the way.
          CallContext c;
          c.paths = {sp.path};
          c.facts = sp.facts;
          c.selector = detail::sourceLocation(sel->getLoc());
          c.caller = functionAround(sel);
          c.callee = functionAround(r->event.site);
          mlir::Operation* selDef = defAround(sel);
          for (const auto& [name, callSite] : r->event.calls)
            if (callSite && defAround(callSite) == selDef) {
              c.callee = name;
              break;
            }
          std::string written = textOf(evaluationsOf(ctx).written, sel);
          c.argumentText = written.empty() ? sp.selector.text
                                           : "`" + written + "` at line " +
                                                 std::to_string(c.selector.range.start.line + 1);
          c.site = sel;
          ev.contexts.push_back(std::move(c));
          run.run.via.push_back(&ev.contexts.back());
        }
        seen[key] = runs.size();
        runs.push_back(std::move(run));
      }
    }
    // A path some context selects for certain is reported once, as certain.
    std::vector<Run> kept;
    for (Run& r : runs) {
      bool certainToo = false;
      for (const Run& o : runs)
        certainToo |= r.run.pc.may && !o.run.pc.may && o.run.pc.path == r.run.pc.path;
      if (!certainToo)
        kept.push_back(std::move(r));
    }
    perLaunch(at, 0, [&](const RunVisitor& visit) {
      for (const Run& r : kept) {
        KernelWalk walk(ctx.workspace, kb, r.run.pc.path, pd::LaunchOp(), doc);
        walk.adopt(r.trace->bindings, r.trace->kernelHop);
        LaunchRunView view{doc, pd::LaunchOp(), site, r.global, r.run, walk};
        view.gpuInterpretBindings = r.gpuTrace ? &r.gpuTrace->bindings : nullptr;
        visit(view);
      }
    });
  }
}

} // namespace pallas::analysis::passes
