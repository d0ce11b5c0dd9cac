// Kernel-taking launch wrappers (docs/analysis.md, "Launch wrappers"): a
// method whose caller passes the kernel and whose body launches a nested
// def that runs it. JAX's own `PallasTest.pallas_call` (mosaic_gpu_test.py)
// is the shape:
//
//   def pallas_call(self, kernel_fn=None, *, out_shape, in_specs=(), ...):
//     def decorator(fn):
//       @self.kernel(out_type=out_shape, scratch_types=scratch_shapes, ...)
//       def wrapper(*args_gmem):
//         @functools.partial(plgpu.emit_pipeline, ...)
//         def pipeline(indices, *args):
//           fn(*args, *scratch_refs)
//         pipeline(*gmem_refs)
//       return wrapper
//     if kernel_fn is not None:
//       return decorator(kernel_fn)
//     return decorator
//
// Recognised from the syntax alone (no locals are evaluated): the launch is
// a decorator on a nested def (a launch API or another wrapper of the class
// through `self.m(...)`), and the def calls, at any depth, the wrapper's
// parameter or the parameter of an enclosing nested def that the wrapper
// applies to its parameter (`decorator(kernel_fn)`) or returns.
#include "KernelTakingWrappers.h"

#include "pallas/analysis/detail/Apis.h"

namespace pallas::analysis::names {

namespace {

using syntax::field;
using syntax::is;
using syntax::isNull;

constexpr unsigned kMaxDepth = 8;

std::string textOf(const syntax::ParsedSource& doc, TSNode n) {
  return std::string(doc.textOf(n));
}

// The parameter names of a def, in order, with the number of positional ones.
struct Params {
  std::vector<std::string> names;
  size_t positional = 0;
};

Params paramsOf(TSNode def, const syntax::ParsedSource& doc) {
  Params out;
  bool keywordOnly = false;
  for (TSNode p : syntax::namedChildren(field(def, "parameters"))) {
    std::string name;
    if (is(p, "identifier"))
      name = textOf(doc, p);
    else if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
      name = textOf(doc, field(p, "name"));
    else if (is(p, "typed_parameter") && ts_node_named_child_count(p) > 0 &&
             is(ts_node_named_child(p, 0), "identifier"))
      name = textOf(doc, ts_node_named_child(p, 0));
    else if (is(p, "keyword_separator") || is(p, "list_splat_pattern")) {
      keywordOnly = true;
      continue;
    } else {
      continue;
    }
    out.names.push_back(name);
    if (!keywordOnly)
      ++out.positional;
  }
  return out;
}

// The decorators of a decorated_definition, outermost first.
std::vector<TSNode> decoratorsOf(TSNode decorated) {
  std::vector<TSNode> out;
  for (TSNode d : syntax::namedChildren(decorated))
    if (is(d, "decorator") && ts_node_named_child_count(d) > 0)
      out.push_back(ts_node_named_child(d, 0));
  return out;
}

struct Finder {
  const syntax::ParsedSource& doc;
  const Globals& globals;
  const std::function<bool(const std::string&, bool)>& isWrapper;
  std::string self;

  std::string jaxApi(TSNode expr) const {
    std::optional<Binding> b = resolveGlobalExpr(expr, doc, globals);
    if (!b || (b->kind != Binding::Kind::Module && b->kind != Binding::Kind::Symbol) ||
        !b->file.empty() || !isJaxName(b->target))
      return {};
    return canonicalApi(b->target);
  }

  // `@self.m(...)` (m a wrapper of the class) or `@plgpu.kernel(...)`: the
  // launch the decorator makes of the def under it.
  std::optional<WrapperCall> launchDecorator(TSNode expr) const {
    if (!is(expr, "call"))
      return std::nullopt;
    TSNode callee = field(expr, "function");
    WrapperCall w;
    w.call = expr;
    if (is(callee, "attribute")) {
      TSNode object = field(callee, "object");
      std::string method = textOf(doc, field(callee, "attribute"));
      if (is(object, "identifier") && textOf(doc, object) == self && isWrapper &&
          isWrapper(method, false)) {
        w.inner = method;
        return w;
      }
    }
    w.api = jaxApi(callee);
    if (w.api.empty() || !detail::isLaunchApi(w.api))
      return std::nullopt;
    return w;
  }

