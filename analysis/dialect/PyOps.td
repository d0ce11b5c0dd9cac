// The `py` dialect: the Python layer of the pallas IR. Every Python
// statement and expression of a document is an op, lowered from the syntax
// tree without evaluating anything (analysis/lib/py/Lowering*.cpp); what a
// value *is* (a kernel, a launch API, `interpret=True`) is decided only by
// the evaluator (analysis/eval/), which interprets these ops.
//
// Shape of the IR:
//  * a document is a builtin.module holding one `py.unit` per top-level
//    statement, in source order (the unit of incremental reuse);
//  * every value is `!py.obj`;
//  * names are slots, as in CPython's frames: `py.load`/`py.store` name a
//    variable and the scope the compiler's symbol table gives it (local,
//    global, a free variable of an enclosing function, a class body's
//    namespace). Closures, `global` and `nonlocal` are therefore exact, and
//    the evaluator's state at a program point is the use-def model (what each
//    slot may hold), joined where control flow joins;
//  * statements that hold code (`if`, `while`, `for`, `try`, `with`, `def`,
//    `class`, comprehensions) are region ops; expressions that evaluate
//    lazily (`a if c else b`, `and`, `or`) have regions ending in
//    `py.result`;
//  * locations are file:line:col ranges of the syntax (1-based lines and
//    UTF-8 byte columns, as the pallas dialect's).
// Regions have no terminators: `py.return`, `py.break`, ... are ordinary ops
// the evaluator acts on.
#ifndef PY_OPS_TD
#define PY_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"

def Py_Dialect : Dialect {
  let name = "py";
  let cppNamespace = "::pallas::py";
  let summary = "Python statements and expressions, as written, for the evaluator";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

def Py_ObjectType : TypeDef<Py_Dialect, "Object"> {
  let mnemonic = "obj";
  let summary = "a Python object";
}

// Which namespace a name lives in, as CPython's symbol table decides it.
def Py_Scope : I32EnumAttr<"Scope", "the namespace of a name", [
    I32EnumAttrCase<"local", 0>,   // a local of the function (fast local)
    I32EnumAttrCase<"global", 1>,  // the module's namespace, then builtins (loads)
    I32EnumAttrCase<"free", 2>,    // a variable of an enclosing function (a cell)
    I32EnumAttrCase<"name", 3>     // a class body: its namespace, then globals/builtins
  ]> {
  let cppNamespace = "::pallas::py";
  let genSpecializedAttr = 0;
}
def Py_ScopeAttr : EnumAttr<Py_Dialect, Py_Scope, "scope">;

// What a py.constant holds; `value` is the attribute for it (none and
// ellipsis have none).
def Py_ConstKind : I32EnumAttr<"ConstKind", "the kind of a constant", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"boolean", 1, "bool">, I32EnumAttrCase<"integer", 2, "int">,
    I32EnumAttrCase<"floating", 3, "float">, I32EnumAttrCase<"complex", 4>, I32EnumAttrCase<"str", 5>,
    I32EnumAttrCase<"bytes", 6>, I32EnumAttrCase<"ellipsis", 7>,
    // an integer literal beyond 64 bits: `value` is its decimal text
    I32EnumAttrCase<"bigint", 8>
  ]> {
  let cppNamespace = "::pallas::py";
  let genSpecializedAttr = 0;
}
def Py_ConstKindAttr : EnumAttr<Py_Dialect, Py_ConstKind, "const_kind">;

def Py_Obj : DialectType<Py_Dialect, CPred<"::llvm::isa<::pallas::py::ObjectType>($_self)">,
                         "a Python object", "::pallas::py::ObjectType">,
             BuildableType<"$_builder.getType<::pallas::py::ObjectType>()">;

