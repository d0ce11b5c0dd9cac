#include "pallas/eval/FileSource.h"

#include "pallas/py/Lowering.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tree_sitter/api.h>

// NOLINTNEXTLINE(readability-identifier-naming): the grammar's C symbol
extern "C" const TSLanguage* tree_sitter_python();

namespace pallas::eval {

namespace fs = std::filesystem;

struct FileModuleSource::Doc {
  std::string text;
  TSTree* tree = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  ~Doc() {
    if (tree)
      ts_tree_delete(tree);
  }
};

FileModuleSource::FileModuleSource(mlir::MLIRContext* context, std::vector<std::string> roots)
    : context_(context), roots_(std::move(roots)) {}

FileModuleSource::~FileModuleSource() = default;

void FileModuleSource::setText(const std::string& path, std::string text) {
  texts_[path] = std::move(text);
  docs_.erase(path);
}

mlir::ModuleOp FileModuleSource::pyModule(const std::string& path) {
  auto it = docs_.find(path);
  if (it != docs_.end())
    return it->second->module ? *it->second->module : mlir::ModuleOp();
  auto doc = std::make_unique<Doc>();
  if (auto t = texts_.find(path); t != texts_.end()) {
    doc->text = t->second;
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      docs_[path] = std::move(doc);
      return {};
    }
    std::stringstream ss;
    ss << in.rdbuf();
    doc->text = ss.str();
  }
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  doc->tree = ts_parser_parse_string(parser, nullptr, doc->text.data(),
                                     static_cast<uint32_t>(doc->text.size()));
  ts_parser_delete(parser);
  doc->module = mlir::ModuleOp::create(mlir::FileLineColLoc::get(context_, path, 1, 0));
  py::SourceView src{doc->text, ts_tree_root_node(doc->tree), path, nullptr};
  py::lowerModule(*doc->module, src);
  mlir::ModuleOp m = *doc->module;
  docs_[path] = std::move(doc);
  return m;
}

std::optional<std::string> FileModuleSource::resolveImport(const std::string& importer,
                                                           const std::string& module, int level) {
  std::vector<fs::path> bases;
  if (level > 0) {
    fs::path base = fs::path(importer).parent_path();
    for (int i = 1; i < level; ++i)
      base = base.parent_path();
    bases.push_back(base);
  } else {
    for (const std::string& r : roots_)
      bases.push_back(r);
    bases.push_back(fs::path(importer).parent_path());
  }
  std::string rel = module;
  for (char& c : rel)
    if (c == '.')
      c = '/';
  for (const fs::path& base : bases) {
    fs::path p = rel.empty() ? base : base / rel;
    std::error_code ec;
    if (!rel.empty() &&
        (texts_.count((p.string() + ".py")) || fs::is_regular_file(p.string() + ".py", ec)))
      return fs::path(p.string() + ".py").lexically_normal().string();
    fs::path init = p / "__init__.py";
    if (texts_.count(init.string()) || fs::is_regular_file(init, ec))
      return init.lexically_normal().string();
  }
  return std::nullopt;
}

std::string FileModuleSource::moduleName(const std::string& path) {
  fs::path p(path);
  for (const std::string& r : roots_) {
    fs::path rel = p.lexically_relative(r);
    if (!rel.empty() && rel.native()[0] != '.') {
      std::string s = rel.replace_extension().string();
      if (s.size() > 9 && s.substr(s.size() - 9) == "/__init__")
        s = s.substr(0, s.size() - 9);
      for (char& c : s)
        if (c == '/')
          c = '.';
      return s;
    }
  }
  return p.stem().string();
}

} // namespace pallas::eval
