// What the three files of the module-level name table share (Names.h is the
// public face): Names.cpp resolves names and canonical API names,
// NamesBinding.cpp binds a module's names (Globals::build), NamesInterpret.cpp
// evaluates interpret= and scratch shapes statically.
#pragma once

#include "Names.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace pallas::analysis::names {

using syntax::field;
using syntax::is;
using syntax::isNull;

constexpr int kMaxDepth = 8; // re-export chains followed across files

inline std::string str(std::string_view s) {
  return std::string(s);
}

inline Binding makeBinding(Binding::Kind kind, std::string target, std::string file) {
  Binding b;
  b.kind = kind;
  b.target = std::move(target);
  b.file = std::move(file);
  return b;
}

inline bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The name of a keyword_argument node.
inline std::string keywordName(TSNode kw, const syntax::ParsedSource& doc) {
  return str(doc.textOf(field(kw, "name")));
}

// NamesInterpret.cpp: what a literal interpret= value (True, 0, None, ...)
// selects; "unknown" for any other text.
InterpretEval evalFromText(const std::string& text);

// NamesBinding.cpp: the summary of a launch wrapper a class of another file
// can use (Binding::portableWrappers), nullopt when it is not that simple.
std::optional<std::string> portableWrapperSummary(TSNode def, const WrapperCall& w,
                                                  const syntax::ParsedSource& doc);

// NamesConstants.cpp: the Python constants interpret= expressions are built
// from, folded as Python evaluates them (not, and/or, one comparison,
// `x if c else y`, a constant key or index into a dict/tuple/list literal).
// `fromModule` (may be null) is set when a module-level value was read.
struct PyConstant {
  // Enum: a member of a plain `class C(enum.Enum)` of the document, `s` its
  // canonical `C.NAME` (the first member with an equal value: aliases are
  // the same object), 8.53.
  enum class Kind { None, Bool, Int, Str, Enum };
  Kind kind = Kind::None;
  int64_t i = 0; // Bool (0 / 1) and Int
  std::string s; // Str, Enum
  bool truthy() const;
};
// The Python source text of a constant (what constantFromText reads back);
// nullopt for a string it cannot spell without escapes.
std::optional<std::string> constantSourceText(const PyConstant& c);
std::optional<PyConstant> constantOf(TSNode expr, const syntax::ParsedSource& doc,
                                     const LocalLookup& lookupLocal, bool* fromModule,
                                     int depth = 0);
// `LAUNCHERS[key]` with LAUNCHERS a module-level dict literal whose values
// are all one launch API or partials of it (8.93): as a Partial binding, the
// entry a constant key picks (a plain API entry fixes nothing), or, for a
// key not known statically, one whose interpret= is every entry's (a "may"
// when they differ). nullopt otherwise.
std::optional<Binding> launchTableEntry(TSNode subscript, const syntax::ParsedSource& doc,
                                        const Globals& globals, const LocalLookup& lookupLocal);
// The value a name is bound to: a local bound once to a known expression
// (lookupLocal's "local"), else a module-level value the execution order
// fixes; nullopt for parameters and anything unknown.
std::optional<TSNode> valueOfName(TSNode name, const syntax::ParsedSource& doc,
                                  const LocalLookup& lookupLocal, bool* fromModule);
// The element a subscript with one constant key selects from a dict, tuple
// or list literal (or a name bound to one); nullopt when not determined.
std::optional<TSNode> elementOf(TSNode subscript, const syntax::ParsedSource& doc,
                                const LocalLookup& lookupLocal, bool* fromModule, int depth = 0);
// `d.get(k)` / `d.get(k, default)` on a dict literal (or a name bound to
// one) with a constant key (8.69): the value under k (the last equal key),
// else the default; a null node for the implicit None. `*fromModule` is set
// when the value found is a module-level dict's (its names are the
// module's); the default reads the call's own names. nullopt when not
// determined (a splat or an unknown key in the dict, a computed key).
std::optional<TSNode> dictGet(TSNode call, const syntax::ParsedSource& doc,
                              const LocalLookup& lookupLocal, bool* fromModule, int depth = 0);
// The branch a conditional expression takes when its condition is a
// constant; a null node otherwise.
TSNode conditionalBranch(TSNode expr, const syntax::ParsedSource& doc,
                         const LocalLookup& lookupLocal, bool* fromModule, int depth = 0);

// NamesInstances.cpp: whether `name` is a parameter of `def` or assigned
// among its own statements (not nested scopes').
bool boundInDef(TSNode def, const std::string& name, const syntax::ParsedSource& doc);

// The Python constant a literal's source text spells (True, None, 12, -3,
// "s" without escapes); nullopt for anything else. A parameter bound in a
// call context arrives as such text (LocalLookup kind kBoundConstant).
std::optional<PyConstant> constantFromText(std::string_view text);

} // namespace pallas::analysis::names
