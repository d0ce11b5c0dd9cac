module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/nested.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":2:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":3:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":4:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":5:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":6:1)
  pallas.func module @__module__.5 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/nested.py":7:1)
  pallas.func def @matmul_kernel attributes {arg_names = ["a_gmem", "b_gmem", "o_gmem"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/nested.py":10:1), %arg1: !pallas.value loc("GOLDEN/nested.py":10:1), %arg2: !pallas.value loc("GOLDEN/nested.py":10:1)):
    %0 = pallas.closure def "compute" attributes {arg_names = ["idx", "a_smem", "b_smem"]} {
    ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":11:3), %arg4: !pallas.value loc("GOLDEN/nested.py":11:3), %arg5: !pallas.value loc("GOLDEN/nested.py":11:3)):
      %30 = pallas.opaque "factory"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":12:6)
      %31 = pallas.constant int "64" loc("GOLDEN/nested.py":12:54)
      %32 = pallas.constant int "64" loc("GOLDEN/nested.py":12:58)
      %33 = pallas.opaque "tuple"(%31, %32) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":12:53)
      %34 = pallas.global "jnp.float32" = "jnp.float32" loc("GOLDEN/nested.py":12:63)
      %35 = pallas.prim "plgpu.ACC"(%33, %34) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":12:43)
      %36 = pallas.scope "pl.run_scoped"(%35) origins [value] arg_origins [acc] allocations [acc] {arg_indices = array<i64: -1>, keywords = ["acc"]} : (!pallas.value) -> !pallas.value {
      ^bb0(%arg6: !pallas.ref loc("GOLDEN/nested.py":12:6)):
        %37 = pallas.prim "plgpu.wgmma"(%arg6, %arg4, %arg5) origins [acc, arg, arg] {arg_indices = array<i64: -1, 1, 2>, keywords = ["", "", ""]} : (!pallas.ref, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":14:7)
        %38 = pallas.constant int "0" loc("GOLDEN/nested.py":15:24)
        %39 = pallas.prim "plgpu.wgmma_wait"(%38) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":15:7)
        %40 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":16:25)
        %41 = pallas.prim "ref.__getitem__"(%arg6, %40) origins [acc, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.ref, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":16:21)
        %42 = pallas.prim "ref.dtype"(%arg2) origins [arg] {arg_indices = array<i64: 2>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":16:37)
        %43 = pallas.prim "value.astype"(%41, %42) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":16:21)
        %44 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":16:14)
        %45 = pallas.prim "ref.__setitem__"(%arg2, %44, %43) origins [arg, value, value] {arg_indices = array<i64: 2, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":16:7)
      } loc("GOLDEN/nested.py":12:6)
    } loc("GOLDEN/nested.py":11:3)
    %1 = pallas.constant int "4" loc("GOLDEN/nested.py":18:38)
    %2 = pallas.opaque "tuple"(%1) origins [value] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":18:37)
    %3 = pallas.opaque "list"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":18:52)
    %4 = pallas.opaque "list"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":18:66)
    %5 = pallas.scope "plgpu.emit_pipeline"(%2, %3, %4) origins [value, value, value] arg_origins [value, pipeline, pipeline] {arg_indices = array<i64: -1, -1, -1>, keywords = ["grid", "in_specs", "out_specs"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value {
    ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":18:3), %arg4: !pallas.ref loc("GOLDEN/nested.py":18:3), %arg5: !pallas.ref loc("GOLDEN/nested.py":18:3)):
      %30 = pallas.call_indirect %0(%arg3, %arg4, %arg5) origins [value, pipeline, pipeline] {arg_indices = array<i64: -1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.ref, !pallas.ref) -> !pallas.value loc(callsite("GOLDEN/nested.py":11:3 at "GOLDEN/nested.py":18:3))
    } loc("GOLDEN/nested.py":18:3)
    %6 = pallas.call_indirect %5(%arg0, %arg1) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":18:3)
    %7 = pallas.opaque "factory"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":20:4)
    %8 = pallas.constant str "\22wg\22" loc("GOLDEN/nested.py":20:27)
    %9 = pallas.prim "lax.axis_index"(%8) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":20:12)
    %10 = pallas.constant int "0" loc("GOLDEN/nested.py":20:36)
    %11 = pallas.opaque "comparison_operator"(%9, %10) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":20:12)
    %12 = pallas.scope "pl.when"(%11) origins [value] arg_origins [] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value {
      %30 = pallas.closure lambda "<lambda>" attributes {arg_names = ["bar"]} {
      ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":22:19)):
        %34 = pallas.prim "plgpu.barrier_wait"(%arg3) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":22:31)
        pallas.return %34 : !pallas.value loc("GOLDEN/nested.py":22:31)
      } loc("GOLDEN/nested.py":22:19)
      %31 = pallas.constant int "1" loc("GOLDEN/nested.py":22:83)
      %32 = pallas.prim "plgpu.Barrier"(%31) origins [value] {arg_indices = array<i64: -1>, keywords = ["num_arrivals"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":22:56)
      %33 = pallas.scope "pl.run_scoped"(%32) origins [value] arg_origins [run_scoped] allocations [barrier] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value {
      ^bb0(%arg3: !pallas.ref loc("GOLDEN/nested.py":22:5)):
        %34 = pallas.call_indirect %30(%arg3) origins [run_scoped] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value, !pallas.ref) -> !pallas.value loc(callsite("GOLDEN/nested.py":22:19 at "GOLDEN/nested.py":22:5))
      } loc("GOLDEN/nested.py":22:5)
    } loc("GOLDEN/nested.py":20:4)
    %13 = pallas.opaque "factory"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":24:4)
    %14 = pallas.constant int "0" loc("GOLDEN/nested.py":24:12)
    %15 = pallas.constant int "8" loc("GOLDEN/nested.py":24:15)
    %16 = pallas.scope "pl.loop"(%14, %15) origins [value, value] arg_origins [value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value {
    ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":24:4)):
      %30 = pallas.constant int "4" loc("GOLDEN/nested.py":26:15)
      %31 = pallas.opaque "comparison_operator"(%arg3, %30) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":26:8)
      pallas.if %31 : !pallas.value {
        %32 = pallas.prim "ref.__getitem__"(%arg0, %arg3) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":27:22)
        %33 = pallas.prim "ref.__setitem__"(%arg2, %arg3, %32) origins [arg, value, value] {arg_indices = array<i64: 2, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":27:7)
      } else {
        %32 = pallas.prim "ref.__getitem__"(%arg1, %arg3) origins [arg, value] {arg_indices = array<i64: 1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":29:22)
        %33 = pallas.prim "ref.__setitem__"(%arg2, %arg3, %32) origins [arg, value, value] {arg_indices = array<i64: 2, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":29:7)
      } loc("GOLDEN/nested.py":26:5)
    } loc("GOLDEN/nested.py":24:4)
    %17 = pallas.constant int "0" loc("GOLDEN/nested.py":31:25)
    %18 = pallas.constant int "8" loc("GOLDEN/nested.py":31:28)
    %19 = pallas.constant float "0.0" loc("GOLDEN/nested.py":31:59)
    %20 = pallas.closure lambda "<lambda>" attributes {arg_names = ["i", "c"]} {
    ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":31:31), %arg4: !pallas.value loc("GOLDEN/nested.py":31:31)):
      %30 = pallas.prim "ref.__getitem__"(%arg0, %arg3) origins [arg, arg] {arg_indices = array<i64: 0, 0>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":31:48)
      %31 = pallas.opaque "binary_operator"(%arg4, %30) origins [arg, value] {arg_indices = array<i64: 1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":31:44)
      pallas.return %31 : !pallas.value loc("GOLDEN/nested.py":31:44)
    } loc("GOLDEN/nested.py":31:31)
    %21 = pallas.scope "lax.fori_loop"(%17, %18, %19) origins [value, value, value] arg_origins [value, value] {arg_indices = array<i64: -1, -1, -1>, keywords = ["lower", "upper", "init_val"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value {
    ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":31:11), %arg4: !pallas.value loc("GOLDEN/nested.py":31:11)):
      %30 = pallas.call_indirect %20(%arg3, %arg4) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc(callsite("GOLDEN/nested.py":31:31 at "GOLDEN/nested.py":31:11))
    } loc("GOLDEN/nested.py":31:11)
    %22 = pallas.global "range" = "builtins.range" loc("GOLDEN/nested.py":32:12)
    %23 = pallas.constant int "2" loc("GOLDEN/nested.py":32:18)
    %24 = pallas.call_indirect %22(%23) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":32:12)
    %25 = pallas.scope "python.for"(%24) origins [value] arg_origins [] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value {
      %30 = pallas.opaque "iter"(%24) origins [value] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":32:7)
      %31 = pallas.prim "ref.at"(%arg0, %30) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":33:11)
    } loc("GOLDEN/nested.py":32:3)
    %26 = pallas.opaque "join"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":32:3)
    %27 = pallas.opaque "join"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":32:3)
    %28 = pallas.prim "plgpu.barrier_arrive"(%27) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":34:3)
    %29 = pallas.constant bool "False" loc("GOLDEN/nested.py":36:6)
    pallas.if %29 : !pallas.value attributes {static_cond = false} {
      %30 = pallas.opaque "factory"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/nested.py":37:5)
      %31 = pallas.closure lambda "<lambda>" attributes {arg_names = []} {
        %33 = pallas.inline_mgpu() origins [] arg_type_kinds [] {arg_indices = array<i64>, arg_types_count = 0 : i64} : () -> !pallas.value {
        ^bb0(%arg3: !pallas.value loc("GOLDEN/nested.py":37:25)):
          %34 = pallas.constant none "None" loc("GOLDEN/nested.py":37:37)
          pallas.return %34 : !pallas.value loc("GOLDEN/nested.py":37:37)
        } loc("GOLDEN/nested.py":37:25)
        pallas.return %33 : !pallas.value loc("GOLDEN/nested.py":37:25)
      } loc("GOLDEN/nested.py":37:25)
      %32 = pallas.call_indirect %31() origins [] {arg_indices = array<i64>, keywords = []} : (!pallas.value) -> !pallas.value loc("GOLDEN/nested.py":37:5)
    } else {
    } loc("GOLDEN/nested.py":36:3)
  } loc("GOLDEN/nested.py":10:1)
  pallas.func def @run attributes {arg_names = ["a", "b"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/nested.py":40:1), %arg1: !pallas.value loc("GOLDEN/nested.py":40:1)):
    %0 = pallas.constant int "2" loc("GOLDEN/nested.py":41:63)
    %1 = pallas.constant str "\22wg\22" loc("GOLDEN/nested.py":41:78)
    %2 = pallas.launch "plgpu.kernel" call paths [compiled] interpret absent scratch [] {body = @matmul_kernel, body_text = "matmul_kernel", num_threads = 2 : i64, thread_name = "wg"} loc("GOLDEN/nested.py":41:10)
    %3 = pallas.call_indirect %2(%arg0, %arg1) origins [arg, arg] {arg_indices = array<i64: 0, 1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/nested.py":41:10)
    pallas.return %3 : !pallas.value loc("GOLDEN/nested.py":41:3)
  } loc("GOLDEN/nested.py":40:1)
} loc("GOLDEN/nested.py":1:1)
