// The `pallas` dialect: an MLIR model of a Python file that uses JAX Pallas
// (Mosaic GPU). One module per document, one `pallas.func` per Python
// function (or top-level statement). The model is deliberately "Python
// shaped": every value is a Python object (`!pallas.value`) or a Pallas Ref
// (`!pallas.ref`), and which API an op stands for is an attribute, so that
// the knowledge of what each API binds stays in data (analysis/knowledge/),
// not in op definitions. See analysis/docs/dialect.md for the contract the
// passes in analysis/passes/ rely on. Changes here are additive only.
// Vocabularies are enums (PallasEnums.td); the per-operand attributes
// several ops share are read through PallasInterfaces.td.
#ifndef PALLAS_OPS_TD
#define PALLAS_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "dialect/PallasEnums.td"

def Pallas_Dialect : Dialect {
  let name = "pallas";
  let cppNamespace = "::pallas::dialect";
  let summary = "Python/JAX Pallas programs as seen by pallas-lsp";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

// An enum attribute: `#pallas<origin arg>` on its own, the bare case name
// (`arg`) inside op syntax (where its own leading space replaces the op
// format's: "`` $kind").
class Pallas_EnumAttr<EnumAttrInfo info, string name>
    : EnumAttr<Pallas_Dialect, info, name>;

//===----------------------------------------------------------------------===//
// Enum attributes (`#pallas<origin arg>`; bare keywords inside op syntax)
//===----------------------------------------------------------------------===//

def Pallas_LaunchPathAttr : Pallas_EnumAttr<Pallas_LaunchPath, "path">;
def Pallas_InterpretSourceAttr : Pallas_EnumAttr<Pallas_InterpretSource, "interpret_source">;
def Pallas_LaunchFormAttr : Pallas_EnumAttr<Pallas_LaunchForm, "form">;
def Pallas_FuncKindAttr : Pallas_EnumAttr<Pallas_FuncKind, "func_kind">;
def Pallas_ClosureKindAttr : Pallas_EnumAttr<Pallas_ClosureKind, "closure_kind">;
def Pallas_OriginAttr : Pallas_EnumAttr<Pallas_Origin, "origin">;
def Pallas_AllocKindAttr : Pallas_EnumAttr<Pallas_AllocKind, "alloc">;
def Pallas_ConstantKindAttr : Pallas_EnumAttr<Pallas_ConstantKind, "literal">;
def Pallas_ArgTypeKindAttr : Pallas_EnumAttr<Pallas_ArgTypeKind, "arg_type">;

// Arrays of them; in op syntax written `[a, b]` (custom<EnumList>).
def Pallas_LaunchPathArrayAttr : Pallas_EnumArrayAttr<Pallas_LaunchPathAttr, "execution paths">;
def Pallas_OriginArrayAttr : Pallas_EnumArrayAttr<Pallas_OriginAttr, "operand origins">;
def Pallas_AllocKindArrayAttr : Pallas_EnumArrayAttr<Pallas_AllocKindAttr, "allocation kinds">;
def Pallas_ArgTypeKindArrayAttr : Pallas_EnumArrayAttr<Pallas_ArgTypeKindAttr, "argument type kinds">;

include "dialect/PallasInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Pallas_Type<string name, string typeMnemonic> : TypeDef<Pallas_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Pallas_ValueType : Pallas_Type<"Value", "value"> {
  let summary = "any Python object (array, scalar, callable, ...), or a Ref not known to be one";
}

def Pallas_RefType : Pallas_Type<"Ref", "ref"> {
  let summary = "a Pallas Ref known to be one at this point (a scoped allocation, a run_state ref)";
}

def Pallas_AnyValue : AnyTypeOf<[Pallas_ValueType, Pallas_RefType]>;

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Pallas_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pallas_Dialect, mnemonic, traits>;

