// Helpers for the analysis tests: lower a snippet through the Project facade
// and look at the printed module.
#pragma once

#include "pallas/analysis/Project.h"

#include <string>
#include <vector>

namespace pallas::analysis::test {

// A fresh temporary folder (removed by the destructor) for cross-file tests.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  // Write `rel` (folders created) and return its absolute path.
  std::string write(const std::string& rel, const std::string& text) const;

private:
  std::string path_;
};

// The printed module of `source` as document `path` (a fresh Project).
std::string lowerToText(const std::string& source, const std::string& path = "/virtual/t.py");
// Lines of `text` that contain every needle.
std::vector<std::string> linesWith(const std::string& text,
                                   const std::vector<std::string>& needles);
size_t count(const std::string& text, const std::string& needle);
std::string readFile(const std::string& path);

} // namespace pallas::analysis::test
