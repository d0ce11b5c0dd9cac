// PLS004 inline-mgpu-signature-mismatch: its own pass over the same launch
// runs as the path checks (LaunchRuns), checking each inline_mgpu call the
// kernels reach once per document.
#include "InlineMgpuSignature.h"

#include "LaunchCache.h"
#include "LaunchRuns.h"
#include "PassKnowledge.h"
#include "pallas/analysis/Rules.h"
#include "pallas/analysis/detail/PallasPass.h"
#include "pallas/analysis/detail/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"

#include <set>
#include <tuple>

namespace pallas::analysis::passes {

namespace pd = pallas::dialect;

namespace {

struct CallArgs {
  mlir::OperandRange args;
  mlir::ArrayAttr keywords;
  std::string name;
};

std::optional<CallArgs> callArgs(mlir::Operation* op) {
  if (auto c = llvm::dyn_cast_or_null<pd::CallOp>(op))
    return CallArgs{c.getArgs(), c.getKeywords(), c.getCallee().str()};
  if (auto c = llvm::dyn_cast_or_null<pd::CallIndirectOp>(op)) {
    std::string name = "region";
    if (auto cl = c.getCallee().getDefiningOp<pd::ClosureOp>())
      name = cl.getName().str();
    return CallArgs{c.getArgs(), c.getKeywords(), name};
  }
  return std::nullopt;
}

// An operand that is certainly an array (never a Ref): a Ref load, a
// jnp/lax result, a literal, arithmetic.
bool certainlyArray(mlir::Value v) {
  mlir::Operation* def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto p = llvm::dyn_cast<pd::PrimOp>(def)) {
    llvm::StringRef api = p.getApi();
    return api == apiText(Api::RefGetItem) || api.starts_with("jnp.") || api.starts_with("lax.");
  }
  if (auto c = llvm::dyn_cast<pd::ConstantOp>(def))
    return c.getKind() == pd::ConstantKind::Int || c.getKind() == pd::ConstantKind::Float;
  if (auto o = llvm::dyn_cast<pd::OpaqueOp>(def))
    return o.getWhat() == "binary_operator";
  return false;
}

std::string treedef(size_t n) {
  if (n == 1)
    return "PyTreeDef((*,))";
  std::string s = "PyTreeDef((";
  for (size_t i = 0; i < n; ++i)
    s += i ? ", *" : "*";
  return s + "))";
}

Finding base(const BoundPrimitive& b, const knowledge::KnowledgeBase& kb) {
  Finding f;
  f.code = ruleCode(RuleId::InlineMgpuSignature);
  f.severity = Severity::Error;
  f.location = detail::sourceLocation(b.site->getLoc());
  f.executionPath = "every path (JAX raises while tracing the kernel)";
  f.jaxVersion = kb.jaxVersion();
  for (const Hop& h : b.chain)
    f.callChain.push_back(h.name + " (" + llvm::sys::path::filename(h.definition.path).str() + ":" +
                          std::to_string(h.definition.range.start.line + 1) + ")");
  if (b.inlineMgpu)
    f.related.push_back({detail::sourceLocation(b.inlineMgpu->getLoc()),
                         "the inline_mgpu region is declared here"});
  return f;
}

} // namespace

