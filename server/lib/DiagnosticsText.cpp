#include "DiagnosticsText.h"

#include <functional>
#include <string_view>

namespace pallas::server {

using protocol::json;

std::string jsonText(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// Everything a diagnostic's JSON is made of, written out unambiguously
// (each string with its length), to be hashed.
class Canon {
public:
  explicit Canon(DiagnosticConverter& converter) : converter_(converter) {}
  void str(std::string_view s) {
    num(s.size());
    out_.append(s);
  }
  void num(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  // A position as the client will see it: the line and the converted column.
  void pos(const std::string& path, const analysis::SourcePos& p) {
    num(p.line);
    num(converter_.character(path, p));
  }
  void location(const analysis::SourceLocation& l) {
    str(l.path);
    pos(l.path, l.range.start);
    pos(l.path, l.range.end);
  }
  void optLocation(const std::optional<analysis::SourceLocation>& l) {
    num(l ? 1 : 0);
    if (l)
      location(*l);
  }
  void finding(const analysis::Finding& f) {
    str(f.code);
    num(static_cast<uint64_t>(f.severity));
    location(f.location);
    str(f.message);
    str(f.subject);
    optLocation(f.selectedAt);
    str(f.executionPath);
    optLocation(f.launch);
    num(f.related.size());
    for (const auto& r : f.related) {
      location(r.location);
      str(r.message);
    }
    num(f.callChain.size());
    for (const auto& c : f.callChain)
      str(c);
    str(f.jaxVersion);
    str(f.jaxException);
    str(f.jaxErrorFirstLine);
    num(f.gpuInterpretRunsLaunch ? 1 : 0);
    num(f.fixes.size());
    for (const auto& fix : f.fixes) {
      str(fix.title);
      num(static_cast<uint64_t>(fix.safety));
      num(fix.edits.size());
      for (const auto& e : fix.edits) {
        str(e.path);
        pos(e.path, e.range.start);
        pos(e.path, e.range.end);
        str(e.newText);
      }
      num(fix.command ? 1 : 0);
      if (fix.command)
        str(*fix.command);
      num(fix.commandArguments.size());
      for (const auto& a : fix.commandArguments)
        str(a);
    }
  }
  const std::string& text() const { return out_; }

private:
  DiagnosticConverter& converter_;
  std::string out_;
};

} // namespace

DiagnosticsTextCache::Key DiagnosticsTextCache::keyOf(DiagnosticConverter& converter,
                                                      const DiagnosticConverter::Item& item) {
  Canon c(converter);
  c.num(item.hint ? 1 : 0);
  if (item.hint) {
    c.finding(*item.hint);
  } else {
    c.num(item.group.size());
    for (const analysis::Finding* f : item.group)
      c.finding(*f);
  }
  return Key{std::hash<std::string_view>{}(c.text()), c.text().size()};
}

std::string DiagnosticsTextCache::arrayText(DiagnosticConverter& converter,
                                            const std::vector<analysis::Finding>& findings,
                                            const json& extra) {
  std::unordered_map<Key, std::string, KeyHash> next;
  next.reserve(entries_.size());
  lastReused_ = lastMade_ = 0;
  std::string out = "[";
  auto append = [&](std::string_view text) {
    if (out.size() > 1)
      out += ',';
    out += text;
  };
  for (const DiagnosticConverter::Item& item : converter.plan(findings)) {
    Key key = keyOf(converter, item);
    auto found = next.find(key); // the same diagnostic twice in one publish
    if (found == next.end()) {
      auto old = entries_.find(key);
      if (old != entries_.end()) {
        found = next.emplace(key, std::move(old->second)).first;
        entries_.erase(old);
        ++lastReused_;
      } else {
        found = next.emplace(key, jsonText(converter.convert(item))).first;
        ++lastMade_;
      }
    }
    append(found->second);
  }
  if (extra.is_array())
    for (const json& e : extra)
      append(jsonText(e));
  out += ']';
  entries_ = std::move(next);
  return out;
}

} // namespace pallas::server
