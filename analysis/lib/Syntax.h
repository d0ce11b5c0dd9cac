// A Python source as tree-sitter sees it (ParsedSource: the text, the parser
// and the tree), kept current edit by edit (ts_tree_edit + incremental reparse with the
// old tree). No MLIR here.
#pragma once

#include "pallas/analysis/Project.h"           // ByteEdit
#include "pallas/analysis/detail/SyntaxWalk.h" // forEachNode

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <utility>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace pallas::analysis::syntax {

// How many times slower a sanitized build of the analysis runs (for
// budgets that are wall time: a 5 MB file parses in about 1 s, and in
// several under AddressSanitizer on a busy machine).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PALLAS_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PALLAS_SANITIZED_BUILD 1
#endif
#endif
#ifdef PALLAS_SANITIZED_BUILD
inline constexpr uint64_t kSanitizerSlowdown = 5;
#else
inline constexpr uint64_t kSanitizerSlowdown = 1;
#endif

// Not "Document": in analysis a document is a file the Project keeps (open in
// the editor or read from disk); this is the text and tree of one.
class ParsedSource {
public:
  ParsedSource();
  ~ParsedSource();
  ParsedSource(const ParsedSource&) = delete;
  ParsedSource& operator=(const ParsedSource&) = delete;

  // Replace the whole text and parse it from scratch.
  void setText(std::string text);
  // Where the text nests too deeply for the parser to be given the rest
  // (ParserGuard.h): from there on text() is blank. nullopt normally.
  std::optional<TSPoint> tooDeepAt() const { return tooDeep_; }
  // Apply one edit (byte offsets of the current text) to the text and the
  // tree. Throws std::out_of_range for an edit outside the text. Call
  // reparse() after the last edit of a batch.
  void applyEdit(const ByteEdit& edit);
  // Incrementally reparse after applyEdit(); a no-op when nothing changed.
  void reparse();

  // The text the analysis reads and parses: the given text with each lone
  // "\r" read as "\n" (Python's and LSP's line ends), blanked where it is
  // too deep (ParserGuard.h). Same length, so offsets and rows are the same.
  const std::string& text() const { return text_; }
  // Changes whenever the text or the tree does, and is never the same for
  // two ParsedSources of one process: a key for what is derived from this
  // exact tree (names::moduleValue's table) that cannot be confused with a
  // later tree at the same address.
  uint64_t revision() const { return revision_; }
  TSNode root() const { return ts_tree_root_node(tree_); }
  const TSTree* tree() const { return tree_; }
  std::string_view textOf(TSNode node) const;

  // Error recovery beyond tree-sitter's: a top-level ERROR node that spans
  // several top-level statements (an unclosed bracket swallowing the rest of
  // the file) is re-parsed in chunks split at the lines that start a new
  // top-level statement, each chunk on its own (same byte positions). Returns
  // the chunks' root nodes, or nothing when the ERROR is a single statement.
  // Valid until the next edit.
  std::vector<TSNode> recoveredChunks(TSNode error) const;

private:
  TSPoint pointAt(size_t byte) const;
  void dropChunks() const;
  // Sets raw_/text_/tooDeep_ from the given text (ParserGuard.h); the tree
  // must then be parsed afresh.
  void install(std::string raw);
  TSTree* parseBounded(TSTree* old);
  // The parse budget: 5 s plus 2 s per MB (microseconds), wall time
  // (tree-sitter reads CLOCK_MONOTONIC); the part per MB times the build's
  // slowdown (a sanitized 5 MB parse takes over 15 s on a busy machine).
  // It only stops error recovery that would take minutes; the fixed part
  // stays within the fuzzers' 10 s per input.
  static constexpr uint64_t kParseBudgetMicros = 5'000'000;
  static constexpr uint64_t kParseMicrosPerByte = 2 * kSanitizerSlowdown;
  // The given text, when it differs from text_ (lone "\r", blanked); edits
  // apply to it and text_ is derived again.
  std::string raw_;
  bool rawKept_ = false;
  bool scanPending_ = false; // edits since the last guard scan
  std::optional<TSPoint> tooDeep_;
  TSParser* parser_ = nullptr;
  TSParser* chunkParser_ = nullptr;
  mutable std::map<std::pair<uint32_t, uint32_t>, std::vector<TSTree*>> chunks_;
  TSTree* tree_ = nullptr;
  std::string text_;
  bool dirty_ = false;
  uint64_t revision_ = 0;
  void bumpRevision();
};

// Small helpers over TSNode.
inline bool isNull(TSNode n) {
  return ts_node_is_null(n);
}
inline std::string_view type(TSNode n) {
  return ts_node_type(n);
}
inline bool is(TSNode n, std::string_view t) {
  return !isNull(n) && type(n) == t;
}
TSNode field(TSNode n, std::string_view name);
// The named children of `n`, in order. Linear in the number of children
// (ts_node_named_child(n, i) is itself linear in i, so an indexed loop over a
// module's statements would be quadratic).
std::vector<TSNode> namedChildren(TSNode n);

// A comparison of two operands (`a == b`; a chain `a < b < c` is not one):
// the operands and the operator as written with the whitespace and line
// continuations between its words removed ("==", "isnot", "notin").
struct Comparison {
  TSNode left{}, right{};
  std::string op;
};
std::optional<Comparison> comparisonOf(const ParsedSource& doc, TSNode cmp);

} // namespace pallas::analysis::syntax