class Py_Op<string mnemonic, list<Trait> traits = []> : Op<Py_Dialect, mnemonic, traits>;
class Py_RegionOp<string mnemonic, list<Trait> traits = []>
    : Py_Op<mnemonic, !listconcat(traits, [NoTerminator])>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Py_UnitOp : Py_RegionOp<"unit", [SingleBlock]> {
  let summary = "one top-level statement of a module";
  let description = [{
    `kind`: "def", "class" or "stmt"; `name` the def's or class's name (else
    empty). The module runs its units in order.
  }];
  let arguments = (ins StrAttr:$kind, StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind $name attr-dict-with-keyword $body";
}

def Py_DefOp : Py_RegionOp<"def", [SingleBlock]> {
  let summary = "a def or lambda; its result is the function object (decorators not applied)";
  let description = [{
    `params` names the parameters in order; `param_kinds` gives each one's
    kind: "p" positional-only, "n" positional-or-keyword, "v" *args, "k"
    keyword-only, "w" **kwargs. `defaults` are the operands giving the
    defaults of the parameters with one (`has_default`), in order.
    `locals` lists the function's local variables (parameters first), as the
    compiler's symbol table gives them. `generator` marks a body that yields.
    `kind`: "def", "async" or "lambda".
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$qualname, StrAttr:$kind, StrArrayAttr:$params,
                       StrAttr:$param_kinds, DenseBoolArrayAttr:$has_default,
                       StrArrayAttr:$locals, UnitAttr:$generator,
                       Variadic<Py_Obj>:$defaults);
  let results = (outs Py_Obj:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind $name `(` $defaults `)` attr-dict-with-keyword $body";
}

def Py_ClassOp : Py_RegionOp<"class", [SingleBlock]> {
  let summary = "a class statement; its result is the class object (decorators not applied)";
  let description = [{
    Operands are the arguments of the class line: bases (keyword "") and
    keywords (`metaclass=...`), with `arg_kinds` as for py.call. The body
    runs in the class's namespace.
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$qualname, Variadic<Py_Obj>:$args,
                       StrArrayAttr:$arg_kinds);
  let results = (outs Py_Obj:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name `(` $args `)` attr-dict-with-keyword $body";
}

def Py_ComprehensionOp : Py_RegionOp<"comprehension", [SingleBlock]> {
  let summary = "a list/set/dict comprehension or a generator expression (a scope of its own)";
  let description = [{
    `kind`: "list", "set", "dict" or "generator". The operand is the first
    iterable (evaluated in the enclosing scope); the body receives it as its
    block argument and holds py.for / py.if ops around py.append.
  }];
  let arguments = (ins StrAttr:$kind, Py_Obj:$iterable, StrArrayAttr:$locals);
  let results = (outs Py_Obj:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind $iterable attr-dict-with-keyword $body";
}

def Py_AppendOp : Py_Op<"append"> {
  let summary = "adds an element (or a key and a value) to the enclosing comprehension's result";
  let arguments = (ins Variadic<Py_Obj>:$items);
  let assemblyFormat = "$items attr-dict";
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

def Py_LoadOp : Py_Op<"load"> {
  let summary = "reads a variable";
  let arguments = (ins StrAttr:$name, Py_ScopeAttr:$scope);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$scope $name attr-dict";
}

def Py_StoreOp : Py_Op<"store"> {
  let summary = "binds a variable";
  let arguments = (ins StrAttr:$name, Py_ScopeAttr:$scope, Py_Obj:$value);
  let assemblyFormat = "$scope $name `=` $value attr-dict";
}

def Py_AnnotateOp : Py_Op<"annotate"> {
  let summary = "`name: annotation` in a module or class body (recorded in __annotations__)";
  let arguments = (ins StrAttr:$name, Py_Obj:$annotation);
  let assemblyFormat = "$name `:` $annotation attr-dict";
}

def Py_DeleteOp : Py_Op<"delete"> {
  let summary = "`del name`";
  let arguments = (ins StrAttr:$name, Py_ScopeAttr:$scope);
  let assemblyFormat = "$scope $name attr-dict";
}

def Py_ImportOp : Py_Op<"import"> {
  let summary = "`import a.b` (result: the top package `a`) or `import a.b as c` (result: a.b)";
  let arguments = (ins StrAttr:$module, UnitAttr:$top);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$module attr-dict";
}

def Py_ImportFromOp : Py_Op<"import_from"> {
  let summary = "`from module import name`; `level` counts the leading dots";
  let arguments = (ins StrAttr:$module, I64Attr:$level, StrAttr:$name);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$module $name attr-dict";
}

def Py_ImportStarOp : Py_Op<"import_star"> {
  let summary = "`from module import *`";
  let arguments = (ins StrAttr:$module, I64Attr:$level);
  let assemblyFormat = "$module attr-dict";
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Py_IfOp : Py_RegionOp<"if"> {
  let summary = "an if statement (elif chains nest in the else region)";
  let arguments = (ins Py_Obj:$condition);
  let regions = (region SizedRegion<1>:$then_region, AnyRegion:$else_region);
  let assemblyFormat = "$condition attr-dict-with-keyword $then_region `else` $else_region";
}

def Py_WhileOp : Py_RegionOp<"while"> {
  let summary = "a while loop: `condition` ends in py.result";
  let regions = (region SizedRegion<1>:$condition, SizedRegion<1>:$body, AnyRegion:$orelse);
  let assemblyFormat = "attr-dict-with-keyword $condition `do` $body `else` $orelse";
}

def Py_ForOp : Py_RegionOp<"for"> {
  let summary = "a for loop (also a comprehension's `for` clause); the body's block argument is the element";
  let arguments = (ins Py_Obj:$iterable, UnitAttr:$is_async);
  let regions = (region SizedRegion<1>:$body, AnyRegion:$orelse);
  let assemblyFormat = "$iterable attr-dict-with-keyword $body `else` $orelse";
}

def Py_BreakOp : Py_Op<"break"> {
  let assemblyFormat = "attr-dict";
}
def Py_ContinueOp : Py_Op<"continue"> {
  let assemblyFormat = "attr-dict";
}

def Py_ReturnOp : Py_Op<"return"> {
  let summary = "return (a None constant when written bare)";
  let arguments = (ins Py_Obj:$value);
  let assemblyFormat = "$value attr-dict";
}

def Py_RaiseOp : Py_Op<"raise"> {
  let summary = "raise; operands: the exception and the cause, when written";
  let arguments = (ins Variadic<Py_Obj>:$args);
  let assemblyFormat = "$args attr-dict";
}

def Py_AssertOp : Py_Op<"assert"> {
  let arguments = (ins Variadic<Py_Obj>:$args);
  let assemblyFormat = "$args attr-dict";
}

def Py_TryOp : Py_RegionOp<"try"> {
  let summary = "try: body, handlers (py.except ops), else, finally";
  let regions = (region SizedRegion<1>:$body, AnyRegion:$handlers, AnyRegion:$orelse,
                        AnyRegion:$finalbody);
  let assemblyFormat = "attr-dict-with-keyword $body `except` $handlers `else` $orelse `finally` $finalbody";
}

def Py_ExceptOp : Py_RegionOp<"except"> {
  let summary = "one except clause: `type` ends in py.result (empty: bare except); the body's block argument is the exception";
  let arguments = (ins UnitAttr:$star);
  let regions = (region AnyRegion:$exception_type, SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $exception_type `do` $body";
}

def Py_WithOp : Py_RegionOp<"with"> {
  let summary = "one with item; the body's block argument is what __enter__ returns";
  let arguments = (ins Py_Obj:$manager, UnitAttr:$is_async);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$manager attr-dict-with-keyword $body";
}

def Py_MatchOp : Py_RegionOp<"match"> {
  let summary = "a match statement: its cases are py.case ops, tried in order";
  let arguments = (ins Py_Obj:$subject);
  let regions = (region SizedRegion<1>:$cases);
  let assemblyFormat = "$subject attr-dict-with-keyword $cases";
}

def Py_CaseOp : Py_RegionOp<"case"> {
  let summary = "one case: `pattern` binds its captures and ends in py.result (does it match); then the guard and body";
  let regions = (region SizedRegion<1>:$pattern, SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $pattern `do` $body";
}

def Py_MatchClassOp : Py_Op<"match_class"> {
  let summary = "a class pattern's test: isinstance(subject, cls); results: the positional sub-subjects (via __match_args__)";
  let arguments = (ins Py_Obj:$subject, Py_Obj:$cls, I64Attr:$positional);
  let results = (outs Py_Obj:$matched, Variadic<Py_Obj>:$parts);
  let assemblyFormat = "$subject `,` $cls attr-dict `:` type($parts)";
}

def Py_ResultOp : Py_Op<"result"> {
  let summary = "the value of an expression region";
  let arguments = (ins Py_Obj:$value);
  let assemblyFormat = "$value attr-dict";
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

def Py_ConstantOp : Py_Op<"constant"> {
  let arguments = (ins Py_ConstKindAttr:$kind, OptionalAttr<AnyAttr>:$value);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$kind ($value^)? attr-dict";
}

def Py_FormatOp : Py_Op<"format"> {
  let summary = "one `{value!conversion:spec}` of an f-string (the spec, when written, is the second operand)";
  let arguments = (ins Variadic<Py_Obj>:$args, StrAttr:$conversion);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$args attr-dict";
}

def Py_JoinStrOp : Py_Op<"join_str"> {
  let summary = "an f-string or implicitly concatenated strings: the pieces joined";
  let arguments = (ins Variadic<Py_Obj>:$parts);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$parts attr-dict";
}

def Py_BinaryOp : Py_Op<"binary"> {
  let summary = "a binary operator (`op`: + - * @ / // % ** << >> & | ^); `inplace` for augmented assignment";
  let arguments = (ins StrAttr:$op, Py_Obj:$lhs, Py_Obj:$rhs, UnitAttr:$inplace);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$op $lhs `,` $rhs attr-dict";
}

def Py_UnaryOp : Py_Op<"unary"> {
  let summary = "a unary operator: - + ~ not";
  let arguments = (ins StrAttr:$op, Py_Obj:$operand);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$op $operand attr-dict";
}

def Py_CompareOp : Py_Op<"compare"> {
  let summary = "a comparison, chained (`a < b < c`: ops [\"<\", \"<\"]); in / not in / is / is not included";
  let arguments = (ins Variadic<Py_Obj>:$operands, StrArrayAttr:$ops);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$operands attr-dict";
}

def Py_BoolOp : Py_RegionOp<"bool"> {
  let summary = "`lhs and rhs` / `lhs or rhs`: the rhs region runs only when needed";
  let arguments = (ins StrAttr:$op, Py_Obj:$lhs);
  let results = (outs Py_Obj:$result);
  let regions = (region SizedRegion<1>:$rhs);
  let assemblyFormat = "$op $lhs attr-dict-with-keyword $rhs";
}

def Py_CondOp : Py_RegionOp<"cond"> {
  let summary = "`a if c else b`";
  let arguments = (ins Py_Obj:$condition);
  let results = (outs Py_Obj:$result);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = "$condition attr-dict-with-keyword $then_region `else` $else_region";
}

def Py_AttrOp : Py_Op<"attr"> {
  let arguments = (ins Py_Obj:$object, StrAttr:$name);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$object `,` $name attr-dict";
}

def Py_SetAttrOp : Py_Op<"set_attr"> {
  let arguments = (ins Py_Obj:$object, StrAttr:$name, Py_Obj:$value);
  let assemblyFormat = "$object `,` $name `=` $value attr-dict";
}

def Py_DelAttrOp : Py_Op<"del_attr"> {
  let arguments = (ins Py_Obj:$object, StrAttr:$name);
  let assemblyFormat = "$object `,` $name attr-dict";
}

def Py_SubscriptOp : Py_Op<"subscript"> {
  let arguments = (ins Py_Obj:$object, Py_Obj:$index);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$object `[` $index `]` attr-dict";
}

def Py_SetItemOp : Py_Op<"set_item"> {
  let arguments = (ins Py_Obj:$object, Py_Obj:$index, Py_Obj:$value);
  let assemblyFormat = "$object `[` $index `]` `=` $value attr-dict";
}

def Py_DelItemOp : Py_Op<"del_item"> {
  let arguments = (ins Py_Obj:$object, Py_Obj:$index);
  let assemblyFormat = "$object `[` $index `]` attr-dict";
}

def Py_SliceOp : Py_Op<"slice"> {
  let summary = "lower:upper:step (an absent part is a None constant)";
  let arguments = (ins Py_Obj:$lower, Py_Obj:$upper, Py_Obj:$step);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$lower `,` $upper `,` $step attr-dict";
}

def Py_CallOp : Py_Op<"call"> {
  let summary = "a call: `arg_kinds` gives each argument's kind: \"\" positional, \"*\" a splat, \"**\" a mapping splat, else the keyword";
  let arguments = (ins Py_Obj:$callee, Variadic<Py_Obj>:$args, StrArrayAttr:$arg_kinds);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$callee `(` $args `)` attr-dict";
}

def Py_TupleOp : Py_Op<"tuple"> {
  let summary = "a tuple display; `starred` marks `*x` elements";
  let arguments = (ins Variadic<Py_Obj>:$elements, DenseBoolArrayAttr:$starred);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "`(` $elements `)` attr-dict";
}

def Py_ListOp : Py_Op<"list"> {
  let arguments = (ins Variadic<Py_Obj>:$elements, DenseBoolArrayAttr:$starred);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "`[` $elements `]` attr-dict";
}

def Py_SetOp : Py_Op<"set"> {
  let arguments = (ins Variadic<Py_Obj>:$elements, DenseBoolArrayAttr:$starred);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "`{` $elements `}` attr-dict";
}

def Py_DictOp : Py_Op<"dict"> {
  let summary = "a dict display: operands are key, value pairs and `**m` splats (`splat` per entry)";
  let arguments = (ins Variadic<Py_Obj>:$items, DenseBoolArrayAttr:$splat);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "`{` $items `}` attr-dict";
}

def Py_UnpackOp : Py_Op<"unpack"> {
  let summary = "`a, *b, c = value`: the results in target order (`star`: the starred target's index, -1 for none)";
  let arguments = (ins Py_Obj:$value, I64Attr:$star);
  let results = (outs Variadic<Py_Obj>:$targets);
  let assemblyFormat = "$value attr-dict `:` type($targets)";
}

def Py_YieldOp : Py_Op<"yield"> {
  let summary = "`yield v` (`from` set: `yield from v`); its result is what is sent in";
  let arguments = (ins Py_Obj:$value, UnitAttr:$from);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$value attr-dict";
}

def Py_AwaitOp : Py_Op<"await"> {
  let arguments = (ins Py_Obj:$value);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$value attr-dict";
}

def Py_ErrorOp : Py_Op<"error"> {
  let summary = "syntax the parser could not read (or nested past the depth followed); its value is unknown";
  let arguments = (ins StrAttr:$what, Variadic<Py_Obj>:$parts);
  let results = (outs Py_Obj:$result);
  let assemblyFormat = "$what `(` $parts `)` attr-dict";
}

#endif // PY_OPS_TD
