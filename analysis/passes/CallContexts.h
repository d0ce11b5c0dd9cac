// Call-site values of a launch's `interpret=` parameter. A launch written
// `pl.pallas_call(..., interpret=interpret)` inside `def square(x, interpret
// =False)` runs with whatever each caller of `square` passes: the default
// only where a caller leaves the argument out. This module finds the callers
// (through the workspace's call edges, up to a bounded call-string depth)
// and evaluates the argument each passes, so the discharge pass can judge
// the launch once per caller context and name the caller that selects a
// failing path. See docs/analysis.md, "Call-site arguments".
#pragma once

#include "KernelWalk.h"
#include "PathRules.h"
#include "Syntax.h"
#include "pallas/analysis/detail/Passes.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis::passes {

// The calls written where `op` is (starting at its location), innermost
// first, until `visit` returns true; that call, or null.
TSNode callWrittenAt(const syntax::ParsedSource& doc, mlir::Operation* op,
                     const std::function<bool(TSNode call)>& visit);

// One caller context of a launch: the paths that caller's value selects.
// `paths` empty means the value is not known statically ("may" both ways).
struct CallContext {
  std::vector<ExecPath> paths;
  LaunchFacts facts;        // from an InterpretGPUParams(...) the caller passes
  SourceLocation selector;  // the argument (or the call, for a default) that selects it
  std::string caller;       // the calling function's name
  std::string callee;       // the function holding the launch (or the next hop)
  std::string argumentText; // "interpret=True", "interpret (its default)", ...
  bool usesDefault = false; // the caller leaves the argument out
  // The value the caller passes (in its document) for the launch function's
  // parameter `parameter`, when it is a constant: a walk of the launch
  // under this context binds it (a closure's `if not interpret:` reads it).
  mlir::Value argument, parameter;
  std::string argumentDoc;
  // The call that passes the value (of the function around the launch, or
  // further up); null when not one call.
  mlir::Operation* site = nullptr;
};

// The workspace's call edges indexed by callee, built once per pass run.
class CallIndex {
public:
  explicit CallIndex(const detail::Workspace& ws) : ws_(ws) {}
  const std::vector<detail::CallEdge>& callersOf(const std::string& path, llvm::StringRef symbol);
  // Whether any document of the workspace spells force_gpu_interpret_mode
  // (without it no call runs inside that mode; most workspaces never do,
  // and the search for such callers cost every launch of a large file
  // several lookups per keystroke).
  bool mayUseGpuMode();
  const detail::Workspace& workspace() const { return ws_; }

private:
  const detail::Workspace& ws_;
  bool built_ = false;
  std::optional<bool> gpuMode_;
  std::map<std::pair<std::string, std::string>, std::vector<detail::CallEdge>> byCallee_;
  std::vector<detail::CallEdge> none_;
};

// The caller contexts of `launch` (in document `doc`) when its `interpret=`
// is a parameter of the module-level function around it and that function
// has callers in the workspace; empty otherwise (the launch's own `paths`
// then stand).
std::vector<CallContext> interpretCallContexts(CallIndex& index, const std::string& doc,
                                               dialect::LaunchOp launch);

// The caller contexts of a launch whose interpret= is an expression over
// parameters of the function around it (`interpret=(mode == "debug")`, the
// lowering's `pallas.interpret_parameters`): the expression evaluated again
// with each caller's constant arguments (CallContextExpressions.cpp, 8.30).
std::vector<CallContext> expressionCallContexts(CallIndex& index, const std::string& doc,
                                                dialect::LaunchOp launch);

// The argument a call (its arguments as bound: edgeArguments) passes to a
// parameter: by `keyword`, or at position `position` (-1: keyword only)
// among the positional arguments before any `*` / `**` splat. `splat` says
// whether the call has one.
mlir::Value argumentAt(const detail::CallArguments& args, llvm::StringRef keyword, int position,
                       bool* splat);

// The caller contexts of a launch without its own interpret= (or with
// interpret=False) whose function is called, directly or through up to 3
// calls, inside `with force_gpu_interpret_mode(...)`: the process-wide mode
// makes it run in GPU interpret mode there, compiled elsewhere. Empty when
// no caller runs it in that mode.
std::vector<CallContext> gpuModeCallContexts(CallIndex& index, const std::string& doc,
                                             dialect::LaunchOp launch);

// The paths a literal's text selects (True, False, None, an integer);
// nullopt when it is not such a literal.
std::optional<ExecPath> pathOfLiteral(llvm::StringRef text);
// The path a front-end path name ("compiled", "interpret_hlo", ...) stands for.
std::optional<ExecPath> execPathNamed(llvm::StringRef p);

// `interpret=args.interpret` with `args = parser.parse_args(argv)` in the
// launching function and argv certainly empty: one context, the option's
// default (CallContextsArgparse.cpp, 8.66); empty otherwise.
std::vector<CallContext> argparseCallContexts(CallIndex& index, const std::string& doc,
                                              dialect::LaunchOp launch, const std::string& name,
                                              const std::string& attribute);

// A call of a method (CallContextsMethods.cpp, 8.65): `obj.m(...)` or
// `obj.alias(...)` with `alias = functools.partialmethod(m, ...)` in the
// class body, on an object of m's class. `args`: the call's own arguments
// (the receiver left out); the alias's bound ones come first.
struct MethodAlias {
  unsigned positional = 0;                                   // bound positional arguments
  std::vector<std::pair<std::string, std::string>> keywords; // bound keyword=source text
  bool unknown = false;                                      // a bound * / ** splat
};
struct MethodCall {
  detail::CallEdge edge; // the calling function and the call
  detail::CallArguments args;
  MethodAlias alias;
};
std::vector<MethodCall> methodCalls(const detail::Workspace& ws, const std::string& doc,
                                    dialect::FuncOp method);

// The kernels a launch whose body is a parameter of the function around it
// (`def launch(x, body): return pl.pallas_call(body, ...)(x)`) runs: the
// argument each caller of that function passes for it, in the caller's
// document. Empty when the body is not such a parameter or nobody passes
// one that is not itself a parameter.
// (LaunchBodyArgument: KernelWalk.h.)
struct LaunchBodyArguments {
  std::string function; // the launching function (its callers were asked for)
  std::vector<LaunchBodyArgument> arguments;
};
LaunchBodyArguments launchBodyArguments(CallIndex& index, const std::string& doc,
                                        dialect::LaunchOp launch);

} // namespace pallas::analysis::passes