  // `@functools.partial(plgpu.emit_pipeline, ...)` / `@plgpu.emit_pipeline(...)`.
  std::string pipelineDecorator(TSNode expr) const {
    if (!is(expr, "call"))
      return {};
    std::string api = jaxApi(field(expr, "function"));
    if (api == "functools.partial") {
      TSNode args = field(expr, "arguments");
      if (isNull(args) || ts_node_named_child_count(args) == 0)
        return {};
      api = jaxApi(ts_node_named_child(args, 0));
    }
    return detail::isPipelineApi(api) ? api : std::string();
  }

  // The pipeline a call runs in: its API and the def it decorates.
  struct Pipeline {
    std::string api;
    TSNode def{};
  };

  // A call of one of `names` in `node` (nested defs included): the pipeline
  // around the first one found (empty when none), or nullopt.
  std::optional<Pipeline> findKernelCall(TSNode node, const std::vector<std::string>& names,
                                         const Pipeline& pipeline, unsigned depth) const {
    if (isNull(node) || depth > 4 * kMaxDepth)
      return std::nullopt;
    if (is(node, "call")) {
      TSNode callee = field(node, "function");
      if (is(callee, "identifier") &&
          std::find(names.begin(), names.end(), textOf(doc, callee)) != names.end())
        return pipeline;
    }
    Pipeline inner = pipeline;
    if (is(node, "decorated_definition"))
      for (TSNode d : decoratorsOf(node))
        if (std::string p = pipelineDecorator(d); !p.empty())
          inner = {p, field(node, "definition")};
    for (TSNode c : syntax::namedChildren(node)) {
      // A parameter of a nested def that shadows the name is another value.
      if (is(c, "function_definition")) {
        Params ps = paramsOf(c, doc);
        std::vector<std::string> visible;
        for (const std::string& n : names)
          if (std::find(ps.names.begin(), ps.names.end(), n) == ps.names.end())
            visible.push_back(n);
        if (auto r = findKernelCall(field(c, "body"), visible, inner, depth + 1))
          return r;
        continue;
      }
      if (auto r = findKernelCall(c, names, inner, depth + 1))
        return r;
    }
    return std::nullopt;
  }

  // Where the launched def runs its pipeline: the first call of the
  // pipeline def's name in its body.
  TSNode pipelineRun(TSNode launched, TSNode pipelineDef) const {
    if (isNull(pipelineDef))
      return TSNode{};
    std::string name = textOf(doc, field(pipelineDef, "name"));
    TSNode found{};
    std::function<void(TSNode, unsigned)> walk = [&](TSNode n, unsigned depth) {
      if (!isNull(found) || isNull(n) || depth > 4 * kMaxDepth || is(n, "function_definition"))
        return;
      if (is(n, "call") && is(field(n, "function"), "identifier") &&
          textOf(doc, field(n, "function")) == name) {
        found = n;
        return;
      }
      for (TSNode c : syntax::namedChildren(n))
        walk(c, depth + 1);
    };
    for (TSNode st : syntax::namedChildren(field(launched, "body")))
      walk(st, 0);
    return found;
  }

  // The statements of `block` outside nested defs, at any depth: `D(P)` with
  // P one of `params`, and `return D`.
  void applications(TSNode node, const std::string& d, const std::vector<std::string>& params,
                    std::string& appliedTo, bool& returned, unsigned depth) const {
    if (isNull(node) || depth > 4 * kMaxDepth || is(node, "function_definition") ||
        is(node, "decorated_definition") || is(node, "lambda"))
      return;
    if (is(node, "call") && textOf(doc, field(node, "function")) == d) {
      TSNode args = field(node, "arguments");
      if (!isNull(args) && ts_node_named_child_count(args) == 1) {
        TSNode a = ts_node_named_child(args, 0);
        if (is(a, "identifier") &&
            std::find(params.begin(), params.end(), textOf(doc, a)) != params.end())
          appliedTo = textOf(doc, a);
      }
    }
    if (is(node, "return_statement") && ts_node_named_child_count(node) == 1 &&
        textOf(doc, ts_node_named_child(node, 0)) == d)
      returned = true;
    for (TSNode c : syntax::namedChildren(node))
      applications(c, d, params, appliedTo, returned, depth + 1);
  }

