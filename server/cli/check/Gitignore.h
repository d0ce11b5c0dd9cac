// .gitignore rules, as git applies them to a walk of the working tree:
// every folder may have a .gitignore whose patterns are relative to that
// folder; a deeper file overrides a shallower one; within a file the last
// matching pattern wins; "!pattern" re-includes; "dir/" matches folders only;
// a pattern with a '/' (other than a trailing one) is anchored to its folder,
// one without matches at any depth. A path inside an ignored folder is never
// reached (the walker does not descend), which is git's "cannot re-include a
// file whose parent folder is excluded" rule.
#pragma once

#include "config/Glob.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::check {

// The largest ignore file read (git's own limit is far larger, but no real
// one comes near this; a larger one is skipped and reported).
inline constexpr size_t kMaxIgnoreFileBytes = size_t{1} << 20;

struct GitignoreRule {
  std::string pattern; // glob, relative to the file's folder
  Glob glob;           // `pattern`, compiled
  bool negated = false;
  bool directoryOnly = false;
};

// The rules of one ignore file, with the folder they are relative to.
class GitignoreFile {
public:
  GitignoreFile(std::filesystem::path base, std::string_view contents);
  // Reads `file` (a regular file of at most kMaxIgnoreFileBytes); a missing
  // one gives no rules, and so does one that cannot be used (a FIFO, a
  // device, too large, unreadable), which is added to `errors`.
  static std::shared_ptr<const GitignoreFile> load(const std::filesystem::path& base,
                                                   const std::filesystem::path& file,
                                                   std::vector<std::string>* errors = nullptr);

  enum class Verdict { None, Ignore, Include };
  // `path` is absolute (lexically normal) and below base().
  Verdict match(const std::filesystem::path& path, bool isDirectory) const;
  const std::filesystem::path& base() const { return base_; }
  const std::vector<GitignoreRule>& rules() const { return rules_; }

private:
  std::filesystem::path base_;
  std::vector<GitignoreRule> rules_;
};

// The ignore files in force in one folder of a walk: those of its ancestors
// (up to the repository root) and its own. Cheap to copy (shared files).
class GitignoreStack {
public:
  // The stack for `folder`, walking up to the enclosing git repository root
  // (the folder with `.git`, whose `.git/info/exclude` also applies). Outside
  // a repository only `folder`'s own .gitignore applies.
  // Ignore files that exist but cannot be used are added to `errors`.
  static GitignoreStack forFolder(const std::filesystem::path& folder,
                                  std::vector<std::string>* errors = nullptr);
  // The stack for a child folder: this one plus the child's .gitignore.
  GitignoreStack enter(const std::filesystem::path& child,
                       std::vector<std::string>* errors = nullptr) const;
  bool ignored(const std::filesystem::path& path, bool isDirectory) const;
  void push(std::shared_ptr<const GitignoreFile> file);

private:
  std::vector<std::shared_ptr<const GitignoreFile>> files_; // shallow first
};

} // namespace pallas::check
