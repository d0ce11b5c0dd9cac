module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/crossfile/main.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/crossfile/main.py":2:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/crossfile/main.py":3:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/crossfile/main.py":4:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/crossfile/main.py":5:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/crossfile/main.py":6:1)
  pallas.func def @kernel attributes {arg_names = ["x_gmem", "o_gmem", "x_smem", "barrier"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/crossfile/main.py":9:1), %arg1: !pallas.value loc("GOLDEN/crossfile/main.py":9:1), %arg2: !pallas.value loc("GOLDEN/crossfile/main.py":9:1), %arg3: !pallas.value loc("GOLDEN/crossfile/main.py":9:1)):
    %0 = pallas.call @copy_in(%arg0, %arg2, %arg3) origins [arg, arg, arg] {arg_indices = array<i64: 0, 2, 3>, callee_file = "GOLDEN/crossfile/kernels/copies.py", keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":10:3)
    %1 = pallas.call @stage(%arg2) origins [arg] {arg_indices = array<i64: 2>, callee_file = "GOLDEN/crossfile/kernels/copies.py", keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":11:3)
    %2 = pallas.call @finish(%arg2, %arg1) origins [arg, arg] {arg_indices = array<i64: 2, 1>, callee_file = "GOLDEN/crossfile/local_helpers.py", keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":12:3)
    %3 = pallas.prim "plgpu.commit_smem"() origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value loc("GOLDEN/crossfile/main.py":13:3)
  } loc("GOLDEN/crossfile/main.py":9:1)
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/crossfile/main.py":16:1)):
    %0 = pallas.constant bool "True" loc("GOLDEN/crossfile/main.py":17:56)
    %1 = pallas.constant int "128" loc("GOLDEN/crossfile/main.py":18:53)
    %2 = pallas.opaque "tuple"(%1) origins [value] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":18:52)
    %3 = pallas.global "jnp.float32" = "jnp.float32" loc("GOLDEN/crossfile/main.py":18:60)
    %4 = pallas.prim "plgpu.SMEM"(%2, %3) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":18:41)
    %5 = pallas.prim "plgpu.Barrier"() origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value loc("GOLDEN/crossfile/main.py":18:74)
    %6 = pallas.opaque "list"(%4, %5) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":18:40)
    %7 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [smem, barrier] {backend = "mosaic_gpu", body = @kernel, body_text = "kernel", interpret_text = "True", pallas.barrier_scratch = [array<i64: 1, 1, 1>], pallas.uninitialized_scratch = "barrier"} loc("GOLDEN/crossfile/main.py":17:10)
    %8 = pallas.call_indirect %7(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/crossfile/main.py":17:10)
    pallas.return %8 : !pallas.value loc("GOLDEN/crossfile/main.py":17:3)
  } loc("GOLDEN/crossfile/main.py":16:1)
} loc("GOLDEN/crossfile/main.py":1:1)
