#include "FixApplier.h"

#include "NotebookFiles.h"
#include "SafeReplace.h"
#include "pallas/support/FileReading.h"
#include "pallas/support/LineIndex.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace pallas::check {

const analysis::Fix* applicableFix(const analysis::Finding& finding, const FixOptions& options) {
  for (const analysis::Fix& fix : finding.fixes) {
    if (fix.edits.empty())
      continue;
#if PALLAS_LSP_MUTANT == 1 // mutant (test/mutation): --unsafe-fixes drops the inline_mgpu rewrite
    if (fix.title.rfind("Rewrite `", 0) == 0)
      continue;
#endif
    if (fix.safety == analysis::FixSafety::Safe ||
        (fix.safety == analysis::FixSafety::Unsafe && options.unsafe))
      return &fix;
  }
  return nullptr;
}

std::string applyEdits(std::string text, std::vector<ResolvedEdit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const ResolvedEdit& a, const ResolvedEdit& b) { return a.start > b.start; });
  for (const ResolvedEdit& e : edits)
    text.replace(e.start, e.end - e.start, e.newText);
  return text;
}

namespace {

std::optional<std::string> readFile(const std::string& path) {
  return support::readSourceFile(path);
}

// Writes the fixed text of `path` (SafeReplace.h). A symbolic link is written
// through (the link stays, its target is fixed); a file with other hard
// links or without any write permission is refused (nullopt + `refused`).
std::optional<std::string> writeFixedFile(const std::string& path, const std::string& text,
                                          std::string& refused) {
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (ec)
    return "cannot resolve the path: " + ec.message();
  struct stat st{};
  if (::stat(target.c_str(), &st) != 0)
    return std::string("cannot stat the file: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode))
    return "not a regular file";
  // No write bit at all (root could still write it: the permission says no).
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(target.c_str(), W_OK) != 0) {
    refused = path + ": is read-only; its fixes were not applied";
    return std::nullopt;
  }
  // Other hard links: a rename would give this name a new file and leave
  // the others with the old text, and rewriting it in place is not safe (a
  // crash, a kill or a full disk halfway leaves neither text: under
  // `ulimit -f` it kept the first 4,096 bytes, issue 34). Said and skipped.
  if (st.st_nlink > 1) {
    refused = path + ": has " + std::to_string(st.st_nlink) +
              " hard links; its fixes were not applied (replacing the file would split the "
              "links, and rewriting it in place is not crash-safe)";
    return std::nullopt;
  }
  return replaceFileContents(target, st, text);
}

// The line break a fix should use at `offset`: the one that ends the line
// the offset is on, else the one before it, else "\n". Fixes are written
// with "\n"; a CRLF (or CR) file keeps its own line ends where it is edited.
std::string_view lineBreakAt(std::string_view text, size_t offset) {
  auto breakAt = [&](size_t i) -> std::string_view {
    if (text[i] == '\n')
      return "\n";
    return i + 1 < text.size() && text[i + 1] == '\n' ? "\r\n" : "\r";
  };
  size_t next = text.find_first_of("\r\n", offset);
  if (next != std::string_view::npos)
    return breakAt(next);
  size_t prev = offset == 0 ? std::string_view::npos : text.find_last_of("\r\n", offset - 1);
  if (prev != std::string_view::npos)
    return prev > 0 && text[prev] == '\n' && text[prev - 1] == '\r' ? "\r\n" : breakAt(prev);
  return "\n";
}

std::string withLineBreaks(const std::string& newText, std::string_view lineBreak) {
  if (newText.find(lineBreak == "\n" ? '\r' : '\n') == std::string::npos &&
      (lineBreak != "\r\n" || newText.find('\r') == std::string::npos))
    return newText; // nothing to change (the common case: "\n" into a "\n" file)
  std::string out;
  for (size_t i = 0; i < newText.size(); ++i) {
    char c = newText[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < newText.size() && newText[i + 1] == '\n')
        ++i;
      out += lineBreak;
    } else {
      out += c;
    }
  }
  return out;
}

struct Candidate {
  size_t finding;
  const analysis::Fix* fix;
};

bool overlaps(const ResolvedEdit& a, const ResolvedEdit& b) {
  if (a.start == b.start)
    return true; // two edits at one point: order unknown
  return std::max(a.start, b.start) < std::min(a.end, b.end);
}

} // namespace

