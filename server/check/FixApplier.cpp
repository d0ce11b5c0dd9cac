#include "FixApplier.h"

#include "SourceText.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
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
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return out.str();
}

// Writes `text` next to `path` and renames it over, so a reader never sees a
// half-written file, keeping the original's permissions.
std::optional<std::string> writeFileAtomically(const std::string& path, const std::string& text) {
  fs::path target(path);
  std::string tmpl =
      (target.parent_path() / ("." + target.filename().string() + ".pallas-fix-XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0)
    return std::string("cannot create a temporary file: ") + std::strerror(errno);
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(name.data());
      return "cannot write: " + err;
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  std::error_code ec;
  fs::permissions(name.data(), fs::status(target, ec).permissions(), ec);
  fs::rename(name.data(), target, ec);
  if (ec) {
    ::unlink(name.data());
    return "cannot replace the file: " + ec.message();
  }
  return std::nullopt;
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
    std::optional<std::string> disk = readFile(path);
    auto original = originals.find(path);
    if (!disk) {
      outcome.messages.push_back(path + ": cannot be read; its fixes were not applied");
      stale.insert(path);
    } else if (original != originals.end() && *disk != original->second) {
      outcome.messages.push_back(path + ": changed on disk since it was read; left alone");
      stale.insert(path);
    } else {
      texts[path] = original != originals.end() ? original->second : std::move(*disk);
    }
  }

  std::map<std::string, LineIndex> indexes;
  for (const auto& [path, text] : texts)
    indexes.emplace(path, LineIndex(text));
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
      const LineIndex& index = indexes.at(e.path);
      auto start = index.offset(e.range.start), end = index.offset(e.range.end);
      if (!start || !end || *start > *end) {
        problem = "an edit lies outside " + e.path;
        break;
      }
      resolved.push_back({e.path, {*start, *end, e.newText}});
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

  std::set<std::string> failed;
  for (auto& [path, edits] : accepted) {
    if (edits.empty())
      continue;
    if (auto error = writeFileAtomically(path, applyEdits(texts.at(path), edits))) {
      outcome.errors.push_back(path + ": " + *error);
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
