// The symbol table of a Python module, as CPython's compiler builds it
// (Python/symtable.c): one scope per module, function, lambda, class body and
// comprehension; the names each binds; `global` / `nonlocal` declarations.
// The lowering asks it which namespace each name it reads or writes lives in.
// Syntax only: nothing is evaluated.
#pragma once

#include "SyntaxNodes.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::py {

enum class Scope : uint32_t; // PyOps.td

struct ScopeInfo {
  enum class Kind { Module, Function, Class, Comprehension };
  Kind kind = Kind::Module;
  ScopeInfo* parent = nullptr;
  std::set<std::string, std::less<>> bound;     // assigned, imported, defined, parameters
  std::set<std::string, std::less<>> globals;   // `global x`
  std::set<std::string, std::less<>> nonlocals; // `nonlocal x`
  std::vector<std::string> locals;              // bound names, parameters first, in order met
  void bind(std::string_view name);
};

class ScopeTable {
public:
  // Builds the scopes of the statements under `root` (a module node, or one
  // top-level statement: the module scope then holds what it binds).
  explicit ScopeTable(TSNode root, std::string_view text);

  ScopeInfo* module() const { return scopes_.front().get(); }
  // The scope a def / lambda / class / comprehension node opens.
  ScopeInfo* scopeOf(TSNode node) const;
  // Where `name`, read or written in `scope`, lives.
  Scope resolve(const ScopeInfo* scope, std::string_view name) const;

private:
  struct Collector;
  ScopeInfo* open(TSNode node, ScopeInfo::Kind kind, ScopeInfo* parent);
  std::vector<std::unique_ptr<ScopeInfo>> scopes_;
  std::map<std::pair<uint32_t, uint32_t>, ScopeInfo*> byNode_;
  std::string_view text_;
};

} // namespace pallas::py
