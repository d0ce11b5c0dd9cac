// `pallas-lsp mlir FILE`: print the MLIR module (pallas dialect) the server
// keeps for FILE, with locations, so a reader sees which Python line each op
// came from. The file's folder is the workspace root, so helpers imported
// from sibling modules resolve as they do in the editor.
#include "Arguments.h"
#include "Command.h"
#include "pallas/analysis/Project.h"
#include "pallas/support/AnalysisBudget.h"
#include "pallas/support/FileReading.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace pallas::cli {
namespace {

int runMlir(const std::vector<std::string>& args) {
  std::string file;
  bool stats = false;
  Arguments arg("mlir", args);
  while (arg.next()) {
    if (arg.is("--stats")) {
      arg.flag();
      stats = true;
    } else if (arg.isOption()) {
      arg.unknown();
    } else if (file.empty()) {
      file = arg.current();
    } else {
      throw UsageError{"mlir: expects one FILE"};
    }
  }
  if (file.empty())
    throw UsageError{"mlir: expects a FILE"};
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(file, ec).lexically_normal();
  std::string why;
  std::optional<std::string> text = support::readSourceFile(path.string(), &why);
  if (!text) {
    std::cerr << "pallas-lsp: cannot read " << file << ": " << why << "\n";
    return kExitUsage;
  }
  // The analysis budget of check and the server (PLS010 there).
  if (std::optional<std::string> over = support::overAnalysisBudget(*text)) {
    std::cerr << "pallas-lsp: " << file << ": skipped: " << *over << "\n";
    return kExitUsage;
  }
  analysis::ProjectOptions options;
  options.workspaceRoots.push_back(path.parent_path().string());
  analysis::Project project(std::move(options));
  analysis::UpdateStats s = project.setDocument(path.string(), std::move(*text));
  std::cout << project.mlirText(path.string());
  if (s.tooDeepAt)
    std::cerr << "pallas-lsp: " << analysis::tooDeepText(file, *s.tooDeepAt) << "\n";
  for (const auto& f : s.unanalysed)
    std::cerr << "pallas-lsp: " << analysis::unanalysedText(file, f) << "\n";
  if (stats)
    std::cerr << "functions: " << s.functionsTotal << ", lowered: " << s.functionsRelowered
              << ", verified: " << (s.verified ? "yes" : "no") << ", parse: " << s.parseMillis
              << " ms, lower: " << s.lowerMillis << " ms\n";
  return s.verified ? kExitOk : kExitUsage;
}

const CommandRegistration registration{
    Command{"mlir", "mlir FILE [--stats]",
            "print the MLIR module (pallas dialect) kept for FILE, with locations", &runMlir}};

} // namespace
} // namespace pallas::cli
