// A finding: what the analysis reports about a user's file, independent of LSP.
// The server turns findings into LSP diagnostics and code actions; `pallas-lsp
// check` turns them into text/json/sarif/github output. Positions are 0-based
// lines and UTF-8 byte columns; converting to the client's encoding is the
// server's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pallas::analysis {

struct SourcePos {
  uint32_t line = 0;   // 0-based
  uint32_t column = 0; // 0-based, UTF-8 bytes
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
  friend auto operator<=>(const SourcePos&, const SourcePos&) = default;
};

struct SourceRange {
  SourcePos start, end;
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

struct SourceLocation {
  std::string path; // absolute file path
  SourceRange range;
};

enum class Severity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct RelatedInfo {
  SourceLocation location;
  std::string message;
};

struct TextEdit {
  std::string path;
  SourceRange range;
  std::string newText;
};

// ruff's fix safety levels: safe fixes are applied by `check --fix` and
// source.fixAll; unsafe ones only with --unsafe-fixes; display-only never.
enum class FixSafety { Safe, Unsafe, DisplayOnly };

// A kernel run a fix proposes instead of edits: the entry function of a
// file, in a run mode ("compiled", "interpret"). The server turns it into
// its editor command (pallas.run); the analysis knows nothing of editors.
struct RunSuggestion {
  std::string path;  // the file
  std::string entry; // the function to run
  std::string mode;  // "compiled", "interpret", "gpu-interpret" or "compare"
};

struct Fix {
  std::string title;
  FixSafety safety = FixSafety::Safe;
  std::vector<TextEdit> edits;
  // A run to start instead of (or after) the edits.
  std::optional<RunSuggestion> run;
  // It changes (or runs around) the path the launch takes: editors offer it
  // at the finding and also where the path is decided (Finding::selectedAt).
  bool decidesPath = false;
};

struct Finding {
  std::string code; // stable rule code, "PLS001"
  Severity severity = Severity::Error;
  SourceLocation location;
  std::string message;
  // What fails, named for the one-line headline ("region 'touch'",
  // "`plgpu.copy_gmem_to_smem`"); empty: the headline is the message's first
  // sentence. See headline().
  std::string subject;
  // The expression that decides the failing path, as the user wrote it: the
  // launch's `interpret=` argument (wherever in the call it is written), the
  // caller's argument when a caller's value selects the path, the context
  // manager or module-level call that sets GPU interpret mode; else the
  // launch. Editors put the path hint, the path fixes (Fix::decidesPath) and
  // the launch's path-matrix hover there.
  std::optional<SourceLocation> selectedAt;
  // The execution path that fails ("interpret=True (HLO interpreter)", ...)
  // and the launch that selects it.
  std::string executionPath;
  std::optional<SourceLocation> launch;
  std::vector<RelatedInfo> related;
  // From the kernel to the primitive: "kernel (k.py:12)", "helper (h.py:3)".
  std::vector<std::string> callChain;
  std::string jaxVersion; // version of JAX the knowledge came from
  // PLS001/PLS002: what JAX is predicted to raise on the failing path, as the
  // message says ("JAX 0.10.2 will raise <jaxException>: <jaxErrorFirstLine>").
  // Placeholders in <...> stand for values only JAX knows (an operand, an
  // effect set). The oracle compares both with what JAX raised.
  std::string jaxException;
  std::string jaxErrorFirstLine;
  // Set on findings of the interpret=True path when the knowledge table says
  // GPU interpret mode (interpret=InterpretGPUParams()) runs every primitive
  // the finding's launch reaches: "Use GPU interpret mode" then helps.
  bool gpuInterpretRunsLaunch = false;
  std::vector<Fix> fixes;
};

const char* severityName(Severity s);
// "safe", "unsafe" or "display-only" (the LSP data and `check`'s JSON).
const char* fixSafetyName(FixSafety s);

// The execution path without its parenthesised detail: "interpret=True",
// "compiled", "GPU interpret mode".
std::string shortPathName(const std::string& executionPath);

// The finding in one line of at most kHeadlineMax characters, for virtual
// text and `check`'s text output: "region 'touch' can't run under
// interpret=True (launch at line 24)". The message holds the details.
inline constexpr size_t kHeadlineMax = 100;
std::string headline(const Finding& f);

// Cuts `text` to at most `max` characters at a word boundary, with "...".
std::string shortened(const std::string& text, size_t max);

} // namespace pallas::analysis