  // Searches `block` (the body of the wrapper or of a def nested in it) for
  // the launch. `enclosing` are the nested defs around this point.
  std::optional<std::pair<WrapperCall, TakesKernel>> search(TSNode block, TSNode method,
                                                            const Params& mp,
                                                            std::vector<TSNode>& enclosing,
                                                            unsigned depth) const {
    if (isNull(block) || depth > kMaxDepth)
      return std::nullopt;
    for (TSNode st : syntax::namedChildren(block)) {
      TSNode def = is(st, "decorated_definition") ? field(st, "definition") : st;
      if (!is(def, "function_definition")) {
        // Defs under if/with/try blocks of the same function.
        if (is(st, "if_statement") || is(st, "with_statement") || is(st, "try_statement") ||
            is(st, "block") || is(st, "else_clause") || is(st, "elif_clause"))
          if (auto r = search(st, method, mp, enclosing, depth + 1))
            return r;
        continue;
      }
      if (is(st, "decorated_definition"))
        for (TSNode d : decoratorsOf(st))
          if (auto launch = launchDecorator(d))
            if (auto r = kernelOf(def, method, mp, enclosing, *launch))
              return r;
      enclosing.push_back(def);
      auto r = search(field(def, "body"), method, mp, enclosing, depth + 1);
      enclosing.pop_back();
      if (r)
        return r;
    }
    return std::nullopt;
  }

  // The launched def `body` runs the caller's kernel when it calls the
  // wrapper's parameter, or the parameter of an enclosing def the wrapper
  // applies to its parameter or returns.
  std::optional<std::pair<WrapperCall, TakesKernel>> kernelOf(TSNode body, TSNode method,
                                                              const Params& mp,
                                                              const std::vector<TSNode>& enclosing,
                                                              const WrapperCall& launch) const {
    std::vector<std::string> methodParams(mp.names.begin() + 1, mp.names.end());
    // Innermost enclosing def first: its parameter is the nearest binding.
    for (auto it = enclosing.rbegin(); it != enclosing.rend(); ++it) {
      Params dp = paramsOf(*it, doc);
      if (dp.names.empty())
        continue;
      auto pipeline = findKernelCall(field(body, "body"), {dp.names[0]}, {}, 0);
      if (!pipeline)
        continue;
      std::string appliedTo;
      bool returned = false;
      applications(field(method, "body"), textOf(doc, field(*it, "name")), methodParams, appliedTo,
                   returned, 0);
      if (appliedTo.empty() && !returned)
        return std::nullopt;
      TakesKernel k;
      k.pipelineApi = pipeline->api;
      k.pipelineRun = pipelineRun(body, pipeline->def);
      k.params = methodParams;
      if (!appliedTo.empty()) {
        k.param = appliedTo;
        auto pos = std::find(methodParams.begin(), methodParams.end(), appliedTo);
        size_t index = static_cast<size_t>(pos - methodParams.begin());
        k.index = index + 1 < mp.positional ? static_cast<int>(index) : -1;
      }
      return std::pair{launch, k};
    }
    for (size_t i = 0; i < methodParams.size(); ++i) {
      auto pipeline = findKernelCall(field(body, "body"), {methodParams[i]}, {}, 0);
      if (!pipeline)
        continue;
      TakesKernel k;
      k.pipelineApi = pipeline->api;
      k.pipelineRun = pipelineRun(body, pipeline->def);
      k.params = methodParams;
      k.param = methodParams[i];
      k.index = i + 1 < mp.positional ? static_cast<int>(i) : -1;
      return std::pair{launch, k};
    }
    return std::nullopt;
  }
};

} // namespace

std::optional<std::pair<WrapperCall, TakesKernel>>
kernelTakingWrapperCall(TSNode def, const syntax::ParsedSource& doc, const Globals& globals,
                        const std::function<bool(const std::string&, bool)>& isWrapper) {
  if (!is(def, "function_definition"))
    return std::nullopt;
  Params mp = paramsOf(def, doc);
  if (mp.names.size() < 2) // self and the kernel at least
    return std::nullopt;
  Finder f{doc, globals, isWrapper, mp.names[0]};
  std::vector<TSNode> enclosing;
  return f.search(field(def, "body"), def, mp, enclosing, 0);
}

} // namespace pallas::analysis::names
