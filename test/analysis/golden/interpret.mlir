module attributes {pallas.imported_backends = ["mosaic_gpu"], pallas.path = "GOLDEN/interpret.py"} {
  pallas.func module @__module__.0 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/interpret.py":2:1)
  pallas.func module @__module__.1 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/interpret.py":3:1)
  pallas.func module @__module__.2 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/interpret.py":4:1)
  pallas.func module @__module__.3 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/interpret.py":5:1)
  pallas.func module @__module__.4 attributes {arg_names = []} {
  } {
  } loc("GOLDEN/interpret.py":6:1)
  pallas.func module @__module__.5 attributes {arg_names = []} {
  } {
    %0 = pallas.constant bool "True" loc("GOLDEN/interpret.py":9:13)
  } loc("GOLDEN/interpret.py":9:1)
  pallas.func module @__module__.6 attributes {arg_names = []} {
  } {
    %0 = pallas.constant bool "True" loc("GOLDEN/interpret.py":10:57)
    %1 = pallas.prim "interpret.InterpretGPUParams"(%0) origins [value] {arg_indices = array<i64: -1>, keywords = ["skip_floating_point_ops"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":10:14)
  } loc("GOLDEN/interpret.py":10:1)
  pallas.func def @kernel attributes {arg_names = ["x_ref", "o_ref"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":13:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":13:1)):
    %0 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/interpret.py":14:22)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) origins [arg, value] {arg_indices = array<i64: 0, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:16)
    %2 = pallas.constant float "1.0" loc("GOLDEN/interpret.py":14:29)
    %3 = pallas.opaque "binary_operator"(%1, %2) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:16)
    %4 = pallas.opaque "ellipsis"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/interpret.py":14:9)
    %5 = pallas.prim "ref.__setitem__"(%arg1, %4, %3) origins [arg, value, value] {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:3)
  } loc("GOLDEN/interpret.py":13:1)
  pallas.func def @literal attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":17:1)):
    %0 = pallas.constant bool "False" loc("GOLDEN/interpret.py":18:56)
    %1 = pallas.launch "pl.pallas_call" call paths [compiled] interpret literal scratch [] {body = @kernel, body_text = "kernel", interpret_text = "False"} loc("GOLDEN/interpret.py":18:10)
    %2 = pallas.call_indirect %1(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":18:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":18:3)
  } loc("GOLDEN/interpret.py":17:1)
  pallas.func def @constant attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":21:1)):
    %0 = pallas.global "INTERPRET" = "const:True" loc("GOLDEN/interpret.py":22:56)
    %1 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret module_constant scratch [] {body = @kernel, body_text = "kernel", interpret_text = "INTERPRET"} loc("GOLDEN/interpret.py":22:10)
    %2 = pallas.call_indirect %1(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":22:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":22:3)
  } loc("GOLDEN/interpret.py":21:1)
  pallas.func def @default attributes {arg_names = ["x", "interpret"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":25:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":25:1)):
    %0 = pallas.launch "pl.pallas_call" call paths [interpret_hlo] interpret default_param scratch [] {body = @kernel, body_text = "kernel", interpret_text = "interpret"} loc("GOLDEN/interpret.py":26:10)
    %1 = pallas.call_indirect %0(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":26:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/interpret.py":26:3)
  } loc("GOLDEN/interpret.py":25:1)
  pallas.func def @gpu_params attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":29:1)):
    %0 = pallas.constant int "2" loc("GOLDEN/interpret.py":30:102)
    %1 = pallas.prim "interpret.InterpretGPUParams"(%0) origins [value] {arg_indices = array<i64: -1>, keywords = ["num_tma_threads_per_device"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":30:56)
    %2 = pallas.launch "pl.pallas_call" call paths [interpret_gpu] interpret interpret_gpu_params scratch [] {backend = "mosaic_gpu", body = @kernel, body_text = "kernel", interpret_params = {num_tma_threads_per_device = "2"}, interpret_text = "InterpretGPUParams(num_tma_threads_per_device=2)", pallas.mesh_axes = [""]} loc("GOLDEN/interpret.py":30:10)
    %3 = pallas.call_indirect %2(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":30:10)
    pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":30:3)
  } loc("GOLDEN/interpret.py":29:1)
  pallas.func def @gpu_constant attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":33:1)):
    %0 = pallas.global "GPU_PARAMS" = "const:InterpretGPUParams(skip_floating_point_ops=True)" loc("GOLDEN/interpret.py":34:56)
    %1 = pallas.launch "pl.pallas_call" call paths [interpret_gpu] interpret module_constant scratch [] {body = @kernel, body_text = "kernel", interpret_params = {skip_floating_point_ops = "True"}, interpret_text = "GPU_PARAMS", pallas.mesh_axes = [""]} loc("GOLDEN/interpret.py":34:10)
    %2 = pallas.call_indirect %1(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":34:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":34:3)
  } loc("GOLDEN/interpret.py":33:1)
  pallas.func def @unknown attributes {arg_names = ["x", "mode"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":37:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":37:1)):
    %0 = pallas.launch "pl.pallas_call" call paths [unknown] interpret param scratch [] {body = @kernel, body_text = "kernel", interpret_text = "mode", pallas.mesh_axes = [""]} loc("GOLDEN/interpret.py":38:10)
    %1 = pallas.call_indirect %0(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":38:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/interpret.py":38:3)
  } loc("GOLDEN/interpret.py":37:1)
  pallas.func def @in_context attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":41:1)):
    %0 = pallas.prim "interpret.force_gpu_interpret_mode"() origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value loc("GOLDEN/interpret.py":42:8)
    %1 = pallas.scope "python.with"(%0) origins [value] arg_origins [] {arg_indices = array<i64: -1>, context = "force_gpu_interpret_mode", keywords = [""]} : (!pallas.value) -> !pallas.value {
      %2 = pallas.launch "pl.pallas_call" call paths [interpret_gpu] interpret context scratch [] {body = @kernel, body_text = "kernel", context = "force_gpu_interpret_mode", context_column = 8 : i64, context_line = 42 : i64, pallas.mesh_axes = [""]} loc("GOLDEN/interpret.py":43:12)
      %3 = pallas.call_indirect %2(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":43:12)
      pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":43:5)
    } loc("GOLDEN/interpret.py":42:3)
  } loc("GOLDEN/interpret.py":41:1)
  pallas.func def @after_set attributes {arg_names = ["x"]} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":46:1)):
    %0 = pallas.prim "interpret.InterpretGPUParams"() origins [] {arg_indices = array<i64>, keywords = []} : () -> !pallas.value loc("GOLDEN/interpret.py":47:26)
    %1 = pallas.prim "interpret.set_gpu_interpret_mode"(%0) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":47:3)
    %2 = pallas.launch "plgpu.kernel" call paths [interpret_gpu] interpret context scratch [] {body = @kernel, body_text = "kernel", context = "set_gpu_interpret_mode", context_column = 3 : i64, context_line = 47 : i64, pallas.mesh_axes = [""]} loc("GOLDEN/interpret.py":48:10)
    %3 = pallas.call_indirect %2(%arg0) origins [arg] {arg_indices = array<i64: 0>, keywords = [""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":48:10)
    pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":48:3)
  } loc("GOLDEN/interpret.py":46:1)
  pallas.func module @__module__.7 attributes {arg_names = []} {
  } {
    %0 = pallas.global "__name__" = "?" loc("GOLDEN/interpret.py":51:4)
    %1 = pallas.constant str "\22__main__\22" loc("GOLDEN/interpret.py":51:16)
    %2 = pallas.opaque "comparison_operator"(%0, %1) origins [value, value] {arg_indices = array<i64: -1, -1>} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":51:4)
    pallas.if %2 : !pallas.value {
      %4 = pallas.constant int "128" loc("GOLDEN/interpret.py":52:17)
      %5 = pallas.opaque "tuple"(%4) origins [value] {arg_indices = array<i64: -1>} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":52:16)
      %6 = pallas.global "jnp.float32" = "jnp.float32" loc("GOLDEN/interpret.py":52:24)
      %7 = pallas.prim "jnp.ones"(%5, %6) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":52:7)
      %8 = pallas.global "print" = "builtins.print" loc("GOLDEN/interpret.py":53:3)
      %9 = pallas.call @literal(%7) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:9)
      %10 = pallas.call @constant(%7) origins [value] {arg_indices = array<i64: -1>, keywords = [""]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:21)
      %11 = pallas.call_indirect %8(%9, %10) origins [value, value] {arg_indices = array<i64: -1, -1>, keywords = ["", ""]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:3)
    } else {
    } loc("GOLDEN/interpret.py":51:1)
    %3 = pallas.opaque "join"() origins [] {arg_indices = array<i64>} : () -> !pallas.value loc("GOLDEN/interpret.py":51:1)
  } loc("GOLDEN/interpret.py":51:1)
} loc("GOLDEN/interpret.py":1:1)
