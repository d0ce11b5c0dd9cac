// A scratch folder on the real file system for one test, removed afterwards.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace pallas::check::testing {

class TempDir {
public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "pallas-check-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::path(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& relative, const std::string& contents) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }
  std::filesystem::path mkdir(const std::string& relative) const {
    std::filesystem::create_directories(path_ / relative);
    return path_ / relative;
  }
  static std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

private:
  std::filesystem::path path_;
};

} // namespace pallas::check::testing
