// libFuzzer target over configuration reading (issue 34): the input is a
// pyproject.toml (through the depth and size limits, toml++ and the
// [tool.pallas-lsp] reader) and, the same bytes, a .gitignore; the
// patterns each yields are matched against a few paths. A stack overflow, a
// hang, an exception other than ConfigError or a sanitizer report fails it.
// Seeds: test/fuzz/seeds/fuzz_config; dictionary: test/fuzz/fuzz_config.dict.
#include "check/Gitignore.h"
#include "config/Config.h"
#include "config/TomlLimits.h"

#include <cstdint>
#include <string>
#include <string_view>

using namespace pallas::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const char* const kPaths[] = {"k.py",       "tests/a/k.py",      "gen/x_pb2.py",
                                       "a/b/c/d.py", ".venv/lib/site.py", "aaaaaaaaaaaaaaaaaaaa.py",
                                       "dir/",       "weird [x]/*?.py",   ""};
  (void)checkTomlLimits(text);
  try {
    if (std::optional<Config> config = parsePyproject(text, "/fuzz/pyproject.toml")) {
      for (const char* p : kPaths) {
        (void)config->excluded(std::filesystem::path("/fuzz") / p);
        (void)config->ignoredFor(std::filesystem::path("/fuzz") / p);
      }
      (void)config->severityFor("PLS001");
    }
  } catch (const ConfigError&) {
    // A refusal with file:line:col is the expected answer to bad input.
  }
  GitignoreFile ignore("/fuzz", text);
  for (const char* p : kPaths) {
    (void)ignore.match(std::filesystem::path("/fuzz") / p, false);
    (void)ignore.match(std::filesystem::path("/fuzz") / p, true);
  }
  return 0;
}
