// A ModuleSource over files on disk (and texts given in memory): parses each
// document with tree-sitter once, lowers it to the py dialect, and resolves
// imports the way Python's path-based finder does from a set of roots
// (`a.b` -> ROOT/a/b.py or ROOT/a/b/__init__.py; relative imports from the
// importing file's package). For tools and tests; the language server's
// Project has its own, over its documents.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "pallas/eval/Interpreter.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pallas::eval {

class FileModuleSource final : public ModuleSource {
public:
  FileModuleSource(mlir::MLIRContext* context, std::vector<std::string> roots);
  ~FileModuleSource() override;

  // Use `text` for `path` instead of the file's contents.
  void setText(const std::string& path, std::string text);

  mlir::ModuleOp pyModule(const std::string& path) override;
  std::optional<std::string> resolveImport(const std::string& importer, const std::string& module,
                                           int level) override;
  std::string moduleName(const std::string& path) override;

private:
  struct Doc;
  mlir::MLIRContext* context_;
  std::vector<std::string> roots_;
  std::map<std::string, std::string> texts_;
  std::map<std::string, std::unique_ptr<Doc>> docs_;
};

} // namespace pallas::eval
