// The analysis facade the server and the CLI use. It owns, per document, the
// tree-sitter tree and the incremental MLIR module (pallas dialect), and a
// workspace index for cross-file call graphs. No MLIR or tree-sitter types
// appear here: this header is included by the server and must stay cheap.
//
// Thread safety: every member function may be called from any thread; the
// Project serialises internally.
#pragma once

#include "pallas/analysis/Finding.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class ModuleOp; // only named here: callers of withModule include MLIR themselves
}
struct TSTree; // likewise tree-sitter, for withSyntax

namespace pallas::analysis {

// An edit in UTF-8 byte offsets of the document text before the edit.
struct ByteEdit {
  size_t startByte = 0;
  size_t oldEndByte = 0;
  std::string newText;
};

// What one update did, for logging, tests and the `pallas/mlir` request.
struct UpdateStats {
  unsigned functionsTotal = 0;
  unsigned functionsRelowered = 0;
  bool verified = true;   // the module passed the MLIR verifier
  double parseMillis = 0; // tree-sitter (incremental) parse
  double lowerMillis = 0; // lowering of changed functions + verify
  // The first place where the document nests deeper than the analysis
  // follows (kMaxNesting levels of expressions, statements or elif clauses):
  // what is below is not analysed, so findings there may be missing. The
  // server and `check` tell the user. nullopt when nothing is that deep.
  std::optional<SourcePos> tooDeepAt;
  // Functions whose lowering the MLIR verifier rejected (a bug of the
  // analysis, not of the user's code): each is analysed as empty, so
  // findings in it may be missing. `check` and the server say so.
  struct UnanalysedFunction {
    std::string name;
    SourcePos at;
    std::string reason; // the verifier's message
  };
  std::vector<UnanalysedFunction> unanalysed;
};

// How deep the analysis follows nested syntax (for messages).
inline constexpr unsigned kMaxAnalysedNesting = 256;

// What `check`, `mlir` and the server say about UpdateStats::tooDeepAt:
// "PATH:LINE:COL: nested deeper than the analysis follows (256 levels); what
// is below is not analysed" (1-based line and column).
inline std::string tooDeepText(const std::string& path, SourcePos at) {
  return path + ":" + std::to_string(at.line + 1) + ":" + std::to_string(at.column + 1) +
         ": nested deeper than the analysis follows (" + std::to_string(kMaxAnalysedNesting) +
         " levels); what is below is not analysed";
}

// "PATH:LINE:COL: could not analyse `NAME` (internal error: REASON);
// findings in it may be missing" (1-based line and column).
inline std::string unanalysedText(const std::string& path,
                                  const UpdateStats::UnanalysedFunction& f) {
  return path + ":" + std::to_string(f.at.line + 1) + ":" + std::to_string(f.at.column + 1) +
         ": could not analyse `" + f.name + "` (internal error: " + f.reason +
         "); findings in it may be missing. Please report this with the function's code.";
}

struct ProjectOptions {
  std::vector<std::string> workspaceRoots; // absolute folders, may be empty
  // Knowledge table (JSON made by analysis/knowledge/extract_knowledge.py).
  // Empty: the bundled table of the pinned JAX.
  std::string knowledgePath;
  // Debug log sink (one line per call, no newline); empty: no debug log.
  // Every update logs how many functions it lowered again.
  std::function<void(const std::string&)> debugLog;
  // Compute capability of the GPU kernels will run on, "major.minor" (e.g.
  // "9.0"), from gpu/'s device probe; empty: unknown. When set, PLS003 warns
  // about primitives whose hardware requirements it does not meet.
  std::string gpuComputeCapability;
  // The local GPU's shared_memory_per_block_optin (bytes), from gpu/'s probe;
  // 0: no GPU, and PLS005 compares with JAX's default limit (227 KiB).
  long long gpuSharedMemoryPerBlockOptin = 0;
  // Judge every launch as if this path were chosen, whatever its
  // interpret= says: "interpret" (interpret=True), "gpu-interpret"
  // (InterpretGPUParams()), "compiled"; empty: the paths each launch selects.
  // (`check --assume-path`: "can I debug this on the CPU?")
  std::string assumePath;
  // Lower a large file's units on the calling thread only (no helper
  // thread): `check` already runs one Project per core, and a helper thread
  // per large file oversubscribed the cores and made the MLIR context take
  // its locks.
  bool lowerOnCallingThread = false;
};

// One path of a launch's path matrix: whether it can run the launch, and
// when not, the first primitive and error JAX stops it with.
struct LaunchPathVerdict {
  std::string path;      // "compiled_sm90a" | "compiled_sm100a" | "interpret" | "gpu_interpret"
  std::string verdict;   // "yes" | "no" | "may" (fails only for some values / dtypes)
  std::string primitive; // when "no"/"may": the primitive ("inline_mgpu_p")
  std::string api;       // the call that binds it ("plgpu.copy_gmem_to_smem")
  std::string error;     // the exception and JAX's message
  std::optional<SourceLocation> at; // where JAX blames it
};

// The path matrix of one Mosaic GPU launch.
// The shared memory a launch requests, as JAX's Mosaic GPU lowering computes
// it (analysis/passes/SmemBudget.h).
struct LaunchSmem {
  long long total = 0; // bytes; a lower bound when `unknown` is not empty
  long long limit = 0; // the limit JAX compares with
  std::string limitSource;
  std::vector<std::pair<std::string, long long>> parts; // largest first
  std::vector<std::string> unknown;
  std::string summary; // "SMEM 264,248 / 232,448 B: q 32 KiB, ..." (the three largest parts)
  // The limit on each GPU the compiled paths target ("Hopper (sm_90a)",
  // bytes), as JAX would compare with there; a target whose limit is not
  // known is left out. `targetLimitSource` says where they come from.
  std::vector<std::pair<std::string, long long>> targetLimits;
  std::string targetLimitSource;
  // Blackwell tensor memory, in columns (0: the kernel allocates none).
  long long tmemCols = 0, tmemAllocated = 0, tmemLimit = 0;
  std::vector<std::pair<std::string, long long>> tmemParts; // largest first
};

struct LaunchPaths {
  SourceLocation launch;
  std::optional<LaunchSmem> smem;   // pl.pallas_call / plgpu.kernel launches
  std::string api;                  // "pl.pallas_call", "plgpu.kernel", ...
  std::vector<std::string> selects; // the paths the launch itself may select
  // The expression that decides the path as the launch writes it (its
  // `interpret=` argument, Finding::selectedAt's meaning); nullopt when the
  // call writes none. The hover shows this matrix there too.
  std::optional<SourceLocation> selectedAt;
  std::vector<LaunchPathVerdict> paths;
};

// A Pallas / Mosaic GPU API call at a position (for the hover): the
// canonical API name the front end resolved (aliases and import spellings
// included), e.g. "plgpu.copy_gmem_to_smem", and the range of the callee
// name as written.
struct ApiAt {
  std::string api;
  SourceRange range;
};

// The JAX version of the knowledge table the passes decide from for a
// configured table path (empty: the bundled table): the configured table
// when it loads, else the bundled one; "unknown" only when neither loads.
// Needs no Project (the CLI's version/doctor/check reports use it).
std::string knowledgeJaxVersion(const std::string& knowledgePath);

class Project {
public:
  explicit Project(ProjectOptions options = {});
  ~Project();
  Project(const Project&) = delete;
  Project& operator=(const Project&) = delete;

