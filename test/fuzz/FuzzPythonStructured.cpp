// libFuzzer target: structure-aware Python (PythonGenerator.h) through
// parse, lowering, the MLIR verifier, the passes and the fix attachment,
// then a few incremental edits. Any crash, sanitizer report, verifier
// failure or fix outside its document is a bug.
#include "PythonGenerator.h"
#include "pallas/analysis/Project.h"
#include "pallas/analysis/Rewrite.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using pallas::analysis::ByteEdit;
using pallas::analysis::Project;
using pallas::analysis::verifyModule;

namespace {

// Lines as the analysis counts them ("\n", "\r\n", a lone "\r").
size_t lineCount(const std::string& text) {
  size_t lines = 1;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
      ++lines;
  return lines;
}

void analyse(Project& project, const std::string& path, const std::string& text) {
  auto findings = project.findings(path);
  pallas::analysis::attachFixes(project, path, findings);
  const size_t lines = lineCount(text);
  for (const auto& f : findings) {
    if (f.location.path == path && f.location.range.start.line >= lines)
      std::abort();
    for (const auto& fix : f.fixes)
      for (const auto& e : fix.edits)
        if (e.path == path && (e.range.start.line >= lines || e.range.end.line >= lines ||
                               e.range.end < e.range.start))
          std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Project* project = new Project(); // reused, like a server's
  const std::string path = "/fuzz/structured.py";
  FuzzedDataProvider in(data, size);
  std::string text = pallas::fuzz::PythonGenerator(in).file();
  if (const char* dump = std::getenv("PALLAS_FUZZ_DUMP")) { // to see what an input means
    if (FILE* f = std::fopen(dump, "wb")) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
  }
  auto stats = project->setDocument(path, text);
  if (!stats.verified || !verifyModule(*project, path))
    std::abort();
  analyse(*project, path, text);
  // Edits at places taken from the input: brackets and line ends typed or
  // deleted, as an editor would send them.
  static const char* inserts[] = {"(", ")", "\r", "\n", "\r\n", "[", "]", ":", "  ", ""};
  // (Not on the largest texts: each edit of a file with a lone "\r" is a
  // full parse, and the sanitized runs have a 10 s budget per input.)
  for (size_t i = 0; i + 2 < size && i < 12 && text.size() < 64 * 1024; i += 3) {
    size_t start = data[i] * text.size() / 256;
    size_t len = std::min<size_t>(data[i + 1] % 4, text.size() - start);
    std::string ins = inserts[data[i + 2] % 10];
    stats = project->editDocument(path, {ByteEdit{start, start + len, ins}});
    text.replace(start, len, ins);
    if (!stats.verified || !verifyModule(*project, path))
      std::abort();
    if (project->documentText(path).size() != text.size())
      std::abort();
  }
  analyse(*project, path, text);
  return 0;
}
