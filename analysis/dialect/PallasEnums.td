// The vocabularies of the `pallas` dialect's attributes as enums: the
// verifier checks them, passes switch over them, and they print as readable
// keywords (`interpret_hlo` in op syntax, `#pallas<path interpret_hlo>`
// elsewhere). See analysis/docs/dialect.md.
#ifndef PALLAS_ENUMS_TD
#define PALLAS_ENUMS_TD

include "mlir/IR/EnumAttr.td"

// An array of enum attributes (in op syntax written `[a, b]`, custom<...>).
class Pallas_EnumArrayAttr<Attr element, string what>
    : TypedArrayAttrBase<element, "array of " # what> {
  let constBuilderCall = "$_builder.getArrayAttr($0)";
}

// Execution paths a launch may select.
def Pallas_LaunchPath : I32EnumAttr<"LaunchPath", "execution path a launch may select", [
    I32EnumAttrCase<"Compiled", 0, "compiled">,
    I32EnumAttrCase<"InterpretHlo", 1, "interpret_hlo">,  // interpret=True: the HLO interpreter on the CPU
    I32EnumAttrCase<"InterpretGpu", 2, "interpret_gpu">,  // interpret=InterpretGPUParams(): GPU interpret mode
    I32EnumAttrCase<"Unknown", 3, "unknown">,        // decided at run time
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// How a launch's `interpret=` was evaluated.
def Pallas_InterpretSource : I32EnumAttr<"InterpretSource", "how a launch's interpret= was evaluated", [
    I32EnumAttrCase<"Absent", 0, "absent">,
    I32EnumAttrCase<"Literal", 1, "literal">,
    I32EnumAttrCase<"ModuleConstant", 2, "module_constant">,
    I32EnumAttrCase<"DefaultParam", 3, "default_param">,
    I32EnumAttrCase<"Local", 4, "local">,
    I32EnumAttrCase<"InterpretGpuParams", 5, "interpret_gpu_params">,
    I32EnumAttrCase<"Context", 6, "context">,
    I32EnumAttrCase<"Param", 7, "param">,
    I32EnumAttrCase<"Condition", 8, "condition">,
    I32EnumAttrCase<"Unknown", 9, "unknown">,
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// How a launch is written.
def Pallas_LaunchForm : I32EnumAttr<"LaunchForm", "how a launch is written", [
    I32EnumAttrCase<"Call", 0, "call">,       // pl.pallas_call(kernel, ...)
    I32EnumAttrCase<"Decorator", 1, "decorator">,  // @pl.pallas_call(...) / @plgpu.kernel(...)
    I32EnumAttrCase<"Partial", 2, "partial">,    // @functools.partial(pl.pallas_call, ...)
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// What a pallas.func stands for.
def Pallas_FuncKind : I32EnumAttr<"FuncKind", "what a pallas.func stands for", [
    I32EnumAttrCase<"Def", 0, "def">,     // a module-level def
    I32EnumAttrCase<"Method", 1, "method">,  // a method of a module-level class
    I32EnumAttrCase<"Module", 2, "module">,  // a top-level statement that is not a def
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// What a pallas.closure stands for.
def Pallas_ClosureKind : I32EnumAttr<"ClosureKind", "what a pallas.closure stands for", [
    I32EnumAttrCase<"Def", 0, "def">,
    I32EnumAttrCase<"Lambda", 1, "lambda">,
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// Where an operand comes from when it is (or may be) a Ref.
def Pallas_Origin : I32EnumAttr<"Origin", "where an operand comes from", [
    I32EnumAttrCase<"Value", 0, "value">,       // not a Ref as far as the front end knows
    I32EnumAttrCase<"Arg", 1, "arg">,         // a parameter of the owning func/closure (arg_indices)
    I32EnumAttrCase<"RunScoped", 2, "run_scoped">,  // a pl.run_scoped allocation
    I32EnumAttrCase<"Acc", 3, "acc">,         // a plgpu.ACC allocation
    I32EnumAttrCase<"RunState", 4, "run_state">,   // a Ref made by pl.run_state
    I32EnumAttrCase<"Pipeline", 5, "pipeline">,    // a buffer plgpu.emit_pipeline* passes to its body
    I32EnumAttrCase<"Ref", 6, "ref">,         // a Ref of another origin
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// The kind of a scratch allocation (launch scratch, run_scoped allocations).
def Pallas_AllocKind : I32EnumAttr<"AllocKind", "kind of a scratch allocation", [
    I32EnumAttrCase<"Acc", 0, "acc">,
    I32EnumAttrCase<"Smem", 1, "smem">,
    I32EnumAttrCase<"Tmem", 2, "tmem">,
    I32EnumAttrCase<"Gmem", 3, "gmem">,
    I32EnumAttrCase<"Barrier", 4, "barrier">,
    I32EnumAttrCase<"Semaphore", 5, "semaphore">,
    I32EnumAttrCase<"Other", 6, "other">,
    // plgpu.RefUnion: Refs that share one allocation, extracted by member.
    I32EnumAttrCase<"Union", 7, "union">,
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// The kind of literal a pallas.constant holds.
def Pallas_ConstantKind : I32EnumAttr<"ConstantKind", "kind of a literal", [
    I32EnumAttrCase<"Int", 0, "int">,
    I32EnumAttrCase<"Float", 1, "float">,
    I32EnumAttrCase<"Str", 2, "str">,
    I32EnumAttrCase<"Bool", 3, "bool">,
    I32EnumAttrCase<"None", 4, "none">,
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

// What an entry of inline_mgpu's literal `arg_types` declares.
def Pallas_ArgTypeKind : I32EnumAttr<"ArgTypeKind", "kind of a declared inline_mgpu argument type", [
    I32EnumAttrCase<"Ref", 0, "ref">,      // plgpu.RefType()
    I32EnumAttrCase<"Array", 1, "array">,  // an array layout
  ]> {
  let cppNamespace = "::pallas::dialect";
  let genSpecializedAttr = 0;
}

#endif // PALLAS_ENUMS_TD
