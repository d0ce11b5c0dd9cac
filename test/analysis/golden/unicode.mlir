module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/unicode.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/unicode.py":2:1)
  pallas.func def @"kernel_\C3\B1" attributes {arg_names = ["x_gmem", "x_smem", "barrier"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/unicode.py":5:1), %arg1: !pallas.value loc("GOLDEN/unicode.py":5:1), %arg2: !pallas.value loc("GOLDEN/unicode.py":5:1)):
    %0 = pallas.constant str "\22\C3\A9\E2\86\92\E2\9C\93\22" loc("GOLDEN/unicode.py":6:11)
    %1 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg1, %arg2) origins [arg, arg, arg] {arg_indices = array<i64: 0, 1, 2>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/unicode.py":6:23)
    %2 = pallas.prim "plgpu.barrier_wait"(%arg2) origins [arg] {arg_indices = array<i64: 2>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/unicode.py":7:3)
  } loc("GOLDEN/unicode.py":5:1)
} loc("GOLDEN/unicode.py":1:1)
