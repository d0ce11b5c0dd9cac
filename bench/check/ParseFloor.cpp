// bench_parse_floor: parses every *.py file under the given folders with
// tree-sitter-python and nothing else, on N threads, the way `check` reads a
// corpus (one parser per worker, files shared out one at a time). No
// analysis runs, so its time is the least any tree-sitter-based `check` can
// take on that corpus: bench_check.py sets it beside `check` and ruff.
// Usage: bench_parse_floor [--jobs N] PATH...
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tree_sitter/api.h>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> pythonFiles(const std::vector<std::string>& roots) {
  std::vector<fs::path> files;
  for (const std::string& root : roots) {
    if (fs::is_regular_file(root)) {
      files.emplace_back(root);
      continue;
    }
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".py")
        files.push_back(it->path());
  }
  return files;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int main(int argc, char** argv) {
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> roots;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--jobs" && i + 1 < argc)
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else
      roots.push_back(arg);
  }
  if (roots.empty()) {
    std::fprintf(stderr, "usage: bench_parse_floor [--jobs N] PATH...\n");
    return 2;
  }
  std::vector<fs::path> files = pythonFiles(roots);
  std::atomic<size_t> next{0}, bytes{0}, nodes{0};
  auto work = [&] {
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    for (size_t i; (i = next++) < files.size();) {
      std::string text = readFile(files[i]);
      TSTree* tree =
          ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      // Read the tree once so no runtime could skip building it.
      nodes += ts_node_descendant_count(ts_tree_root_node(tree));
      bytes += text.size();
      ts_tree_delete(tree);
    }
    ts_parser_delete(parser);
  };
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j)
    workers.emplace_back(work);
  work();
  for (std::thread& w : workers)
    w.join();
  std::printf("%zu files, %zu bytes, %zu nodes parsed\n", files.size(), bytes.load(), nodes.load());
  return 0;
}
