module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/imports.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":2:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":3:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":4:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":5:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":6:1)
  pallas.func module @__module__.5 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":7:1)
  pallas.func module @__module__.6 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":8:1)
  pallas.func module @__module__.7 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":9:1)
  pallas.func module @__module__.8 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/imports.py":10:1)
  pallas.func module @__module__.9 attributes {arg_names = []} {
  } {
    %0 = pallas.global "plgpu" = "plgpu" loc("GOLDEN/imports.py":12:7)
  } loc("GOLDEN/imports.py":12:1)
  pallas.func module @__module__.10 attributes {arg_names = []} {
  } {
    %0 = pallas.global "pl.pallas_call" = "pl.pallas_call" loc("GOLDEN/imports.py":13:8)
  } loc("GOLDEN/imports.py":13:1)
  pallas.func def @kernel attributes {arg_names = ["x_gmem", "o_gmem", "x_smem", "barrier"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/imports.py":16:1), %arg1: !pallas.value loc("GOLDEN/imports.py":16:1), %arg2: !pallas.value loc("GOLDEN/imports.py":16:1), %arg3: !pallas.value loc("GOLDEN/imports.py":16:1)):
    %0 = pallas.prim "plgpu.copy_gmem_to_smem"(%arg0, %arg2, %arg3) origins [arg, arg, arg] {arg_indices = array<i64: 0, 2, 3>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":17:3)
    %1 = pallas.prim "plgpu.barrier_wait"(%arg3) origins [arg] {arg_indices = array<i64: 3>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/imports.py":18:3)
    %2 = pallas.prim "plgpu.commit_smem"() origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value loc("GOLDEN/imports.py":19:3)
    %3 = pallas.opaque "factory"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/imports.py":21:4)
    %4 = pallas.closure def "add_one" attributes {arg_names = ["smem_ref"]} {
    ^bb0(%arg4: !pallas.value loc("GOLDEN/imports.py":22:3)):
      %7 = pallas.inline_mgpu(%arg4) origins [arg] arg_type_kinds [ref] {arg_indices = array<i64: 0>, arg_types = "(RefType(),)", arg_types_count = 1 : i64, return_type = "plgpu.ShapeDtypeStruct((128,), jnp.float32)"} : (!pallas.value) -> !pallas.value {
      ^bb0(%arg5: !pallas.value loc("GOLDEN/imports.py":22:3), %arg6: !pallas.value loc("GOLDEN/imports.py":22:3)):
        %8 = pallas.prim "mgpu.FragmentedArray.load_tiled"(%arg6) origins [arg] {arg_indices = array<i64: 1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/imports.py":23:9)
        %9 = pallas.constant int "1" loc("GOLDEN/imports.py":24:23)
        %10 = pallas.prim "value.mlir_dtype"(%8) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/imports.py":24:26)
        %11 = pallas.prim "mgpu.c"(%9, %10) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":24:16)
        %12 = pallas.opaque "binary_operator"(%8, %11) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":24:12)
        pallas.return %12 : !pallas.value loc("GOLDEN/imports.py":24:5)
      } loc("GOLDEN/imports.py":22:3)
      pallas.return %7 : !pallas.value loc("GOLDEN/imports.py":22:3)
    } loc("GOLDEN/imports.py":22:3)
    %5 = pallas.call_indirect %4(%arg2) origins [arg] {arg_indices = array<i64: 2>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":26:7)
    %6 = pallas.prim "plgpu.copy_smem_to_gmem"(%arg2, %arg1) origins [arg, arg] {arg_indices = array<i64: 2, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":27:3)
  } loc("GOLDEN/imports.py":16:1)
  pallas.func def @run attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/imports.py":30:1)):
    %0 = pallas.constant bool "True" loc("GOLDEN/imports.py":31:54)
    %1 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "True"} loc("GOLDEN/imports.py":31:7)
    %2 = pallas.call_indirect %1(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":31:7)
    %3 = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [] {body = @kernel, body_text = "kernel"} loc("GOLDEN/imports.py":32:7)
    %4 = pallas.call_indirect %3(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":32:7)
    %5 = pallas.launch "pl.pallas_call" call paths [compiled] interpret absent scratch [] {body = @kernel, body_text = "kernel"} loc("GOLDEN/imports.py":33:7)
    %6 = pallas.call_indirect %5(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":33:7)
    %7 = pallas.opaque "expression_list"(%2, %4, %6) origins [value, value, value] {arg_indices = array<i64: -1, -1, -1>} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/imports.py":34:10)
    pallas.return %7 : !pallas.value loc("GOLDEN/imports.py":34:3)
  } loc("GOLDEN/imports.py":30:1)
} loc("GOLDEN/imports.py":1:1)
