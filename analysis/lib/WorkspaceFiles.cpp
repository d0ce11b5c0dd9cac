// The workspace's Python files (see the header).
#include "pallas/analysis/WorkspaceFiles.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace pallas::analysis {

namespace {

bool skippedFolder(const fs::path& p) {
  std::string name = p.filename().string();
  std::error_code ec;
  return name.empty() || name[0] == '.' || name == "site-packages" || name == "node_modules" ||
         name == "__pycache__" || name == "venv" || name == "env" ||
         fs::exists(p / "pyvenv.cfg", ec);
}

} // namespace

std::vector<std::string> workspacePythonFiles(const std::vector<std::string>& roots,
                                              const std::atomic<bool>* cancel) {
  std::vector<std::string> files;
  for (const std::string& root : roots) {
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
        end;
    for (; !ec && it != end; it.increment(ec)) {
      if (cancel && cancel->load())
        return {};
      if (it->is_directory(ec)) {
        if (skippedFolder(it->path()))
          it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".py")
        files.push_back(fs::absolute(it->path()).lexically_normal().string());
    }
  }
  return files;
}

} // namespace pallas::analysis
