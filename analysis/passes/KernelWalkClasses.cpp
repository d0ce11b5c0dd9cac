// The KernelWalk's view of classes and module-level values: which method a
// receiver's class finds along its bases, which subclasses may be the
// receiver of `self`, and what a module-level name holds once the module has
// run (docs/analysis.md 8.14, 8.15). Read from the documents' syntax and
// module names; no MLIR is built here.
#include "KernelWalkInternal.h"
#include "Names.h"
#include "Syntax.h"

namespace pallas::analysis::passes {

namespace {

using syntax::field;
using syntax::is;
using syntax::isNull;

std::string textOf(TSNode n, const syntax::ParsedSource& doc) {
  return std::string(doc.textOf(n));
}

// The class_definition statements at module level (decorated ones too).
std::vector<TSNode> topLevelClasses(const syntax::ParsedSource& doc) {
  std::vector<TSNode> out;
  for (TSNode stmt : syntax::namedChildren(doc.root())) {
    TSNode def = is(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
    if (is(def, "class_definition"))
      out.push_back(def);
  }
  return out;
}

TSNode classDef(const syntax::ParsedSource& doc, llvm::StringRef name) {
  for (TSNode c : topLevelClasses(doc))
    if (textOf(field(c, "name"), doc) == name)
      return c;
  return {};
}

} // namespace

std::optional<KernelWalk::ClassRef> KernelWalk::classNamed(const std::string& doc,
                                                           llvm::StringRef localName) const {
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  if (!s.doc || !s.globals)
    return std::nullopt;
  const names::Binding* b = s.globals->find(localName.str());
  if (!b || b->kind != names::Binding::Kind::Class)
    return std::nullopt;
  return ClassRef{b->file.empty() ? doc : b->file, b->target};
}

std::optional<std::vector<std::string>> fStringPieces(llvm::StringRef text) {
  size_t quote = text.find_first_of("\"'");
  llvm::StringRef prefix = text.take_front(quote);
  if (quote == llvm::StringRef::npos || !prefix.contains_insensitive("f"))
    return std::nullopt;
  llvm::StringRef body = text.drop_front(quote);
  size_t q = body.starts_with("\"\"\"") || body.starts_with("'''") ? 3 : 1;
  if (body.size() < 2 * q)
    return std::nullopt;
  body = body.drop_front(q).drop_back(q);
  std::vector<std::string> pieces{""};
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
      pieces.back() += c; // `{{` / `}}`: a literal brace
      ++i;
    } else if (c == '{') {
      int open = 1; // the replacement field, nested braces and all
      while (++i < body.size() && open > 0)
        open += body[i] == '{' ? 1 : body[i] == '}' ? -1 : 0;
      --i;
      pieces.emplace_back();
    } else {
      pieces.back() += c;
    }
  }
  if (pieces.size() < 2)
    return std::nullopt; // no replacement field: a plain string
  return pieces;
}

bool spells(llvm::StringRef name, const std::vector<std::string>& pieces) {
  if (!name.consume_front(pieces.front()))
    return false;
  if (!name.consume_back(pieces.back()))
    return false;
  for (size_t i = 1; i + 1 < pieces.size(); ++i) {
    size_t at = name.find(pieces[i]);
    if (at == llvm::StringRef::npos)
      return false;
    name = name.drop_front(at + pieces[i].size());
  }
  return true;
}

KernelWalk::Callable KernelWalk::methodsSpelled(mlir::Value object,
                                                const std::vector<std::string>& pieces,
                                                unsigned depth, const std::string& doc) const {
  Callable out;
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  if (!s.doc)
    return out;
  // The methods of the document's classes the string may spell; the
  // receiver's class (resolveMethod) keeps those it has.
  std::set<std::string> names;
  for (TSNode c : topLevelClasses(*s.doc))
    for (TSNode st : syntax::namedChildren(field(c, "body"))) {
      TSNode def = is(st, "decorated_definition") ? field(st, "definition") : st;
      if (is(def, "function_definition"))
        if (std::string name = textOf(field(def, "name"), *s.doc); spells(name, pieces))
          names.insert(name);
    }
  for (const std::string& name : names) {
    Callable c = resolveMethod(object, name, depth + 1, doc);
    std::vector<Callable> each =
        c.alternatives.empty() ? std::vector<Callable>{c} : std::move(c.alternatives);
    for (Callable& one : each) {
      if (!one.block)
        continue;
      std::string why = "when the f-string getattr reads `" + name + "`";
      one.dispatchText = one.dispatchText.empty() ? why : why + ", " + one.dispatchText;
      out.alternatives.push_back(std::move(one));
    }
  }
  return out;
}

