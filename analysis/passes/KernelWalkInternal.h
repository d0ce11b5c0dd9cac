// What the parts of the KernelWalk (KernelWalk.cpp, KernelWalkRefStates.cpp,
// KernelWalkCallables.cpp) share. Private to analysis/passes.
#pragma once

#include "KernelWalk.h"

#include "llvm/Support/Path.h"

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;
using Kind = RefState::Kind;

// The literal pieces of an f-string constant as the dialect writes it
// (`f"_{name}_kernel"` -> "_", "_kernel": one more piece than replacement
// fields); nullopt for any other constant (KernelWalkClasses.cpp).
std::optional<std::vector<std::string>> fStringPieces(llvm::StringRef text);
// Whether `name` may be what an f-string of those pieces evaluates to.
bool spells(llvm::StringRef name, const std::vector<std::string>& pieces);

// Primitives that stand for structure the walk follows itself (their
// bodies), not bindings (KernelWalk.cpp).
bool isStructuralPrimitive(llvm::StringRef name);

inline RefState discharged(Phase phase, const char* what) {
  return {Kind::Discharged, phase, what};
}

inline RefState plainRef(const char* what) {
  return {Kind::Ref, Phase::Lowering, what};
}

// The binding of one interpreter rule: `api` at `site` binds `prim`, whose
// operands are in state `refs`; `detail` is what JAX's message names
// (InterpretRules.cpp, GpuInterpretRules.cpp).
inline BoundPrimitive ruleBindingOf(std::string api, const knowledge::PrimitiveFacts* prim,
                                    mlir::Operation* site, RefState refs, std::string rule,
                                    std::string detail) {
  BoundPrimitive b;
  b.api = std::move(api);
  b.prim = prim;
  b.site = site;
  b.refs = refs;
  b.interpretRule = std::move(rule);
  b.detail = std::move(detail);
  return b;
}

// "kernels.py:14" for an op's location.
inline std::string placeOf(mlir::Operation* op) {
  SourceLocation at = detail::sourceLocation(op->getLoc());
  return llvm::sys::path::filename(at.path).str() + ":" + std::to_string(at.range.start.line + 1);
}

// The block argument a traced Ref comes from (detail::traceRef), when it is
// a parameter of a function, closure, inline_mgpu body or scope.
inline mlir::Value blockArgOf(const detail::RefSource& s) {
  using Kind = detail::RefSource::Kind;
  if (s.kind == Kind::Value || s.kind == Kind::OpResult || !s.owner ||
      s.owner->getNumRegions() == 0)
    return {};
  mlir::Region& r =
      s.owner->getRegion(s.owner->getNumRegions() - 1); // a func's body is its last region
  if (r.empty() || s.index >= r.front().getNumArguments())
    return {};
  return r.front().getArgument(s.index);
}

inline llvm::StringRef strAt(mlir::ArrayAttr a, unsigned i) {
  if (!a || i >= a.size())
    return "";
  return pd::enumName(a[i]); // keywords, or the name of an origin
}

// The value of an argument bound to parameter `index` (named `name`) of a
// call's callee; null when the call does not pass it statically.
inline mlir::Value argumentFor(mlir::ValueRange args,
                               llvm::function_ref<llvm::StringRef(unsigned)> kwAt, unsigned index,
                               llvm::StringRef name) {
  unsigned positional = 0;
  for (unsigned i = 0; i < args.size(); ++i) {
    llvm::StringRef kw = kwAt(i);
    if (kw == "*" || kw == "**")
      return {};
    if (kw.empty() ? positional++ == index : kw == name)
      return args[i];
  }
  return {};
}

// The parameter names of a function or closure op; null for anything else.
inline mlir::ArrayAttr parameterNames(mlir::Operation* defOp) {
  if (auto f = llvm::dyn_cast_or_null<pd::FuncOp>(defOp))
    return f.getArgNames();
  if (auto c = llvm::dyn_cast_or_null<pd::ClosureOp>(defOp))
    return c.getArgNames();
  return {};
}

// Python's binding of one call argument to a parameter: a positional one
// takes the next positional parameter (and advances `positional`), a keyword
// one the parameter of that name. -1 when it binds none of the `count`
// parameters (past the end, an unknown keyword). Splats are the caller's.
inline int parameterIndex(llvm::StringRef keyword, mlir::ArrayAttr names, unsigned& positional,
                          unsigned count) {
  int param = -1;
  if (keyword.empty())
    param = static_cast<int>(positional++);
  else
    for (unsigned j = 0; names && j < names.size(); ++j)
      if (strAt(names, j) == keyword)
        param = static_cast<int>(j);
  return param >= 0 && static_cast<unsigned>(param) < count ? param : -1;
}

// Sets entries of a map for the span of one walk (a callee's parameters
// while its body is walked) and puts back what each held, in reverse order,
// when it goes out of scope: a helper reached again later, or by recursion
// through another path, sees its caller's bindings again.
template <typename Map> class ScopedBindings {
public:
  using Key = typename Map::key_type;
  using Value = typename Map::mapped_type;
  explicit ScopedBindings(Map& map) : map_(map) {}
  ScopedBindings(const ScopedBindings&) = delete;
  ScopedBindings& operator=(const ScopedBindings&) = delete;
  ~ScopedBindings() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        map_[it->first] = *it->second;
      else
        map_.erase(it->first);
    }
  }
  void set(Key key, Value value) {
    save(key);
    map_[key] = std::move(value);
  }
  void erase(Key key) {
    save(key);
    map_.erase(key);
  }

private:
  void save(Key key) {
    auto it = map_.find(key);
    saved_.push_back({key, it == map_.end() ? std::nullopt : std::optional<Value>(it->second)});
  }
  Map& map_;
  std::vector<std::pair<Key, std::optional<Value>>> saved_;
};

} // namespace pallas::analysis::passes
