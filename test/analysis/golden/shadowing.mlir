module attributes {pallas.path = "GOLDEN/shadowing.py"} {
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/shadowing.py":1:1)
  pallas.func @__module__.1 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/shadowing.py":2:1)
  pallas.func @inline_mgpu attributes {arg_names = ["*args", "**kwargs"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":5:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":5:1)):
    %0 = pallas.constant "\22\22\22The user's own helper that happens to share JAX's name.\22\22\22" {kind = "str"} loc("GOLDEN/shadowing.py":6:3)
    %1 = pallas.closure "<lambda>" attributes {arg_names = ["f"], kind = "lambda"} {
    ^bb0(%arg2: !pallas.value loc("GOLDEN/shadowing.py":7:10)):
      pallas.return %arg2 : !pallas.value loc("GOLDEN/shadowing.py":7:20)
    } loc("GOLDEN/shadowing.py":7:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/shadowing.py":7:3)
  } loc("GOLDEN/shadowing.py":5:1)
  pallas.func @not_jax attributes {arg_names = ["ctx", "ref"], kind = "def"} {
    %0 = pallas.opaque "tuple"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("GOLDEN/shadowing.py":10:24)
    %1 = pallas.call @inline_mgpu(%0) {arg_indices = array<i64: -1>, keywords = ["arg_types"], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":10:2)
    %2 = pallas.global "not_jax" = "local:not_jax" loc("GOLDEN/shadowing.py":11:1)
    %3 = pallas.call_indirect %1(%2) {arg_indices = array<i64: -1>, keywords = [""], origins = ["value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":10:2)
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":11:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":11:1)):
    %0 = pallas.prim "plgpu.barrier_wait"(%arg1) {arg_indices = array<i64: 1>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":12:3)
  } loc("GOLDEN/shadowing.py":10:1)
  pallas.func @parameter_shadows attributes {arg_names = ["plgpu", "x_ref"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":15:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":15:1)):
    %0 = pallas.prim "ref.copy_gmem_to_smem"(%arg0, %arg1) {arg_indices = array<i64: 0, 1>, keywords = ["", ""], origins = ["arg", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":16:3)
  } loc("GOLDEN/shadowing.py":15:1)
  pallas.func @local_shadows attributes {arg_names = ["x_ref"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":19:1)):
    %0 = pallas.global "object" = "builtins.object" loc("GOLDEN/shadowing.py":20:8)
    %1 = pallas.call_indirect %0() {arg_indices = array<i64>, keywords = [], origins = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":20:8)
    %2 = pallas.prim "value.pallas_call"(%1, %arg0) {arg_indices = array<i64: -1, 0>, keywords = ["", ""], origins = ["value", "arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":21:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/shadowing.py":21:3)
  } loc("GOLDEN/shadowing.py":19:1)
  pallas.func @uses_module_names attributes {arg_names = ["x_ref", "smem", "barrier"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":24:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":24:1), %arg2: !pallas.value loc("GOLDEN/shadowing.py":24:1)):
    %0 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg1, %arg2) {arg_indices = array<i64: 0, 1, 2>, keywords = ["", "", ""], origins = ["arg", "arg", "arg"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":25:3)
    %1 = pallas.call @not_jax(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":26:3)
  } loc("GOLDEN/shadowing.py":24:1)
} loc("GOLDEN/shadowing.py":1:1)