  // Open (or replace) a document with its full text. Also used for files read
  // from disk by `check` and by the background workspace indexer.
  UpdateStats setDocument(const std::string& path, std::string text);
  // Apply edits in order; each is in byte offsets of the text at that point.
  UpdateStats editDocument(const std::string& path, const std::vector<ByteEdit>& edits);
  // The editor closed it; the disk version (if any) stays in the index.
  void closeDocument(const std::string& path);
  // Forget a document entirely (tree, module, names), without reading the
  // disk version back: `check` lets go of each file once its findings are
  // out. If another document needs it later, it is read again from disk.
  void releaseDocument(const std::string& path);
  bool hasDocument(const std::string& path) const;
  std::string documentText(const std::string& path) const;

  // The module kept for the document, printed with locations.
  std::string mlirText(const std::string& path) const;
  // Run `fn` on the document's current module and text, under the Project's
  // lock (neither may escape `fn`; `fn` may call withModule for another
  // document). For readers that need the ops themselves (the rewrite), without
  // a print and re-parse. False, without calling `fn`, for an unknown path.
  bool withModule(const std::string& path,
                  const std::function<void(mlir::ModuleOp, std::string_view text)>& fn) const;
  // Findings for one document (its kernels and everything they reach).
  std::vector<Finding> findings(const std::string& path) const;
  // The same, but `stop` is asked between passes and between launches; once
  // it says true the run ends early and the answer is nullopt (nothing
  // partial is returned or kept). The server passes its StopToken: a newer
  // edit of the document stops the analysis of the older one.
  //
  // `launchResults`: whether the run keeps each launch's results for the
  // next edit (LaunchCache: what lets an edit re-evaluate only the launches
  // it touched). Keying them costs a quarter of a first run over a large
  // module, and a document's first diagnostics do not need them: Skip keys
  // nothing (it keeps neither keyed launch results nor the findings) and
  // returns the same findings; it records its launch results by place, and
  // a Keep run afterwards over the very same state (no edit, option or
  // indexed file between) keys and adopts them instead of evaluating the
  // launches again (LaunchCache::Mode::Record).
  enum class LaunchResults { Keep, Skip };
  std::optional<std::vector<Finding>>
  findingsUnlessStopped(const std::string& path, const std::function<bool()>& stop,
                        LaunchResults launchResults = LaunchResults::Keep) const;
  // The path matrix of every Mosaic GPU launch in the document (compiled on
  // sm_90a and sm_100a, interpret=True, GPU interpret mode), each path judged
  // whatever the launch selects.
  std::vector<LaunchPaths> launchPaths(const std::string& path) const;
  // Run `fn` on a copy of the document's tree-sitter tree (ts_tree_copy: the
  // caller owns it and may keep it; it is safe to read on any thread) and
  // its text, so readers of the syntax need not parse the document again.
  // False, without calling `fn`, for an unknown path.
  bool withSyntax(const std::string& path,
                  const std::function<void(TSTree* copy, std::string_view text)>& fn) const;
  // Documents whose analysis depends on `path` (they import from it).
  std::vector<std::string> dependents(const std::string& path) const;
  // Documents `path` imports from, through re-exports: their launches'
  // paths may be chosen by what `path`'s calls pass (`interpret=`, a kernel
  // or a helper given to a function that launches).
  std::vector<std::string> dependencies(const std::string& path) const;

