#include "Gitignore.h"

#include "config/Glob.h"
#include "pallas/support/FileReading.h"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <sys/stat.h>
#include <system_error>

namespace fs = std::filesystem;

namespace pallas::check {
namespace {

// Trailing spaces are dropped unless escaped with a backslash.
std::string_view trimTrailingSpaces(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    size_t n = line.size();
    size_t backslashes = 0;
    while (backslashes + 1 < n && line[n - 2 - backslashes] == '\\')
      ++backslashes;
    if (backslashes % 2 == 1)
      break; // "\ " keeps the space
    line.remove_suffix(1);
  }
  return line;
}

std::optional<GitignoreRule> parseLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  line = trimTrailingSpaces(line);
  if (line.empty() || line[0] == '#')
    return std::nullopt;
  GitignoreRule rule;
  if (line[0] == '!') {
    rule.negated = true;
    line.remove_prefix(1);
  } else if (line.size() >= 2 && line[0] == '\\' && (line[1] == '#' || line[1] == '!')) {
    line.remove_prefix(1); // "\#foo", "\!foo": literal first character
  }
  if (!line.empty() && line.back() == '/') {
    rule.directoryOnly = true;
    while (!line.empty() && line.back() == '/')
      line.remove_suffix(1);
  }
  if (line.empty())
    return std::nullopt;
  if (line.find('/') == std::string_view::npos) {
    rule.pattern = "**/" + std::string(line); // matches at any depth
  } else {
    if (line[0] == '/')
      line.remove_prefix(1); // anchored
    rule.pattern = std::string(line);
  }
  rule.glob = Glob(rule.pattern);
  return rule;
}

// `path` relative to `base` with '/' separators, or empty when not below it.
std::string relativeTo(const fs::path& path, const fs::path& base) {
  auto [b, p] = std::mismatch(base.begin(), base.end(), path.begin(), path.end());
  if (b != base.end()) {
    // base may end with an empty component ("dir/"): treat it as consumed.
    if (std::next(b) != base.end() || !b->empty())
      return {};
  }
  std::string out;
  for (; p != path.end(); ++p) {
    if (p->empty())
      continue;
    if (!out.empty())
      out += '/';
    out += p->generic_string();
  }
  return out;
}

} // namespace

GitignoreFile::GitignoreFile(fs::path base, std::string_view contents) : base_(std::move(base)) {
  size_t start = 0;
  while (start <= contents.size()) {
    size_t end = contents.find('\n', start);
    if (end == std::string_view::npos)
      end = contents.size();
    if (auto rule = parseLine(contents.substr(start, end - start)))
      rules_.push_back(*rule);
    start = end + 1;
  }
}

std::shared_ptr<const GitignoreFile> GitignoreFile::load(const fs::path& base, const fs::path& file,
                                                         std::vector<std::string>* errors) {
  // Through the bounded reader: a .gitignore that is a FIFO hung `check`,
  // one linked to /dev/zero read until memory ran out (issue 34).
  // None here (or a dangling link; or `.git` is a file, as in a worktree,
  // so `.git/info/exclude` is not a path): no rules, as git does.
  struct stat st{};
  if (::stat(file.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return nullptr;
  std::string why;
  std::optional<std::string> contents =
      support::readSourceFile(file.string(), &why, kMaxIgnoreFileBytes);
  if (!contents) {
    if (errors)
      errors->push_back(file.string() + ": skipped: " + why +
                        "; its ignore rules were not applied");
    return nullptr;
  }
  auto result = std::make_shared<GitignoreFile>(base, *contents);
  if (result->rules().empty())
    return nullptr;
  return result;
}

GitignoreFile::Verdict GitignoreFile::match(const fs::path& path, bool isDirectory) const {
  std::string rel = relativeTo(path, base_);
  if (rel.empty())
    return Verdict::None;
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->directoryOnly && !isDirectory)
      continue;
    if (it->glob.matches(rel))
      return it->negated ? Verdict::Include : Verdict::Ignore;
  }
  return Verdict::None;
}

void GitignoreStack::push(std::shared_ptr<const GitignoreFile> file) {
  if (file)
    files_.push_back(std::move(file));
}

GitignoreStack GitignoreStack::forFolder(const fs::path& folder, std::vector<std::string>* errors) {
  // Find the repository root, collecting the folders on the way.
  std::vector<fs::path> chain;
  fs::path repoRoot;
  std::error_code ec;
  for (fs::path dir = folder;; dir = dir.parent_path()) {
    chain.push_back(dir);
    if (fs::exists(dir / ".git", ec)) {
      repoRoot = dir;
      break;
    }
    if (dir == dir.parent_path())
      break;
  }
  GitignoreStack stack;
  if (repoRoot.empty()) {
    stack.push(GitignoreFile::load(folder, folder / ".gitignore", errors));
    return stack;
  }
  stack.push(GitignoreFile::load(repoRoot, repoRoot / ".git" / "info" / "exclude", errors));
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    stack.push(GitignoreFile::load(*it, *it / ".gitignore", errors));
  return stack;
}

GitignoreStack GitignoreStack::enter(const fs::path& child,
                                     std::vector<std::string>* errors) const {
  GitignoreStack stack = *this;
  stack.push(GitignoreFile::load(child, child / ".gitignore", errors));
  return stack;
}

bool GitignoreStack::ignored(const fs::path& path, bool isDirectory) const {
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    switch ((*it)->match(path, isDirectory)) {
    case GitignoreFile::Verdict::Ignore:
      return true;
    case GitignoreFile::Verdict::Include:
      return false;
    case GitignoreFile::Verdict::None:
      break;
    }
  }
  return false;
}

} // namespace pallas::check
