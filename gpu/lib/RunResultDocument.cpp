// The runner's result document (JSON on the result channel) read into a
// typed RunResult.
#include "RunnerInternal.h"

namespace pallas::gpu::detail {

using nlohmann::json;

std::string stringField(const json& object, const char* key) {
  if (auto it = object.find(key); it != object.end() && it->is_string())
    return it->get<std::string>();
  return "";
}

namespace {

std::optional<PythonError> parseError(const json& value) {
  if (!value.is_object())
    return std::nullopt;
  PythonError error;
  error.type = stringField(value, "type");
  error.message = stringField(value, "message");
  error.traceback = stringField(value, "traceback");
  if (auto frames = value.find("frames"); frames != value.end() && frames->is_array()) {
    for (const json& f : *frames) {
      if (!f.is_object())
        continue;
      Frame frame;
      frame.file = stringField(f, "file");
      frame.line = optionalNumber<int>(f, "line").value_or(0);
      frame.function = stringField(f, "function");
      frame.code = stringField(f, "code");
      frame.user = f.value("user", false);
      error.frames.push_back(std::move(frame));
    }
  }
  return error;
}

ModeResult parseMode(const json& value) {
  ModeResult mode;
  mode.mode = stringField(value, "mode");
  mode.ok = value.value("ok", false);
  if (auto error = value.find("error"); error != value.end())
    mode.error = parseError(*error);
  if (auto timing = value.find("timing"); timing != value.end() && timing->is_object()) {
    mode.timingMethod = stringField(*timing, "method");
    mode.compileSeconds = optionalNumber<double>(*timing, "compile_s");
    mode.runSecondsMedian = optionalNumber<double>(*timing, "run_s_median");
    mode.runs = optionalNumber<int>(*timing, "runs").value_or(0);
  }
  if (auto outputs = value.find("outputs"); outputs != value.end() && outputs->is_array()) {
    for (const json& o : *outputs) {
      OutputSummary summary;
      summary.path = stringField(o, "path");
      summary.kind = stringField(o, "kind");
      summary.dtype = stringField(o, "dtype");
      summary.checksum = stringField(o, "checksum");
      if (auto shape = o.find("shape"); shape != o.end() && shape->is_array())
        for (const json& d : *shape)
          if (d.is_number_integer())
            summary.shape.push_back(d.get<std::int64_t>());
      summary.sum = optionalNumber<double>(o, "sum");
      summary.min = optionalNumber<double>(o, "min");
      summary.max = optionalNumber<double>(o, "max");
      mode.outputs.push_back(std::move(summary));
    }
  }
  return mode;
}

} // namespace

void absorbDocument(RunResult& result, const json& document) {
  result.document = document;
  result.entry = stringField(document, "entry");
  result.environment = document.value("environment", json());
  if (auto setup = document.find("setup_error"); setup != document.end())
    result.setupError = parseError(*setup);
  if (auto modes = document.find("modes"); modes != document.end() && modes->is_array())
    for (const json& m : *modes)
      if (m.is_object())
        result.modes.push_back(parseMode(m));
  if (auto comps = document.find("comparisons"); comps != document.end() && comps->is_array()) {
    for (const json& c : *comps) {
      Comparison comparison;
      comparison.path = stringField(c, "path");
      comparison.comparable = c.value("comparable", false);
      comparison.maxAbsDiff = optionalNumber<double>(c, "max_abs_diff");
      comparison.maxRelDiff = optionalNumber<double>(c, "max_rel_diff");
      comparison.note = stringField(c, "note");
      if (auto heat = c.find("heat_map"); heat != c.end() && heat->is_object())
        comparison.heatMap = *heat;
      result.comparisons.push_back(std::move(comparison));
    }
  }
}

} // namespace pallas::gpu::detail
