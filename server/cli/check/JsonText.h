// JSON text for reports whose strings may hold bytes that are not UTF-8 (a
// file name on Linux is any bytes). nlohmann's dump replaced them with
// U+FFFD, so `--format json` named a path that does not exist (issue 34).
// Here each such byte is written as the escape of a lone low surrogate,
// \udc80-\udcff, as Python's "surrogateescape" (PEP 383) does: Python's
// json.loads then os.fsencode gives the exact bytes back, and the text is
// still valid JSON. Everything else is nlohmann's own output.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pallas::check {

std::string dumpKeepingBytes(const nlohmann::ordered_json& doc, int indent);

} // namespace pallas::check
