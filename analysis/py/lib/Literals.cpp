#include "Literals.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace pallas::py {

namespace {

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x110000) {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

} // namespace

Number parseNumber(std::string_view text) {
  std::string s;
  for (char c : text)
    if (c != '_')
      s += c;
  Number n;
  if (s.empty())
    return n;
  char last = s.back();
  if (last == 'j' || last == 'J') {
    s.pop_back();
    errno = 0;
    char* end = nullptr;
    n.f = std::strtod(s.c_str(), &end);
    n.kind = (end && *end == 0) ? Number::Complex : Number::Bad;
    return n;
  }
  if (last == 'l' || last == 'L') // Python 2 long
    s.pop_back();
  bool isFloat = false;
  if (s.size() < 2 || s[0] != '0' || std::isdigit(static_cast<unsigned char>(s[1])) ||
      s[1] == '.' || s[1] == 'e' || s[1] == 'E')
    isFloat = s.find_first_of(".eE") != std::string::npos;
  if (isFloat) {
    char* end = nullptr;
    n.f = std::strtod(s.c_str(), &end);
    n.kind = (end && *end == 0) ? Number::Float : Number::Bad;
    return n;
  }
  int base = 10;
  std::string digits = s;
  if (s.size() > 2 && s[0] == '0') {
    char b = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
    if (b == 'x')
      base = 16;
    else if (b == 'o')
      base = 8;
    else if (b == 'b')
      base = 2;
    if (base != 10)
      digits = s.substr(2);
  }
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(digits.c_str(), &end, base);
  if (!end || *end != 0 || digits.empty())
    return n;
  if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) {
    n.kind = base == 10 ? Number::BigInt : Number::Bad;
    n.text = digits;
    return n;
  }
  n.kind = Number::Int;
  n.i = static_cast<int64_t>(v);
  return n;
}

StringPrefix parsePrefix(std::string_view start) {
  StringPrefix p;
  for (char c : start) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == 'r')
      p.raw = true;
    else if (l == 'b')
      p.bytes = true;
    else if (l == 'f')
      p.formatted = true;
    else if (c == '"' || c == '\'')
      break;
  }
  return p;
}

std::string decodeEscapes(std::string_view in, bool bytes) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\\' || i + 1 >= in.size()) {
      out += c;
      continue;
    }
    char e = in[++i];
    switch (e) {
    case '\n':
      break; // line continuation
    case '\\':
      out += '\\';
      break;
    case '\'':
      out += '\'';
      break;
    case '"':
      out += '"';
      break;
    case 'a':
      out += '\a';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'v':
      out += '\v';
      break;
    case 'x': {
      int h1 = i + 1 < in.size() ? hexValue(in[i + 1]) : -1;
      int h2 = i + 2 < in.size() ? hexValue(in[i + 2]) : -1;
      if (h1 < 0 || h2 < 0) {
        out += "\\x";
        break;
      }
      uint32_t v = static_cast<uint32_t>(h1 * 16 + h2);
      if (bytes)
        out += static_cast<char>(v);
      else
        appendUtf8(out, v);
      i += 2;
      break;
    }
    case 'u':
    case 'U': {
      size_t len = e == 'u' ? 4 : 8;
      uint32_t v = 0;
      bool ok = !bytes && i + len < in.size() + 0;
      for (size_t k = 1; ok && k <= len; ++k) {
        int h = i + k < in.size() ? hexValue(in[i + k]) : -1;
        ok = h >= 0;
        v = v * 16 + static_cast<uint32_t>(h < 0 ? 0 : h);
      }
      if (!ok) {
        out += '\\';
        out += e;
        break;
      }
      appendUtf8(out, v);
      i += len;
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        uint32_t v = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && i + 1 < in.size() && in[i + 1] >= '0' && in[i + 1] <= '7'; ++k)
          v = v * 8 + static_cast<uint32_t>(in[++i] - '0');
        if (bytes)
          out += static_cast<char>(v & 0xFF);
        else
          appendUtf8(out, v);
      } else {
        out += '\\'; // unknown escapes (and \N{...}) stay as written
        out += e;
      }
    }
  }
  return out;
}

} // namespace pallas::py
