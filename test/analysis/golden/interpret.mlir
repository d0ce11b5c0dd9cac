module attributes {pallas.path = "GOLDEN/interpret.py"} {
  pallas.func @__module__.0 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/interpret.py":2:1)
  pallas.func @__module__.1 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/interpret.py":3:1)
  pallas.func @__module__.2 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/interpret.py":4:1)
  pallas.func @__module__.3 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/interpret.py":5:1)
  pallas.func @__module__.4 attributes {arg_names = [], kind = "module"} {
  } {
  } loc("GOLDEN/interpret.py":6:1)
  pallas.func @__module__.5 attributes {arg_names = [], kind = "module"} {
  } {
    %0 = pallas.constant "True" {kind = "bool"} loc("GOLDEN/interpret.py":9:13)
  } loc("GOLDEN/interpret.py":9:1)
  pallas.func @__module__.6 attributes {arg_names = [], kind = "module"} {
  } {
    %0 = pallas.constant "True" {kind = "bool"} loc("GOLDEN/interpret.py":10:57)
    %1 = pallas.prim "interpret.InterpretGPUParams"(%0) {arg_indices = array<i64: -1>, keywords = ["skip_floating_point_ops"], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":10:14)
  } loc("GOLDEN/interpret.py":10:1)
  pallas.func @kernel attributes {arg_names = ["x_ref", "o_ref"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":13:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":13:1)):
    %0 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("GOLDEN/interpret.py":14:22)
    %1 = pallas.prim "ref.__getitem__"(%arg0, %0) {arg_indices = array<i64: 0, -1>, keywords = ["", ""], origins = ["arg", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:16)
    %2 = pallas.constant "1.0" {kind = "float"} loc("GOLDEN/interpret.py":14:29)
    %3 = pallas.opaque "binary_operator"(%1, %2) {arg_indices = array<i64: -1, -1>, origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:16)
    %4 = pallas.opaque "ellipsis"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("GOLDEN/interpret.py":14:9)
    %5 = pallas.prim "ref.__setitem__"(%arg1, %4, %3) {arg_indices = array<i64: 1, -1, -1>, keywords = ["", "", ""], origins = ["arg", "value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":14:3)
  } loc("GOLDEN/interpret.py":13:1)
  pallas.func @literal attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":17:1)):
    %0 = pallas.constant "False" {kind = "bool"} loc("GOLDEN/interpret.py":18:56)
    %1 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "literal", interpret_text = "False", paths = ["compiled"], scratch = []} loc("GOLDEN/interpret.py":18:10)
    %2 = pallas.call_indirect %1(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":18:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":18:3)
  } loc("GOLDEN/interpret.py":17:1)
  pallas.func @constant attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":21:1)):
    %0 = pallas.global "INTERPRET" = "const:True" loc("GOLDEN/interpret.py":22:56)
    %1 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "module_constant", interpret_text = "INTERPRET", paths = ["interpret_hlo"], scratch = []} loc("GOLDEN/interpret.py":22:10)
    %2 = pallas.call_indirect %1(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":22:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":22:3)
  } loc("GOLDEN/interpret.py":21:1)
  pallas.func @default attributes {arg_names = ["x", "interpret"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":25:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":25:1)):
    %0 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "default_param", interpret_text = "interpret", paths = ["interpret_hlo"], scratch = []} loc("GOLDEN/interpret.py":26:10)
    %1 = pallas.call_indirect %0(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":26:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/interpret.py":26:3)
  } loc("GOLDEN/interpret.py":25:1)
  pallas.func @gpu_params attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":29:1)):
    %0 = pallas.constant "2" {kind = "int"} loc("GOLDEN/interpret.py":30:102)
    %1 = pallas.prim "interpret.InterpretGPUParams"(%0) {arg_indices = array<i64: -1>, keywords = ["num_tma_threads_per_device"], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":30:56)
    %2 = pallas.launch "pl.pallas_call" {backend = "mosaic_gpu", body = @kernel, body_text = "kernel", form = "call", interpret_params = {num_tma_threads_per_device = "2"}, interpret_source = "interpret_gpu_params", interpret_text = "InterpretGPUParams(num_tma_threads_per_device=2)", paths = ["interpret_gpu"], scratch = []} loc("GOLDEN/interpret.py":30:10)
    %3 = pallas.call_indirect %2(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":30:10)
    pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":30:3)
  } loc("GOLDEN/interpret.py":29:1)
  pallas.func @gpu_constant attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":33:1)):
    %0 = pallas.global "GPU_PARAMS" = "const:InterpretGPUParams(skip_floating_point_ops=True)" loc("GOLDEN/interpret.py":34:56)
    %1 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_params = {skip_floating_point_ops = "True"}, interpret_source = "module_constant", interpret_text = "GPU_PARAMS", paths = ["interpret_gpu"], scratch = []} loc("GOLDEN/interpret.py":34:10)
    %2 = pallas.call_indirect %1(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":34:10)
    pallas.return %2 : !pallas.value loc("GOLDEN/interpret.py":34:3)
  } loc("GOLDEN/interpret.py":33:1)
  pallas.func @unknown attributes {arg_names = ["x", "mode"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":37:1), %arg1: !pallas.value loc("GOLDEN/interpret.py":37:1)):
    %0 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", form = "call", interpret_source = "param", interpret_text = "mode", paths = ["unknown"], scratch = []} loc("GOLDEN/interpret.py":38:10)
    %1 = pallas.call_indirect %0(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":38:10)
    pallas.return %1 : !pallas.value loc("GOLDEN/interpret.py":38:3)
  } loc("GOLDEN/interpret.py":37:1)
  pallas.func @in_context attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":41:1)):
    %0 = pallas.prim "interpret.force_gpu_interpret_mode"() {arg_indices = array<i64>, keywords = [], origins = []} : () -> !pallas.value loc("GOLDEN/interpret.py":42:8)
    %1 = pallas.scope "python.with"(%0) {arg_indices = array<i64: -1>, arg_origins = [], context = "force_gpu_interpret_mode", keywords = [""], origins = ["value"]} : (!pallas.value) -> !pallas.value {
      %2 = pallas.launch "pl.pallas_call" {body = @kernel, body_text = "kernel", context = "force_gpu_interpret_mode", context_column = 8 : i64, context_line = 42 : i64, form = "call", interpret_source = "context", paths = ["interpret_gpu"], scratch = []} loc("GOLDEN/interpret.py":43:12)
      %3 = pallas.call_indirect %2(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":43:12)
      pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":43:5)
    } loc("GOLDEN/interpret.py":42:3)
  } loc("GOLDEN/interpret.py":41:1)
  pallas.func @after_set attributes {arg_names = ["x"], kind = "def"} {
  } {
  ^bb0(%arg0: !pallas.value loc("GOLDEN/interpret.py":46:1)):
    %0 = pallas.prim "interpret.InterpretGPUParams"() {arg_indices = array<i64>, keywords = [], origins = []} : () -> !pallas.value loc("GOLDEN/interpret.py":47:26)
    %1 = pallas.prim "interpret.set_gpu_interpret_mode"(%0) {arg_indices = array<i64: -1>, keywords = [""], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":47:3)
    %2 = pallas.launch "plgpu.kernel" {body = @kernel, body_text = "kernel", context = "set_gpu_interpret_mode", context_column = 3 : i64, context_line = 47 : i64, form = "call", interpret_source = "context", paths = ["interpret_gpu"], scratch = []} loc("GOLDEN/interpret.py":48:10)
    %3 = pallas.call_indirect %2(%arg0) {arg_indices = array<i64: 0>, keywords = [""], origins = ["arg"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":48:10)
    pallas.return %3 : !pallas.value loc("GOLDEN/interpret.py":48:3)
  } loc("GOLDEN/interpret.py":46:1)
  pallas.func @__module__.7 attributes {arg_names = [], kind = "module"} {
  } {
    %0 = pallas.global "__name__" = "?" loc("GOLDEN/interpret.py":51:4)
    %1 = pallas.constant "\22__main__\22" {kind = "str"} loc("GOLDEN/interpret.py":51:16)
    %2 = pallas.opaque "comparison_operator"(%0, %1) {arg_indices = array<i64: -1, -1>, origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":51:4)
    pallas.if %2 : !pallas.value {
      %4 = pallas.constant "128" {kind = "int"} loc("GOLDEN/interpret.py":52:17)
      %5 = pallas.opaque "tuple"(%4) {arg_indices = array<i64: -1>, origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":52:16)
      %6 = pallas.global "jnp.float32" = "jnp.float32" loc("GOLDEN/interpret.py":52:24)
      %7 = pallas.prim "jnp.ones"(%5, %6) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":52:7)
      %8 = pallas.global "print" = "builtins.print" loc("GOLDEN/interpret.py":53:3)
      %9 = pallas.call @literal(%7) {arg_indices = array<i64: -1>, keywords = [""], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:9)
      %10 = pallas.call @constant(%7) {arg_indices = array<i64: -1>, keywords = [""], origins = ["value"]} : (!pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:21)
      %11 = pallas.call_indirect %8(%9, %10) {arg_indices = array<i64: -1, -1>, keywords = ["", ""], origins = ["value", "value"]} : (!pallas.value, !pallas.value, !pallas.value) -> !pallas.value loc("GOLDEN/interpret.py":53:3)
    } else {
    } loc("GOLDEN/interpret.py":51:1)
    %3 = pallas.opaque "join"() {arg_indices = array<i64>, origins = []} : () -> !pallas.value loc("GOLDEN/interpret.py":51:1)
  } loc("GOLDEN/interpret.py":51:1)
} loc("GOLDEN/interpret.py":1:1)
