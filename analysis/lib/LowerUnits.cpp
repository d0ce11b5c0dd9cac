// The units of a document (module-level defs, methods, other statements),
// the fingerprints of the globals they looked up, and the lowering of one unit
// to a detached pallas.func (Lower.h).
#include "Lowerer.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/xxhash.h"

#include <cctype>
#include <functional>

namespace pallas::analysis::lower {

// ---- units ------------------------------------------------------------------

mlir::Operation* Lowerer::lower(const Unit& unit, const std::string& symbol) {
  TSNode def = unit.def;
  std::vector<std::string> params = isNull(def) ? std::vector<std::string>{} : paramNames(def);
  if (!isNull(def) && is(unit.node, "decorated_definition") && innermostIsInlineMgpu(unit.node) &&
      !params.empty())
    params.erase(params.begin()); // the wrapper is called without the context
  auto func = pd::FuncOp::create(b_, loc(unit.node), symbol,
                                 pd::symbolizeFuncKind(unit.kind).value_or(pd::FuncKind::Module),
                                 strArray(params));
  mlir::Block* decorators = new mlir::Block();
  func.getDecorators().push_back(decorators);
  mlir::Block* body = new mlir::Block();
  func.getBody().push_back(body);
  for (size_t i = 0; i < params.size(); ++i)
    body->addArgument(valueTy_, loc(def));

  // Decorators run in module scope, innermost first, applied to @symbol.
  std::optional<Factory> inlineMgpu;
  if (is(unit.node, "decorated_definition") && !isNull(def))
    inlineMgpu = lowerUnitDecorators(unit, symbol, decorators);

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
      if (unit.kind == "method" && body->getNumArguments() > 0 &&
          unit.name.find('.') != std::string::npos) {
        className_ = unit.name.substr(0, unit.name.rfind('.'));
        // A staticmethod's first parameter is an argument like the others;
        // a classmethod's is the class.
        std::string decorators;
        if (is(unit.node, "decorated_definition"))
          for (TSNode d : syntax::namedChildren(unit.node))
            if (is(d, "decorator"))
              decorators += text(d) + "\n";
        if (decorators.find("staticmethod") == std::string::npos)
          selfValue_ = body->getArgument(0);
        selfIsClass_ = decorators.find("classmethod") != std::string::npos;
      }
      lowerBlock(field(def, "body"));
      emitLateBindings(field(def, "body"));
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

// The decorators of a def or method unit, lowered into the func's decorator
// region and applied to @symbol. An innermost plgpu.inline_mgpu(...) is not
// applied: it is returned, and the unit's body becomes its wrapper.
std::optional<Factory> Lowerer::lowerUnitDecorators(const Unit& unit, const std::string& symbol,
                                                    mlir::Block* decorators) {
  TSNode def = unit.def;
  std::optional<Factory> inlineMgpu;
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToEnd(decorators);
  scopes_.emplace_back();
  std::vector<TSNode> decs;
  for (TSNode d : syntax::namedChildren(unit.node)) {
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
      if (first && f.api == apiName(Api::InlineMgpu)) {
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
  return inlineMgpu;
}

namespace {

// Whether a method's body returns a value and holds a nested decorated
// def (at any depth): the syntax of a kernel-taking launch wrapper.
bool mayTakeKernel(TSNode def) {
  bool returns = false, decorated = false;
  std::function<void(TSNode, unsigned)> walk = [&](TSNode n, unsigned depth) {
    if (isNull(n) || depth > kMaxNesting || (returns && decorated))
      return;
    if (is(n, "return_statement") && ts_node_named_child_count(n) > 0)
      returns = true;
    if (is(n, "decorated_definition") && depth > 0)
      decorated = true;
    for (TSNode c : syntax::namedChildren(n))
      walk(c, depth + 1);
  };
  walk(field(def, "body"), 0);
  return returns && decorated;
}

// `global` as a whole word anywhere in a function's text (a comment or a
// string that spells it only costs a wider re-lowering).
bool spellsGlobal(std::string_view text) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find("global"); at != std::string_view::npos;
       at = text.find("global", at + 6))
    if ((at == 0 || !ident(text[at - 1])) && (at + 6 == text.size() || !ident(text[at + 6])))
      return true;
  return false;
}

} // namespace

// ---- public -------------------------------------------------------------------

std::vector<Unit> enumerateUnits(const syntax::ParsedSource& doc) {
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
      // A method's class line (its bases decide which launch wrappers it
      // inherits), and the whole text of a function that takes *args or
      // **kwargs (it may be a launch wrapper, which the class's binding
      // records: Globals::classLaunchWrappers).
      if (u.kind == "method")
        if (TSNode cls = ts_node_parent(ts_node_parent(node)); is(cls, "class_definition")) {
          uint32_t cb = ts_node_start_byte(cls), ce = ts_node_start_byte(field(cls, "body"));
          u.headerHash = llvm::hash_combine(u.headerHash, doc.text().substr(cb, ce - cb));
        }
      for (TSNode p : syntax::namedChildren(field(def, "parameters")))
        if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern")) {
          u.headerHash = llvm::hash_combine(u.headerHash, u.textHash);
          break;
        }
      // Likewise a method that may be a kernel-taking wrapper
      // (KernelTakingWrappers.cpp): it returns something and launches a
      // nested decorated def. Test methods, which return nothing, stay
      // cheap to edit.
      // A nested decorator needs an `@` after the def's own line, which most
      // methods lack: the text test spares them the walk of their body.
      if (u.kind == "method" && u.text.find('@', e - b + 1) != std::string_view::npos &&
          mayTakeKernel(def))
        u.headerHash = llvm::hash_combine(u.headerHash, u.textHash);
      // And a function that declares `global`: its body decides what a
      // module-level name holds once a module-level call has run it
      // (names::moduleValue), which every launch reading the name uses.
      if (spellsGlobal(u.text))
        u.headerHash = llvm::hash_combine(u.headerHash, u.textHash);
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
      // A top-level statement that holds a syntax error and runs over the
      // top-level statements below it (`z = jnp.exp(` typed in a def
      // swallows the defs after it) is read in chunks, each parsed on its
      // own, as a top-level ERROR is: the launches below the error are still
      // analysed (PLS011, SyntaxErrors.h, reports the error itself).
      if (!insideError && t != "ERROR" && ts_node_has_error(s) && !doc.recoveredChunks(s).empty()) {
        for (TSNode chunk : doc.recoveredChunks(s))
          scan(chunk, true);
        continue;
      }
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
        for (TSNode c : syntax::namedChildren(s)) {
          std::string_view ct = syntax::type(c);
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
