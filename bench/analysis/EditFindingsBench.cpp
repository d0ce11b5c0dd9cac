// bench_edit_findings: what one edit costs in the analysis alone (no server,
// no JSON): open a module (setDocument + findings, split into the two), then
// one-character edits typed and deleted at one place, each followed by
// findings. Prints ms per step (p50 / p99) and how many launch results the
// run evaluated and reused (the Project's debug log line). For profiling
// (perf record -g -- bench_edit_findings FILE); never a test.
//   bench_edit_findings FILE [--edits N] [--at TEXT] [--newline]
// --at: the edit goes after the first occurrence of TEXT past the middle of
// the file (default "x = x_ref[...]", bench/scale's module); --newline
// types a line break instead of a character (every later line moves).
#include "pallas/analysis/Project.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace pallas::analysis;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double pct(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<size_t>(p / 100 * static_cast<double>(v.size() - 1) + 0.5))];
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_edit_findings FILE [--edits N] [--at TEXT] [--newline]\n");
    return 2;
  }
  std::string file = argv[1];
  int edits = 40;
  std::string at = "x = x_ref[...]";
  bool newline = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--edits" && i + 1 < argc)
      edits = std::stoi(argv[++i]);
    else if (a == "--at" && i + 1 < argc)
      at = argv[++i];
    else if (a == "--newline")
      newline = true;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t where = text.find(at, text.size() / 2);
  if (where == std::string::npos) {
    std::fprintf(stderr, "'%s' not found past the middle of %s\n", at.c_str(), file.c_str());
    return 2;
  }
  where += at.size();

  std::string lastLog;
  long evaluated = 0, reused = 0;
  ProjectOptions options;
  options.debugLog = [&](const std::string& line) {
    static const std::regex counts(R"(launch checks of .*: (\d+) evaluated, (\d+) reused)");
    std::smatch m;
    if (std::regex_search(line, m, counts)) {
      evaluated = std::stol(m[1]);
      reused = std::stol(m[2]);
    }
  };
  std::string path = std::filesystem::absolute(file).string();
  Project project(options);
  auto t0 = Clock::now();
  UpdateStats opened = project.setDocument(path, text);
  double lowerMs = msSince(t0);
  auto t1 = Clock::now();
  size_t count = project.findings(path).size();
  double findingsMs = msSince(t1);
  std::printf("open: setDocument %.1f ms (parse %.1f, lower %.1f), findings %.1f ms (%zu findings, "
              "%ld launch results)\n",
              lowerMs, opened.parseMillis, opened.lowerMillis, findingsMs, count, evaluated);

  std::vector<double> editMs, updateMs, analyseMs;
  long evaluatedTotal = 0, reusedTotal = 0;
  for (int i = 0; i < edits; ++i) {
    bool insert = i % 2 == 0;
    ByteEdit e;
    e.startByte = where;
    e.oldEndByte = insert ? where : where + 1;
    e.newText = insert ? (newline ? "\n" : "1") : "";
    auto s = Clock::now();
    project.editDocument(path, {e});
    double u = msSince(s);
    auto a = Clock::now();
    project.findings(path);
    analyseMs.push_back(msSince(a));
    updateMs.push_back(u);
    editMs.push_back(msSince(s));
    evaluatedTotal += evaluated;
    reusedTotal += reused;
  }
  std::printf("%d edits: edit->findings p50 %.1f ms p99 %.1f ms (update p50 %.1f, findings p50 "
              "%.1f); per edit %.1f launch results evaluated, %.1f reused\n",
              edits, pct(editMs, 50), pct(editMs, 99), pct(updateMs, 50), pct(analyseMs, 50),
              static_cast<double>(evaluatedTotal) / edits,
              static_cast<double>(reusedTotal) / edits);
  return 0;
}
