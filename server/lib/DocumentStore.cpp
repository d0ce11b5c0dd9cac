#include "DocumentStore.h"

#include "EditableText.h"
#include "pallas/support/AnalysisBudget.h"

#include <algorithm>

namespace pallas::server {

using protocol::json;

namespace {

std::string capText(size_t total) {
  return "the open documents would hold " + std::to_string(total >> 20) +
         " MiB of text, over the " + std::to_string(kMaxOpenDocumentBytes >> 20) +
         " MiB the server keeps (close some)";
}

} // namespace

std::string DocumentStore::wouldExceedCap(const std::string& path, size_t bytes) const {
  std::lock_guard lock(mutex_);
  size_t total = totalBytes_ + bytes;
  if (auto it = docs_.find(path); it != docs_.end())
    total -= it->second.text.size();
  return total > kMaxOpenDocumentBytes ? capText(total) : std::string();
}

void DocumentStore::open(OpenDocument doc) {
  std::lock_guard lock(mutex_);
  std::string key = doc.path;
  auto& slot = docs_[key];
  totalBytes_ = totalBytes_ - slot.text.size() + doc.text.size();
  slot = std::move(doc);
}

std::optional<size_t> DocumentStore::close(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(path);
  if (it == docs_.end())
    return std::nullopt;
  size_t bytes = it->second.text.size();
  totalBytes_ -= bytes;
  docs_.erase(it);
  return bytes;
}

bool DocumentStore::isOpen(const std::string& path) const {
  std::lock_guard lock(mutex_);
  return docs_.count(path) != 0;
}

std::optional<OpenDocument> DocumentStore::get(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(path);
  if (it == docs_.end())
    return std::nullopt;
  return it->second;
}

std::vector<OpenDocument> DocumentStore::all() const {
  std::lock_guard lock(mutex_);
  std::vector<OpenDocument> out;
  out.reserve(docs_.size());
  for (const auto& [path, doc] : docs_)
    out.push_back(doc);
  return out;
}

namespace {

// More changes than this reach the analysis as one edit spanning them all:
// it applies each edit to its text and syntax tree in turn, which for a
// multi-cursor edit of thousands of changes costs changes x size again.
constexpr size_t kMaxEditsForTheAnalysis = 16;

// The one edit that turns `before` into `after`: what lies between their
// common start and their common end.
analysis::ByteEdit wholeDifference(std::string_view before, std::string_view after) {
  size_t head = 0, limit = std::min(before.size(), after.size());
  while (head < limit && before[head] == after[head])
    ++head;
  size_t tail = 0;
  while (tail < limit - head && before[before.size() - 1 - tail] == after[after.size() - 1 - tail])
    ++tail;
  return {head, before.size() - tail, std::string(after.substr(head, after.size() - tail - head))};
}

std::optional<protocol::Position> readPosition(const json& j) {
  if (!j.is_object())
    return std::nullopt;
  auto line = j.find("line"), character = j.find("character");
  if (line == j.end() || character == j.end() || !line->is_number_unsigned() ||
      !character->is_number_unsigned())
    return std::nullopt;
  uint64_t l = line->get<uint64_t>(), c = character->get<uint64_t>();
  if (l > UINT32_MAX || c > UINT32_MAX)
    return std::nullopt;
  return protocol::Position{static_cast<uint32_t>(l), static_cast<uint32_t>(c)};
}

} // namespace

DocumentStore::ChangeResult DocumentStore::change(const std::string& path, int64_t version,
                                                  const json& contentChanges,
                                                  protocol::PositionEncoding enc) {
  std::lock_guard lock(mutex_);
  ChangeResult result;
  auto it = docs_.find(path);
  if (it == docs_.end()) {
    result.error = "document is not open: " + path;
    return result;
  }
  if (!contentChanges.is_array()) {
    result.error = "contentChanges must be an array";
    return result;
  }
  // Versions only increase (LSP); an older one is a change made to a text
  // the client no longer has, and applying it would corrupt the draft.
  if (version >= 0 && version < it->second.version) {
    result.error = "version " + std::to_string(version) + " is older than the document's version " +
                   std::to_string(it->second.version);
    return result;
  }
  // Work on a copy so a bad change leaves the draft as it was; chunked, so
  // that each change costs about a chunk, not the whole text (EditableText.h).
  const std::string& old = it->second.text;
  EditableText text(old);
  for (size_t i = 0; i < contentChanges.size(); ++i) {
    const json& c = contentChanges[i];
    std::string where = "contentChanges[" + std::to_string(i) + "]";
    if (!c.is_object() || !c.contains("text") || !c["text"].is_string()) {
      result.error = where + " must be an object with a string \"text\"";
      return result;
    }
    const std::string& newText = c["text"].get_ref<const std::string&>();
    if (auto bad = protocol::findInvalidUtf8(newText)) {
      result.error = where + ".text is not valid UTF-8 (byte " + std::to_string(*bad) + ")";
      return result;
    }
    analysis::ByteEdit edit;
    if (!c.contains("range")) {
      edit = {0, text.size(), newText};
    } else {
      const json& range = c["range"];
      auto start = range.is_object() && range.contains("start") ? readPosition(range["start"])
                                                                : std::nullopt;
      auto end =
          range.is_object() && range.contains("end") ? readPosition(range["end"]) : std::nullopt;
      if (!start || !end) {
        result.error = where + ".range is not a valid Range";
        return result;
      }
      auto s = text.offsetOf(*start, enc);
      if (!s) {
        result.error = where + ".range.start: " + s.error;
        return result;
      }
      auto e = text.offsetOf(*end, enc);
      if (!e) {
        result.error = where + ".range.end: " + e.error;
        return result;
      }
      if (e.offset < s.offset) {
        result.error = where + ".range ends before it starts";
        return result;
      }
      edit = {s.offset, e.offset, newText};
    }
    text.replace(edit.startByte, edit.oldEndByte, edit.newText);
    if (result.edits.size() <= kMaxEditsForTheAnalysis)
      result.edits.push_back(std::move(edit));
  }
  size_t total = totalBytes_ - old.size() + text.size();
  if (total > kMaxOpenDocumentBytes) {
    result.error = capText(total);
    result.edits.clear();
    return result;
  }
  std::string next = text.str();
  if (result.edits.size() > kMaxEditsForTheAnalysis)
    result.edits = {wholeDifference(old, next)};
  result.tooLargeBefore = support::overAnalysisBudget(old).has_value();
  result.tooLargeAfter = support::overAnalysisBudget(next).has_value();
  totalBytes_ = total;
  it->second.text = std::move(next);
  if (version >= 0)
    it->second.version = version;
  return result;
}

} // namespace pallas::server
