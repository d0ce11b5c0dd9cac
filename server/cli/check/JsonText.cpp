#include "JsonText.h"

namespace pallas::check {

namespace {

using json = nlohmann::ordered_json;

// Length of the valid UTF-8 sequence at s[i], or 0 (the rules of
// protocol::findInvalidUtf8: no overlongs, surrogates or code points past
// U+10FFFF).
size_t validSequence(const std::string& s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80)
    return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (i + len > s.size())
    return 0;
  for (size_t k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

constexpr char kMark = '\x01'; // nlohmann writes it as \u0001
constexpr const char* kHex = "0123456789abcdef";

// Every kMark becomes kMark "01", every invalid byte b kMark + its two hex
// digits: valid UTF-8 that nlohmann dumps as is, and that after the dump
// says exactly which escapes to write.
void markBytes(std::string& s) {
  bool plain = true;
  for (size_t i = 0; i < s.size() && plain;) {
    size_t n = validSequence(s, i);
    plain = n != 0 && s[i] != kMark;
    i += n ? n : 1;
  }
  if (plain)
    return;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = validSequence(s, i);
    if (n && s[i] != kMark) {
      out.append(s, i, n);
      i += n;
      continue;
    }
    auto b = static_cast<unsigned char>(s[i]);
    out += kMark;
    out += kHex[b >> 4];
    out += kHex[b & 15];
    ++i;
  }
  s = std::move(out);
}

void markAll(json& j) {
  if (j.is_string()) {
    markBytes(j.get_ref<std::string&>());
  } else if (j.is_object()) {
    // Keys too (a path can be one, e.g. a launch matrix keyed by file).
    json copy = json::object();
    for (auto& [key, value] : j.items()) {
      std::string k = key;
      markBytes(k);
      markAll(value);
      copy[k] = std::move(value);
    }
    j = std::move(copy);
  } else if (j.is_array()) {
    for (json& v : j)
      markAll(v);
  }
}

// Rewrites "\u0001XY" as "\u0001" (XY = 01) or "\udcXY", reading escapes as
// escapes (a "\\" followed by "u0001" in the text is not one).
std::string unmark(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  constexpr std::string_view kEscaped = "\\u0001";
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '\\') {
      out += text[i++];
      continue;
    }
    if (text.compare(i, kEscaped.size(), kEscaped) == 0 && i + 8 <= text.size()) {
      std::string digits = text.substr(i + 6, 2);
      out += digits == "01" ? std::string(kEscaped) : "\\udc" + digits;
      i += 8;
      continue;
    }
    out.append(text, i, std::min<size_t>(2, text.size() - i));
    i += 2;
  }
  return out;
}

} // namespace

std::string dumpKeepingBytes(const json& doc, int indent) {
  json marked = doc;
  markAll(marked);
  return unmark(marked.dump(indent, ' ', false, json::error_handler_t::strict));
}

} // namespace pallas::check
