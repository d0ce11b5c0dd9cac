// Shapes and dtypes as values: a small evaluator of the Python expressions
// that size a Mosaic GPU kernel (module constants, arithmetic, tuples, jnp
// dtypes and their itemsize, jax.ShapeDtypeStruct, plgpu.SMEM / Barrier /
// BlockSpec / CompilerParams, values passed in through parameters). It reads
// the tree-sitter tree (the dialect does not keep operators or a launch's
// keyword arguments), and asks a SourceIndex for other files and callers.
// Whatever the source does not determine is Unknown, with the text that was
// not known, so callers can say "at least N B (unknown: x)". No MLIR here.
#pragma once

#include "Names.h"
#include "ShapeValue.h"
#include "Syntax.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace pallas::analysis::shape {

// What the evaluator may read beyond the file it starts in.
class SourceIndex {
public:
  virtual ~SourceIndex() = default;
  struct File {
    const syntax::ParsedSource* doc = nullptr;
    const names::Globals* globals = nullptr;
  };
  virtual std::optional<File> file(const std::string& path) const = 0;
  // Call sites of the module-level function `symbol` of `path`: each the
  // file and the byte offset where the call expression starts.
  struct CallSite {
    std::string path;
    uint32_t row = 0, column = 0; // 0-based, UTF-8 bytes
  };
  virtual std::vector<CallSite> callersOf(const std::string& path,
                                          const std::string& symbol) const = 0;
};

// Where an expression is evaluated: the file, the innermost def around it
// (null node: module level) and values bound to parameters (by the caller the
// analysis follows).
struct Scope {
  std::string path;
  TSNode function{}; // function_definition / lambda, or null
  std::map<std::string, Value> bound;
  std::shared_ptr<const Scope> parent; // the scope a closure was defined in
};

