// Incremental py lowering (py::updateModule): an edit lowers again only the
// top-level statements it changed, and the module it leaves prints exactly
// as a module lowered from scratch from the new text.
#include "Syntax.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "pallas/py/Dialect.h"
#include "pallas/py/Lowering.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace pallas::analysis {
namespace {

std::string functions(unsigned n, unsigned edited = ~0u) {
  std::string src = "import jax\nfrom jax.experimental import pallas as pl\n\n";
  for (unsigned i = 0; i < n; ++i)
    src += "def kernel_" + std::to_string(i) + "(x_ref, o_ref):\n  o_ref[...] = x_ref[...] + " +
           (i == edited ? "7" : std::to_string(i)) + "\n\n";
  return src;
}

// A document's py module, kept across texts as the Workspace keeps it.
class IncrementalPyModule {
public:
  IncrementalPyModule() {
    context_.getOrLoadDialect<py::PyDialect>();
    module_ = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_));
  }
  size_t update(const std::string& text) {
    doc_.setText(text);
    return py::updateModule(*module_, view(doc_), keys_);
  }
  std::vector<mlir::Operation*> units() {
    std::vector<mlir::Operation*> out;
    for (mlir::Operation& op : *module_->getBody())
      out.push_back(&op);
    return out;
  }
  std::string printed() { return print(*module_); }
  bool verifies() { return mlir::succeeded(mlir::verify(*module_)); }
  // The same text lowered from scratch.
  std::string fresh(const std::string& text) {
    syntax::ParsedSource doc;
    doc.setText(text);
    mlir::OwningOpRef<mlir::ModuleOp> m = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_));
    py::lowerModule(*m, view(doc));
    return print(*m);
  }

private:
  static py::SourceView view(const syntax::ParsedSource& doc) {
    return py::SourceView{doc.text(), doc.root(), "/v/k.py",
                          [&doc](TSNode error) { return doc.recoveredChunks(error); }};
  }
  static std::string print(mlir::ModuleOp m) {
    std::string out;
    llvm::raw_string_ostream os(out);
    m->print(os, mlir::OpPrintingFlags().enableDebugInfo());
    return out;
  }
  mlir::MLIRContext context_;
  syntax::ParsedSource doc_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  std::vector<uint64_t> keys_;
};

TEST(PyIncremental, AnEditInOneFunctionLowersThatUnitAlone) {
  IncrementalPyModule m;
  EXPECT_EQ(m.update(functions(50)), 52u); // 2 imports + 50 defs
  std::vector<mlir::Operation*> before = m.units();
  std::string edited = functions(50, 17);
  EXPECT_EQ(m.update(edited), 1u);
  std::vector<mlir::Operation*> after = m.units();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_EQ(after[i] == before[i], i != 2 + 17) << "unit " << i;
  EXPECT_EQ(m.printed(), m.fresh(edited));
  EXPECT_TRUE(m.verifies());
  EXPECT_EQ(m.update(edited), 0u) << "the same text lowers nothing";
}

TEST(PyIncremental, ALineInsertedAboveMovesWhatFollowsAndTheLocationsAreNew) {
  IncrementalPyModule m;
  std::string text = functions(10);
  m.update(text);
  size_t at = text.find("def kernel_4");
  text.insert(at, "X = 1\n");
  // Units 0..5 (imports, kernels 0-3) stay; X and kernels 4-9 move down.
  EXPECT_EQ(m.update(text), 7u);
  EXPECT_EQ(m.printed(), m.fresh(text)) << "every location is where the new text puts it";
}

TEST(PyIncremental, RemovedAndReorderedStatementsMatchAFreshLowering) {
  IncrementalPyModule m;
  std::string text = "a = 1\nb = 2\nc = 3\n";
  m.update(text);
  std::string swapped = "b = 2\na = 1\n"; // same texts, other rows: lowered again
  EXPECT_EQ(m.update(swapped), 2u);
  EXPECT_EQ(m.printed(), m.fresh(swapped));
  EXPECT_EQ(m.units().size(), 2u);
  EXPECT_EQ(m.update(""), 0u);
  EXPECT_TRUE(m.units().empty());
}

TEST(PyIncremental, AStatementThatDoesNotParseIsLoweredEveryTime) {
  IncrementalPyModule m;
  std::string broken = functions(3) + "def half(x:\n  return x\n";
  size_t first = m.update(broken);
  EXPECT_GE(first, 5u);
  EXPECT_EQ(m.printed(), m.fresh(broken));
  // The same text again: the statements with a parse error are lowered
  // again (their tree may differ for the same text), the others are kept.
  size_t again = m.update(broken + " ");
  EXPECT_GE(again, 1u);
  EXPECT_LT(again, first);
  EXPECT_EQ(m.printed(), m.fresh(broken + " "));
  std::string fixed = functions(3) + "def half(x):\n  return x\n";
  m.update(fixed);
  EXPECT_EQ(m.printed(), m.fresh(fixed));
  EXPECT_TRUE(m.verifies());
}

} // namespace
} // namespace pallas::analysis
