// file:// URIs <-> absolute paths (RFC 3986 percent-encoding). Other schemes
// (untitled:, ...) are kept verbatim as their own "path" key. Part of the
// dependency-free pallas_support, so the analysis's fixes, `check`'s SARIF
// output and the server encode paths the same way.
#pragma once

#include <string>
#include <string_view>

namespace pallas::support {

// "file:///a%20b/c.py" -> "/a b/c.py". A non-file URI is returned unchanged.
std::string uriToPath(std::string_view uri);
// "/a b/c.py" -> "file:///a%20b/c.py". A string that is not an absolute path
// (a non-file URI used as a key) is returned unchanged.
std::string pathToUri(std::string_view path);
// A path (absolute or relative) percent-encoded for a URI: everything but
// RFC 3986's unreserved characters and '/'. "a b/c#d.py" -> "a%20b/c%23d.py".
std::string percentEncodePath(std::string_view path);

} // namespace pallas::support
