// The JSON text of a document's published diagnostics, made from the text of
// each diagnostic kept since the last publish: an edit changes few findings,
// but building and serialising 1,600 JSON diagnostics (with their messages,
// related locations and fixes) on every keystroke was 40% of an edit's cost
// at 50k lines. A diagnostic's text is reused when everything it is made of
// is the same: the fields of its findings and the columns its positions have
// in the client's encoding (so an edit earlier on the line is seen).
#pragma once

#include "Diagnostics.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pallas::server {

class DiagnosticsTextCache {
public:
  // `[...]`: the same text as converter.diagnostics(findings) followed by
  // the items of `extra` (a JSON array), serialised as Endpoint sends JSON.
  // Entries not used by this call are dropped (the cache holds one publish).
  std::string arrayText(DiagnosticConverter& converter,
                        const std::vector<analysis::Finding>& findings,
                        const protocol::json& extra = protocol::json::array());

  size_t size() const { return entries_.size(); }
  // Of the last call: diagnostics whose text was reused / made afresh.
  size_t lastReused() const { return lastReused_; }
  size_t lastMade() const { return lastMade_; }

private:
  struct Key {
    uint64_t hash = 0;
    size_t length = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.hash ^ (k.length * 0x9E3779B97F4A7C15ull); }
  };
  static Key keyOf(DiagnosticConverter& converter, const DiagnosticConverter::Item& item);
  std::unordered_map<Key, std::string, KeyHash> entries_;
  size_t lastReused_ = 0, lastMade_ = 0;
};

// JSON text as Endpoint::send writes it (invalid UTF-8 replaced).
std::string jsonText(const protocol::json& value);

} // namespace pallas::server