// The evaluator's verdict on a call (BoundPrimitive::signature), in the
// same words as the kernel walk's below.
void reportSignature(const BoundPrimitive& b, const knowledge::KnowledgeBase& kb,
                     std::vector<Finding>& out) {
  using P = BoundPrimitive::Signature::Problem;
  const BoundPrimitive::Signature& sig = *b.signature;
  if (sig.problem == P::None)
    return;
  Finding f = base(b, kb);
  if (b.inlineDef.path.size())
    f.related.push_back({b.inlineDef, "the inline_mgpu region is declared here"});
  std::string name = b.inlineName.empty() ? std::string("region") : b.inlineName;
  switch (sig.problem) {
  case P::Count: {
    std::string err =
        kb.formatError("inlineMgpuTypeMismatch", {treedef(sig.given), treedef(sig.declared)})
            .value_or("Mismatched type shape: " + treedef(sig.given) +
                      " != " + treedef(sig.declared));
    f.message = "`" + name + "` is called with " + std::to_string(sig.given) +
                " argument(s) but its arg_types declares " + std::to_string(sig.declared) +
                ": JAX " + kb.jaxVersion() + " will raise ValueError: " + err +
                " when it traces this call. Pass one argument per arg_types entry (after the "
                "launch context).";
    break;
  }
  case P::ArrayForRef:
  case P::RefForArray: {
    bool ref = sig.problem == P::ArrayForRef;
    f.message = "Argument " + std::to_string(sig.index + 1) + " of `" + name + "` is " +
                (ref ? "an array where arg_types declares plgpu.RefType()"
                     : "a Ref where arg_types declares an array layout") +
                ": JAX " + kb.jaxVersion() +
                " will raise ValueError: Mismatched type: ... when it traces this call. " +
                (ref ? "Pass the Ref itself (not ref[...])."
                     : "Load it first (ref[...]) or declare plgpu.RefType().");
    break;
  }
  case P::NoneUsed:
    f.message =
        "`" + name +
        "` declares no return_type, so it returns None, but its result is used as a value: JAX " +
        kb.jaxVersion() + " will raise " + sig.noneUse +
        ". Declare return_type=plgpu.ShapeDtypeStruct(shape, dtype, layout) and return the value "
        "from the region.";
    break;
  case P::None:
    break;
  }
  out.push_back(std::move(f));
}

void checkInlineMgpuSignature(const BoundPrimitive& b, const knowledge::KnowledgeBase& kb,
                              std::vector<Finding>& out) {
  if (b.signature) {
    reportSignature(b, kb, out);
    return;
  }
  if (!b.inlineMgpu || !b.inlineCall)
    return;
  auto call = callArgs(b.inlineCall);
  if (!call)
    return;
  for (mlir::Attribute k : call->keywords)
    if (auto s = llvm::dyn_cast<mlir::StringAttr>(k);
        s && (s.getValue() == "*" || s.getValue() == "**"))
      return;
  pd::InlineMgpuOp op = b.inlineMgpu;
  int64_t declared = op.getArgTypesCount();
  size_t given = call->args.size();
  if (declared >= 0 && static_cast<int64_t>(given) != declared) {
    Finding f = base(b, kb);
    std::string err = kb.formatError("inlineMgpuTypeMismatch",
                                     {treedef(given), treedef(static_cast<size_t>(declared))})
                          .value_or("Mismatched type shape: " + treedef(given) +
                                    " != " + treedef(static_cast<size_t>(declared)));
    f.message = "`" + call->name + "` is called with " + std::to_string(given) +
                " argument(s) but its arg_types declares " + std::to_string(declared) + ": JAX " +
                kb.jaxVersion() + " will raise ValueError: " + err +
                " when it traces this call. Pass one argument per arg_types entry (after the "
                "launch context).";
    out.push_back(std::move(f));
    return;
  }
  if (auto kinds = op.getArgTypeKinds()) {
    for (size_t i = 0; i < given && i < kinds->size(); ++i) {
      llvm::StringRef kind = pd::enumName((*kinds)[i]);
      bool isRef = i < b.argStates.size() && b.argStates[i].isRef();
      bool isArray = certainlyArray(call->args[i]);
      std::string problem;
      if (kind == "ref" && isArray)
        problem = "an array where arg_types declares plgpu.RefType()";
      else if (kind == "array" && isRef && !isArray)
        problem = "a Ref where arg_types declares an array layout";
      if (problem.empty())
        continue;
      Finding f = base(b, kb);
      f.message = "Argument " + std::to_string(i + 1) + " of `" + call->name + "` is " + problem +
                  ": JAX " + kb.jaxVersion() +
                  " will raise ValueError: Mismatched type: ... when it traces this call. " +
                  (kind == "ref" ? "Pass the Ref itself (not ref[...])."
                                 : "Load it first (ref[...]) or declare plgpu.RefType().");
      out.push_back(std::move(f));
      return;
    }
  }
  if (!op.getReturnType() || op.getReturnType()->trim() == "None") {
    // The region returns None: a use of the call's value as an array fails.
    for (mlir::Operation* user : b.inlineCall->getResult(0).getUsers()) {
      std::string err;
      if (auto p = llvm::dyn_cast<pd::PrimOp>(user))
        err = "TypeError: Argument 'None' of type '<class 'NoneType'>' is not a valid JAX type";
      else if (auto o = llvm::dyn_cast<pd::OpaqueOp>(user);
               o && (o.getWhat() == "binary_operator" || o.getWhat() == "unary_operator"))
        err = "TypeError: unsupported operand type(s) for ...: '...' and 'NoneType'";
      if (err.empty())
        continue;
      Finding f = base(b, kb);
      f.message =
          "`" + call->name +
          "` declares no return_type, so it returns None, but its result is used as a value: JAX " +
          kb.jaxVersion() + " will raise " + err +
          ". Declare return_type=plgpu.ShapeDtypeStruct(shape, dtype, layout) and return the value "
          "from the region.";
      out.push_back(std::move(f));
      return;
    }
  }
}

