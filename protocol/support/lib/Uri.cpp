#include "pallas/support/Uri.h"

#include <cctype>

namespace pallas::support {

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}
bool unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
}
} // namespace

std::string uriToPath(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.substr(0, scheme.size()) != scheme)
    return std::string(uri);
  std::string_view rest = uri.substr(scheme.size());
  // file://host/path: the authority is dropped (only local files are served).
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos)
    return std::string(uri);
  rest = rest.substr(slash);
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size()) {
      int hi = hexValue(rest[i + 1]), lo = hexValue(rest[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += rest[i];
  }
  return out;
}

std::string percentEncodePath(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string pathToUri(std::string_view path) {
  if (path.empty() || path.front() != '/')
    return std::string(path);
  return "file://" + percentEncodePath(path);
}

} // namespace pallas::support
