// Lowering of one unit of a Python document (a module-level def, a method,
// or another top-level statement) to a detached `pallas.func` op. Units are
// independent: the lowering of one depends only on its own text and on the
// module-level names it looks up, which it records (UnitDeps) so that the
// incremental update can tell when a reused unit must be lowered again.
#pragma once

#include "Names.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace pallas::analysis::lower {

// A top-level piece of the document that becomes one pallas.func.
struct Unit {
  TSNode node{};         // the statement (decorated_definition included)
  TSNode def{};          // function_definition for def/method units, else null
  std::string kind;      // "def" | "method" | "module"
  std::string name;      // Python name ("f", "C.m", "__module__")
  std::string_view text; // source text of `node` (valid until the next edit)
  uint32_t startRow = 0, startColumn = 0;
  // Contains a syntax error: never reused, because tree-sitter may recover
  // the same text differently after an edit elsewhere.
  bool hasError = false;
  // What the module-level names can depend on: for a def/method without
  // errors, its kind, name and decorators; for anything else, all its text.
  // When no header changes, an edit cannot change what any name resolves to.
  uint64_t headerHash = 0;
  uint64_t textHash = 0; // xxh3 of `text`
};

// The units of a document, in source order. A def or class hidden inside a
// top-level ERROR node (a syntax error around it) is still a unit.
std::vector<Unit> enumerateUnits(const syntax::ParsedSource& doc);

// Global names a unit looked up, each with the fingerprint of what it
// resolved to ("pl.pallas_call" -> "1|jax.experimental.pallas.pallas_call|...").
struct UnitDeps {
  std::vector<std::pair<std::string, std::string>> lookups;
  // Where the unit first nests deeper than the lowering follows (that syntax
  // became pallas.opaque "too_deep"); nullopt when it does not.
  std::optional<SourcePos> tooDeep;
  // names::instancesFingerprint when a launch read `self.attr` (8.25) or
  // followed a module-level function's return (8.31): the unit is lowered
  // again when the document's classes, their calls or its functions change.
  std::string instances;
};

// Recompute the fingerprint of a recorded lookup against new globals.
std::string lookupFingerprint(const std::string& key, const names::Globals& globals);

struct LowerInput {
  mlir::MLIRContext* context;
  const syntax::ParsedSource& doc;
  const names::Globals& globals;
  const std::string& path;
};

// Lower `unit` to a detached pallas.func named `symbol`. Never throws on bad
// input: what it does not understand becomes pallas.opaque.
mlir::Operation* lowerUnit(const LowerInput& in, const Unit& unit, const std::string& symbol,
                           UnitDeps& deps);

} // namespace pallas::analysis::lower