  // The API call whose callee name contains `pos` (0-based, UTF-8 bytes) in
  // `path`: the innermost `pallas.prim`, `pallas.scope`, `pallas.launch` or
  // `pallas.inline_mgpu` located there. nullopt when none.
  std::optional<ApiAt> apiAt(const std::string& path, SourcePos pos) const;
  // Every API call site apiAt can answer, for a snapshot (ProjectSnapshot.cpp).
  std::vector<ApiAt> apiSites(const std::string& path) const;
  // Settings learnt after construction (the user's JAX knowledge table, the
  // local GPU from the device probe); the next findings() use them.
  void setKnowledgePath(std::string path);
  // The configured knowledge table (empty: the bundled one), e.g. for the
  // hover to show the facts the passes decide from.
  std::string knowledgePath() const;
  void setGpuComputeCapability(std::string capability);
  // The local GPU's shared_memory_per_block_optin (PLS005's limit); 0: none.
  void setGpuSharedMemoryPerBlockOptin(long long bytes);

  // ---- workspace index (for cross-file call graphs) ----
  // Read every *.py under the workspace roots (skipping hidden folders,
  // virtual environments, site-packages, node_modules, __pycache__) that is
  // not open, so imports between the user's files resolve. Meant for a
  // background thread: it takes the lock per file, so requests interleave,
  // and stops early when `cancel` becomes true. Returns the files indexed.
  size_t indexWorkspace(const std::atomic<bool>* cancel = nullptr);
  // A file changed on disk (workspace/didChangeWatchedFiles, created,
  // changed or deleted): re-read it into the index, whether or not the index
  // knew it and wherever it lives (inside the workspace roots or not), unless
  // an open document owns it (the editor's text wins); forget it when it can
  // no longer be read. A file read from disk is never marked open.
  enum class DiskChange { Reread, Forgotten, OpenDocumentOwnsIt };
  DiskChange fileChanged(const std::string& path, std::string* why = nullptr);
  // Read `path` from disk into the index when the project does not know it
  // yet (open or indexed): a file that calls into an open document, so its
  // calls choose that document's launch paths (the language server's
  // callers in files never opened, docs/analysis.md 8.34). Never marked
  // open. False when it was known already or cannot be read.
  bool indexFile(const std::string& path);
  // Whether the project keeps `path` at all: open, or read from disk by the
  // index (hasDocument: open only).
  bool isIndexed(const std::string& path) const;
  // Every document the project knows (open or indexed).
  std::vector<std::string> documents() const;
  // Stats of the last update of `path` (for the `pallas/mlir` request).
  UpdateStats lastUpdate(const std::string& path) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Run the MLIR verifier over the whole module kept for `path` (tests and
// fuzzers: an update verifies only the functions it lowered again). False
// for an unknown path.
bool verifyModule(const Project& project, const std::string& path);
// apiAt's choice among `sites`: the narrowest callee name containing `pos`.
std::optional<ApiAt> innermostApiAt(const std::vector<ApiAt>& sites, SourcePos pos);

} // namespace pallas::analysis
