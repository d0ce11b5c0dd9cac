// py-eval FILE [--ir] [--entries] [--jax] [--root DIR]
//   --ir       print the py dialect module of FILE
//   --jax      also install the JAX / Pallas overlay (with the bundled
//              knowledge table), as the analysis runs programs
//   otherwise  run FILE's module (and, with --entries, its entry points) and
//              print what each `reveal(expr)` call saw: "LINE: VALUE", one
//              line per call, in the order they ran.
#include "../../passes/PallasOverlay.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "pallas/eval/FileSource.h"
#include "pallas/eval/Interpreter.h"
#include "pallas/py/Dialect.h"

#include "llvm/Support/raw_ostream.h"

#include <filesystem>
#include <iostream>
#include <string>

using namespace pallas;

namespace {

eval::Value reveal(eval::Interpreter& in, const eval::CallArgs& args, mlir::Operation* site,
                   const eval::Object*) {
  unsigned line = 0;
  if (auto loc = llvm::dyn_cast<mlir::FileLineColRange>(site->getLoc()))
    line = loc.getStartLine();
  std::string text;
  if (!args.positional.empty()) {
    const eval::Value& v = args.positional[0];
    std::vector<std::string> parts;
    for (const eval::Alt& a : v)
      parts.push_back(eval::describe(a.obj));
    std::sort(parts.begin(), parts.end());
    for (size_t i = 0; i < parts.size(); ++i)
      text += (i ? " | " : "") + parts[i];
    if (v.isBottom())
      text = "<nothing>";
  }
  std::cout << line << ": " << text << (in.uncertain() ? "  (may)" : "") << "\n";
  return in.none(site);
}

} // namespace

int main(int argc, char** argv) {
  std::string file, root;
  bool ir = false, entries = false, jax = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ir")
      ir = true;
    else if (a == "--entries")
      entries = true;
    else if (a == "--jax")
      jax = true;
    else if (a == "--root" && i + 1 < argc)
      root = argv[++i];
    else
      file = a;
  }
  if (file.empty()) {
    std::cerr << "usage: py-eval FILE [--ir] [--entries] [--jax] [--root DIR]\n";
    return 2;
  }
  std::string path = std::filesystem::absolute(file).lexically_normal().string();
  if (root.empty())
    root = std::filesystem::path(path).parent_path().string();
  mlir::MLIRContext context;
  context.getOrLoadDialect<py::PyDialect>();
  eval::FileModuleSource source(&context, {std::filesystem::absolute(root).string()});
  if (ir) {
    mlir::ModuleOp m = source.pyModule(path);
    if (!m) {
      std::cerr << "cannot read " << file << "\n";
      return 2;
    }
    m.print(llvm::outs());
    llvm::outs() << "\n";
    return mlir::succeeded(mlir::verify(m)) ? 0 : 1;
  }
  eval::Interpreter in(&context, source);
  std::optional<knowledge::KnowledgeBase> kb;
  if (jax) {
    knowledge::KnowledgeBase::Loaded loaded = knowledge::KnowledgeBase::bundled();
    if (!loaded.base) {
      std::cerr << "--jax: the bundled knowledge table does not load\n";
      return 2;
    }
    kb = std::move(loaded.base);
    in.addOverlay(std::make_unique<analysis::passes::PallasOverlay>(*kb));
  }
  in.defineNative("reveal", reveal);
  in.builtinsModule()->ns.set("reveal",
                              eval::Value(const_cast<eval::BuiltinObj*>(in.native("reveal"))));
  if (!in.loadDocument(path)) {
    std::cerr << "cannot read " << file << "\n";
    return 2;
  }
  if (entries)
    in.runEntryPoints(path);
  return 0;
}
