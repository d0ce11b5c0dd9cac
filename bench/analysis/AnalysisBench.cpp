// bench_analysis: numbers for issue 3, printed as a table.
//   * edit-to-module-updated latency of one-character edits (inside function
//     bodies, no line count change) in generated files of 1k/10k/50k lines:
//     p50 / p99 over many edits;
//   * full parse + lower throughput (MB/s) next to bare tree-sitter parsing
//     of the same text;
//   * memory per open document at 10k lines (RSS growth).
// Usage: bench_analysis [--edits N]
#include "pallas/analysis/Project.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <random>
#include <string>
#include <tree_sitter/api.h>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

using namespace pallas::analysis;
using Clock = std::chrono::steady_clock;

namespace {

// A realistic Mosaic GPU file: imports, then kernels of ~12 lines each with
// copies, barriers, pl.when, run_scoped and a launch helper.
std::string generate(unsigned lines) {
  std::string s = "import functools\nimport jax\nimport jax.numpy as jnp\n"
                  "from jax.experimental import pallas as pl\n"
                  "from jax.experimental.pallas import mosaic_gpu as plgpu\n\n";
  unsigned i = 0;
  long count = std::count(s.begin(), s.end(), '\n');
  while (count < static_cast<long>(lines)) {
    std::string n = std::to_string(i++);
    size_t before = s.size();
    s += "def kernel_" + n +
         "(x_gmem, o_gmem, x_smem, barrier):\n"
         "  plgpu.copy_gmem_to_smem(x_gmem.at[0], x_smem, barrier)\n"
         "  plgpu.barrier_wait(barrier)\n"
         "  @pl.when(pl.program_id(0) == " +
         n +
         " % 4)\n"
         "  def _():\n"
         "    o_gmem[...] = x_smem[...] * 2 + 1\n"
         "  @functools.partial(pl.run_scoped, acc=plgpu.ACC((64, 64), jnp.float32))\n"
         "  def _(acc):\n"
         "    plgpu.wgmma(acc, x_smem, x_smem)\n\n"
         "def run_" +
         n +
         "(x):\n"
         "  return pl.pallas_call(kernel_" +
         n + ", out_shape=x, interpret=True)(x)\n\n";
    count += std::count(s.begin() + static_cast<long>(before), s.end(), '\n');
  }
  return s;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Bytes in use by malloc (RSS would hide reuse of memory freed earlier).
size_t heapInUse() {
  return mallinfo2().uordblks + mallinfo2().hblkhd;
}

} // namespace

int main(int argc, char** argv) {
  unsigned edits = 400;
  unsigned profileLowering = 0; // --profile-lowering N: only N full parse+lower runs at 10k lines
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--edits") == 0)
      edits = static_cast<unsigned>(std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--profile-lowering") == 0)
      profileLowering = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  if (profileLowering) {
    // For a profiler: nothing but setDocument on the 10k-line file.
    std::string text = generate(10000);
    double best = 1e9;
    for (unsigned r = 0; r < profileLowering; ++r) {
      Project p;
      auto t0 = Clock::now();
      p.setDocument("/bench/profile.py", text);
      best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::printf("parse+lower of 10k lines: best %.2f ms\n", best);
    return 0;
  }

  std::printf("%-8s %10s %10s %10s %12s %12s %12s\n", "lines", "bytes", "edit p50", "edit p99",
              "full MB/s", "ts MB/s", "ratio");
  for (unsigned lines : {1000u, 10000u, 50000u}) {
    std::string text = generate(lines);
    const std::string path = "/bench/gen_" + std::to_string(lines) + ".py";

    // Bare tree-sitter, same text.
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    double tsBest = 1e9;
    for (int r = 0; r < 7; ++r) {
      auto t0 = Clock::now();
      TSTree* tree =
          ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      tsBest = std::min(tsBest, std::chrono::duration<double>(Clock::now() - t0).count());
      ts_tree_delete(tree);
    }
    ts_parser_delete(parser);

    // Full parse + lower (+ verify of every function), fresh each time.
    double fullBest = 1e9;
    for (int r = 0; r < 7; ++r) {
      Project p;
      auto t0 = Clock::now();
      p.setDocument(path, text);
      fullBest = std::min(fullBest, std::chrono::duration<double>(Clock::now() - t0).count());
    }

    // One-character edits inside bodies: flip the digit of `* 2` <-> `* 3`.
    Project p;
    p.setDocument(path, text);
    std::vector<size_t> sites;
    for (size_t at = text.find("* 2 + 1"); at != std::string::npos;
         at = text.find("* 2 + 1", at + 1))
      sites.push_back(at + 2);
    std::mt19937 rng(7);
    std::vector<double> ms;
    double parseMs = 0, lowerMs = 0;
    unsigned relowered = 0;
    for (unsigned e = 0; e < edits; ++e) {
      size_t at = sites[rng() % sites.size()];
      char now = p.documentText(path)[at];
      auto t0 = Clock::now();
      UpdateStats s =
          p.editDocument(path, {ByteEdit{at, at + 1, std::string(1, now == '2' ? '3' : '2')}});
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      relowered += s.functionsRelowered;
      parseMs += s.parseMillis;
      lowerMs += s.lowerMillis;
    }
    double mb = static_cast<double>(text.size()) / (1024.0 * 1024.0);
    std::printf(
        "%-8u %10zu %8.3fms %8.3fms %12.2f %12.2f %12.2f   (per edit: %.2f functions lowered, "
        "reparse %.3f ms, units+lower %.3f ms)\n",
        lines, text.size(), percentile(ms, 0.5), percentile(ms, 0.99), mb / fullBest, mb / tsBest,
        tsBest / fullBest, static_cast<double>(relowered) / edits, parseMs / edits,
        lowerMs / edits);
  }

  // Memory per open document at 10k lines.
  {
    std::string text = generate(10000);
    Project p;
    p.setDocument("/bench/warm.py", "x = 1\n"); // the context's one-time setup
    size_t before = heapInUse();
    const int docs = 4;
    for (int d = 0; d < docs; ++d)
      p.setDocument("/bench/mem_" + std::to_string(d) + ".py", text);
    size_t after = heapInUse();
    std::printf("memory per open 10k-line document (%zu bytes of text): %.1f MB\n", text.size(),
                static_cast<double>(after - before) / (1024.0 * 1024.0) / docs);
  }
  return 0;
}
