module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/shadowing.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/shadowing.py":1:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/shadowing.py":2:1)
  pallas.func def @inline_mgpu attributes {arg_names = ["*args", "**kwargs"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":5:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":5:1)):
    %0 = pallas.constant str "\22\22\22The user's own helper that happens to share JAX's name.\22\22\22" loc("GOLDEN/shadowing.py":6:3)
    %1 = pallas.closure lambda "<lambda>" attributes {arg_names = ["f"]} {
    ^bb0(%arg2: !pallas.value loc("GOLDEN/shadowing.py":7:10)):
      pallas.return %arg2 : !pallas.value loc("GOLDEN/shadowing.py":7:20)
    } loc("GOLDEN/shadowing.py":7:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/shadowing.py":7:3)
  } loc("GOLDEN/shadowing.py":5:1)
  pallas.func def @not_jax attributes {arg_names = ["ctx", "ref"]} {
    %0 = pallas.opaque "tuple"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/shadowing.py":10:24)
    %1 = pallas.call @inline_mgpu(%0) origins [value] {arg_indices = array<i64: -1>, keywords = ["arg_types"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":10:2)
    %2 = pallas.global "not_jax" = "local:not_jax" loc("GOLDEN/shadowing.py":11:1)
    %3 = pallas.call_indirect %1(%2) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":10:2)
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":11:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":11:1)):
    %0 = pallas.prim "plgpu.barrier_wait"(%arg1) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":12:3)
  } loc("GOLDEN/shadowing.py":10:1)
  pallas.func def @parameter_shadows attributes {arg_names = ["plgpu", "x_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":15:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":15:1)):
    %0 = pallas.prim "ref.copy_gmem_to_smem"(%arg0, %arg1) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":16:3)
  } loc("GOLDEN/shadowing.py":15:1)
  pallas.func def @local_shadows attributes {arg_names = ["x_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":19:1)):
    %0 = pallas.global "object" = "builtins.object" loc("GOLDEN/shadowing.py":20:8)
    %1 = pallas.call_indirect %0() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":20:8)
    %2 = pallas.prim "value.pallas_call"(%1, %arg0) origins [value, arg] {arg_indices = array<i64: -1, 0>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":21:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/shadowing.py":21:3)
  } loc("GOLDEN/shadowing.py":19:1)
  pallas.func def @uses_module_names attributes {arg_names = ["x_ref", "smem", "barrier"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/shadowing.py":24:1), %arg1: !pallas.value loc("GOLDEN/shadowing.py":24:1), %arg2: !pallas.value loc("GOLDEN/shadowing.py":24:1)):
    %0 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg1, %arg2) origins [arg, arg, arg] {arg_indices = array<i64: 0, 1, 2>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":25:3)
    %1 = pallas.call @not_jax(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/shadowing.py":26:3)
  } loc("GOLDEN/shadowing.py":24:1)
} loc("GOLDEN/shadowing.py":1:1)