FixOutcome applyFixes(const std::vector<analysis::Finding>& findings,
                      const std::map<std::string, std::string>& originals,
                      const FixOptions& options) {
  FixOutcome outcome;
  outcome.fixed.assign(findings.size(), false);

  std::vector<Candidate> candidates;
  std::set<std::string> files;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (const analysis::Fix* fix = applicableFix(findings[i], options)) {
      candidates.push_back({i, fix});
      for (const analysis::TextEdit& e : fix->edits)
        files.insert(e.path);
    }
  }
  if (candidates.empty())
    return outcome;

  // The text each fix was computed against, and whether the disk still has it.
  std::map<std::string, std::string> texts;
  std::set<std::string> stale;
  for (const std::string& path : files) {
    if (notebook::isNotebookPath(path)) {
      // The analysis saw the cells as one module; the file is JSON.
      outcome.messages.push_back(path +
                                 ": fixes are not written into notebooks (.ipynb); apply "
                                 "them in the editor (the language server maps them to cells)");
      stale.insert(path);
      continue;
    }
    std::optional<std::string> disk = readFile(path);
    auto original = originals.find(path);
    if (!disk) {
      outcome.messages.push_back(path + ": cannot be read; its fixes were not applied");
      stale.insert(path);
    } else if (original != originals.end() && *disk != original->second) {
      outcome.messages.push_back(path + ": changed on disk since it was read; left alone");
      stale.insert(path);
    } else {
      if (original != originals.end())
        texts[path] = original->second;
      else
        texts[path] = std::move(*disk);
    }
  }

  std::map<std::string, support::LineIndex> indexes;
  for (const auto& [path, text] : texts)
    indexes.emplace(path, support::LineIndex(text));
  std::map<std::string, std::vector<ResolvedEdit>> accepted;

  for (const Candidate& c : candidates) {
    const analysis::Finding& finding = findings[c.finding];
    std::vector<std::pair<std::string, ResolvedEdit>> resolved;
    std::string problem;
    for (const analysis::TextEdit& e : c.fix->edits) {
      if (stale.count(e.path)) {
        problem = "its file changed";
        break;
      }
      const support::LineIndex& index = indexes.at(e.path);
      auto start = index.offset(e.range.start.line, e.range.start.column),
           end = index.offset(e.range.end.line, e.range.end.column);
      if (!start || !end || *start > *end) {
        problem = "an edit lies outside " + e.path;
        break;
      }
      resolved.push_back(
          {e.path,
           {*start, *end, withLineBreaks(e.newText, lineBreakAt(texts.at(e.path), *start))}});
    }
    auto conflicts = [&](const std::string& path, const ResolvedEdit& edit, size_t self) {
      for (const ResolvedEdit& other : accepted[path])
        if (overlaps(edit, other))
          return true;
      for (size_t j = 0; j < resolved.size(); ++j)
        if (j != self && resolved[j].first == path && overlaps(edit, resolved[j].second))
          return true;
      return false;
    };
    for (size_t j = 0; problem.empty() && j < resolved.size(); ++j)
      if (conflicts(resolved[j].first, resolved[j].second, j))
        problem = "it overlaps another fix";
    if (!problem.empty()) {
      if (problem != "its file changed")
        outcome.messages.push_back(
            finding.location.path + ":" + std::to_string(finding.location.range.start.line + 1) +
            ": " + finding.code + " fix '" + c.fix->title + "' not applied: " + problem);
      continue;
    }
    for (auto& [path, edit] : resolved)
      accepted[path].push_back(std::move(edit));
    outcome.fixed[c.finding] = true;
  }

  // A file size limit makes writes fail (EFBIG) instead of killing check.
  ignoreFileSizeSignal();
  std::set<std::string> failed;
  for (auto& [path, edits] : accepted) {
    if (edits.empty())
      continue;
    std::string refused;
    if (auto error = writeFixedFile(path, applyEdits(texts.at(path), edits), refused)) {
      outcome.errors.push_back(path + ": " + *error);
      failed.insert(path);
    } else if (!refused.empty()) {
      outcome.messages.push_back(std::move(refused));
      failed.insert(path);
    } else {
      outcome.changedFiles.push_back(path);
    }
  }
  // A fix counts only if every file it edits was written.
  for (const Candidate& c : candidates) {
    if (!outcome.fixed[c.finding])
      continue;
    for (const analysis::TextEdit& e : c.fix->edits)
      if (failed.count(e.path))
        outcome.fixed[c.finding] = false;
    if (outcome.fixed[c.finding])
      ++outcome.findingsFixed;
  }
  return outcome;
}

} // namespace pallas::check