namespace {

// What checking one inline_mgpu call gave (nothing when it is fine).
struct CallVerdict {
  SourceLocation at; // the call
  std::vector<Finding> findings;
};

void runInlineMgpuSignature(detail::PassContext& ctx) {
  auto kb = knowledgeFor(ctx.options);
  if (!kb || !ctx.module)
    return;
  checkDocumentAndCallers(ctx, [&](const std::string& doc, mlir::ModuleOp module, CallIndex& calls,
                                   std::vector<Finding>& out) {
    // JAX raises while tracing, whatever the path: each call once, as the
    // first launch (in order) that reaches it sees it. Per launch, what each
    // call it reaches gives is kept across edits (LaunchCache.h); the calls
    // are told apart by where they are (an op does not outlive an edit).
    std::set<std::tuple<std::string, uint32_t, uint32_t>> checked;
    forEachLaunch(ctx, doc, module, *kb, calls,
                  [&](mlir::Operation* launch, uint64_t planKey,
                      const std::function<void(const RunVisitor&)>& walkRuns) {
                    std::vector<CallVerdict> verdicts = detail::perLaunch<std::vector<CallVerdict>>(
                        ctx, launch, detail::LaunchCache::Kind::InlineMgpuSignatures, planKey, [&] {
                          std::vector<CallVerdict> launchVerdicts;
                          llvm::DenseSet<mlir::Operation*> seen;
                          walkRuns([&](const LaunchRunView& v) {
                            for (const BoundPrimitive& b : v.walk.bindings())
                              if (b.inlineCall && seen.insert(b.inlineCall).second) {
                                CallVerdict verdict;
                                verdict.at = detail::sourceLocation(b.inlineCall->getLoc());
                                checkInlineMgpuSignature(b, *kb, verdict.findings);
                                launchVerdicts.push_back(std::move(verdict));
                              }
                          });
                          return launchVerdicts;
                        });
                    auto keyOf = [](const CallVerdict& v) {
                      return std::tuple(v.at.path, v.at.range.start.line, v.at.range.start.column);
                    };
                    // Against the earlier launches only: within one, each op counts.
                    for (CallVerdict& verdict : verdicts)
                      if (!checked.count(keyOf(verdict)))
                        for (Finding& f : verdict.findings)
                          out.push_back(std::move(f));
                    for (const CallVerdict& verdict : verdicts)
                      checked.insert(keyOf(verdict));
                  });
  });
}

} // namespace

// ---- the pass (Passes.td: pallas-inline-mgpu-signature) -------------------------
#define GEN_PASS_DECL_PALLASINLINEMGPUSIGNATURE
#define GEN_PASS_DEF_PALLASINLINEMGPUSIGNATURE
#include "pallas/analysis/detail/Passes.h.inc"
PALLAS_FINDINGS_PASS(PallasInlineMgpuSignature, runInlineMgpuSignature)
} // namespace pallas::analysis::passes
