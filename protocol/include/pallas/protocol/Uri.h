// file:// URIs <-> absolute paths (RFC 3986 percent-encoding). Other schemes
// (untitled:, ...) are kept verbatim as their own "path" key.
#pragma once

#include <string>
#include <string_view>

namespace pallas::protocol {

// "file:///a%20b/c.py" -> "/a b/c.py". A non-file URI is returned unchanged.
std::string uriToPath(std::string_view uri);
// "/a b/c.py" -> "file:///a%20b/c.py". A string that is not an absolute path
// (a non-file URI used as a key) is returned unchanged.
std::string pathToUri(std::string_view path);

} // namespace pallas::protocol
