// Names.h: Globals::build, which binds every module-level name of a file:
// imports in all their spellings (following re-exports into workspace
// files), assignments (constants, functools.partial launch factories,
// InterpretGPUParams), defs and classes (launch wrappers), and the run-time
// spellings a module may use (TYPE_CHECKING, cloned modules).
#include "KernelTakingWrappers.h"
#include "NamesInternal.h"
#include "pallas/analysis/detail/Apis.h"

#include <set>

namespace pallas::analysis::names {
namespace {
// Module-level blocks (if/try/with, recovered ERROR chunks) scanned in depth;
// deeper ones bind nothing. Python itself stops at 100 indentation levels.
constexpr int kMaxBlockDepth = 100;
} // namespace

// ---- run-time spellings Globals follows --------------------------------------

// `TYPE_CHECKING` / `typing.TYPE_CHECKING` (imported from typing), also under
// `not`: the truth of the condition at run time, where TYPE_CHECKING is
// False; nullopt for any other condition.
std::optional<bool> Globals::isTypeCheckingCondition(TSNode cond,
                                                     const syntax::ParsedSource& doc) const {
  bool negated = false; // a loop over the nots: a chain of them nests
  for (;;) {
    while (is(cond, "parenthesized_expression"))
      cond = ts_node_named_child(cond, 0);
    if (!is(cond, "not_operator"))
      break;
    negated = !negated;
    cond = field(cond, "argument");
  }
  if (!is(cond, "identifier") && !is(cond, "attribute"))
    return std::nullopt;
  std::optional<Binding> b = resolveGlobalExpr(cond, doc, *this);
  if (b && b->kind == Binding::Kind::Symbol && b->target == "typing.TYPE_CHECKING")
    return negated;
  return std::nullopt;
}

// A module cloned at run time (JAX's mosaic_gpu_test.py):
//   X = types.ModuleType("name")
//   X.__dict__.update(M.__dict__)        (or vars(X).update(vars(M)))
// X then holds M's attributes: it names what M names.
void Globals::bindModuleClone(TSNode call, const syntax::ParsedSource& doc) {
  TSNode callee = field(call, "function");
  if (!is(callee, "attribute") || doc.textOf(field(callee, "attribute")) != "update")
    return;
  // The namespace of a module-level name: `X.__dict__` or `vars(X)`.
  auto namespaceOf = [&](TSNode e) -> TSNode {
    while (is(e, "parenthesized_expression"))
      e = ts_node_named_child(e, 0);
    if (is(e, "attribute") && doc.textOf(field(e, "attribute")) == "__dict__" &&
        is(field(e, "object"), "identifier"))
      return field(e, "object");
    if (is(e, "call") && doc.textOf(field(e, "function")) == "vars" && !find("vars")) {
      TSNode args = field(e, "arguments");
      if (!isNull(args) && ts_node_named_child_count(args) == 1 &&
          is(ts_node_named_child(args, 0), "identifier"))
        return ts_node_named_child(args, 0);
    }
    return TSNode{};
  };
  TSNode target = namespaceOf(field(callee, "object"));
  TSNode args = field(call, "arguments");
  if (isNull(target) || isNull(args) || ts_node_named_child_count(args) != 1)
    return;
  TSNode source = namespaceOf(ts_node_named_child(args, 0));
  if (isNull(source))
    return;
  const Binding* from = find(str(doc.textOf(source)));
  const Binding* into = find(str(doc.textOf(target)));
  // Only a fresh module object (types.ModuleType(...), bound as Other) takes
  // the source module's names; updating anything else is not modelled.
  if (from && (from->kind == Binding::Kind::Module || from->kind == Binding::Kind::Symbol) &&
      into && into->kind == Binding::Kind::Other && into->target == "types.ModuleType")
    bindings_[str(doc.textOf(target))] = *from;
}

// ---- launch wrappers ------------------------------------------------------

std::optional<WrapperCall>
launchWrapperCall(TSNode def, const syntax::ParsedSource& doc, const Globals& globals,
                  const std::function<bool(const std::string&, bool)>& isWrapper) {
  if (!is(def, "function_definition"))
    return std::nullopt;
  if (auto k = kernelTakingWrapperCall(def, doc, globals, isWrapper))
    return k->first;
  // The wrapper's own `*args` and `**kwargs` parameter names.
  std::string starArgs, starKwargs;
  for (TSNode p : syntax::namedChildren(field(def, "parameters"))) {
    if (is(p, "list_splat_pattern") && ts_node_named_child_count(p) == 1)
      starArgs = str(doc.textOf(ts_node_named_child(p, 0)));
    else if (is(p, "dictionary_splat_pattern") && ts_node_named_child_count(p) == 1)
      starKwargs = str(doc.textOf(ts_node_named_child(p, 0)));
  }
  if (starArgs.empty() && starKwargs.empty())
    return std::nullopt;
  // The last statement of the body: `return CALL(...)`.
  TSNode last{};
  for (TSNode st : syntax::namedChildren(field(def, "body")))
    if (!is(st, "comment"))
      last = st;
  if (!is(last, "return_statement") || ts_node_named_child_count(last) != 1)
    return std::nullopt;
  TSNode call = ts_node_named_child(last, 0);
  if (!is(call, "call"))
    return std::nullopt;
  // It must forward the splats it has (nothing else reaches the launch).
  bool forwardsArgs = starArgs.empty(), forwardsKwargs = starKwargs.empty();
  for (TSNode a : syntax::namedChildren(field(call, "arguments"))) {
    if (is(a, "list_splat") && doc.textOf(ts_node_named_child(a, 0)) == starArgs)
      forwardsArgs = true;
    else if (is(a, "dictionary_splat") && doc.textOf(ts_node_named_child(a, 0)) == starKwargs)
      forwardsKwargs = true;
    else if (!is(a, "keyword_argument") && !is(a, "comment"))
      return std::nullopt; // positional arguments of its own: not a plain forward
  }
  if (!forwardsArgs || !forwardsKwargs)
    return std::nullopt;
  WrapperCall w;
  w.call = call;
  TSNode callee = field(call, "function");
  // `self.m(...)` / `super().m(...)`: another wrapper of the class.
  if (is(callee, "attribute")) {
    TSNode object = field(callee, "object");
    std::string method = str(doc.textOf(field(callee, "attribute")));
    TSNode params = field(def, "parameters");
    TSNode first = ts_node_named_child_count(params) ? ts_node_named_child(params, 0) : TSNode{};
    bool isSelf = is(object, "identifier") && is(first, "identifier") &&
                  doc.textOf(object) == doc.textOf(first);
    bool isSuper = is(object, "call") && doc.textOf(field(object, "function")) == "super";
    if ((isSelf || isSuper) && isWrapper && isWrapper(method, isSuper)) {
      w.inner = method;
      w.viaSuper = isSuper;
      return w;
    }
  }
  std::optional<Binding> b = resolveGlobalExpr(callee, doc, globals);
  if (!b || (b->kind != Binding::Kind::Module && b->kind != Binding::Kind::Symbol) ||
      !b->file.empty() || !isJaxName(b->target))
    return std::nullopt;
  w.api = canonicalApi(b->target);
  if (!detail::isLaunchApi(w.api))
    return std::nullopt;
  return w;
}

// ---- Globals::build --------------------------------------------------------

void Globals::build(const syntax::ParsedSource& doc, const std::string& path,
                    ModuleResolver* resolver, int depth) {
  bindings_.clear();
  dunderAll_.reset();
  path_ = path;
  resolver_ = resolver;
  depth_ = depth;
  scanBlock(doc.root(), doc, 0);
  // Python's order of execution decides what a module variable holds
  // (NamesModuleValues.cpp); its fingerprint carries it.
  for (auto& [name, b] : bindings_) {
    if ((b.kind != Binding::Kind::Constant && b.kind != Binding::Kind::Other) || !b.file.empty())
      continue;
    if (auto mv = names::moduleValue(doc, name))
      b.moduleValue = std::to_string(static_cast<int>(mv->state)) + ":" +
                      (isNull(mv->value) ? std::string() : str(doc.textOf(mv->value)));
  }
}

void Globals::scanBlock(TSNode block, const syntax::ParsedSource& doc, int blockDepth) {
  if (blockDepth > kMaxBlockDepth)
    return;
  for (TSNode s : syntax::namedChildren(block)) {
    std::string_view t = syntax::type(s);
    if (t == "import_statement")
      bindImport(s, doc);
    else if (t == "import_from_statement")
      bindImportFrom(s, doc);
    else if (t == "expression_statement") {
      TSNode a = ts_node_named_child(s, 0);
      if (is(a, "assignment"))
        bindAssignment(a, doc);
      else if (is(a, "call"))
        bindModuleClone(a, doc);
    } else if (t == "function_definition" || t == "class_definition" || t == "decorated_definition")
      bindDefinition(s, doc);
    else if (t == "ERROR" && ts_node_eq(block, doc.root())) {
      auto chunks = doc.recoveredChunks(s);
      if (chunks.empty())
        scanBlock(s, doc, blockDepth + 1);
      for (TSNode chunk : chunks)
        scanBlock(chunk, doc, blockDepth + 1);
    } else if (t == "try_statement") {
      // `try: from jax... import X` / `except ImportError: X = None`: the
      // import is what runs where the module works; a fallback in an except
      // clause binds only names the try body did not.
      for (TSNode c : syntax::namedChildren(s)) {
        if (is(c, "except_clause") || is(c, "except_group_clause")) {
          std::map<std::string, Binding> kept = bindings_;
          scanBlock(c, doc, blockDepth + 1);
          for (auto& [name, b] : kept)
            bindings_[name] = b;
        } else {
          scanBlock(c, doc, blockDepth + 1);
        }
      }
    } else if (t == "if_statement") {
      // `if TYPE_CHECKING: ... else: ...`: at run time only the else branch
      // runs (typing.TYPE_CHECKING is False), `if not TYPE_CHECKING:` the
      // other way round.
      if (std::optional<bool> truth = isTypeCheckingCondition(field(s, "condition"), doc)) {
        for (TSNode c : syntax::namedChildren(s)) {
          bool consequence = ts_node_eq(c, field(s, "consequence"));
          bool alternative = is(c, "elif_clause") || is(c, "else_clause");
          if (consequence ? *truth : alternative && !*truth)
            scanBlock(c, doc, blockDepth + 1);
        }
        continue;
      }
      // `if ok: from jax... import X` / `else: X = None`: a None fallback in
      // another branch does not hide the import (the branch where the
      // module is usable is the one the analysis is for).
      for (TSNode c : syntax::namedChildren(s)) {
        if (!is(c, "elif_clause") && !is(c, "else_clause")) {
          scanBlock(c, doc, blockDepth + 1);
          continue;
        }
        std::map<std::string, Binding> kept = bindings_;
        scanBlock(c, doc, blockDepth + 1);
        for (auto& [name, b] : kept) {
          const Binding& now = bindings_[name];
          if (now.kind == Binding::Kind::Constant && now.target == "None")
            bindings_[name] = b;
        }
      }
    } else if (t == "with_statement" || t == "elif_clause" || t == "else_clause" ||
               t == "except_clause" || t == "finally_clause" || t == "block" || t == "ERROR")
      scanBlock(s, doc, blockDepth + 1);
  }
}

void Globals::bindImport(TSNode stmt, const syntax::ParsedSource& doc) {
  for (TSNode c : syntax::namedChildren(stmt)) {
    Binding b;
    b.kind = Binding::Kind::Module;
    std::string bound;
    if (is(c, "dotted_name")) {
      std::string full = str(doc.textOf(c));
      bound = full.substr(0, full.find('.'));
      b.target = bound;
    } else if (is(c, "aliased_import")) {
      b.target = str(doc.textOf(field(c, "name")));
      bound = str(doc.textOf(field(c, "alias")));
    } else {
      continue;
    }
    if (resolver_ && !isJaxName(b.target))
      if (auto f = resolver_->moduleFile(b.target, 0, path_))
        b.file = *f;
    bindings_[bound] = b;
  }
}

void Globals::bindImportFrom(TSNode stmt, const syntax::ParsedSource& doc) {
  TSNode mod = field(stmt, "module_name");
  if (isNull(mod))
    return;
  int level = 0;
  std::string module;
  if (is(mod, "relative_import")) {
    for (TSNode c : syntax::namedChildren(mod)) {
      if (is(c, "import_prefix"))
        level = static_cast<int>(doc.textOf(c).size());
      else if (is(c, "dotted_name"))
        module = str(doc.textOf(c));
    }
  } else {
    module = str(doc.textOf(mod));
  }
  std::optional<std::string> file;
  if (resolver_ && (level > 0 || !isJaxName(module)))
    file = resolver_->moduleFile(module, level, path_);
  std::string qualifiedModule = std::string(static_cast<size_t>(level), '.') + module;
  // The imported names: every named child but the module (the runtime's
  // ts_node_field_name_for_child was unreliable in tree-sitter 0.20).
  for (TSNode c : syntax::namedChildren(stmt)) {
    if (is(c, "wildcard_import")) {
      // `from .m import *`: every name m exports (its __all__), as if named.
      if (file && depth_ < kMaxDepth)
        for (const std::string& name : resolver_->exportedNames(*file, depth_ + 1))
          if (auto b = resolver_->exported(*file, name, depth_ + 1))
            bindings_[name] = *b;
      continue;
    }
    if (ts_node_eq(c, mod) || !(is(c, "dotted_name") || is(c, "aliased_import")))
      continue;
    std::string name, alias;
    if (is(c, "aliased_import")) {
      name = str(doc.textOf(field(c, "name")));
      alias = str(doc.textOf(field(c, "alias")));
    } else {
      name = alias = str(doc.textOf(c));
    }
    Binding b;
    if (file) {
      std::optional<Binding> exported;
      if (depth_ < kMaxDepth)
        exported = resolver_->exported(*file, name, depth_ + 1);
      if (exported) {
        b = *exported;
      } else if (auto sub = resolver_->moduleFile(module.empty() ? name : module + "." + name,
                                                  level, path_)) {
        b = makeBinding(Binding::Kind::Module,
                        qualifiedModule.empty() ? name : qualifiedModule + "." + name, *sub);
      } else {
        b = makeBinding(Binding::Kind::Other, qualifiedModule + "." + name, *file);
      }
    } else if (auto sub = resolver_ && (level > 0 || !isJaxName(module))
                              ? resolver_->moduleFile(module.empty() ? name : module + "." + name,
                                                      level, path_)
                              : std::nullopt) {
      // `from . import helpers`: a sibling module, no package __init__.
      b = makeBinding(Binding::Kind::Module, module.empty() ? name : module + "." + name, *sub);
    } else {
      b.kind = Binding::Kind::Symbol;
      b.target = module.empty() ? qualifiedModule + name : qualifiedModule + "." + name;
    }
    bindings_[alias] = b;
  }
}

// `functools.partial(<launch API>, ...)`: a Partial binding carrying the
// keywords it fixes (interpret=, scratch) and the kernel it binds.
std::optional<Binding> launchPartial(TSNode call, const syntax::ParsedSource& doc,
                                     const Globals& globals) {
  if (!is(call, "call"))
    return std::nullopt;
  TSNode args = field(call, "arguments");
  if (apiOf(field(call, "function"), doc, globals) != "functools.partial" || isNull(args) ||
      ts_node_named_child_count(args) == 0)
    return std::nullopt;
  std::string inner = apiOf(ts_node_named_child(args, 0), doc, globals);
  if (!detail::isLaunchApi(inner))
    return std::nullopt;
  Binding b;
  b.kind = Binding::Kind::Partial;
  b.target = inner;
  TSNode interpretNode{};
  unsigned positional = 0;
  for (TSNode a : syntax::namedChildren(args)) {
    bool isPositional = !is(a, "keyword_argument") && !is(a, "comment") && !is(a, "list_splat") &&
                        !is(a, "dictionary_splat");
    if (isPositional && positional++ == 1 && is(a, "identifier")) // the kernel it binds
      b.partialKernel = str(doc.textOf(a));
    if (!is(a, "keyword_argument")) // the first argument is positional
      continue;
    std::string k = keywordName(a, doc);
    if ((k == "kernel" || k == "body") && is(field(a, "value"), "identifier"))
      b.partialKernel = str(doc.textOf(field(a, "value")));
    b.keywords.emplace_back(k, str(doc.textOf(field(a, "value"))));
    if (k == "interpret")
      interpretNode = field(a, "value");
    if (k == "scratch_shapes" || k == "scratch_types") {
      if (auto kinds = scratchKinds(field(a, "value"), doc, globals)) {
        b.scratch = *kinds;
        b.scratchKnown = true;
      }
    }
  }
  b.interpret = evaluateInterpret(interpretNode, doc, globals, nullptr);
  if (isNull(interpretNode))
    b.interpret->source = "absent";
  return b;
}

std::optional<Binding> launchTableEntry(TSNode subscript, const syntax::ParsedSource& doc,
                                        const Globals& globals, const LocalLookup& lookupLocal) {
  TSNode table = field(subscript, "value");
  TSNode keyNode = field(subscript, "subscript");
  if (!is(table, "identifier") || isNull(keyNode))
    return std::nullopt;
  std::optional<ModuleValue> mv = moduleValue(doc, str(doc.textOf(table)));
  if (!mv || mv->state != ModuleValue::State::Known || !is(mv->value, "dictionary"))
    return std::nullopt;
  struct Entry {
    std::optional<PyConstant> key;
    Binding launcher;
  };
  std::vector<Entry> entries;
  for (TSNode pair : syntax::namedChildren(mv->value)) {
    if (is(pair, "comment"))
      continue;
    if (!is(pair, "pair"))
      return std::nullopt; // a `**` part: other entries, not known
    TSNode value = field(pair, "value");
    Entry e{constantOf(field(pair, "key"), doc, nullptr, nullptr), {}};
    if (auto partial = launchPartial(value, doc, globals)) {
      e.launcher = *partial;
    } else if (std::string api = apiOf(value, doc, globals); detail::isLaunchApi(api)) {
      e.launcher.kind = Binding::Kind::Partial; // fixes nothing: the call's keywords decide
      e.launcher.target = api;
      e.launcher.interpret = evaluateInterpret(TSNode{}, doc, globals, nullptr);
    } else {
      return std::nullopt;
    }
    if (!entries.empty() && entries.front().launcher.target != e.launcher.target)
      return std::nullopt; // different APIs take different arguments
    entries.push_back(std::move(e));
  }
  if (entries.empty())
    return std::nullopt;
  // A key known statically picks its entry (Python's dict: the last one).
  if (std::optional<PyConstant> key = constantOf(keyNode, doc, lookupLocal, nullptr)) {
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
      if (it->key && it->key->kind == key->kind && it->key->i == key->i && it->key->s == key->s)
        return it->launcher;
    return std::nullopt; // a KeyError, or a key spelled otherwise
  }
  // Any entry: the launch takes each entry's interpret= ("may" when they
  // differ), and the call's own interpret= still wins over all of them.
  Binding merged;
  merged.kind = Binding::Kind::Partial;
  merged.target = entries.front().launcher.target;
  InterpretEval eval;
  eval.text = str(doc.textOf(subscript));
  eval.source = "condition";
  std::set<std::string> paths;
  for (const Entry& e : entries) {
    const std::optional<InterpretEval>& i = e.launcher.interpret;
    if (!i || i->paths.empty() ||
        std::find(i->paths.begin(), i->paths.end(), "unknown") != i->paths.end())
      return std::nullopt;
    paths.insert(i->paths.begin(), i->paths.end());
    if (eval.params.empty())
      eval.params = i->params;
  }
  eval.paths.assign(paths.begin(), paths.end());
  merged.interpret = eval;
  return merged;
}

void Globals::bindAssignment(TSNode assign, const syntax::ParsedSource& doc) {
  TSNode left = field(assign, "left");
  TSNode right = field(assign, "right");
  // `m.attr = v` / `d[k] = v` bind no name (a module clone's attribute
  // overrides are not modelled).
  if (is(left, "attribute") || is(left, "subscript"))
    return;
  if (!is(left, "identifier")) {
    // Tuple targets etc.: every name bound is something we do not model.
    if (!isNull(left))
      for (TSNode c : syntax::namedChildren(left)) {
        if (is(c, "identifier"))
          bindings_[str(doc.textOf(c))] = Binding{};
      }
    return;
  }
  std::string name = str(doc.textOf(left));
  Binding b;
  while (is(right, "parenthesized_expression"))
    right = ts_node_named_child(right, 0);
  if (name == "__all__") {
    // The names `from this import *` binds, when written as a literal.
    dunderAll_.reset();
    if (is(right, "list") || is(right, "tuple")) {
      std::vector<std::string> names;
      bool literal = true;
      for (TSNode el : syntax::namedChildren(right)) {
        if (is(el, "comment"))
          continue;
        std::string t = str(doc.textOf(el));
        if (!is(el, "string") || t.size() < 2) {
          literal = false;
          break;
        }
        names.push_back(t.substr(1, t.size() - 2));
      }
      if (literal)
        dunderAll_ = std::move(names);
    }
  }
  if (isNull(right)) {
    bindings_[name] = b;
    return;
  }
  std::string_view t = syntax::type(right);
  if (t == "identifier" || t == "attribute") {
    if (auto r = resolveGlobalExpr(right, doc, *this))
      b = *r;
  } else if (t == "true" || t == "false" || t == "none" || t == "integer" || t == "float" ||
             t == "string") {
    b.kind = Binding::Kind::Constant;
    b.target = str(doc.textOf(right));
    b.interpret = evaluateInterpret(right, doc, *this, nullptr);
  } else if (auto module = importModuleName(right, doc, *this)) {
    b = *importedModule(*module); // importlib.import_module("pkg.mod") (8.18)
  } else if (t == "call") {
    TSNode callee = field(right, "function");
    std::string api = apiOf(callee, doc, *this);
    if (endsWith(api, "InterpretGPUParams")) {
      b.kind = Binding::Kind::Constant;
      b.target = str(doc.textOf(right));
      b.interpret = evaluateInterpret(right, doc, *this, nullptr);
    } else if (auto partial = launchPartial(right, doc, *this)) {
      b = *partial;
    } else if (auto r = resolveGlobalExpr(callee, doc, *this);
               r && r->kind == Binding::Kind::Symbol && r->target == "types.ModuleType") {
      // A fresh module object: bindModuleClone may give it a module's names.
      b.target = r->target;
    }
  }
  bindings_[name] = b;
}

// The launch wrappers of a class: those of its bases of this file (the
// leftmost base first, as Python's MRO does for simple hierarchies), then its
// own methods, which override (a method that is not a wrapper hides one).
std::map<std::string, std::string>
Globals::classLaunchWrappers(TSNode cls, const syntax::ParsedSource& doc,
                             std::map<std::string, std::string>& portable) const {
  std::map<std::string, std::string> out;
  std::vector<TSNode> bases;
  for (TSNode base : syntax::namedChildren(field(cls, "superclasses")))
    if (is(base, "identifier"))
      bases.push_back(base);
  for (auto it = bases.rbegin(); it != bases.rend(); ++it) {
    const Binding* b = find(str(doc.textOf(*it)));
    if (!b || b->kind != Binding::Kind::Class)
      continue;
    // A base class of another file: its portable wrappers only (8.21).
    bool foreign = !b->file.empty() && b->file != path_;
    for (auto& [m, c] : b->launchWrappers) {
      auto p = b->portableWrappers.find(m);
      if (foreign && p == b->portableWrappers.end())
        continue;
      out[m] = foreign && !c.starts_with("@") ? "@" + b->file : c;
      if (p != b->portableWrappers.end())
        portable[m] = p->second;
      else
        portable.erase(m);
    }
  }
  const std::map<std::string, std::string> inherited = out;
  std::string name = str(doc.textOf(field(cls, "name")));
  for (TSNode m : syntax::namedChildren(field(cls, "body"))) {
    TSNode def = is(m, "decorated_definition") ? field(m, "definition") : m;
    if (!is(def, "function_definition"))
      continue;
    std::string method = str(doc.textOf(field(def, "name")));
    auto isWrapper = [&](const std::string& inner, bool viaSuper) {
      return (viaSuper ? inherited : out).count(inner) > 0;
    };
    // Decorated methods (properties, static/class methods) are not wrappers.
    std::optional<WrapperCall> w;
    if (ts_node_eq(def, m))
      w = launchWrapperCall(def, doc, *this, isWrapper);
    portable.erase(method);
    if (!w) {
      out.erase(method);
      continue;
    }
    out[method] = name;
    if (auto summary = portableWrapperSummary(def, *w, doc))
      portable[method] = *summary;
  }
  return out;
}

// "<api>\n<interpret literal>" for a wrapper whose body is only its
// forwarding `return <launch api>(*args, **kwargs)` (a docstring aside) with
// no keyword of its own but a literal interpret=: what it does can be used
// without its file's syntax (8.21).
std::optional<std::string> portableWrapperSummary(TSNode def, const WrapperCall& w,
                                                  const syntax::ParsedSource& doc) {
  if (w.api.empty())
    return std::nullopt;
  for (TSNode st : syntax::namedChildren(field(def, "body"))) {
    bool docstring = is(st, "expression_statement") && ts_node_named_child_count(st) == 1 &&
                     is(ts_node_named_child(st, 0), "string");
    bool forward = is(st, "return_statement") && ts_node_named_child_count(st) == 1 &&
                   ts_node_eq(ts_node_named_child(st, 0), w.call);
    if (!is(st, "comment") && !docstring && !forward)
      return std::nullopt;
  }
  std::string interpret;
  for (TSNode a : syntax::namedChildren(field(w.call, "arguments"))) {
    if (!is(a, "keyword_argument"))
      continue;
    TSNode v = field(a, "value");
    if (keywordName(a, doc) != "interpret" ||
        !(is(v, "true") || is(v, "false") || is(v, "none") || is(v, "integer")))
      return std::nullopt;
    interpret = str(doc.textOf(v));
  }
  return w.api + "\n" + interpret;
}

void Globals::bindDefinition(TSNode def, const syntax::ParsedSource& doc) {
  TSNode inner = def;
  bool launched = false;
  if (is(def, "decorated_definition")) {
    inner = field(def, "definition");
    for (TSNode d : syntax::namedChildren(def)) {
      if (!is(d, "decorator"))
        continue;
      TSNode e = ts_node_named_child(d, 0);
      TSNode callee = is(e, "call") ? field(e, "function") : e;
      std::string api = apiOf(callee, doc, *this);
      if (detail::isLaunchApi(api))
        launched = true;
      if (api == "functools.partial" && is(e, "call")) {
        TSNode args = field(e, "arguments");
        if (!isNull(args) && ts_node_named_child_count(args) > 0 &&
            detail::isLaunchApi(apiOf(ts_node_named_child(args, 0), doc, *this)))
          launched = true;
      }
      if (auto b = resolveGlobalExpr(callee, doc, *this); b && b->kind == Binding::Kind::Partial)
        launched = true;
    }
  }
  TSNode nameNode = field(inner, "name");
  if (isNull(nameNode))
    return;
  Binding b;
  b.kind = is(inner, "class_definition") ? Binding::Kind::Class : Binding::Kind::Function;
  if (b.kind == Binding::Kind::Class)
    b.launchWrappers = classLaunchWrappers(inner, doc, b.portableWrappers);
  b.target = str(doc.textOf(nameNode));
  b.file = ""; // this file
  b.launched = launched;
  b.line = static_cast<int>(ts_node_start_point(inner).row);
  // A function that declares `global`: what a call of it leaves in module
  // names is read where it is called (names::valueSetBefore), so a unit
  // that calls it is lowered again when its body changes.
  // A module-level function that only forwards its splats to a launch
  // (8.47): a call of it is that launch, written at the call.
  if (b.kind == Binding::Kind::Function && ts_node_eq(def, inner))
    if (auto w = launchWrapperCall(inner, doc, *this, nullptr); w && !w->api.empty())
      b.wrapsLaunch =
          w->api + "#" + std::to_string(std::hash<std::string_view>{}(doc.textOf(inner)));
  if (b.kind == Binding::Kind::Function) {
    std::string_view text = doc.textOf(inner);
    if (text.find("global") != std::string_view::npos)
      b.moduleValue = "rebinds:" + std::to_string(std::hash<std::string_view>{}(text));
  }
  bindings_[b.target] = b;
}

} // namespace pallas::analysis::names
