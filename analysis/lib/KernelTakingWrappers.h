// Kernel-taking launch wrappers (KernelTakingWrappers.cpp): a method whose
// caller passes the kernel that the launch in its body runs.
#pragma once

#include "Names.h"

namespace pallas::analysis::names {

// Where the caller's kernel goes and how the wrapper runs it.
struct TakesKernel {
  int index = -1;                  // its positional index (after self), -1: applied later
  std::string param;               // its parameter name
  std::string pipelineApi;         // the pipeline the kernel runs in, if any
  TSNode pipelineRun{};            // where the launched def runs that pipeline
  std::vector<std::string> params; // the wrapper's parameters (the caller's values)
};

// `def pallas_call(self, kernel_fn=None, *, out_shape, ...)` whose body
// launches a nested def that calls the caller's kernel (directly, or as the
// parameter of a nested decorator the wrapper applies to it or returns),
// possibly inside a `plgpu.emit_pipeline`: JAX's PallasTest.pallas_call.
// The WrapperCall is the launch in its body (a launch API, or `self.m(...)`
// of another wrapper of the class).
std::optional<std::pair<WrapperCall, TakesKernel>> kernelTakingWrapperCall(
    TSNode def, const syntax::ParsedSource& doc, const Globals& globals,
    const std::function<bool(const std::string& method, bool viaSuper)>& isWrapper);

} // namespace pallas::analysis::names
