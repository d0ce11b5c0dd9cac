module attributes {pallas.path = "GOLDEN/unicode.py"} {
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/unicode.py":2:1)
  pallas.func @"kernel_\C3\B1" attributes {arg_names = ["x_gmem", "x_smem", "barrier"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/unicode.py":5:1), %arg1: !pallas.value loc("GOLDEN/unicode.py":5:1), %arg2: !pallas.value loc("GOLDEN/unicode.py":5:1)):
    %0 = pallas.constant "\22\C3\A9\E2\86\92\E2\9C\93\22" {kind = "str"} loc("GOLDEN/unicode.py":6:11)
    %1 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg1, %arg2) {arg_indices = array<i64: 0, 1, 2>, keywords = ["", "", ""], origins = ["arg", "arg", "arg"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/unicode.py":6:23)
    %2 = pallas.prim "plgpu.barrier_wait"(%arg2) {arg_indices = array<i64: 2>, keywords = [""], origins = ["arg"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/unicode.py":7:3)
  } loc("GOLDEN/unicode.py":5:1)
} loc("GOLDEN/unicode.py":1:1)
