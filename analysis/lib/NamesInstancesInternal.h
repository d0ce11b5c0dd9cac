// What NamesInstances.cpp (instance attributes, 8.27) and NamesSetters.cpp
// (attributes set by method calls on an object, 8.32) share.
#pragma once

#include "NamesInternal.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace pallas::analysis::names::instances {

struct ClassInfo {
  TSNode def{};                   // the class_definition
  std::vector<std::string> bases; // its bases that are classes of this document, in order
  bool foreignBase = false;       // a base (or metaclass) that is not: it may define anything
};

struct Instances {
  std::unordered_map<std::string, ClassInfo> classes;         // the module-level classes
  std::unordered_map<std::string, std::vector<TSNode>> sites; // the calls `K(...)`, by K
  // Classes named other than as the callee of a call, a base, an annotation
  // or their own definition (`partial(K, ...)`, `factory = K`, `K.create()`):
  // objects of them may be built where no call shows their arguments.
  std::set<std::string> escaped;
  // Attribute names stored other than by `self.a = v` among the top-level
  // statements of an `__init__`: set at a time the lookup does not model.
  std::set<std::string> storedElsewhere;
  // Attributes some method stores as a top-level `self.a = v` (not
  // `__init__`): attribute -> those methods (8.32). Their values reach an
  // object through the calls of the methods on it (setterStates).
  std::map<std::string, std::set<std::string>> setters;
  bool dynamic = false; // setattr / vars / __dict__ / __setattr__: any attribute may change
  // getattr / methodcaller / __getattribute__: a method may be called by a
  // name the text does not show (a setter's calls are not all seen, 8.32).
  bool dynamicCalls = false;
  // Changes when any of the above may: the text of the classes and of the
  // calls of them (a unit that read an instance attribute is lowered again).
  std::string fingerprint;
};

// A value and the def whose names it reads (null: module scope).
struct Located {
  TSNode value{};
  TSNode scope{};
};

std::string textOf(TSNode n, const syntax::ParsedSource& doc);
TSNode definitionOf(TSNode stmt);
TSNode expressionOf(TSNode stmt);
std::vector<std::pair<std::string, TSNode>> parametersOf(TSNode def,
                                                         const syntax::ParsedSource& doc);
std::vector<std::string> lookupOrder(const Instances& in, const std::string& k, bool& open);
// Whether the assignment-like node `n` (`=`, `+=`, `for`, `:=`, `as`)
// binds the plain name `name` (not an attribute or item of it).
bool bindsName(TSNode n, const std::string& name, const syntax::ParsedSource& doc);
bool boundIn(TSNode def, const std::string& name, const syntax::ParsedSource& doc);
std::optional<Located> argumentFor(TSNode site, TSNode init, const std::string& name,
                                   const syntax::ParsedSource& doc);
std::optional<TSNode> methodNamed(TSNode cls, const std::string& name,
                                  const syntax::ParsedSource& doc);

// NamesSetters.cpp: the values `attr` holds in the object the call `site`
// (of class k) builds at each use of it, when methods that store `attr`
// are called on it (8.32): `Op().debug()(x)`, `op = Op(); op.debug();
// op(x)`. An empty `initial` entry (a null value) stands for the value the
// object had when built. nullopt when the order or the receiver of such a
// call is not known ("may"). `accounted` counts the setter calls seen.
std::optional<std::vector<Located>> setterStates(const Instances& in, const std::string& k,
                                                 TSNode site, const std::string& attr,
                                                 const syntax::ParsedSource& doc,
                                                 size_t& accounted);
// How many calls `x.m(...)` the document makes with m a method storing
// `attr` (Instances::setters).
size_t setterCallCount(const Instances& in, const std::string& attr,
                       const syntax::ParsedSource& doc);

} // namespace pallas::analysis::names::instances
