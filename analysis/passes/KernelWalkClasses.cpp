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
