module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/syntax_error.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/syntax_error.py":1:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/syntax_error.py":2:1)
  pallas.func def @before attributes {arg_names = ["x_gmem", "x_smem", "barrier"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/syntax_error.py":5:1), %arg1: !pallas.value loc("GOLDEN/syntax_error.py":5:1), %arg2: !pallas.value loc("GOLDEN/syntax_error.py":5:1)):
    %0 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg1, %arg2) origins [arg, arg, arg] {arg_indices = array<i64: 0, 1, 2>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/syntax_error.py":6:3)
  } loc("GOLDEN/syntax_error.py":5:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
    %0 = pallas.global "being_typed" = "?" loc("GOLDEN/syntax_error.py":9:5)
    %1 = pallas.global "x_ref" = "?" loc("GOLDEN/syntax_error.py":9:17)
    %2 = pallas.global "o_ref" = "?" loc("GOLDEN/syntax_error.py":9:24)
    %3 = pallas.global "o_ref" = "?" loc("GOLDEN/syntax_error.py":10:3)
    %4 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/syntax_error.py":10:9)
    %5 = pallas.opaque "ERROR"(%3, %4) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/syntax_error.py":10:3)
    %6 = pallas.global "x_ref" = "?" loc("GOLDEN/syntax_error.py":10:16)
    %7 = pallas.global "plgpu.barrier_wait" = "plgpu.barrier_wait" loc("GOLDEN/syntax_error.py":11:3)
    %8 = pallas.opaque "ERROR"(%0, %1, %2, %6, %7) origins [value, value, value, value, value] {arg_indices = array<i64: -1, -1, -1, -1, -1>} : (!pallas.value, !pallas.value, !pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/syntax_error.py":9:1)
  } loc("GOLDEN/syntax_error.py":9:1)
  pallas.func def @after attributes {arg_names = ["x_smem", "o_gmem"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/syntax_error.py":14:1), %arg1: !pallas.value loc("GOLDEN/syntax_error.py":14:1)):
    %0 = pallas.prim "plgpu.copy_smem_to_gmem"(%arg0, %arg1) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/syntax_error.py":15:3)
    %1 = pallas.constant int "0" loc("GOLDEN/syntax_error.py":16:27)
    %2 = pallas.prim "plgpu.wait_smem_to_gmem"(%1) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/syntax_error.py":16:3)
  } loc("GOLDEN/syntax_error.py":14:1)
} loc("GOLDEN/syntax_error.py":1:1)
