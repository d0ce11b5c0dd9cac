// Shared by the files of the runner (Runner.cpp, RunResultDocument.cpp,
// RunResultReport.cpp); not part of the gpu library's interface.
#pragma once

#include "pallas/gpu/Runner.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pallas::gpu::detail {

template <typename T>
std::optional<T> optionalNumber(const nlohmann::json& object, const char* key) {
  if (auto it = object.find(key); it != object.end() && it->is_number())
    return it->get<T>();
  return std::nullopt;
}
// The string at `key`, or "" when it is missing or not a string.
std::string stringField(const nlohmann::json& object, const char* key);

// Fills the typed fields of `result` from the runner's result document.
void absorbDocument(RunResult& result, const nlohmann::json& document);

// "Type: message (at file:line in function)".
std::string errorLine(const PythonError& error);
// The last non-empty lines of a text, for crash reports.
std::string lastLines(const std::string& text, int count);
// How the run ended, in one message.
std::string describeMessage(const RunResult& result, const RunRequest& request);

} // namespace pallas::gpu::detail
