#include "DocumentSnapshot.h"

#include "pallas/support/LineIndex.h"

namespace pallas::server {

const HoverFacts::Region* HoverFacts::regionAt(analysis::SourcePos pos) const {
  const Region* best = nullptr;
  for (const Region& r : regions) {
    if (pos < r.extent.start || r.extent.end < pos)
      continue;
    // Nested regions: the one that starts last is the innermost.
    if (!best || best->extent.start < r.extent.start)
      best = &r;
  }
  return best;
}

const HoverFacts::Region* HoverFacts::regionSpelledAt(analysis::SourcePos pos) const {
  const Region* best = nullptr;
  for (const Region& r : regions)
    if (r.spots.answersAt(pos) && (!best || best->extent.start < r.extent.start))
      best = &r;
  return best;
}

const std::vector<analysis::LaunchPaths>&
HoverFacts::Memo::launches(const std::function<std::vector<analysis::LaunchPaths>()>& compute) {
  std::lock_guard lock(mutex_);
  if (!launches_)
    launches_ = compute();
  return *launches_;
}

analysis::RewriteResult
HoverFacts::Memo::rewrite(analysis::SourcePos decorator,
                          const std::function<analysis::RewriteResult()>& compute) {
  std::lock_guard lock(mutex_);
  auto it = rewrites_.find(decorator);
  if (it == rewrites_.end())
    it = rewrites_.emplace(decorator, compute()).first;
  return it->second;
}

std::shared_ptr<const std::string> MlirText::get() const {
  std::lock_guard lock(mutex_);
  return text_;
}

std::shared_ptr<const std::string> MlirText::put(std::shared_ptr<const std::string> text) {
  std::lock_guard lock(mutex_);
  if (!text_)
    text_ = std::move(text);
  return text_;
}

void SnapshotStore::put(SnapshotPtr s) {
  if (!s)
    return;
  {
    std::lock_guard lock(mutex_);
    SnapshotPtr& slot = byPath_[s->path];
    if (slot && slot->analysis > s->analysis)
      return;
    slot = std::move(s);
  }
  changed_.notify_all();
}

SnapshotPtr SnapshotStore::get(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = byPath_.find(path);
  return it == byPath_.end() ? nullptr : it->second;
}

void SnapshotStore::waitForChange(const std::string& path, const SnapshotPtr& seen,
                                  std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] {
    auto it = byPath_.find(path);
    return (it == byPath_.end() ? nullptr : it->second) != seen;
  });
}

void SnapshotStore::forget(const std::string& path) {
  SnapshotPtr dropped; // released outside the lock
  {
    std::lock_guard lock(mutex_);
    auto it = byPath_.find(path);
    if (it == byPath_.end())
      return;
    dropped = std::move(it->second);
    byPath_.erase(it);
  }
  changed_.notify_all();
}

size_t SnapshotStore::size() const {
  std::lock_guard lock(mutex_);
  return byPath_.size();
}

analysis::SourceRange inlineRegionExtent(const std::string& text, analysis::SourcePos decorator) {
  return inlineRegionExtent(support::LineIndex(text), decorator);
}

analysis::SourceRange inlineRegionExtent(const support::LineIndex& lines,
                                         analysis::SourcePos decorator) {
  auto indentOf = [](std::string_view l) -> std::optional<size_t> {
    size_t i = l.find_first_not_of(" \t");
    if (i == std::string_view::npos || l[i] == '#')
      return std::nullopt; // blank or comment: part of whatever surrounds it
    return i;
  };
  auto lineEnd = [&](uint32_t line) {
    return analysis::SourcePos{line, uint32_t(lines.lineText(line).size())};
  };
  const auto count = static_cast<uint32_t>(lines.lineCount());
  size_t indent = indentOf(lines.lineText(decorator.line)).value_or(0);
  analysis::SourceRange r{analysis::SourcePos{decorator.line, 0}, lineEnd(decorator.line)};
  // The decorator's arguments and further decorators (any indentation), up
  // to the def at the decorator's depth.
  uint32_t line = decorator.line + 1;
  for (; line < count; ++line) {
    std::string_view l = lines.lineText(line);
    std::optional<size_t> i = indentOf(l);
    if (i && *i == indent &&
        (l.substr(*i).starts_with("def ") || l.substr(*i).starts_with("async def ")))
      break;
  }
  if (line >= count)
    return r;
  // The signature, which may span lines (a closing "):" at the def's depth).
  int depth = 0;
  for (; line < count; ++line) {
    for (char c : lines.lineText(line))
      depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
    r.end = lineEnd(line);
    if (depth <= 0) {
      ++line;
      break;
    }
  }
  // The body: every line indented deeper than the def.
  for (; line < count; ++line) {
    std::optional<size_t> i = indentOf(lines.lineText(line));
    if (!i)
      continue;
    if (*i <= indent)
      break;
    r.end = lineEnd(line);
  }
  return r;
}

} // namespace pallas::server