class Evaluator {
public:
  explicit Evaluator(const SourceIndex& index) : index_(index) {}
  // Evaluate `expr` (a node of `scope.path`'s tree) in `scope`.
  Value eval(TSNode expr, const Scope& scope);
  // What the Python evaluator (analysis/eval) computed for an expression
  // of file `path` when it ran the program (the same value every time it
  // ran it), asked where the source alone does not determine a value: a
  // tile size from a helper, a call argument's dtype, a comprehension.
  using Oracle = std::function<std::optional<Value>(const std::string& path, TSNode expr)>;
  void setOracle(Oracle oracle) { oracle_ = std::move(oracle); }
  // The scope of a node: its innermost enclosing def in `path` (parameters
  // unbound: they are looked up as defaults or at the callers).
  Scope scopeAt(const std::string& path, TSNode node) const;
  // The `call` node whose start is at (row, column), nullopt when none.
  std::optional<TSNode> callAt(const std::string& path, uint32_t row, uint32_t column) const;
  // The arguments of a call: positional in order, keywords by name.
  struct Args {
    std::vector<TSNode> positional;
    std::map<std::string, TSNode> keywords;
    bool splat = false; // *args or **kwargs present
    // The argument for parameter `index` / `keyword` (keyword first); null
    // node when absent.
    TSNode get(size_t index, const std::string& keyword) const;
  };
  static Args argsOf(TSNode call, const syntax::ParsedSource& doc);
  // The qualified JAX/Python name an expression names (canonical API for JAX:
  // "plgpu.SMEM", "jnp.float32", "math.prod", "builtins.min"), "" when not a name
  // of a module.
  std::string qualifiedName(TSNode expr, const Scope& scope) const;
  const syntax::ParsedSource* docOf(const std::string& path) const;
  // The nodes from `root` down to `target` (both included), by descending
  // with a cursor: ts_node_parent is linear in the tree in tree-sitter,
  // and walking up from deep nodes of a large file made every edit slow.
  static std::vector<TSNode> pathTo(TSNode root, TSNode target);
  // The nodes that contain `point`, outermost first.
  static std::vector<TSNode> pathToPoint(TSNode root, TSPoint point);
  // The same from a document's root, the top-level statement found by a
  // binary search (a cursor scans a module's statements one by one).
  std::vector<TSNode> path(const syntax::ParsedSource* doc, TSNode target) const;
  std::vector<TSNode> pathAt(const syntax::ParsedSource* doc, TSPoint point) const;

private:
  Value evalName(const std::string& name, TSNode use, const Scope& scope, int depth);
  // The value `name` gets from `binding` (its def or assignment statement),
  // the right-hand side evaluated in `scope`.
  Value boundValue(const std::string& name, TSNode binding, const Scope& scope, int depth);
  Value evalCall(TSNode call, const Scope& scope, int depth);
  Value evalApi(const std::string& api, TSNode call, const Scope& scope, int depth);
  // The parts of evalSyntax (ShapeEvalExpressions.cpp).
  std::optional<Value> literal(std::string_view t, const std::string& text,
                               const syntax::ParsedSource* doc, TSNode expr);
  Value evalSubscript(TSNode expr, const std::string& text, const Scope& scope, int depth);
  Value evalComparison(TSNode expr, const std::string& text, const Scope& scope, int depth);
  // A call of a named API, as evalApi's parts read it (ShapeEvalApis.cpp).
  struct ApiCall {
    Evaluator* ev;
    const std::string& api;
    const Scope& scope;
    int depth;
    const syntax::ParsedSource* doc;
    Args args;
    std::string text; // the call's text, cut at 60 characters
    std::string leaf; // the API's last name
    // Argument `index` or `keyword`, evaluated (unknown "<absent k>" when not given).
    Value arg(size_t index, const std::string& keyword) const;
    bool has(size_t index, const std::string& keyword) const;
  };
  std::optional<Value> evalScalarApi(const ApiCall& c);
  std::optional<Value> evalArrayApi(const ApiCall& c);
  std::optional<Value> evalAllocationApi(const ApiCall& c);
  std::optional<Value> evalSpecApi(const ApiCall& c);
  Value evalUserCall(TSNode def, const std::string& path, TSNode call, const Scope& scope,
                     int depth);
  Value evalAttribute(const Value& base, const std::string& attr);
  Value evalBinary(const std::string& op, const Value& a, const Value& b);
  Value evalAt(TSNode expr, const Scope& scope, int depth);
  Value evalSyntax(TSNode expr, const Scope& scope, int depth);
  Oracle oracle_;
  Value paramValue(const std::string& name, TSNode param, const Scope& scope, int depth);
  Value fromCallers(const std::string& name, const Scope& scope, int depth);
  // evalName's module-level part: the name's value in the file `path`.
  Value moduleName(const std::string& name, const syntax::ParsedSource* doc,
                   const std::string& path, int depth);
  // name -> (its last assignment or def, conditional)
  using Assignments = std::map<std::string, std::pair<TSNode, bool>>;
  std::optional<TSNode> lastAssignment(TSNode body, const std::string& name, TSNode use,
                                       const syntax::ParsedSource& doc, bool* conditional,
                                       Assignments* all = nullptr) const;
  std::optional<TSNode> moduleDef(const std::string& path, const std::string& name) const;

  const SourceIndex& index_;
  int steps_ = 0; // guards pathological inputs
  mutable std::map<const syntax::ParsedSource*, Assignments> moduleAssignments_;
  const std::vector<TSNode>& topLevel(const syntax::ParsedSource* doc) const;
  mutable std::map<const syntax::ParsedSource*, std::vector<TSNode>> topLevel_;
  const std::set<std::string>& localNames(const std::string& path, TSNode def) const;
  mutable std::map<std::pair<const void*, uint32_t>, std::set<std::string>> localNames_;
  std::unordered_map<std::string, Value> moduleNames_; // moduleName(), per "path\x1fname"
};

} // namespace pallas::analysis::shape