KernelWalk::Callable KernelWalk::constructedAttribute(pd::CallIndirectOp constructor,
                                                      llvm::StringRef attr, unsigned depth,
                                                      const std::string& doc) const {
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  if (!s.doc || !s.globals)
    return {};
  SourceLocation at = detail::sourceLocation(constructor->getLoc());
  TSPoint point{at.range.start.line, at.range.start.column};
  TSNode site = ts_node_named_descendant_for_point_range(s.doc->root(), point, point);
  while (!isNull(site) && !is(site, "call"))
    site = ts_node_parent(site);
  if (isNull(site))
    return {};
  std::optional<TSNode> value = names::builtObjectAttribute(site, attr.str(), *s.doc, *s.globals);
  if (!value)
    return {};
  // An argument of the call: the constructor's operand in its place (the
  // front end lowers the arguments in order, one operand each).
  unsigned i = 0;
  for (TSNode a : syntax::namedChildren(field(site, "arguments"))) {
    if (is(a, "comment"))
      continue;
    TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
    if (ts_node_eq(v, *value))
      return i < constructor.getArgs().size() ? resolve(constructor.getArgs()[i], depth + 1, doc)
                                              : Callable{};
    ++i;
  }
  // A default written in the class (a field's default, a class attribute):
  // a module function it names.
  if (is(*value, "identifier"))
    return moduleFunction(doc, s.doc->textOf(*value));
  return {};
}

std::vector<KernelWalk::ClassRef> KernelWalk::basesOf(const ClassRef& cls) const {
  auto [memo, fresh] = bases_.try_emplace(cls.path + "\n" + cls.name);
  if (!fresh)
    return memo->second;
  std::vector<ClassRef>& out = memo->second;
  detail::DocumentSyntax s = ws_.syntaxOf(cls.path);
  if (!s.doc || !s.globals)
    return out;
  TSNode def = classDef(*s.doc, cls.name);
  if (isNull(def))
    return out;
  for (TSNode base : syntax::namedChildren(field(def, "superclasses"))) {
    if (is(base, "keyword_argument"))
      continue; // metaclass=...
    auto b = names::resolveGlobalExpr(base, *s.doc, *s.globals);
    if (b && b->kind == names::Binding::Kind::Class)
      out.push_back({b->file.empty() ? cls.path : b->file, b->target});
  }
  return out;
}

detail::FunctionRef KernelWalk::lookupMethod(const ClassRef& cls, llvm::StringRef attr,
                                             unsigned depth) const {
  if (depth > 8)
    return {};
  if (detail::FunctionRef f = ws_.function(cls.path, cls.name + "." + attr.str()))
    return f;
  // Depth first, leftmost base first: Python's MRO for hierarchies without
  // diamonds (a diamond may find a method C3 would not; documented).
  for (const ClassRef& base : basesOf(cls))
    if (detail::FunctionRef f = lookupMethod(base, attr, depth + 1))
      return f;
  return {};
}

std::vector<KernelWalk::ClassRef> KernelWalk::subclassesOf(const ClassRef& cls) const {
  std::vector<ClassRef> out;
  detail::DocumentSyntax s = ws_.syntaxOf(cls.path);
  if (!s.doc)
    return out;
  std::function<bool(const ClassRef&, unsigned)> derives = [&](const ClassRef& c, unsigned d) {
    if (d > 8)
      return false;
    for (const ClassRef& b : basesOf(c))
      if ((b.path == cls.path && b.name == cls.name) || derives(b, d + 1))
        return true;
    return false;
  };
  for (TSNode c : topLevelClasses(*s.doc)) {
    ClassRef sub{cls.path, textOf(field(c, "name"), *s.doc)};
    if (sub.name != cls.name && derives(sub, 0))
      out.push_back(sub);
  }
  return out;
}

mlir::Value KernelWalk::moduleValue(const std::string& doc, llvm::StringRef name,
                                    bool itemStores) const {
  std::string key = doc + (itemStores ? "\n+" : "\n") + name.str();
  if (auto it = moduleValues_.find(key); it != moduleValues_.end())
    return it->second;
  mlir::Value& found = moduleValues_[key];
  detail::DocumentSyntax s = ws_.syntaxOf(doc);
  mlir::ModuleOp module = ws_.module(doc);
  if (!s.doc || !module)
    return found;
  found = detail::moduleLevelValue(module, *s.doc, name, itemStores);
  return found;
}

mlir::Value KernelWalk::lateBinding(pd::GlobalOp read) const {
  llvm::StringRef name = read.getName();
  for (mlir::Operation* p = read->getParentOp(); p; p = p->getParentOp()) {
    mlir::Block* block = p->getBlock();
    if (!block)
      break;
    for (mlir::Operation& op : llvm::reverse(*block))
      if (auto b = llvm::dyn_cast<pd::OpaqueOp>(op);
          b && b.getWhat() == "late_binding" && b.getArgs().size() == 1)
        if (auto n = b->getAttrOfType<mlir::StringAttr>("pallas.name"); n && n.getValue() == name)
          return b.getArgs()[0];
  }
  return {};
}

std::pair<mlir::Value, std::string> KernelWalk::follow(mlir::Value v,
                                                       const std::string& doc) const {
  std::string d = doc;
  for (unsigned i = 0; v && i < 8; ++i) {
    if (auto it = argValues_.find(v); it != argValues_.end()) {
      v = it->second.first;
      d = it->second.second;
      continue;
    }
    // A name a nested def reads before its enclosing def binds it: the
    // value that def's body ends with (`late_binding`, LowerNonlocal.cpp).
    if (auto g = v.getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "late") {
      if (mlir::Value bound = lateBinding(g)) {
        v = bound;
        continue;
      }
      break;
    }
    if (auto g = v.getDefiningOp<pd::GlobalOp>(); g && g.getResolved() == "?") {
      if (mlir::Value m = moduleValue(d, g.getName())) {
        v = m;
        continue;
      }
    }
    break;
  }
  return {v, d};
}

} // namespace pallas::analysis::passes
