// One running piece of code (a module's top level, a function call, a class
// body, a comprehension): where its names live and how control leaves it.
// Private to analysis/eval/lib.
#pragma once

#include "pallas/eval/Interpreter.h"
#include "pallas/py/Dialect.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <memory>

namespace pallas::eval {

enum class Flow : uint8_t {
  Normal,
  Return,
  Raise,
  Break,
  Continue,
  Stop, // a generator's consumer stopped it, or the budget ran out
};

struct Interpreter::Activation {
  ModuleObj* module = nullptr;
  FrameObj* frame = nullptr; // null at a module's top level (its names are the module's)
  FunctionObj* fn = nullptr;
  std::string doc;
  llvm::DenseMap<mlir::Value, Value> ssa;
  Flow flow = Flow::Normal;
  Value returned;
  bool returnedSomewhere = false;
  Value raised; // the exception of a Raise flow
  Value result; // the value of the expression region just run (py.result)

  struct Loop {
    std::vector<std::shared_ptr<Contents>> exits; // locals where a break or continue left
    std::vector<std::shared_ptr<Contents>> continues;
  };
  std::vector<Loop*> loops;

  // A generator's consumer: called at each yield; false stops the generator.
  std::function<bool(const Value&)> onYield;
  // A comprehension's result (py.append adds to it).
  Object* appendTarget = nullptr;

  // The object holding this code's names (the frame, or the module).
  Object* namesObject() const {
    return frame ? static_cast<Object*>(frame) : static_cast<Object*>(module);
  }
  AttrMap& names() const { return frame ? frame->locals : module->ns; }

  Value get(mlir::Value v) const {
    auto it = ssa.find(v);
    return it == ssa.end() ? Value() : it->second;
  }
  void set(mlir::Value v, Value value) { ssa[v] = std::move(value); }
};

// Executes ops for the interpreter (Interpreter.cpp), with the objects'
// operations (Objects.cpp, Operators.cpp) and modules (Modules.cpp).
struct Narrowing;

struct Exec {
  Interpreter& in;
  Interpreter::Activation& a;

  void region(mlir::Region& r);
  Value expressionRegion(mlir::Region& r);
  void op(mlir::Operation* op);
  // The larger cases of op().
  Value constant(py::ConstantOp op);
  void deleteName(py::DeleteOp op);
  void importOp(py::ImportOp op);
  void importFrom(py::ImportFromOp op);
  void importStar(py::ImportStarOp op);
  void delItem(py::DelItemOp op);
  void unaryOp(py::UnaryOp op);
  void compareOp(py::CompareOp op);

  // statements
  void ifOp(py::IfOp op);
  // Narrow the variable a condition tests to what it holds on one side.
  void narrow(const Narrowing& n, bool onTrueSide);
  void forOp(py::ForOp op);
  void whileOp(py::WhileOp op);
  void tryOp(py::TryOp op);
  void withOp(py::WithOp op);
  void matchOp(py::MatchOp op);
  void loopBody(py::ForOp op, const Value& element, Interpreter::Activation::Loop& loop);
  void finishLoop(Interpreter::Activation::Loop& loop);
  // expressions
  Value load(py::LoadOp op);
  void store(llvm::StringRef name, py::Scope scope, const Value& v, mlir::Operation* at);
  Value defOp(py::DefOp op);
  Value classOp(py::ClassOp op);
  Value comprehension(py::ComprehensionOp op);
  Value boolOp(py::BoolOp op);
  Value condOp(py::CondOp op);
  Value callOp(py::CallOp op);
  Value display(mlir::Operation* op, mlir::ValueRange elems, llvm::ArrayRef<bool> starred,
                Kind kind);
  Value dictOp(py::DictOp op);
  void unpack(py::UnpackOp op);
  Value yieldOp(py::YieldOp op);
  Value formatOp(py::FormatOp op);
  Value joinStr(py::JoinStrOp op);
  void append(py::AppendOp op);
  void annotate(py::AnnotateOp op);
  void matchClass(py::MatchClassOp op);
  CallArgs arguments(mlir::ValueRange args, mlir::ArrayAttr kinds, mlir::Operation* site);
};

// The frame-local key under which a non-local name is narrowed.
std::string shadowName(llvm::StringRef name);

// The 1-based line an op starts on (0: not known).
unsigned lineOf(mlir::Operation* op);

// Where a free variable of `frame` lives: the nearest enclosing frame (class
// bodies skipped) that binds or declares it.
FrameObj* frameOfFree(FrameObj* frame, llvm::StringRef name);

} // namespace pallas::eval
