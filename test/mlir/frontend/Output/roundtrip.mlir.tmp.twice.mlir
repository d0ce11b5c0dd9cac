#loc6 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1)
#loc11 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1)
#loc13 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)
#loc16 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:4)
#loc35 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:7)
#loc38 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":32:1)
module attributes {pallas.path = "/work/wt-passes/test/mlir/Inputs/frontend_kernel.py"} {
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
  } loc(#loc1)
  pallas.func @__module__.1 attributes {arg_names = [], kind = "module"} {
  } {
  } loc(#loc2)
  pallas.func @__module__.2 attributes {arg_names = [], kind = "module"} {
  } {
  } loc(#loc3)
  pallas.func @__module__.3 attributes {arg_names = [], kind = "module"} {
  } {
  } loc(#loc4)
  pallas.func @__module__.4 attributes {arg_names = [], kind = "module"} {
  } {
  } loc(#loc5)
  pallas.func @scale attributes {arg_names = ["ref", "factor"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1), %arg1: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":12:1)):
    %0 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc7)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc8)
    %2 = pallas.opaque "binary_operator"(%1, %arg1) {arg_indices = array<i64: -1, 1>, origins = ["value", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc8)
    %3 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc9)
    %4 = pallas.prim "ref.__setitem__"(%arg0, %3, %2) {arg_indices = array<i64: 0, -1, -1>, keywords = ["", "", ""], origins = ["arg", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc(#loc10)
  } loc(#loc6)
  pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1), %arg1: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":16:1)):
    %0 = pallas.opaque "factory"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc12)
    %1 = pallas.closure "touch" attributes {arg_names = ["ref"], kind = "def"} {
    ^bb0(%arg2: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)):
      %11 = pallas.inline_mgpu(%arg2) {arg_indices = array<i64: 0>, arg_type_kinds = ["ref"], arg_types = "(plgpu.RefType(),)", arg_types_count = 1 : i64, origins = ["arg"]} : (!pallas.value) -> !pallas.value {
      ^bb0(%arg3: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3), %arg4: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":18:3)):
        %12 = pallas.opaque "expression_list"(%arg3, %arg4) {arg_indices = array<i64: 0, 1>, origins = ["arg", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc14)
        %13 = pallas.opaque "delete_statement"(%12) {arg_indices = array<i64: -1>, origins = ["value"]} : (!pallas.value) -> !pallas.value loc(#loc15)
      } loc(#loc13)
      pallas.return %11 : !pallas.value loc(#loc13)
    } loc(#loc13)
    %2 = pallas.opaque "factory"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc16)
    %3 = pallas.constant "128" {kind = "int"} loc(#loc17)
    %4 = pallas.opaque "tuple"(%3) {arg_indices = array<i64: -1>, origins = ["value"]} : (!pallas.value) -> !pallas.value loc(#loc18)
    %5 = pallas.global "jnp.float32" = "jnp.float32" loc(#loc19)
    %6 = pallas.prim "plgpu.SMEM"(%4, %5) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc20)
    %7 = pallas.scope "pl.run_scoped"(%6) {allocations = ["smem"], arg_indices = array<i64: -1>, arg_origins = ["run_scoped"], keywords = ["tmp"], origins = ["value"]} : (!pallas.value) -> !pallas.value {
    ^bb0(%arg2: !pallas.ref loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:4)):
      %11 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc21)
      %12 = pallas.prim "ref.__getitem__"(%arg0, %11) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc22)
      %13 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc23)
      %14 = pallas.prim "ref.__setitem__"(%arg2, %13, %12) {arg_indices = array<i64: -1, -1, -1>, keywords = ["", "", ""], origins = ["run_scoped", "value", "value"]} : (!pallas.ref, !pallas.value, !pallas.value) -> !pallas.value loc(#loc24)
      %15 = pallas.constant "2.0" {kind = "float"} loc(#loc25)
      %16 = pallas.call @scale(%arg2, %15) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["run_scoped", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value loc(#loc26)
      %17 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc27)
      %18 = pallas.prim "ref.__getitem__"(%arg2, %17) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["run_scoped", "value"]} : (!pallas.ref, !pallas.value) -> !pallas.value loc(#loc28)
      %19 = pallas.constant "True" {kind = "bool"} loc(#loc29)
      %20 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc30)
      %21 = pallas.prim "ref.__getitem__"(%arg0, %20) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc31)
      %22 = pallas.opaque "conditional_expression"(%18, %19, %21) {arg_indices = array<i64: -1, -1, -1>, origins = ["value", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc(#loc28)
      %23 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc(#loc32)
      %24 = pallas.prim "ref.__setitem__"(%arg1, %23, %22) {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""], origins = ["arg", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc(#loc33)
    } loc(#loc16)
    %8 = pallas.call_indirect %1(%arg1) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc34)
    %9 = pallas.closure "<lambda>" attributes {arg_names = ["r"], kind = "lambda"} {
    ^bb0(%arg2: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:7)):
      pallas.return %arg2 : !pallas.value loc(#loc36)
    } loc(#loc35)
    %10 = pallas.call_indirect %9(%arg1) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc37)
  } loc(#loc11)
  pallas.func @run attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":32:1)):
    %0 = pallas.prim "ref.shape"(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc(#loc39)
    %1 = pallas.prim "ref.dtype"(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc(#loc40)
    %2 = pallas.prim "jax.ShapeDtypeStruct"(%0, %1) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc41)
    %3 = pallas.constant "True" {kind = "bool"} loc(#loc42)
    %4 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "True", paths = ["interpret_hlo"], scratch = []} loc(#loc43)
    %5 = pallas.call_indirect %4(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc(#loc43)
    pallas.return %5 : !pallas.value loc(#loc44)
  } loc(#loc38)
} loc(#loc)
#loc = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":1:1)
#loc1 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":4:1)
#loc2 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":6:1)
#loc3 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":7:1)
#loc4 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":8:1)
#loc5 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":9:1)
#loc7 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:18)
#loc8 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:14)
#loc9 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:7)
#loc10 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":13:3)
#loc12 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":17:4)
#loc14 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":19:9)
#loc15 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":19:5)
#loc17 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:53)
#loc18 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:52)
#loc19 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:60)
#loc20 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":21:41)
#loc21 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:22)
#loc22 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:16)
#loc23 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:9)
#loc24 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":23:5)
#loc25 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":24:16)
#loc26 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":24:5)
#loc27 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:22)
#loc28 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:18)
#loc29 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:30)
#loc30 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:46)
#loc31 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:40)
#loc32 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:11)
#loc33 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":25:5)
#loc34 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":27:3)
#loc36 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":28:17)
#loc37 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":29:3)
#loc39 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:64)
#loc40 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:73)
#loc41 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:43)
#loc42 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:93)
#loc43 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:10)
#loc44 = loc("/work/wt-passes/test/mlir/Inputs/frontend_kernel.py":33:3)