def Pallas_FuncOp : Pallas_Op<"func", [Symbol, NoTerminator, SingleBlock]> {
  let summary = "a module-level Python function, method, or top-level statement";
  let description = [{
    `kind` is "def" (a module-level function), "method" (a method of a
    module-level class; `sym_name` is "Class.method") or "module" (one
    top-level statement that is not a def; `sym_name` is "__module__.N").
    Region `decorators` holds the evaluation of the def's decorators in module
    scope (e.g. the `pallas.launch` of `@functools.partial(pl.pallas_call,
    ...)`); region `body` holds the function body, its block arguments are the
    Python parameters in order (names in `arg_names`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Pallas_FuncKindAttr:$kind,
                       StrArrayAttr:$arg_names);
  let regions = (region SizedRegion<1>:$decorators, SizedRegion<1>:$body);
  let assemblyFormat = "`` $kind $sym_name attr-dict-with-keyword $decorators $body";
  let hasVerifier = 1;
}

def Pallas_ClosureOp : Pallas_Op<"closure", [NoTerminator, SingleBlock]> {
  let summary = "a nested def or a lambda; its value is the Python callable";
  let description = [{
    `kind` is "def" or "lambda". The region may use values of the enclosing
    regions (Python closures capture). Block arguments are the parameters.
  }];
  let arguments = (ins StrAttr:$name, Pallas_ClosureKindAttr:$kind, StrArrayAttr:$arg_names);
  let results = (outs Pallas_ValueType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`` $kind $name attr-dict-with-keyword $body";
}

def Pallas_LaunchOp : Pallas_Op<"launch"> {
  let summary = "a kernel launch: pl.pallas_call, plgpu.kernel, pl.kernel, pl.core_map";
  let description = [{
    `api`: "pl.pallas_call" | "plgpu.kernel" | "pl.kernel" | "pl.core_map".
    `form`: "call" | "decorator" | "partial" (through functools.partial).
    The kernel body is `body` (a `pallas.func` symbol, in `body_file` when it
    lives in another file of the workspace) or the `body_value` operand (a
    `pallas.closure` result, or an unknown value).
    `paths`: the execution paths the launch may select, each one of
    "compiled" | "interpret_hlo" | "interpret_gpu" | "unknown";
    `interpret_source`: how `interpret=` was evaluated: "absent" | "literal" |
    "module_constant" | "default_param" | "interpret_gpu_params" | "context" |
    "unknown". `scratch`: one entry per scratch allocation when statically
    known ("acc", "smem", "tmem", "gmem", "barrier", "semaphore", "other").
    `backend`: the Pallas backend the launch targets when its arguments say
    so ("mosaic_tpu", "triton", "mosaic_gpu"); absent when they do not.
  }];
  let arguments = (ins StrAttr:$api, Pallas_LaunchFormAttr:$form, StrAttr:$body_text,
                       OptionalAttr<FlatSymbolRefAttr>:$body,
                       OptionalAttr<StrAttr>:$body_file,
                       Optional<Pallas_AnyValue>:$body_value,
                       Pallas_LaunchPathArrayAttr:$paths,
                       Pallas_InterpretSourceAttr:$interpret_source,
                       OptionalAttr<StrAttr>:$interpret_text,
                       OptionalAttr<DictionaryAttr>:$interpret_params,
                       OptionalAttr<Pallas_AllocKindArrayAttr>:$scratch,
                       OptionalAttr<I64Attr>:$num_threads,
                       OptionalAttr<StrAttr>:$thread_name,
                       OptionalAttr<StrAttr>:$context,
                       OptionalAttr<I64Attr>:$context_line,
                       OptionalAttr<I64Attr>:$context_column,
                       OptionalAttr<StrAttr>:$backend);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = [{
    $api `` $form ($body_value^ `:` type($body_value))? `paths` custom<Paths>($paths)
    `interpret` `` $interpret_source (`scratch` custom<AllocKinds>($scratch)^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Pallas_PrimOp : Pallas_Op<"prim", [Pallas_CallOperands]> {
  let summary = "a call of a JAX/Pallas API, or a Ref operation";
  let description = [{
    `api` is the qualified API name: "plgpu.copy_gmem_to_smem",
    "pl.program_id", "lax.fori_loop", "jnp.zeros", "ref.__getitem__",
    "ref.__setitem__", "ref.at", "mgpu.<...>", ... (module aliases
    canonicalised: pl, plgpu, mgpu, lax, jnp, jax, interpret).
    `keywords` names each operand ("" for positional). `origins` says for
    each operand where it comes from when it is (or may be) a Ref: "value"
    (not a ref as far as the front end knows), "arg" (parameter
    `arg_indices[i]` of the function/closure that owns the SSA value),
    "run_scoped", "acc", "run_state", "pipeline", "ref" (a ref of another
    origin). `arg_indices[i]` is -1 unless origins[i] == "arg".
  }];
  let arguments = (ins StrAttr:$api, Variadic<Pallas_AnyValue>:$args,
                       StrArrayAttr:$keywords, Pallas_OriginArrayAttr:$origins,
                       DenseI64ArrayAttr:$arg_indices);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "$api `(` $args `)` `origins` custom<Origins>($origins) attr-dict `:` functional-type($args, $result)";
}

def Pallas_InlineMgpuOp : Pallas_Op<"inline_mgpu", [NoTerminator, SingleBlock, Pallas_CallOperands]> {
  let summary = "a call of a plgpu.inline_mgpu-decorated function: binds inline_mgpu_p";
  let description = [{
    Emitted inside the `pallas.func`/`pallas.closure` that the decorated def
    becomes: calling that function binds `inline_mgpu_p` with the function's
    parameters (minus the leading launch context) as operands. The region is
    the body (block arguments: all Python parameters, `ctx` first).
    `arg_types`/`return_type` are the decorator's arguments as written
    (absent when not given). `arg_types_count` is the number of entries of a
    literal tuple/list `arg_types` (-1 when not a literal).
  }];
  let arguments = (ins Variadic<Pallas_AnyValue>:$args,
                       Pallas_OriginArrayAttr:$origins, DenseI64ArrayAttr:$arg_indices,
                       OptionalAttr<StrAttr>:$arg_types,
                       OptionalAttr<Pallas_ArgTypeKindArrayAttr>:$arg_type_kinds,
                       OptionalAttr<StrAttr>:$return_type,
                       I64Attr:$arg_types_count);
  let results = (outs Pallas_ValueType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $args `)` `origins` custom<Origins>($origins)
    (`arg_type_kinds` custom<ArgTypeKinds>($arg_type_kinds)^)?
    attr-dict `:` functional-type($args, $result) $body
  }];
}

def Pallas_CallOp : Pallas_Op<"call", [Pallas_CallOperands]> {
  let summary = "a call of a user function by name";
  let description = [{
    `callee` is a `pallas.func` symbol of this module, or of the module of
    `callee_file` (an absolute path in the workspace) when set.
    `keywords`/`origins`/`arg_indices` as for `pallas.prim`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, OptionalAttr<StrAttr>:$callee_file,
                       Variadic<Pallas_AnyValue>:$args,
                       StrArrayAttr:$keywords, Pallas_OriginArrayAttr:$origins,
                       DenseI64ArrayAttr:$arg_indices);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "$callee `(` $args `)` `origins` custom<Origins>($origins) attr-dict `:` functional-type($args, $result)";
}

def Pallas_CallIndirectOp : Pallas_Op<"call_indirect", [Pallas_CallOperands]> {
  let summary = "a call of a Python value (a closure, a lambda, an unknown callable)";
  let arguments = (ins Pallas_AnyValue:$callee, Variadic<Pallas_AnyValue>:$args,
                       StrArrayAttr:$keywords, Pallas_OriginArrayAttr:$origins,
                       DenseI64ArrayAttr:$arg_indices);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "$callee `(` $args `)` `origins` custom<Origins>($origins) attr-dict `:` functional-type(operands, $result)";
}

def Pallas_ScopeOp : Pallas_Op<"scope", [NoTerminator, SingleBlock, Pallas_CallOperands]> {
  let summary = "code that runs inside a higher-order construct: loop, scoped allocation, condition, context";
  let description = [{
    `api`: "pl.run_scoped", "pl.run_state", "plgpu.emit_pipeline",
    "plgpu.emit_pipeline_warp_specialized", "pl.when", "pl.loop",
    "lax.fori_loop", "lax.while_loop", "lax.cond", "plgpu.nd_loop",
    "pl.core_map", "python.for", "python.while", "python.with",
    "python.try", ... The region's block arguments are what the construct
    passes to its body; `arg_origins` gives each one's origin ("value",
    "run_scoped", "acc", "run_state", "pipeline"). `allocations` (for
    run_scoped/run_state) gives the allocation kind of each block argument.
    When the body is a callable defined elsewhere, the region holds a
    `pallas.call`/`pallas.call_indirect` of it with the block arguments.
    `context` is set for `with` blocks that change the interpret mode
    ("force_gpu_interpret_mode").
  }];
  let arguments = (ins StrAttr:$api, Variadic<Pallas_AnyValue>:$args,
                       StrArrayAttr:$keywords, Pallas_OriginArrayAttr:$origins,
                       DenseI64ArrayAttr:$arg_indices,
                       Pallas_OriginArrayAttr:$arg_origins,
                       OptionalAttr<Pallas_AllocKindArrayAttr>:$allocations,
                       OptionalAttr<StrAttr>:$context);
  let results = (outs Pallas_ValueType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $api `(` $args `)` `origins` custom<Origins>($origins)
    `arg_origins` custom<Origins>($arg_origins) (`allocations` custom<AllocKinds>($allocations)^)?
    attr-dict `:` functional-type($args, $result) $body
  }];
  let hasVerifier = 1;
}

def Pallas_IfOp : Pallas_Op<"if", [NoTerminator, SingleBlock]> {
  let summary = "a Python if statement (or conditional expression)";
  let description = [{
    `static_cond` is set when the condition is statically known (a literal,
    a module constant, `not` of one): "true" or "false"; the region that
    cannot run is dead code.
  }];
  let arguments = (ins Pallas_AnyValue:$condition, OptionalAttr<BoolAttr>:$static_cond);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = "$condition `:` type($condition) attr-dict-with-keyword $then_region `else` $else_region";
}

def Pallas_ConstantOp : Pallas_Op<"constant"> {
  let summary = "a literal or statically known value; `value` is its Python source text";
  let arguments = (ins StrAttr:$value, Pallas_ConstantKindAttr:$kind);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "`` $kind $value attr-dict";
}

def Pallas_GlobalOp : Pallas_Op<"global"> {
  let summary = "a reference to a name resolved outside the function (module global, import, builtin)";
  let description = [{
    `name` is the Python name; `resolved` the qualified target ("plgpu",
    "jax.numpy", "mypkg.helpers.scale", "builtins.range", "?" unknown).
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$resolved);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "$name `=` $resolved attr-dict";
}

def Pallas_OpaqueOp : Pallas_Op<"opaque", [Pallas_CallOperands]> {
  let summary = "something the front end does not model (an operator, a syntax error, ...)";
  let description = [{
    `what` is the tree-sitter node type ("binary_operator", "ERROR", ...).
    Operands are the sub-expressions that were lowered (so calls inside stay
    visible); origins as for `pallas.prim`.
  }];
  let arguments = (ins StrAttr:$what, Variadic<Pallas_AnyValue>:$args,
                       Pallas_OriginArrayAttr:$origins, DenseI64ArrayAttr:$arg_indices);
  let results = (outs Pallas_ValueType:$result);
  let assemblyFormat = "$what `(` $args `)` `origins` custom<Origins>($origins) attr-dict `:` functional-type($args, $result)";
}

def Pallas_ReturnOp : Pallas_Op<"return"> {
  let summary = "a Python return (not a terminator: regions have none)";
  let arguments = (ins Optional<Pallas_AnyValue>:$value);
  let assemblyFormat = "($value^ `:` type($value))? attr-dict";
}

#endif // PALLAS_OPS_TD
