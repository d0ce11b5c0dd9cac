// rewrite_tool FILE LINE COL   (1-based) -> JSON on stdout:
//   {"fix": {"title", "safety", "edits": [{"start": [l, c], "end": [l, c], "newText"}]} | null,
//    "blocker": "...", "blockerLine": N, "hover": "..."}
// rewrite_tool --mlir FILE      -> the module the Project keeps for FILE.
// Asks through the same Project-level entry the server uses.
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace pallas::analysis;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: rewrite_tool FILE LINE COL | --mlir FILE\n";
    return 2;
  }
  bool mlir = std::string(argv[1]) == "--mlir";
  std::string path = std::filesystem::absolute(argv[mlir ? 2 : 1]).string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  Project project;
  project.setDocument(path, ss.str());
  if (mlir) {
    std::cout << project.mlirText(path);
    return 0;
  }
  if (argc < 4)
    return 2;
  SourcePos pos{static_cast<uint32_t>(std::stoul(argv[2]) - 1),
                static_cast<uint32_t>(std::stoul(argv[3]) - 1)};
  RewriteResult r = rewriteInlineMgpu(project, path, pos);
  nlohmann::json out;
  out["fix"] = nullptr;
  if (r.fix) {
    nlohmann::json edits = nlohmann::json::array();
    for (const TextEdit& e : r.fix->edits)
      edits.push_back({{"start", {e.range.start.line, e.range.start.column}},
                       {"end", {e.range.end.line, e.range.end.column}},
                       {"newText", e.newText}});
    out["fix"] = {{"title", r.fix->title},
                  {"safety", r.fix->safety == FixSafety::Safe     ? "safe"
                             : r.fix->safety == FixSafety::Unsafe ? "unsafe"
                                                                  : "display-only"},
                  {"edits", edits}};
  }
  out["blocker"] = r.blocker;
  out["blockerLine"] = r.blocker.empty() ? 0 : r.blockerLoc.range.start.line + 1;
  out["hover"] = r.hoverText();
  std::cout << out.dump(2) << "\n";
  return 0;
}
