module attributes {pallas.path = "/work/wt-passes/test/mlir/Inputs/frontend_kernel.py"} {
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":4:1)
  pallas.func @__module__.1 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":6:1)
  pallas.func @__module__.2 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":7:1)
  pallas.func @__module__.3 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":8:1)
  pallas.func @__module__.4 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":9:1)
  pallas.func @scale attributes {arg_names = ["ref", "factor"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1), %arg1: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1)):
    %0 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:18)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:14)
    %2 = pallas.opaque "binary_operator"(%1, %arg1) {arg_indices = array<i64: -1, 1>, origins = ["value", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:14)
    %3 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:7)
    %4 = pallas.prim "ref.__setitem__"(%arg0, %3, %2) {arg_indices = array<i64: 0, -1, -1>, keywords = ["", "", ""], origins = ["arg", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:3)
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1)
  pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1), %arg1: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1)):
    %0 = pallas.opaque "factory"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":17:4)
    %1 = pallas.closure "touch" attributes {arg_names = ["ref"], kind = "def"} {
    ^bb0(%arg2: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)):
      %11 = pallas.inline_mgpu(%arg2) {arg_indices = array<i64: 0>, arg_type_kinds = ["ref"], arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64, origins = ["arg"]} : (!pallas.value) -> !pallas.value {
      ^bb0(%arg3: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3), %arg4: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)):
        %12 = pallas.opaque "expression_list"(%arg3, %arg4) {arg_indices = array<i64: 0, 1>, origins = ["arg", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":19:9)
        %13 = pallas.opaque "delete_statement"(%12) {arg_indices = array<i64: -1>, origins = ["value"]} : (!pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":19:5)
      } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)
      pallas.return %11 : !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)
    } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)
    %2 = pallas.opaque "factory"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:4)
    %3 = pallas.constant "128" {kind = "int"} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:53)
    %4 = pallas.opaque "tuple"(%3) {arg_indices = array<i64: -1>, origins = ["value"]} : (!pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:52)
    %5 = pallas.global "jnp.float32" = "jnp.float32" loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:60)
    %6 = pallas.prim "plgpu.SMEM"(%4, %5) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:41)
    %7 = pallas.scope "pl.run_scoped"(%6) {allocations = ["smem"], arg_indices = array<i64: -1>, arg_origins = ["run_scoped"], keywords = ["tmp"], origins = ["value"]} : (!pallas.value) -> !pallas.value {
    ^bb0(%arg2: !pallas.ref loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:4)):
      %11 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:22)
      %12 = pallas.prim "ref.__getitem__"(%arg0, %11) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:16)
      %13 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:9)
      %14 = pallas.prim "ref.__setitem__"(%arg2, %13, %12) {arg_indices = array<i64: -1, -1, -1>, keywords = ["", "", ""], origins = ["run_scoped", "value", "value"]} : (!pallas.ref, !pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:5)
      %15 = pallas.constant "2.0" {kind = "float"} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":24:16)
      %16 = pallas.call @scale(%arg2, %15) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["run_scoped", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":24:5)
      %17 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:22)
      %18 = pallas.prim "ref.__getitem__"(%arg2, %17) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["run_scoped", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:18)
      %19 = pallas.constant "True" {kind = "bool"} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:30)
      %20 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:46)
      %21 = pallas.prim "ref.__getitem__"(%arg0, %20) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:40)
      %22 = pallas.opaque "conditional_expression"(%18, %19, %21) {arg_indices = array<i64: -1, -1, -1>, origins = ["value", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:18)
      %23 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:11)
      %24 = pallas.prim "ref.__setitem__"(%arg1, %23, %22) {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""], origins = ["arg", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:5)
    } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:4)
    %8 = pallas.call_indirect %1(%arg1) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":27:3)
    %9 = pallas.closure "<lambda>" attributes {arg_names = ["r"], kind = "lambda"} {
    ^bb0(%arg2: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:7)):
      pallas.return %arg2 : !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:17)
    } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:7)
    %10 = pallas.call_indirect %9(%arg1) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":29:3)
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1)
  pallas.func @run attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":32:1)):
    %0 = pallas.prim "ref.shape"(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:64)
    %1 = pallas.prim "ref.dtype"(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:73)
    %2 = pallas.prim "jax.ShapeDtypeStruct"(%0, %1) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:43)
    %3 = pallas.constant "True" {kind = "bool"} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:93)
    %4 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "True", paths = ["interpret_hlo"], scratch = []} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:10)
    %5 = pallas.call_indirect %4(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:10)
    pallas.return %5 : !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:3)
  } loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":32:1)
} loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":1:1)
